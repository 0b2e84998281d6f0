#!/usr/bin/env python3
"""Compare `agentskills validate --profile reference` with the reference validator's verdicts.

Usage: scripts/conformance.py [--agentskills BIN] [--corpus DIR] [--list-differences]

Reads every row of CORPUS/expected/*.tsv (library, skill, verdict, errors), validates the
matching directory (CORPUS/libraries/<library>/<skill>, or CORPUS/cases/<library>/<skill> for
the cases file) in one run of the CLI, and compares verdicts. Rows where the reference crashed
(`CRASH`) or cut a value at a `---` inside it are known differences: they are listed in
docs/conformance.md and reported here separately. Exit 0 when every other row agrees.
"""
import argparse, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def dash_cut_changes_verdict(skill_md):
    """True when the reference's split at the first two '---' (anywhere) differs from ours."""
    try:
        text = open(skill_md, encoding="utf-8", newline="").read()
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.split("\n")
    if not lines or lines[0].rstrip(" \t\r") != "---":
        return False
    # Where the line-anchored closing delimiter is.
    offset = len(lines[0]) + 1
    for line in lines[1:]:
        if line.rstrip(" \t\r") == "---":
            break
        if "---" in line:
            return True  # the reference cuts the frontmatter inside this line
        offset += len(line) + 1
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentskills", default=os.path.join(REPO, "build", "agentskills"))
    ap.add_argument("--corpus", default=os.environ.get("AGENTSKILLS_CORPUS", os.path.join(REPO, "..", "shared", "corpus")))
    ap.add_argument("--list-differences", action="store_true")
    args = ap.parse_args()
    expected_dir = os.path.join(args.corpus, "expected")
    if not os.path.isdir(expected_dir):
        print(f"conformance: no corpus at {args.corpus}; nothing to compare")
        return 0

    rows = []
    for tsv in sorted(os.listdir(expected_dir)):
        if not tsv.endswith(".tsv"):
            continue
        base = "cases" if "cases" in tsv else "libraries"
        with open(os.path.join(expected_dir, tsv), encoding="utf-8") as f:
            next(f)
            for line in f:
                parts = line.rstrip("\n").split("\t")
                library, skill, verdict = parts[0], parts[1], parts[2]
                errors = parts[3] if len(parts) > 3 else ""
                rows.append((tsv, os.path.join(args.corpus, base, library, skill), verdict, errors))

    out = subprocess.run([args.agentskills, "validate", "--profile", "reference", "--json"] + [r[1] for r in rows],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        print(out.stderr, file=sys.stderr)
        print(f"conformance: agentskills exited with {out.returncode}", file=sys.stderr)
        return 2
    results = json.loads(out.stdout)["skills"]
    assert len(results) == len(rows)

    agree, known, disagree = {}, [], []
    for (tsv, path, verdict, errors), res in zip(rows, results):
        ours = "valid" if res["valid"] else "invalid"
        agree.setdefault(tsv, [0, 0])
        agree[tsv][1] += 1
        if ours == verdict:
            agree[tsv][0] += 1
            continue
        rel = os.path.relpath(path, args.corpus)
        if errors.startswith("CRASH"):
            known.append((rel, verdict, ours, "the reference crashed: " + errors[6:]))
        elif dash_cut_changes_verdict(res["skill_file"] or os.path.join(path, "SKILL.md")):
            known.append((rel, verdict, ours, "the reference cut a value at a '---' inside it"))
        else:
            msgs = "; ".join(d["message"] for d in res["diagnostics"] if d["severity"] == "error")
            disagree.append((rel, verdict, ours, errors, msgs))

    for tsv, (ok, total) in sorted(agree.items()):
        print(f"{tsv}: {ok}/{total} verdicts agree")
    print(f"known differences (listed in docs/conformance.md): {len(known)}")
    for rel, theirs, ours, why in known:
        print(f"  {rel}: reference {theirs}, ours {ours} — {why}")
    if disagree:
        print(f"UNEXPECTED DIFFERENCES: {len(disagree)}")
        for rel, theirs, ours, errors, msgs in disagree[:200]:
            print(f"  {rel}: reference {theirs} ({errors[:160]}), ours {ours} ({msgs[:160]})")
        return 1
    total = sum(t for _, t in agree.values())
    print(f"conformance: {total - len(known)}/{total - len(known)} comparable verdicts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
