#!/usr/bin/env bash
# `agentskills mcp` against real MCP clients: the official TypeScript SDK v2 client with its
# SkillsClient (both eras, stdio and Streamable HTTP) and the MCP Inspector's headless verifier.
#
#   scripts/ci/mcp.sh BUILD_DIR [TMP_DIR]
#
# Installs the npm packages into TMP_DIR/peers with ../shared/peers/setup-mcp-peers.sh (relative
# to the repository root) unless AGENTSKILLS_MCP_PEERS names a directory where they already are.
# Libraries: tests/data/library, tests/data/marketplace, tests/data/marketplace-declared, every
# library of ../shared/corpus and a 500-skill library from ../shared/tools/gen_library.py (when
# the shared folder is there); then
# scripts/ci/sdk_frontmatter.cjs (the SDK's frontmatter reader against ours). Exits non-zero on
# failure.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [TMP_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${AGENTSKILLS_SHARED:-$repo/../shared}  # override for a checkout elsewhere
tmp=${2:-}
if [ -z "$tmp" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp"
cli=$build/agentskills
[ -x "$cli" ] || { echo "mcp.sh: $cli not found (configure with AGENTSKILLS_MCP=ON)" >&2; exit 1; }
"$cli" mcp --help >/dev/null || { echo "mcp.sh: $cli has no mcp command" >&2; exit 1; }

peers=${AGENTSKILLS_MCP_PEERS:-}
if [ -z "$peers" ]; then
  peers=$tmp/peers
  bash "$shared/peers/setup-mcp-peers.sh" "$peers" >/dev/null
fi
node=$peers/node_modules/.bin/node
inspector=$peers/node_modules/.bin/mcp-inspector
[ -x "$node" ] || { echo "mcp.sh: no Node 22 at $node" >&2; exit 1; }

# tests/data/library and every library of the corpus; tests/data/marketplace and
# tests/data/marketplace-declared, Claude Code plugin marketplaces (the second names each plugin's
# skills in a `skills` list), whose skills are served at skill://PLUGIN/SKILL/SKILL.md.
source "$repo/scripts/ci/corpus_libraries.sh"
corpus_libraries "$repo" "$shared"
libraries+=("$repo/tests/data/marketplace" "$repo/tests/data/marketplace-declared")
if [ -f "$shared/tools/gen_library.py" ] && [ -d "$shared/corpus" ]; then
  python3 "$shared/tools/gen_library.py" --corpus "$shared/corpus" --out "$tmp/gen500" -n 500 --seed 1 --resources >/dev/null
  libraries+=("$tmp/gen500")
fi

# Prints how many `duplicate-name` warnings the Inspector's JSON lines in $1 hold; returns 1 (and
# prints the offender on standard error) when a skill is not ok or has any other finding.
inspector_findings() {
  python3 - "$1" <<'PY'
import json, sys
duplicates = bad = 0
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.strip():
        continue
    entry = json.loads(line)
    if entry.get("ok") is not True:
        bad += 1
        print(line[:500], file=sys.stderr)
    for finding in entry.get("conformance", []):
        if finding.get("code") == "duplicate-name" and finding.get("severity") == "warning":
            duplicates += 1
        else:
            bad += 1
            print(f"{entry.get('uri')}: {json.dumps(finding)[:500]}", file=sys.stderr)
print(duplicates)
sys.exit(1 if bad else 0)
PY
}

failures=0
for lib in "${libraries[@]}"; do
  for era in legacy modern; do
    for transport in stdio http; do
      if ! timeout 600 "$node" "$repo/tests/mcp/sdk_client_test.cjs" --peers "$peers" --cli "$cli" --root "$lib" \
        --era "$era" --transport "$transport"; then
        echo "mcp.sh: SDK client test FAILED: $lib ($era, $transport)" >&2
        failures=$((failures + 1))
      fi
    done
  done
  # The Inspector's verifier: every skill listed, every file read and checked, no conformance
  # finding, in both eras (its catalog budget raised so that the whole library is read). The one
  # finding allowed is its warning `duplicate-name`, which it calls legal: two plugins of a
  # marketplace may each have a skill `review` (skill://docs/review and skill://code/review).
  home=$tmp/home
  mkdir -p "$home"
  for era in legacy modern; do
    out=$tmp/inspector.json
    err=$tmp/inspector.err
    if HOME=$home timeout 600 "$node" "$inspector" --cli --format json --method skills/list --verify \
      --protocol-era "$era" --skill-catalog-max-skills 100000 --skill-catalog-max-bytes 1073741824 \
      "$cli" mcp --root "$lib" >"$out" 2>"$err" &&
      grep -q "no conformance errors" "$err" &&
      duplicates=$(inspector_findings "$out"); then
      echo "inspector ($era): $lib: $(grep -c '"ok":true' "$out") skills verified, no conformance errors" \
        "($duplicates duplicate-name warnings)"
    else
      echo "mcp.sh: Inspector verification FAILED: $lib ($era)" >&2
      grep -v "^agentskills mcp: " "$err" | tail -n 20 >&2
      grep -v '"ok":true' "$out" | head -n 5 >&2 || true
      failures=$((failures + 1))
    fi
  done
done

# Our frontmatter against the SDK's own reader: every skill we serve reads alike, every skill we
# leave out as outside its subset is one it refuses (generated shapes, mutations, the corpus).
if ! timeout 900 "$node" "$repo/scripts/ci/sdk_frontmatter.cjs" --peers "$peers" --cli "$cli" --tmp "$tmp/sdk-frontmatter" \
  --corpus "$shared/corpus"; then
  echo "mcp.sh: the SDK's frontmatter reader and ours DIFFER" >&2
  failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
  echo "mcp.sh: $failures failure(s)" >&2
  exit 1
fi
echo "mcp.sh: all MCP client tests passed"
