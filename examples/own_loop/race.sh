#!/usr/bin/env bash
# Starts COUNT (default 8) own_loop processes at once on one fresh state with the same NAME and
# checks that exactly one prints `content NAME` and the others `already NAME`.
#   race.sh PROGRAM SKILLS_DIR WORK_DIR NAME [COUNT [STATE]]
# STATE: a state file (default: a fresh WORK_DIR/state.sqlite), a postgresql:// URI, or @FILE
# (the URI in FILE); with a URI, the run uses a conversation of its own.
set -u
program=$1 skills=$2 work=$3 name=$4 count=${5:-8} state=${6:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
conversation=default
if [ -z "$state" ]; then
  state="$work/state.sqlite"
else
  if [ "${state:0:1}" = "@" ]; then
    [ -s "${state:1}" ] || { echo "race: FAILED: no URI in ${state:1} (is the postgres_server fixture running?)" >&2; exit 1; }
    state=$(cat "${state:1}")
  fi
  conversation="race-$$-$(date +%s%N)"
fi
pids=()
for i in $(seq 1 "$count"); do
  "$program" --state "$state" --conversation "$conversation" --root "$skills" --load-delay-ms 50 "$name" \
    >"$work/out.$i" 2>"$work/err.$i" &
  pids+=("$!")
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
cat "$work"/out.*
cat "$work"/err.* >&2
content=$(cat "$work"/out.* | grep -cx "content $name")
already=$(cat "$work"/out.* | grep -cx "already $name")
if [ "$status" -ne 0 ] || [ "$content" -ne 1 ] || [ "$already" -ne $((count - 1)) ]; then
  echo "race: exit status $status, $content content line(s), $already already line(s); expected 1 and $((count - 1))" >&2
  exit 1
fi
# A later process in the same conversation sees it active; an unknown name is reported.
out=$("$program" --state "$state" --conversation "$conversation" --root "$skills" "$name" no-such-skill) || exit 1
[ "$out" = "already $name
unknown no-such-skill" ] || { echo "race: unexpected follow-up output: $out" >&2; exit 1; }
echo "race: ok ($count processes)"
