#!/usr/bin/python3
"""`agentskills validate --profile reference` against the Python reference CLI, over generated inputs.

The reference (skills-ref 0.1, ../shared/peers/skills-ref/src) reads a frontmatter with strictyaml,
that is with ruamel's YAML parser. The reference profile must refuse every input the reference
refuses, with its message, and accept every input it accepts. This script writes, into a
temporary directory, one skill per input of three generated families, runs both programs on each
(`validate DIR`) and compares exit status, standard output and standard error byte for byte:

  markers    a YAML document marker line (`...`, with comments, spaces, twice, indented, glued
             to text) at several places of several frontmatters, followed by nothing, comments,
             keys, scalars, sequences or directives;
  shapes     values of the shapes YAML readers disagree on (flow mappings in flow sequences,
             nested flows, block scalars with indicators, anchors and aliases, tags, multi-line
             plain scalars, comments, quoting, empty values) under several keys;
  mutations  corpus frontmatters with YAML indicator characters inserted, deleted or replaced
             at random places (fixed seed: the same inputs on every run).

  /usr/bin/python3 scripts/ci/reference_diff.py BUILD/agentskills [--reference DIR] [--corpus DIR]
                                       [--mutations N] [--seed S] [--show N]

Exits 1 when the two disagree on whether any input is valid (exit status), 2 on usage errors.
Inputs where both refuse but with other words are counted and printed (the first --show in
full); docs/conformance.md records how many there are and why. Needs Debian's python3-click and
python3-strictyaml.
"""
import argparse
import io
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
SHARED = REPO.parent / "shared"

BASES = [
    "name: {n}\ndescription: d\n",
    "name: {n}\ndescription: |\n  block\n  text\n",
    "name: {n}\ndescription: d\nmetadata:\n  a: b\n  c: d\n",
    "name: {n}\ndescription: d\nallowed-tools:\n  - a\n  - b\n",
    'name: {n}\ndescription: "quoted"\nlicense: MIT\n',
    "# a comment\nname: {n}\ndescription: d\n",
]
MARKERS = ["...", "... # c", "...   ", "....", " ...", "...\n...", "...x", "...\t"]
TAILS = ["", "license: x\n", "# comment\n", "\n", "- a\n", "x\n", "%YAML 1.2\n", "'q'\n",
         "license: x\nmore: y\n", "  indented: 1\n", "...\n", "name: other\n", "%YAML 1.2\nlicense: x\n",
         "%YAML 1.2\n- a\n", "%YAML 1.2\n\nlicense: x\n", "%YAML 1.2\n[a]\n", "%TAG ! tag:x,2000:\n? k\n"]

VALUES = [
    "[optional: date]", "[a, {b: c}]", "{a: b}", "[[a, b], [c]]", "{a: [b, c]}", "[a, b", "{a: b",
    "|\n  x\n  y", "|-\n  x", "|+\n  x\n\n", ">\n  x\n  y", ">-\n  folded\n  text", "|2\n   x", "|1-\n  x",
    "&a x", "*a", "!!str x", "!!int 1", "!custom x", "plain\n  continued\n  again", "x # comment",
    "'it''s'", '"esc\\n\\t\\u00e9"', '"unterminated', "'single", "", "~", "null", "true", "1.5", "0x1F",
    "a: b", "- x", "x\n- y", "@at", "`tick", "%pct", "x\t# tab", "[a,\n  b]", "{a: 1, a: 2}",
    '"multi\n  line"', "'multi\n  line'", "? k\n  : v", ": x", "x: y: z", "[a]x", "x #", "#x",
]
KEYS = ["description", "argument-hint", "license", "metadata"]


def frontmatter_file(yaml: str, body: str = "Body.\n") -> str:
    return "---\n" + yaml + "---\n" + body


def generated(corpus: Path, mutations: int, seed: int) -> list[tuple[str, str]]:
    """(skill directory name, SKILL.md text) for every input."""
    out = []
    # 1. Document markers.
    for b, base in enumerate(BASES):
        name = f"m{b}"
        lines = base.format(n="{n}").splitlines(keepends=True)
        for at in sorted({1, len(lines)}):
            for mi, marker in enumerate(MARKERS):
                for ti, tail in enumerate(TAILS):
                    n = f"{name}-{at}-{mi}-{ti}"
                    head = "".join(lines[:at])
                    rest = "".join(lines[at:]) + tail
                    yaml = (head + marker + "\n" + rest).replace("{n}", n)
                    out.append((n, frontmatter_file(yaml)))
    # 2. Value shapes under several keys.
    for ki, key in enumerate(KEYS):
        for vi, value in enumerate(VALUES):
            n = f"v{ki}-{vi}"
            if key == "metadata":
                lines = value.split("\n")
                text = "metadata:\n  k: " + lines[0] + "".join("\n  " + line for line in lines[1:]) + "\n"
                yaml = f"name: {n}\ndescription: d\n" + text
            elif key == "description":
                yaml = f"name: {n}\n{key}: {value}\n"
            else:
                yaml = f"name: {n}\ndescription: d\n{key}: {value}\n"
            out.append((n, frontmatter_file(yaml)))
    # 3. Mutations of corpus frontmatters.
    files = sorted((corpus / "libraries").glob("*/**/SKILL.md")) if corpus.is_dir() else []
    rng = random.Random(seed)
    indicators = list("-?:,[]{}#&*!|>'\"%@` \t\n") + ["...", "---", "- ", ": ", "\n  ", "\n..."]
    for i in range(mutations if files else 0):
        text = files[rng.randrange(len(files))].read_text(encoding="utf-8", errors="replace")
        parts = text.split("---", 2)
        if len(parts) < 3 or not parts[0].strip() == "":
            continue
        yaml = parts[1]
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(yaml) + 1)
            op = rng.randrange(3)
            ind = rng.choice(indicators)
            if op == 0:
                yaml = yaml[:at] + ind + yaml[at:]
            elif op == 1 and yaml:
                yaml = yaml[:at] + yaml[at + 1:]
            else:
                yaml = yaml[:at] + ind + yaml[at + 1:]
        n = f"x{i}"
        out.append((n, "---" + yaml + "---" + parts[2]))
    return out


def reference_runner(reference: str):
    """Runs the reference CLI in this process (click's CliRunner): one start-up for all inputs."""
    sys.path.insert(0, reference)
    from click.testing import CliRunner  # noqa: E402
    from skills_ref.cli import main as cli  # noqa: E402

    def run(cwd: Path, args: list[str]):
        runner = CliRunner(mix_stderr=False)
        old = os.getcwd()
        os.chdir(cwd)
        try:
            r = runner.invoke(cli, args, catch_exceptions=True)
        finally:
            os.chdir(old)
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            return None  # a crash: run it as a process below, for the exact traceback line
        return r.exit_code, r.stdout_bytes, r.stderr_bytes

    return run


def reference_process(reference: str, cwd: Path, args: list[str]):
    env = dict(os.environ, PYTHONPATH=reference, LC_ALL="C.UTF-8")
    p = subprocess.run([sys.executable, "-m", "skills_ref.cli", *args], cwd=cwd, env=env, capture_output=True)
    err = p.stderr
    if b"Traceback (most recent call last)" in err:
        err = err.rstrip(b"\n").rsplit(b"\n", 1)[-1] + b"\n"
    return p.returncode, p.stdout, err


def ours(cli: str, cwd: Path, args: list[str]):
    p = subprocess.run([cli, args[0], "--profile", "reference", *args[1:]], cwd=cwd, capture_output=True,
                       env=dict(os.environ, LC_ALL="C.UTF-8"), timeout=60)
    err = p.stderr
    if b"Traceback (most recent call last)" in err:
        err = err.rstrip(b"\n").rsplit(b"\n", 1)[-1] + b"\n"
    return p.returncode, p.stdout, err


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cli", help="the agentskills program")
    ap.add_argument("--reference", default=str(SHARED / "peers" / "skills-ref" / "src"))
    ap.add_argument("--corpus", default=str(SHARED / "corpus"))
    ap.add_argument("--mutations", type=int, default=400)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--dump", help="write every difference to this JSON file")
    args = ap.parse_args()
    if not Path(args.reference, "skills_ref").is_dir():
        print(f"reference_diff.py: no reference at {args.reference}", file=sys.stderr)
        return 2
    args.cli = str(Path(args.cli).resolve())
    inputs = generated(Path(args.corpus), args.mutations, args.seed)
    run_reference = reference_runner(args.reference)
    differences = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in inputs:
            (root / name).mkdir()
            (root / name / "SKILL.md").write_text(text, encoding="utf-8")
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            our_results = list(pool.map(lambda item: ours(args.cli, root, ["validate", item[0]]), inputs))
        for (name, text), got in zip(inputs, our_results):
            want = run_reference(root, ["validate", name])
            if want is None:
                want = reference_process(args.reference, root, ["validate", name])
            if got != want:
                differences.append((name, text, want, got))
    if args.dump:
        import json
        with open(args.dump, "w", encoding="utf-8") as f:
            json.dump([{"name": n, "text": t, "reference": [w[0], w[1].decode(errors="replace"), w[2].decode(errors="replace")],
                        "ours": [g[0], g[1].decode(errors="replace"), g[2].decode(errors="replace")]}
                       for n, t, w, g in differences], f, indent=1, ensure_ascii=False)
    families = {"m": "markers", "v": "shapes", "x": "mutations"}
    counts = {f: 0 for f in families.values()}
    for name, _ in inputs:
        counts[families[name[0]]] += 1
    status = [d for d in differences if d[2][0] != d[3][0]]
    worded = {f: 0 for f in families.values()}
    for d in differences:
        if d[2][0] == d[3][0]:
            worded[families[d[0][0]]] += 1
    print(f"reference_diff.py: {len(inputs)} inputs ({', '.join(f'{v} {k}' for k, v in counts.items())}): "
          f"{len(status)} with another exit status, {len(differences) - len(status)} refused in other words "
          f"({', '.join(f'{v} {k}' for k, v in worded.items())})")
    differences.sort(key=lambda d: d[2][0] == d[3][0])  # the status differences first
    for name, text, want, got in differences[:args.show]:
        print(f"\n--- {name}: {text!r}")
        print(f"reference: status {want[0]}\n{want[1].decode(errors='replace')}{want[2].decode(errors='replace')}")
        print(f"ours:      status {got[0]}\n{got[1].decode(errors='replace')}{got[2].decode(errors='replace')}")
    if len(differences) > args.show:
        print(f"\n... and {len(differences) - args.show} more: " + " ".join(d[0] for d in differences[args.show:]))
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
