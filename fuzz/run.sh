#!/usr/bin/env bash
# Runs every fuzz target of BUILD_DIR for SECONDS each, JOBS targets at a time (default: the
# number of cores; each target is one libFuzzer process on one core, so running them side by side
# gives each the same time and core it would have alone).
# Exits nonzero when any target reports a crash, a leak, a timeout or a sanitizer finding.
#   usage: [JOBS=N] fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
build=$(cd "$build" && pwd)

bash "$here/make_seeds.sh" "$build" || exit 1

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$build"/fuzz/fuzz_*; do
    [ -x "$exe" ] && [ -f "$exe" ] && targets+=("$(basename "$exe" | sed 's/^fuzz_//')")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "run.sh: no fuzz targets in $build/fuzz" >&2
  exit 1
fi

max_len_of() {
  case "$1" in
    paths) echo 4096 ;;
    render) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

mkdir -p "$build/fuzz-logs" "$build/fuzz-artifacts"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: JOBS must be a positive number, not '$jobs'" >&2; exit 2; }

# One target: its log in fuzz-logs/T.log, its exit status in fuzz-logs/T.rc.
run_one() {
  local t=$1 exe="$build/fuzz/fuzz_$1" corpus="$build/fuzz-corpus/$1" seeds="$here/seeds/$1"
  local log="$build/fuzz-logs/$1.log"
  mkdir -p "$corpus"
  local dirs=("$corpus")
  [ -d "$seeds" ] && dirs+=("$seeds")
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len_of "$t")" \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
    "${dirs[@]}" > "$log" 2>&1
  echo $? > "$build/fuzz-logs/$t.rc"
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  rm -f "$build/fuzz-logs/$t.rc"
  echo "==== fuzz_$t: ${seconds}s ($(date -u +%H:%M:%S))"
  run_one "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  log="$build/fuzz-logs/$t.log"
  rc=$(cat "$build/fuzz-logs/$t.rc" 2>/dev/null || echo "none")
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1)
  if [ "$rc" != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$log"; then
    echo "FAIL fuzz_$t (exit $rc); log: $log"
    grep -E 'ERROR:|runtime error|SUMMARY|invariant failed|Test unit written' "$log" | head -20
    failed+=("$t")
  else
    echo "ok   fuzz_$t: ${execs:-?} executions, ${cov:-cov ?}"
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "run.sh: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "run.sh: all targets passed"
