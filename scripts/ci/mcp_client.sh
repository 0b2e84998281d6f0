#!/usr/bin/env bash
# Our MCP client against the official SDK's own skills server: `loadSkills(DIR)` from
# @modelcontextprotocol/server/ext/skills/node on an McpServer, over stdio (bench/mcp_sdk_server.mjs).
#
#   scripts/ci/mcp_client.sh BUILD_DIR [PEERS_DIR] [TMP_DIR]
#
# PEERS_DIR holds what ../shared/peers/setup-mcp-peers.sh installs (node at
# PEERS_DIR/node_modules/.bin/node); without it (or with AGENTSKILLS_MCP_PEERS unset) the packages
# are installed into TMP_DIR/peers. For each library (tests/data/library and libraries of
# ../shared/corpus), every top-level skill the SDK server serves that `agentskills list --root LIB`
# also accepts must appear in `agentskills list --json --mcp-command "node ... LIB"` with the
# same body and the same resource paths (`agentskills activate`, the text before the
# `Skill directory:` line, and every `<file path=...>`), and no verification may fail.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [PEERS_DIR] [TMP_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${AGENTSKILLS_SHARED:-$repo/../shared}
peers=${2:-${AGENTSKILLS_MCP_PEERS:-}}
tmp=${3:-}
if [ -z "$tmp" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp"
cli=$build/agentskills
[ -x "$cli" ] || { echo "mcp_client.sh: $cli not found (configure with AGENTSKILLS_MCP=ON)" >&2; exit 1; }
if [ -z "$peers" ]; then
  peers=$tmp/peers
  bash "$shared/peers/setup-mcp-peers.sh" "$peers" >/dev/null
fi
peers=$(cd "$peers" && pwd)
node=$peers/node_modules/.bin/node
[ -x "$node" ] || { echo "mcp_client.sh: no node at $node" >&2; exit 1; }

libraries=("$repo/tests/data/library")
for lib in anthropics__skills/skills getsentry__skills/skills obra__superpowers/skills openai__skills/skills/.curated \
  vercel-labs__agent-skills/skills K-Dense-AI__claude-scientific-skills/scientific-skills github__awesome-copilot/skills; do
  [ -d "$shared/corpus/libraries/$lib" ] && libraries+=("$shared/corpus/libraries/$lib")
done

failures=0
for lib in "${libraries[@]}"; do
  server="\"$node\" \"$repo/bench/mcp_sdk_server.mjs\" \"$peers\" \"$lib\""
  if ! python3 - "$cli" "$lib" "$server" <<'PY'
import json, re, subprocess, sys

cli, lib, server = sys.argv[1:4]

def run(args):
    p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=300)
    return p

def listing(args):
    p = run(["list", "--json"] + args)
    if p.returncode not in (0, 1):
        sys.exit(f"list {args} failed ({p.returncode}): {p.stderr[:2000]}")
    return json.loads(p.stdout)

def activations(args, names):
    """name -> (body, resource paths) of `activate ARGS NAMES...` (one run for all names)."""
    p = run(["activate"] + args + names)
    if p.returncode != 0:
        sys.exit(f"activate {args} failed ({p.returncode}): {p.stderr[:2000]}")
    out = {}
    for block in re.split(r'(?m)^<skill_content name="', p.stdout)[1:]:
        name, rest = block.split('">\n', 1)
        body = rest.split("\nSkill directory: ", 1)[0]
        out[name] = (body, re.findall(r'<file path="([^"]*)"', rest))
    return out

local = listing(["--root", lib])
remote = listing(["--mcp-command", server])
bad = [d for d in remote["diagnostics"] if d["code"] in ("mcp-verification-failed", "mcp-server-error")]
problems = [f"{d['code']}: {d['message']}" for d in bad]
local_names = {s["name"] for s in local["skills"]}
served = {}
for s in remote["skills"]:
    m = re.fullmatch(r"skill://([^/]+)/SKILL\.md", s["location"] or "")
    if m:
        served[m.group(1)] = s
for s in remote["skipped"]:
    m = re.fullmatch(r"skill://([^/]+)/SKILL\.md", s["path"] or "")
    if m and m.group(1) in local_names:
        problems.append(f"served and accepted locally, but refused: {s['message']}")
common = sorted(n for n in local_names if n in served and served[n]["name"] == n)
for n in sorted(local_names):
    if n in served and served[n]["name"] != n:
        problems.append(f"{n}: listed as {served[n]['name']}")
compared = 0
if common:
    mine = activations(["--mcp-command", server], common)
    theirs = activations(["--root", lib], common)
    for name in common:
        if name not in mine or name not in theirs:
            problems.append(f"{name}: no activation text")
            continue
        if mine[name][0] != theirs[name][0]:
            problems.append(f"{name}: the body differs")
        if mine[name][1] != theirs[name][1]:
            problems.append(f"{name}: resources differ: {mine[name][1]} != {theirs[name][1]}")
        compared += 1
print(f"mcp_client.sh: {lib}: {compared} skills compared, {len(served)} served, {len(local_names)} local")
if compared == 0:
    problems.append("no skill was compared")
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  then
    echo "mcp_client.sh: FAILED: $lib" >&2
    failures=$((failures + 1))
  fi
done
if [ $failures -ne 0 ]; then
  echo "mcp_client.sh: $failures libraries failed" >&2
  exit 1
fi
echo "mcp_client.sh: all libraries passed"
