#!/usr/bin/env bash
# Starts eight own_loop processes at once on one fresh state file with the same NAME and checks
# that exactly one prints `content NAME` and the seven others `already NAME`.
#   race.sh PROGRAM SKILLS_DIR WORK_DIR NAME
set -u
program=$1 skills=$2 work=$3 name=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
state="$work/state.sqlite"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$program" --state "$state" --root "$skills" --load-delay-ms 50 "$name" >"$work/out.$i" 2>"$work/err.$i" &
  pids+=("$!")
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
cat "$work"/out.*
cat "$work"/err.* >&2
content=$(cat "$work"/out.* | grep -cx "content $name")
already=$(cat "$work"/out.* | grep -cx "already $name")
if [ "$status" -ne 0 ] || [ "$content" -ne 1 ] || [ "$already" -ne 7 ]; then
  echo "race: exit status $status, $content content line(s), $already already line(s); expected 1 and 7" >&2
  exit 1
fi
# A later process in the same conversation sees it active; an unknown name is reported.
out=$("$program" --state "$state" --root "$skills" "$name" no-such-skill) || exit 1
[ "$out" = "already $name
unknown no-such-skill" ] || { echo "race: unexpected follow-up output: $out" >&2; exit 1; }
echo "race: ok"
