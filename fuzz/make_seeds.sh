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
mkdir -p "$out/parser" "$out/frontmatter_diff" "$out/paths" "$out/discovery" "$out/render" "$out/agent_spec"

if [ ! -d "$shared" ]; then
  echo "make_seeds: no shared corpus at $shared; the handmade seeds alone are used"
  exit 0
fi
if [ -f "$out/.from-shared" ]; then
  exit 0  # already made (the working corpora grow while fuzzing; keep what they found)
fi

if ! command -v python3 > /dev/null; then
  echo "make_seeds: python3 not found; the handmade seeds alone are used"
  exit 0
fi
python3 - "$shared" "$out" <<'PY'
import os, sys
shared, out = sys.argv[1], sys.argv[2]
files = []
for d, _, names in os.walk(shared):
    for n in names:
        if n in ("SKILL.md", "skill.md"):
            files.append(os.path.join(d, n))
files.sort()
n = 0
group = []
def flush():
    # One discovery seed: option byte 0x04 (roots lib, lib2), then up to four skills as records.
    global group
    if group:
        records = [b"lib/" + os.path.basename(os.path.dirname(f)).encode() + b"/SKILL.md\n" + data for f, data in group]
        with open(os.path.join(out, "discovery", "shared-%d" % n), "wb") as o:
            o.write(b"\x04" + b"\x01".join(records))
    group = []
for f in files:
    size = os.path.getsize(f)
    if size > 65536:
        continue
    n += 1
    with open(f, "rb") as i:
        data = i.read()
    # Parser seeds: option byte 0 (standard profile, keep), some with 4, 7 or 0x40 (yaml_recovery)
    # to vary options.
    flag = {0: b"\x07", 1: b"\x04", 2: b"\x40"}.get(n % 8, b"\x00")
    with open(os.path.join(out, "parser", "shared-%d" % n), "wb") as o:
        o.write(flag + data)
    with open(os.path.join(out, "frontmatter_diff", "shared-%d" % n), "wb") as o:
        o.write(flag + data)
    # Path seeds: the path of the file inside the corpus.
    if n % 4 == 0:
        with open(os.path.join(out, "paths", "shared-%d" % n), "wb") as o:
            o.write(b"\x01" + os.path.relpath(f, shared).encode() + b"\xff/")
    if n % 3 == 0 and size <= 8192:
        group.append((f, data))
        if len(group) == 4:
            flush()
flush()
print("make_seeds: %d files from %s" % (n, shared))
PY
touch "$out/.from-shared"
