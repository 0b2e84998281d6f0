#!/usr/bin/python3
"""The default profile's YAML verdicts against ruamel's YAML 1.2 parser, over generated inputs.

The loader reads a frontmatter with yaml-cpp (through the library's YAML front end), which takes
some text that YAML refuses: a quoted value never closed, a value not indented past its key, a
line starting with `%` (docs/diagnostics.md, `yaml-syntax`). This script writes the inputs of
reference_diff.py (document markers, value shapes, corpus mutations with a fixed seed) as one
library, runs `agentskills list --json` over it once, and compares, for each input, whether the
loader refused its YAML (a `yaml-syntax` diagnostic) with whether ruamel's parser (Debian's
python3-ruamel.yaml, events only: no types are constructed) reads it as one document.

Known differences, counted and not failed (docs/conformance.md):
  tab        ruamel's scanner refuses a tab that YAML 1.2 allows inside a line;
  indent     ruamel reads a quoted value's next line at column 0, which YAML 1.2 refuses for a
             value of a block mapping; the loader refuses it when that line starts with `%`;
  tag        ruamel (0.17) ends a tag elsewhere than YAML 1.2 does (`[!a]`, `!"text"`, `!a]`),
             so the two disagree on text with a tag, either way;
  question   yaml-cpp refuses a `?` inside a plain scalar of a flow collection (`[a?b]`), which
             YAML allows ("unknown token"): such a skill is skipped, nothing is misread;
  colon      an empty key (`: ` where a key would start, at a line's start or after `[`, `{` or
             `,`): ruamel and yaml-cpp each read some of these shapes that the other refuses.

  /usr/bin/python3 scripts/ci/yaml_diff.py BUILD/agentskills [--mutations N] [--seed S] [--show N]

Exits 1 when any other input is read by one and refused by the other, 2 on usage errors.
"""
import argparse
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_diff import SHARED, generated  # noqa: E402  (the same inputs)

from ruamel.yaml import YAML  # noqa: E402
from ruamel.yaml.events import DocumentEndEvent, DocumentStartEvent  # noqa: E402

PERCENT = "a line starts with '%'"


def frontmatter_of(text: str):
    """The YAML between the first two `---` lines, as the loader splits it (LF files only)."""
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i] == "---":
            return "\n".join(lines[1:i]) + "\n"
    return None


def ruamel_verdict(yaml_text: str):
    """(reads it as one document, the error's first line)."""
    try:
        events = list(YAML(typ="rt").parse(io.StringIO(yaml_text)))
        list(YAML(typ="rt").compose_all(io.StringIO(yaml_text)))  # an alias with no anchor
    except Exception as e:  # ruamel's scanner and parser errors
        return False, str(e).split("\n")[0] + " " + " ".join(str(e).split("\n")[1:3])
    starts = sum(isinstance(e, DocumentStartEvent) for e in events)
    explicit_end = any(isinstance(e, DocumentEndEvent) and e.explicit for e in events)
    return starts <= 1 and not explicit_end, "more than one document" if starts > 1 or explicit_end else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cli", help="the agentskills program")
    ap.add_argument("--corpus", default=str(SHARED / "corpus"))
    ap.add_argument("--mutations", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    inputs = []
    for name, text in generated(Path(args.corpus), args.mutations, args.seed):
        yaml_text = frontmatter_of(text)
        if yaml_text is not None and "\r" not in yaml_text and "\x00" not in yaml_text:
            inputs.append((name, text, yaml_text))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "lib")
        root.mkdir()
        for name, text, _ in inputs:
            (root / name).mkdir()
            (root / name / "SKILL.md").write_text(text, encoding="utf-8")
        p = subprocess.run([args.cli, "list", "--json", "--root", str(root), "--name-policy", "keep",
                            "--max-lines", "0", "--duplicate-names", "keep_first"],
                           capture_output=True, timeout=600)
        if p.returncode not in (0, 1) or not p.stdout:
            print(f"yaml_diff.py: {args.cli} list failed (status {p.returncode}): {p.stderr[-2000:]!r}",
                  file=sys.stderr)
            return 2
        listed = json.loads(p.stdout)
    refused = {}
    for d in listed["diagnostics"]:
        if d["code"] == "yaml-syntax":
            refused[Path(d["path"]).parent.name] = f'line {d["line"]}: {d["message"]}'
    known = {"tab": 0, "indent": 0, "tag": 0, "question": 0, "colon": 0}
    differences = []
    for name, text, yaml_text in inputs:
        ours_reads = name not in refused
        theirs_reads, why = ruamel_verdict(yaml_text)
        if ours_reads == theirs_reads:
            continue
        if not theirs_reads and "'\\t'" in why:
            known["tab"] += 1
        elif theirs_reads and PERCENT in refused.get(name, ""):
            known["indent"] += 1
        elif re.search(r"(^|[\s\[{,])![^\s]", yaml_text, re.M):
            known["tag"] += 1
        elif "unknown token" in refused.get(name, "") and re.search(r"[\[{][^\]}\n]*\?", yaml_text):
            known["question"] += 1
        elif re.search(r"(^|[\[{,]\s*): ", yaml_text, re.M):
            known["colon"] += 1
        else:
            differences.append((name, yaml_text, theirs_reads, why, refused.get(name, "")))
    print(f"yaml_diff.py: {len(inputs)} inputs, {len(differences)} read by one and refused by the other; "
          "known: " + ", ".join(f"{v} {k}" for k, v in known.items()))
    for name, yaml_text, theirs_reads, why, ours in differences[:args.show]:
        print(f"\n--- {name}: {yaml_text!r}")
        print(f"ruamel: {'reads it' if theirs_reads else 'refuses it: ' + why}")
        print(f"ours:   {'refuses it: ' + ours if ours else 'reads it'}")
    if len(differences) > args.show:
        print(f"\n... and {len(differences) - args.show} more: " + " ".join(d[0] for d in differences[args.show:]))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
