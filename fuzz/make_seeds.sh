#!/usr/bin/env bash
# Builds the working corpora of the fuzz targets in BUILD_DIR/fuzz-corpus/<target>/ from the
# shared corpus of real skills (../shared/corpus, when present). The handmade seeds under
# fuzz/seeds/<target>/ are passed to the fuzzers separately by run.sh.
#   usage: fuzz/make_seeds.sh BUILD_DIR [SHARED_CORPUS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make_seeds.sh BUILD_DIR [SHARED_CORPUS]}
shared=${2:-$here/../../shared/corpus}
out="$build/fuzz-corpus"
mkdir -p "$out/parser" "$out/paths" "$out/discovery" "$out/render"

if [ ! -d "$shared" ]; then
  echo "make_seeds: no shared corpus at $shared; the handmade seeds alone are used"
  exit 0
fi
if [ -f "$out/.from-shared" ]; then
  exit 0  # already made (the working corpora grow while fuzzing; keep what they found)
fi

max_size=65536
n=0
group=()
flush_group() {
  # One discovery seed: option byte 0x04 (roots lib, lib2), then up to four skills as records.
  [ ${#group[@]} -eq 0 ] && return 0
  local file="$out/discovery/shared-$n" first=1
  printf '\x04' > "$file"
  for f in "${group[@]}"; do
    [ $first -eq 1 ] || printf '\x01' >> "$file"
    first=0
    printf 'lib/%s/SKILL.md\n' "$(basename "$(dirname "$f")")" >> "$file"
    cat "$f" >> "$file"
  done
  group=()
}
while IFS= read -r -d '' f; do
  size=$(stat -c %s "$f")
  [ "$size" -le "$max_size" ] || continue
  n=$((n + 1))
  # Parser seeds: option byte 0 (standard profile, keep), or 4/7 for a few to vary options.
  case $((n % 8)) in
    0) printf '\x07' ;;
    1) printf '\x04' ;;
    *) printf '\x00' ;;
  esac > "$out/parser/shared-$n"
  cat "$f" >> "$out/parser/shared-$n"
  # Path seeds: the path of the file inside the corpus (relative).
  if [ $((n % 4)) -eq 0 ]; then
    printf '\x01%s\xff/' "${f#"$shared"/}" > "$out/paths/shared-$n"
  fi
  if [ $((n % 3)) -eq 0 ] && [ "$size" -le 8192 ]; then
    group+=("$f")
    [ ${#group[@]} -lt 4 ] || flush_group
  fi
done < <(find "$shared" -type f \( -name SKILL.md -o -name skill.md \) -print0 | sort -z)
flush_group
touch "$out/.from-shared"
echo "make_seeds: $n files from $shared"
