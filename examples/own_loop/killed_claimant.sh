#!/usr/bin/env bash
# A claimant killed with SIGKILL while it holds the claim: another process, already waiting for
# it, prints `content NAME` within 15 seconds.
#   killed_claimant.sh PROGRAM SKILLS_DIR WORK_DIR NAME STATE
# STATE: a postgresql:// URI or @FILE (the URI in FILE), or a state file.
set -u
program=$1 skills=$2 work=$3 name=$4 state=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
if [ "${state:0:1}" = "@" ]; then
  [ -s "${state:1}" ] || { echo "killed: FAILED: no URI in ${state:1} (is the postgres_server fixture running?)" >&2; exit 1; }
  state=$(cat "${state:1}")
fi
conversation="killed-$$-$(date +%s%N)"
# exec: a background `run ...` is then the program itself, so $! is its pid.
run() { exec "$program" --state "$state" --conversation "$conversation" --root "$skills" "$@"; }

# The claimant: its load takes ten minutes, so it holds the claim until it is killed.
(run --load-delay-ms 600000 "$name") >"$work/claimant.out" 2>"$work/claimant.err" &
claimant=$!
# Wait until it holds the claim: with a URI, until psql sees the row pending; otherwise a second.
held=no
for _ in $(seq 1 100); do
  if [ "${state#postgres}" != "$state" ] && command -v psql >/dev/null 2>&1; then
    got=$(psql "$state" -Atc "SELECT state FROM agentskills_activations WHERE conversation = '$conversation' AND name = '$name'" 2>/dev/null)
    [ "$got" = "pending" ] && { held=yes; break; }
  else
    sleep 1 && { held=yes; break; }
  fi
  sleep 0.1
done
if [ "$held" != yes ]; then
  kill -9 "$claimant" 2>/dev/null
  echo "killed: FAILED: the claimant never held the claim" >&2; cat "$work/claimant.err" >&2; exit 1
fi
# The waiter starts while the claim is held, then the claimant dies.
start=$(date +%s%N)
(run "$name") >"$work/waiter.out" 2>"$work/waiter.err" &
waiter=$!
sleep 0.5
kill -9 "$claimant"
wait "$claimant" 2>/dev/null
killed=$(date +%s%N)
# At most 15 s from the kill.
for _ in $(seq 1 150); do
  kill -0 "$waiter" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$waiter" 2>/dev/null; then
  kill -9 "$waiter"
  echo "killed: FAILED: the waiter had no answer 15 s after the claimant was killed" >&2; exit 1
fi
wait "$waiter"
status=$?
end=$(date +%s%N)
cat "$work/waiter.out"; cat "$work/waiter.err" >&2
if [ "$status" -ne 0 ] || [ "$(cat "$work/waiter.out")" != "content $name" ]; then
  echo "killed: FAILED: the waiter exited $status and printed '$(cat "$work/waiter.out")', expected 'content $name'" >&2
  exit 1
fi
echo "killed: ok (the waiter started $(( (killed - start) / 1000000 )) ms before the kill, had the content $(( (end - killed) / 1000000 )) ms after it)"
