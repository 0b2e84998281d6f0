#!/usr/bin/env python3
"""Counts of valid skills under each profile and the most common diagnostics (default profile)
over every skill directory of the expected-verdict files. Prints Markdown tables.

Usage: scripts/corpus_stats.py [--agentskills BIN] [--corpus DIR] [--top N]
"""
import argparse, collections, json, os, subprocess, sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentskills", default=os.path.join(REPO, "build", "agentskills"))
    ap.add_argument("--corpus", default=os.environ.get("AGENTSKILLS_CORPUS", os.path.join(REPO, "..", "shared", "corpus")))
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    paths = []
    expected = os.path.join(args.corpus, "expected")
    for tsv in sorted(os.listdir(expected)):
        base = "cases" if "cases" in tsv else "libraries"
        with open(os.path.join(expected, tsv), encoding="utf-8") as f:
            next(f)
            for line in f:
                library, skill = line.split("\t")[:2]
                paths.append(os.path.join(args.corpus, base, library, skill))

    def run(*extra):
        out = subprocess.run([args.agentskills, "validate", "--json", *extra] + paths, capture_output=True, text=True)
        return json.loads(out.stdout)["skills"]

    profiles = [("standard (default: name policy keep)", run()),
                ("standard, --name-policy require_valid", run("--name-policy", "require_valid")),
                ("reference", run("--profile", "reference"))]
    print(f"| profile | valid | invalid | of |\n|---|---:|---:|---:|")
    for name, results in profiles:
        valid = sum(1 for r in results if r["valid"])
        print(f"| {name} | {valid} | {len(results) - valid} | {len(results)} |")
    print()
    counts = collections.Counter()
    skills_with = collections.Counter()
    for r in profiles[0][1]:
        seen = set()
        for d in r["diagnostics"]:
            counts[(d["code"], d["severity"])] += 1
            seen.add((d["code"], d["severity"]))
        for key in seen:
            skills_with[key] += 1
    print("| code | severity | diagnostics | skills |\n|---|---|---:|---:|")
    for (code, severity), n in counts.most_common(args.top):
        print(f"| `{code}` | {severity} | {n} | {skills_with[(code, severity)]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
