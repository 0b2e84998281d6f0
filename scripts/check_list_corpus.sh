#!/usr/bin/env bash
# Checks that `agentskills list --json --root LIB` accounts for every skill of every library
# folder of the shared corpus: each child directory holding a SKILL.md must be listed in
# `skills`, or in `skipped` with a reason (or noted as a byte-identical / same-directory copy).
#
# Usage: scripts/check_list_corpus.sh [AGENTSKILLS_PROGRAM]
# Environment:
#   AGENTSKILLS_CORPUS_DIR  corpus folder (default: ../shared/corpus next to this clone)
#   AGENTSKILLS_BIN         the agentskills program when no argument is given
#                           (default: build/agentskills in this clone)
# Exit status: 0 all accounted (or no corpus), 1 a mismatch, 2 set-up problem.
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus_dir="${AGENTSKILLS_CORPUS_DIR:-$repo_dir/../shared/corpus}"
bin="${1:-${AGENTSKILLS_BIN:-$repo_dir/build/agentskills}}"

if [[ ! -d "$corpus_dir/libraries" ]]; then
  echo "check_list_corpus: no corpus at $corpus_dir/libraries; nothing to check (skipped)"
  exit 0
fi
if [[ ! -x "$bin" ]]; then
  echo "check_list_corpus: program not found: $bin (build it, or set AGENTSKILLS_BIN)" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "check_list_corpus: python3 is required" >&2; exit 2; }

exec python3 - "$corpus_dir/libraries" "$bin" <<'PY'
import json, os, subprocess, sys

libraries_dir, program = sys.argv[1], sys.argv[2]

def holds_skill(d):
    return os.path.lexists(os.path.join(d, "SKILL.md"))

# Library folders: every directory (hidden ones too, symlinks not followed) with a child holding SKILL.md.
libraries = []
for dirpath, dirnames, _ in os.walk(libraries_dir):
    dirnames.sort()
    children = [c for c in sorted(os.listdir(dirpath)) if os.path.isdir(os.path.join(dirpath, c))]
    if any(holds_skill(os.path.join(dirpath, c)) for c in children):
        libraries.append(dirpath)

failures = 0
totals = {"children": 0, "skills": 0, "skipped": 0, "copies": 0, "package_roots": 0}
for lib in libraries:
    lib_abs = os.path.normpath(os.path.abspath(lib))
    proc = subprocess.run([program, "list", "--json", "--root", lib_abs], capture_output=True, text=True)
    if holds_skill(lib_abs):
        # A named root that is itself a skill is an error (status 1, saying so) unless
        # --missing-directories skip, which lists it as a skill_package skip (docs/cli.md).
        if proc.returncode != 1 or "it is a skill, not a library of skills" not in proc.stderr:
            print(f"FAIL {lib_abs}: itself a skill, but list exited {proc.returncode}: {proc.stderr.strip()}")
            failures += 1
            continue
        proc = subprocess.run([program, "list", "--json", "--missing-directories", "skip", "--root", lib_abs],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL {lib_abs}: exit status {proc.returncode}: {proc.stderr.strip()}")
        failures += 1
        continue
    out = json.loads(proc.stdout)
    children = [c for c in sorted(os.listdir(lib_abs))
                if os.path.isdir(os.path.join(lib_abs, c)) and holds_skill(os.path.join(lib_abs, c))]
    totals["children"] += len(children)
    for s in out["skipped"]:
        if not s.get("reason") or not s.get("message"):
            print(f"FAIL {lib_abs}: skipped entry without reason or message: {s}")
            failures += 1
    if holds_skill(lib_abs):
        # The folder is itself a skill: listing it as a library must say so (skill_package).
        ok = any(os.path.realpath(s["path"]) == os.path.realpath(lib_abs) and s["reason"] == "skill_package"
                 for s in out["skipped"])
        totals["package_roots"] += 1
        print(f"{'ok  ' if ok else 'FAIL'} {lib_abs}: itself a skill: an error, and with --missing-directories skip"
              f" {len(children)} children covered by skill_package")
        failures += 0 if ok else 1
        continue
    kept = {os.path.realpath(s["root"]) for s in out["skills"]}
    skipped = {os.path.realpath(os.path.dirname(s["path"])) for s in out["skipped"]}
    copies = {os.path.realpath(os.path.dirname(d["path"])) for d in out["diagnostics"] if d["code"] == "duplicate-copy"}
    missing = []
    counts = {"skills": 0, "skipped": 0, "copies": 0}
    for c in children:
        real = os.path.realpath(os.path.join(lib_abs, c))
        if real in kept:
            counts["skills"] += 1
        elif real in skipped:
            counts["skipped"] += 1
        elif real in copies:
            counts["copies"] += 1
        else:
            missing.append(c)
    for k, v in counts.items():
        totals[k] += v
    status = "ok  " if not missing else "FAIL"
    print(f"{status} {lib_abs}: {len(children)} children = {counts['skills']} skills + {counts['skipped']} skipped"
          f" + {counts['copies']} copies")
    if missing:
        failures += 1
        for c in missing:
            print(f"     not accounted for: {c}")
    if len(out["skills"]) != counts["skills"]:
        print(f"FAIL {lib_abs}: {len(out['skills'])} skills listed but {counts['skills']} matched a child")
        failures += 1

print(f"libraries: {len(libraries)}; children with SKILL.md: {totals['children']}; skills: {totals['skills']};"
      f" skipped: {totals['skipped']}; copies: {totals['copies']}; folders that are themselves skills:"
      f" {totals['package_roots']}; failures: {failures}")
sys.exit(1 if failures else 0)
PY
