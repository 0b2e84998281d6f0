#!/usr/bin/env bash
# bench/compare.sh — whole-process comparison of issue 7, in one run.
#
# 1. Makes an N-skill library (default 10,000) with ../shared/tools/gen_library.py --plain-yaml.
# 2. Installs the npm peer (skills-ref 0.1.5) with ../shared/peers/setup-npm-peers.sh.
# 3. Times with hyperfine, alternating the three commands round after round:
#      agentskills to-prompt --root LIB
#      skills-ref to-prompt LIB/*          (the npm peer, over the same N directories)
#      cat LIB/*/SKILL.md > /dev/null      (the I/O floor)
#    and prints the medians over every run and the ratios.
#
# Everything can be overridden from the environment (paths are relative to the repository):
#   AGENTSKILLS  the CLI (default build-rel/agentskills)
#   SHARED       the shared directory (default ../shared)
#   N            skills in the library (default 10000)
#   LIB          library directory (default /tmp/agentskills-bench-lib-N; regenerated only when
#                it does not hold N skills, or with REGEN=1)
#   PEERS        npm install directory (default /tmp/agentskills-peers)
#   ROUNDS RUNS WARMUP   hyperfine rounds, runs per command and round, warm-up runs (3, 5, 2)
#   SUBCOMMAND   what agentskills runs (default to-prompt; e.g. "list --json" before to-prompt existed)
#   BASELINE     optional second agentskills binary (an older build) timed in the same groups
#   OUT          directory for the hyperfine JSON files and the summary (default build-rel/compare)
#
# Every command runs through `sh -c` (hyperfine -N, no extra shell), so all three pay the same
# shell start-up and the shell expands the globs. The argument list of skills-ref for 10,000
# directories is about 0.45 MB, below ARG_MAX (2 MB here), so one invocation takes them all;
# for much larger N it would not fit (the script then stops and says so).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
SHARED=${SHARED:-../shared}
AGENTSKILLS=${AGENTSKILLS:-build-rel/agentskills}
N=${N:-10000}
LIB=${LIB:-/tmp/agentskills-bench-lib-$N}
PEERS=${PEERS:-/tmp/agentskills-peers}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-2}
OUT=${OUT:-build-rel/compare}
SUBCOMMAND=${SUBCOMMAND:-to-prompt}

command -v hyperfine >/dev/null || { echo "compare.sh: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }
[ -x "$AGENTSKILLS" ] || { echo "compare.sh: $AGENTSKILLS is not built" >&2; exit 2; }
AGENTSKILLS=$(cd "$(dirname "$AGENTSKILLS")" && pwd)/$(basename "$AGENTSKILLS")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# 1. The library.
have=0
[ -d "$LIB" ] && have=$(find "$LIB" -mindepth 2 -maxdepth 2 -name SKILL.md | wc -l)
if [ "${REGEN:-0}" = 1 ] || [ "$have" -ne "$N" ]; then
  python3 "$SHARED/tools/gen_library.py" --corpus "$SHARED/corpus/libraries" --out "$LIB" --plain-yaml -n "$N"
fi
bytes=$(find "$LIB" -mindepth 2 -maxdepth 2 -name SKILL.md -printf '%s\n' | awk '{s += $1} END {print s}')

# 2. The npm peer.
SKILLS_REF="$PEERS/node_modules/.bin/skills-ref"
[ -x "$SKILLS_REF" ] || sh "$SHARED/peers/setup-npm-peers.sh" "$PEERS" >/dev/null
args_bytes=$(printf '%s\n' "$LIB"/* | wc -c)
if [ "$args_bytes" -gt $(( $(getconf ARG_MAX) - 65536 )) ]; then
  echo "compare.sh: $N directories do not fit in one skills-ref command line ($args_bytes bytes)" >&2
  exit 2
fi

# Outputs once, to check that every program sees the library (not timed).
"$AGENTSKILLS" $SUBCOMMAND --root "$LIB" > "$OUT/agentskills.txt"
sh -c "'$SKILLS_REF' to-prompt '$LIB'/*" > "$OUT/skills-ref.txt"
ours=$(grep -c '<skill>\|"location"' "$OUT/agentskills.txt" || true)
theirs=$(grep -c '<skill>' "$OUT/skills-ref.txt" || true)

# 3. Timing: ROUNDS hyperfine runs of the three commands, one after the other.
cmd_ours="sh -c '\"$AGENTSKILLS\" $SUBCOMMAND --root \"$LIB\"'"
cmd_npm="sh -c '\"$SKILLS_REF\" to-prompt \"$LIB\"/*'"
cmd_cat="sh -c 'cat \"$LIB\"/*/SKILL.md > /dev/null'"
baseline=()
if [ -n "${BASELINE:-}" ]; then
  BASELINE=$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")
  baseline=(-n baseline "sh -c '\"$BASELINE\" $SUBCOMMAND --root \"$LIB\"'")
fi
for round in $(seq 1 "$ROUNDS"); do
  hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" \
    --export-json "$OUT/round-$round.json" \
    -n agentskills "$cmd_ours" "${baseline[@]}" -n skills-ref "$cmd_npm" -n cat "$cmd_cat"
done

python3 - "$OUT" "$ROUNDS" "$N" "$bytes" "$ours" "$theirs" <<'EOF'
import json, statistics, sys
out, rounds, n, size, ours, theirs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
times = {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{out}/round-{r}.json"))["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
med = {k: statistics.median(v) for k, v in times.items()}
lines = [
    f"library: {n} skills, {size} bytes of SKILL.md; <skill> entries: agentskills {ours}, skills-ref {theirs}",
    f"runs per command: {len(times['agentskills'])} ({rounds} rounds)",
]
for k in ("agentskills", "baseline", "skills-ref", "cat"):
    if k not in times:
        continue
    v = times[k]
    lines.append(f"median {k:12s} {med[k]*1000:9.1f} ms  (min {min(v)*1000:.1f}, max {max(v)*1000:.1f})")
lines.append(f"skills-ref / agentskills = {med['skills-ref']/med['agentskills']:.1f}x  (target >= 20x)")
lines.append(f"agentskills / cat        = {med['agentskills']/med['cat']:.2f}x  (target <= 1.0x)")
if "baseline" in med:
    lines.append(f"baseline / agentskills   = {med['baseline']/med['agentskills']:.2f}x; baseline / cat = {med['baseline']/med['cat']:.2f}x")
text = "\n".join(lines)
print(text)
open(f"{out}/summary.txt", "w").write(text + "\n")
EOF
