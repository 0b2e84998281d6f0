#!/usr/bin/env bash
# Runs `agentskills validate` once for every skill directory (a folder holding SKILL.md or
# skill.md, at any depth) under the shared corpus, and fails on anything but exit 0 or 1: a
# crash, a hang (60 s per run), or a sanitizer report.
#   scripts/validate_corpus.sh [AGENTSKILLS_BIN] [CORPUS_DIR]
# Runs go JOBS at a time (default: the number of cores). SAMPLE=N (default 1) keeps every
# directory of cases/ and every N-th of libraries/: for a sanitizer build, whose every process
# start is slow (the whole corpus also runs in-process under the sanitizers in the test suite).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build/agentskills}
corpus=${2:-${AGENTSKILLS_CORPUS:-$here/../../shared/corpus}}
if [ ! -d "$corpus/libraries" ] && [ ! -d "$corpus/cases" ]; then
  echo "validate_corpus: no corpus at $corpus; nothing to run"
  exit 0
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=87:halt_on_error=1:print_stacktrace=1}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
sample=${SAMPLE:-1}
find "$corpus/libraries" "$corpus/cases" \( -name SKILL.md -o -name skill.md \) -print0 2>/dev/null |
  xargs -0 -n1 dirname | sort -u |
  awk -v n="$sample" -v cases="$corpus/cases/" 'index($0, cases) == 1 || (k++ % n) == 0' > "$log/dirs"
total=$(wc -l < "$log/dirs")

check_one() {
  local dir=$1 bin=$2 out
  out=$(mktemp "$3/run.XXXXXX")
  local rc=0
  for profile in standard reference; do
    timeout 60 "$bin" validate --profile "$profile" "$dir" >/dev/null 2>"$out.err" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
      echo "FAIL exit $rc ($profile): $dir"; cat "$out.err"; rm -f "$out" "$out.err"; return 0
    fi
    if grep -qE "Sanitizer|runtime error:" "$out.err"; then
      echo "FAIL sanitizer report ($profile): $dir"; cat "$out.err"; rm -f "$out" "$out.err"; return 0
    fi
    rc=0
  done
  rm -f "$out" "$out.err"
}
export -f check_one
# A failure prints its FAIL line and the stderr of the run, each job's as one write.
tr '\n' '\0' < "$log/dirs" |
  xargs -0 -P "$jobs" -I{} bash -c 'r=$(check_one "$1" "$2" "$3"); [ -z "$r" ] || printf "%s\n" "$r"' _ {} "$bin" "$log" \
  > "$log/failures"
if [ -s "$log/failures" ]; then
  cat "$log/failures"
  echo "validate_corpus: $(grep -c '^FAIL' "$log/failures") of $total skill directories failed"
  exit 1
fi
echo "validate_corpus: $total skill directories (every one of cases/, 1 in $sample of libraries/), 2 profiles each, $jobs at a time: every run ended with exit 0 or 1"
