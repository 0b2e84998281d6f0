#!/usr/bin/env bash
# Runs `agentskills validate` over every skill directory (a folder holding SKILL.md or
# skill.md, at any depth) under the shared corpus, and fails on anything but exit 0 or 1: a
# crash, a hang (60 s per run), or a sanitizer report. The directories go BATCH at a time
# (default 32) to one run of each profile; a batch whose run ends in anything else is run again
# one directory at a time, so that the failure names its skill.
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

batch=${BATCH:-32}
[[ $batch =~ ^[1-9][0-9]*$ ]] || { echo "validate_corpus: BATCH must be a positive number, not '$batch'" >&2; exit 2; }

# One run of both profiles over the directories given; prints a FAIL line per failed run.
check_dirs() {
  local bin=$1 logdir=$2 limit=$3 rc profile out
  shift 3
  out=$(mktemp "$logdir/run.XXXXXX")
  for profile in standard reference; do
    rc=0
    timeout "$limit" "$bin" validate --profile "$profile" "$@" >/dev/null 2>"$out.err" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
      echo "FAIL exit $rc ($profile): $*"; cat "$out.err"; rm -f "$out" "$out.err"; return 0
    fi
    if grep -qE "Sanitizer|runtime error:" "$out.err"; then
      echo "FAIL sanitizer report ($profile): $*"; cat "$out.err"; rm -f "$out" "$out.err"; return 0
    fi
  done
  rm -f "$out" "$out.err"
}
# A batch; when its run fails, each directory again on its own (60 s each).
check_batch() {
  local bin=$1 logdir=$2 dir r
  shift 2
  r=$(check_dirs "$bin" "$logdir" $((60 * $#)) "$@")
  [ -z "$r" ] && return 0
  local alone
  alone=$(for dir in "$@"; do check_dirs "$bin" "$logdir" 60 "$dir"; done)
  # A batch that fails while each of its directories passes alone is a failure too.
  if [ -n "$alone" ]; then printf '%s\n' "$alone"; else printf '%s\n' "$r"; fi
}
export -f check_dirs check_batch
tr '\n' '\0' < "$log/dirs" |
  xargs -0 -P "$jobs" -n "$batch" bash -c 'check_batch "$@"' _ "$bin" "$log" > "$log/failures"
if [ -s "$log/failures" ]; then
  cat "$log/failures"
  echo "validate_corpus: $(grep -c '^FAIL' "$log/failures") of $total skill directories failed"
  exit 1
fi
echo "validate_corpus: $total skill directories (every one of cases/, 1 in $sample of libraries/), 2 profiles each, $batch to a run, $jobs runs at a time: every run ended with exit 0 or 1"
