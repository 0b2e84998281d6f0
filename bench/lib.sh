# bench/lib.sh — what the measuring scripts share (sourced, not run): the generated libraries and
# the median. Needs SHARED (the shared folder) and LIBDIR (where libraries are kept).

library() {  # library N -> path of LIBDIR/agentskills-bench-lib-N (made when missing)
  local n=$1 lib="$LIBDIR/agentskills-bench-lib-$1" have=0
  [ -d "$lib" ] && have=$(find "$lib" -mindepth 2 -maxdepth 2 -name SKILL.md | wc -l)
  if [ "$have" -ne "$n" ]; then
    python3 "$SHARED/tools/gen_library.py" --corpus "$SHARED/corpus/libraries" --out "$lib" --plain-yaml -n "$n" >&2
  fi
  echo "$lib"
}
bytes_of() { find "$1" -mindepth 2 -maxdepth 2 -name SKILL.md -printf '%s\n' | awk '{s += $1} END {print s}'; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
