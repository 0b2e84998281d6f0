#!/usr/bin/env bash
# bench/measure.sh — the other measurements of issue 7 (bench/compare.sh does the first target).
#
#   2. second discover() vs the first, in one process (build-rel/bench/discover_twice, 10k)
#   3. peak RSS of `agentskills list --json --root LIB` vs the bytes of the SKILL.md files
#   4. scaling: agentskills to-prompt over 1k, 10k and 50k skills (hyperfine medians), and the
#      first discover() of discover_twice over the same libraries
#   5. compile time of a TU with only <agentskills/agentskills.hpp> vs only <nlohmann/json.hpp>
#   6. linear to 100,000 skills: SUBCOMMAND over 10k and 100k, wall ratio and peak RSS at 100k
#      (bench/measure_100k.sh, SCALE_RUNS runs each; the 100k library is about 1 GB)
#
# Environment (paths relative to the repository): BUILD (build-rel), SHARED (../shared),
# LIBDIR (/tmp; libraries are LIBDIR/agentskills-bench-lib-N, made when missing), CXX (g++),
# COMPILE_RUNS (7), SECOND_RUNS (5), SCALE_RUNS (5), SUBCOMMAND (to-prompt), OUT (BUILD/measure).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
BUILD=${BUILD:-build-rel}
SHARED=${SHARED:-../shared}
LIBDIR=${LIBDIR:-/tmp}
CXX=${CXX:-g++}
COMPILE_RUNS=${COMPILE_RUNS:-7}
SECOND_RUNS=${SECOND_RUNS:-5}
SCALE_RUNS=${SCALE_RUNS:-5}
SUBCOMMAND=${SUBCOMMAND:-to-prompt}
OUT=${OUT:-$BUILD/measure}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
AGENTSKILLS=$(cd "$BUILD" && pwd)/agentskills
TWICE=$(cd "$BUILD" && pwd)/bench/discover_twice
summary="$OUT/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

lib10k=$(library 10000)
cat "$lib10k"/*/SKILL.md > /dev/null  # warm the page cache

say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

# 2. Second discover() vs first (median of SECOND_RUNS processes; each prints both).
for i in $(seq 1 "$SECOND_RUNS"); do "$TWICE" "$lib10k" 0 3; done > "$OUT/discover_twice.txt"
first=$(awk '/^first/ {print $2}' "$OUT/discover_twice.txt" | median)
second=$(awk '/^second/ {print $2}' "$OUT/discover_twice.txt" | median)
plain=$(awk '/^plain/ {print $2}' "$OUT/discover_twice.txt" | median)
say "2. discover() over 10k: first median ${first} ms, second median ${second} ms (best of 3 in each process), ratio $(awk -v a="$second" -v b="$first" 'BEGIN {printf "%.1f%%", 100 * a / b}') (target <= 10%)"
say "   the call right after the first alone: median ${plain} ms, ratio $(awk -v a="$plain" -v b="$first" 'BEGIN {printf "%.1f%%", 100 * a / b}')"

# 3. Peak RSS of list --json and to-prompt.
bytes=$(bytes_of "$lib10k")
for i in 1 2 3; do
  /usr/bin/time -f '%M' -o "$OUT/rss-$i.txt" "$AGENTSKILLS" list --json --root "$lib10k" > /dev/null 2>&1
  /usr/bin/time -f '%M' -o "$OUT/rss-prompt-$i.txt" "$AGENTSKILLS" to-prompt --root "$lib10k" > /dev/null 2>&1
done
rss_kb=$(cat "$OUT"/rss-[0-9].txt | median)
say "3. peak RSS of list --json over 10k: ${rss_kb} KB (median of 3) vs ${bytes} bytes of SKILL.md: $(awk -v r="$rss_kb" -v b="$bytes" 'BEGIN {printf "%.2fx", r * 1024 / b}') (target <= 0.3x)"
rss_kb=$(cat "$OUT"/rss-prompt-*.txt | median)
say "   peak RSS of to-prompt over 10k: ${rss_kb} KB (median of 3): $(awk -v r="$rss_kb" -v b="$bytes" 'BEGIN {printf "%.2fx", r * 1024 / b}') (target <= 0.3x)"

# 4. Scaling.
lib1k=$(library 1000)
lib50k=$(library 50000)
cat "$lib1k"/*/SKILL.md > /dev/null
find "$lib50k" -name SKILL.md -exec cat {} + > /dev/null
hyperfine -N --style basic --warmup 1 --runs "$SCALE_RUNS" --export-json "$OUT/scaling.json" \
  -n 1k "$AGENTSKILLS $SUBCOMMAND --root $lib1k" \
  -n 10k "$AGENTSKILLS $SUBCOMMAND --root $lib10k" \
  -n 50k "$AGENTSKILLS $SUBCOMMAND --root $lib50k" > "$OUT/scaling.txt"
for n in 1000 10000 50000; do
  lib="$LIBDIR/agentskills-bench-lib-$n"
  for i in 1 2 3; do "$TWICE" "$lib" 0 0; done | awk '/^first/ {print $2}' | median > "$OUT/first-$n.txt"
done
python3 - "$OUT" "$SUBCOMMAND" >> "$summary" <<'PY'
import json, statistics, sys
out, sub = sys.argv[1], sys.argv[2]
med = {r["command"]: statistics.median(r["times"]) for r in json.load(open(f"{out}/scaling.json"))["results"]}
first = {n: float(open(f"{out}/first-{n}.txt").read()) for n in (1000, 10000, 50000)}
print(f"4. {sub} medians: 1k {med['1k']*1000:.1f} ms, 10k {med['10k']*1000:.1f} ms, "
      f"50k {med['50k']*1000:.1f} ms; 50k/10k = {med['50k']/med['10k']:.2f}x (target <= 5.5x), 10k/1k = {med['10k']/med['1k']:.2f}x")
print(f"   first discover() medians: 1k {first[1000]:.1f} ms, 10k {first[10000]:.1f} ms, 50k {first[50000]:.1f} ms; "
      f"50k/10k = {first[50000]/first[10000]:.2f}x")
PY
tail -2 "$summary"

# 5. Compile time, same flags (-std=c++20 -O2), alternating the two TUs.
tu="$OUT/compile"
mkdir -p "$tu"
echo '#include <agentskills/agentskills.hpp>' > "$tu/umbrella.cpp"
echo '#include <nlohmann/json.hpp>' > "$tu/json.cpp"
: > "$tu/umbrella.times"
: > "$tu/json.times"
for i in $(seq 1 "$COMPILE_RUNS"); do
  /usr/bin/time -f '%e' -a -o "$tu/umbrella.times" "$CXX" -std=c++20 -O2 -Iinclude -c "$tu/umbrella.cpp" -o "$tu/umbrella.o"
  /usr/bin/time -f '%e' -a -o "$tu/json.times" "$CXX" -std=c++20 -O2 -c "$tu/json.cpp" -o "$tu/json.o"
done
u=$(median < "$tu/umbrella.times")
j=$(median < "$tu/json.times")
say "5. compile ($CXX -std=c++20 -O2, median of $COMPILE_RUNS): umbrella ${u} s, nlohmann/json.hpp ${j} s, ratio $(awk -v a="$u" -v b="$j" 'BEGIN {printf "%.2fx", a / b}') (target <= 1.5x)"

# 6. Linear to 100,000 skills (issue 37).
SHARED=$(cd "$SHARED" && pwd) LIBDIR=$LIBDIR RUNS=$SCALE_RUNS SUBCOMMAND=$SUBCOMMAND \
  bash "$repo/bench/measure_100k.sh" "$AGENTSKILLS" | tee -a "$summary"
