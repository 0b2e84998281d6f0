#!/usr/bin/env python3
"""Record what the Python reference CLI (skills-ref 0.1) prints, for tests/reference.

Runs `python3 -m skills_ref.cli` (the reference's source on PYTHONPATH, Debian's python3-click
and python3-strictyaml) for read-properties, validate and to-prompt on

  * every skill directory under tests/reference/skills (this project's own small inputs), and
  * every skill directory of ../shared/corpus/cases and a fixed sample of ../shared/corpus/libraries
    (the corpus rows of ../shared/corpus/expected/*.tsv),

and writes tests/reference/expected.json. The reference prints absolute paths in to-prompt; they
are stored with the directory the command ran in replaced by "@DIR@". Outputs of the project's
own inputs are stored as text. Outputs about corpus skills are stored as length and FNV-1a 64
hash only: the corpus's text must not be copied into this repository (see its README).

  python3 scripts/make_reference_outputs.py --reference ../shared/peers/skills-ref/src \
      [--corpus ../shared/corpus]

The reference need not be present to run the tests; only this script needs it.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OWN = REPO / "tests" / "reference" / "skills"
CORPUS = REPO.parent / "shared" / "corpus"  # --corpus overrides it
SAMPLE_STRIDE = 15  # every 15th library row of the corpus: 99 of 1,481 skills


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def run(reference: str, cwd: Path, args: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=reference, LC_ALL="C.UTF-8")
    p = subprocess.run([sys.executable, "-m", "skills_ref.cli", *args], cwd=cwd, env=env, capture_output=True)
    marker = str(cwd.resolve()).encode()
    out = p.stdout.replace(marker, b"@DIR@")
    err = p.stderr.replace(marker, b"@DIR@")
    crash = b"Traceback (most recent call last)" in err
    if crash:
        # A Python traceback names files of this machine: keep its last line only.
        err = err.rstrip(b"\n").rsplit(b"\n", 1)[-1] + b"\n"
    return {"args": args, "status": p.returncode, "stdout": out, "stderr": err, "crash": crash}


def stored(case: dict, hashed: bool, cwd: str) -> dict:
    entry = {"cwd": cwd, "args": case["args"], "status": case["status"], "crash": case["crash"]}
    for stream in ("stdout", "stderr"):
        data = case[stream]
        if hashed:
            entry[stream + "_size"] = len(data)
            entry[stream + "_fnv1a64"] = fnv1a64(data)
        else:
            entry[stream] = data.decode("utf-8")
    return entry


def skill_dirs_of_own() -> list[str]:
    return sorted(p.name for p in OWN.iterdir() if p.is_dir())


def corpus_rows() -> list[str]:
    rows = []
    with open(CORPUS / "expected" / "skills-ref-validate-cases.tsv", newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.append(f"cases/{r['library']}/{r['skill']}")
    with open(CORPUS / "expected" / "skills-ref-validate.tsv", newline="") as f:
        lib = [f"libraries/{r['library']}/{r['skill']}" for r in csv.DictReader(f, delimiter="\t")]
    rows.extend(lib[::SAMPLE_STRIDE])
    return rows


def main() -> int:
    global CORPUS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", required=True, help="the reference's src directory (holds skills_ref/)")
    ap.add_argument("--corpus", default=str(CORPUS), help="the shared corpus (default: ../shared/corpus)")
    ap.add_argument("--out", default=str(REPO / "tests" / "reference" / "expected.json"))
    args = ap.parse_args()
    CORPUS = Path(args.corpus)

    entries = []
    own = skill_dirs_of_own()
    for name in own:
        for command in ("read-properties", "validate", "to-prompt"):
            entries.append(stored(run(args.reference, OWN, [command, name]), False, "own"))
    # A SKILL.md given as the path, and one to-prompt over several skills.
    entries.append(stored(run(args.reference, OWN, ["read-properties", "all-fields/SKILL.md"]), False, "own"))
    entries.append(stored(run(args.reference, OWN, ["validate", "./lowercase-file/skill.md"]), False, "own"))
    entries.append(stored(run(args.reference, OWN, ["to-prompt", "all-fields", "html-chars/SKILL.md",
                                                    "unicode-text/"]), False, "own"))
    entries.append(stored(run(args.reference, OWN, ["validate", "no-such-dir"]), False, "own"))

    corpus = 0
    if CORPUS.is_dir():
        for rel in corpus_rows():
            for command in ("read-properties", "validate", "to-prompt"):
                entries.append(stored(run(args.reference, CORPUS, [command, rel]), True, "corpus"))
            corpus += 1
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"generator": "scripts/make_reference_outputs.py", "reference": "skills-ref 0.1.0",
                   "entries": entries}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(entries)} runs: {len(own)} own skills, {corpus} corpus skills -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
