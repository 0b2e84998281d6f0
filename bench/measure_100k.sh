#!/usr/bin/env bash
# bench/measure_100k.sh — issue 37's linearity to 100,000 skills: `agentskills SUBCOMMAND --root`
# over the 10k and the 100k library (gen_library.py --plain-yaml), alternating, RUNS times each;
# prints the median wall times, their ratio (target <= 11x) and the median peak RSS at 100k
# against the bytes of its SKILL.md files (target <= 0.3x). Called by bench/measure.sh; alone:
#   bench/measure_100k.sh [AGENTSKILLS]
# Environment: SHARED (../shared), LIBDIR (/tmp; libraries LIBDIR/agentskills-bench-lib-N, made
# when missing: the 100k one is about 1 GB), RUNS (5), SUBCOMMAND (to-prompt).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
AGENTSKILLS=${1:-$repo/build-rel/agentskills}
SHARED=${SHARED:-$repo/../shared}
LIBDIR=${LIBDIR:-/tmp}
RUNS=${RUNS:-5}
SUBCOMMAND=${SUBCOMMAND:-to-prompt}
[ -x "$AGENTSKILLS" ] || { echo "measure_100k: no program at $AGENTSKILLS" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "measure_100k: RUNS must be a positive number, not '$RUNS'" >&2; exit 2; }

# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

lib10k=$(library 10000)
lib100k=$(library 100000)
# Warm the page cache: the runs measure the program, not the disk.
find "$lib10k" "$lib100k" -mindepth 2 -maxdepth 2 -name SKILL.md -exec cat {} + > /dev/null
bytes=$(bytes_of "$lib100k")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Wall time in microseconds from the shell's clock around each run (fork and exec included, the
# same for both): /usr/bin/time prints it in steps of 10 ms, 14% of a 10k run of 70 ms. Peak RSS
# from /usr/bin/time, in runs of their own.
for i in $(seq 1 "$RUNS"); do
  for n in 10000 100000; do
    start=$EPOCHREALTIME
    "$AGENTSKILLS" "$SUBCOMMAND" --root "$LIBDIR/agentskills-bench-lib-$n" > /dev/null 2>&1
    end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN {printf "%.6f\n", b - a}' >> "$out/$n.txt"
  done
  /usr/bin/time -f '%M' -a -o "$out/rss.txt" "$AGENTSKILLS" "$SUBCOMMAND" --root "$LIBDIR/agentskills-bench-lib-100000" \
    > /dev/null 2>&1
done
w10=$(median < "$out/10000.txt")
w100=$(median < "$out/100000.txt")
rss=$(median < "$out/rss.txt")
echo "6. $SUBCOMMAND wall medians of $RUNS, alternating: 10k ${w10} s, 100k ${w100} s; 100k/10k = $(awk -v a="$w100" -v b="$w10" 'BEGIN {printf "%.2fx", a / b}') (target <= 11x)"
echo "   peak RSS at 100k: ${rss} KB (median) vs ${bytes} bytes of SKILL.md: $(awk -v r="$rss" -v b="$bytes" 'BEGIN {printf "%.2fx", r * 1024 / b}') (target <= 0.3x)"
