#!/usr/bin/env bash
# Our MCP client against the official SDK's own skills server: `loadSkills(DIR)` from
# @modelcontextprotocol/server/ext/skills/node on an McpServer, over stdio (serveStdio,
# bench/mcp_sdk_server.mjs) and over Streamable HTTP (createMcpHandler on node:http,
# bench/mcp_sdk_http_server.mjs).
#
#   scripts/ci/mcp_client.sh BUILD_DIR [PEERS_DIR] [TMP_DIR]
#
# PEERS_DIR holds what ../shared/peers/setup-mcp-peers.sh installs (node at
# PEERS_DIR/node_modules/.bin/node); without it (or with AGENTSKILLS_MCP_PEERS unset) the packages
# are installed into TMP_DIR/peers. For each library (tests/data/library and every library of
# ../shared/corpus/libraries), over each transport, every top-level skill the SDK server serves
# that `agentskills list --root LIB` also accepts must appear in `agentskills list --json
# --mcp-command "node ... LIB"` (stdio) and `--mcp-url URL` (HTTP) under its own name with the
# same body and the same resource paths (`agentskills activate`, the text before the
# `Skill directory:` line, and every `<file path=...>`); no verification may fail and no server
# error may occur; and both transports must serve the same skills.
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
http_pid=
cleanup() {
  if [ -n "$http_pid" ]; then
    kill "$http_pid" 2>/dev/null || true
    wait "$http_pid" 2>/dev/null || true
  fi
  if [ -n "${own_tmp:-}" ]; then rm -rf "$own_tmp"; fi
}
trap cleanup EXIT
if [ -z "$tmp" ]; then
  tmp=$(mktemp -d)
  own_tmp=$tmp
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

# tests/data/library and every library of the corpus.
source "$repo/scripts/ci/corpus_libraries.sh"
corpus_libraries "$repo" "$shared"

# Starts the SDK's HTTP server over $1; sets http_pid and url.
start_http() {
  local out=$tmp/http-port
  : > "$out"
  "$node" "$repo/bench/mcp_sdk_http_server.mjs" "$peers" "$1" > "$out" 2> "$tmp/http-server.log" &
  http_pid=$!
  local i
  for i in $(seq 1 1200); do
    if grep -qE '^[0-9]+$' "$out"; then break; fi
    kill -0 "$http_pid" 2>/dev/null || break
    sleep 0.1
  done
  local port
  port=$(grep -E '^[0-9]+$' "$out" | head -1 || true)
  if [ -z "$port" ]; then
    echo "mcp_client.sh: the SDK's HTTP server did not start:" >&2
    head -c 2000 "$tmp/http-server.log" >&2
    return 1
  fi
  url="http://127.0.0.1:$port/mcp"
}

stop_http() {
  kill "$http_pid" 2>/dev/null || true
  wait "$http_pid" 2>/dev/null || true
  http_pid=
}

failures=0
for lib in "${libraries[@]}"; do
  server="\"$node\" \"$repo/bench/mcp_sdk_server.mjs\" \"$peers\" \"$lib\""
  if ! start_http "$lib"; then
    echo "mcp_client.sh: FAILED: $lib" >&2
    failures=$((failures + 1))
    stop_http
    continue
  fi
  if ! python3 - "$cli" "$lib" "$server" "$url" <<'PY'
import json, re, subprocess, sys

cli, lib, server, url = sys.argv[1:5]

def run(args):
    p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=600)
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
local_names = {s["name"] for s in local["skills"]}
problems = []
served_by = {}
for transport, source in (("stdio", ["--mcp-command", server]), ("http", ["--mcp-url", url])):
    remote = listing(source)
    bad = [d for d in remote["diagnostics"] if d["code"] in ("mcp-verification-failed", "mcp-server-error")]
    problems += [f"{transport}: {d['code']}: {d['message'][:500]}" for d in bad]
    served = {}
    for s in remote["skills"]:
        m = re.fullmatch(r"skill://([^/]+)/SKILL\.md", s["location"] or "")
        if m:
            served[m.group(1)] = s
    served_by[transport] = sorted(served)
    for s in remote["skipped"]:
        m = re.fullmatch(r"skill://([^/]+)/SKILL\.md", s["path"] or "")
        if m and m.group(1) in local_names:
            problems.append(f"{transport}: served and accepted locally, but refused: {s['message'][:500]}")
    common = sorted(n for n in local_names if n in served and served[n]["name"] == n)
    for n in sorted(local_names):
        if n in served and served[n]["name"] != n:
            problems.append(f"{transport}: {n}: listed as {served[n]['name']}")
    compared = 0
    if common:
        mine = activations(source, common)
        theirs = activations(["--root", lib], common)
        for name in common:
            if name not in mine or name not in theirs:
                problems.append(f"{transport}: {name}: no activation text")
                continue
            if mine[name][0] != theirs[name][0]:
                problems.append(f"{transport}: {name}: the body differs")
            if mine[name][1] != theirs[name][1]:
                problems.append(f"{transport}: {name}: resources differ: {mine[name][1]} != {theirs[name][1]}")
            compared += 1
    print(f"mcp_client.sh: {lib} ({transport}): {compared} skills compared, {len(served)} served, "
          f"{len(local_names)} local")
    if compared == 0:
        problems.append(f"{transport}: no skill was compared")
if served_by["stdio"] != served_by["http"]:
    only_stdio = sorted(set(served_by["stdio"]) - set(served_by["http"]))
    only_http = sorted(set(served_by["http"]) - set(served_by["stdio"]))
    problems.append(f"stdio and HTTP serve different skills: only stdio {only_stdio[:20]}, only HTTP {only_http[:20]}")
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  then
    echo "mcp_client.sh: FAILED: $lib" >&2
    failures=$((failures + 1))
  fi
  stop_http
done
if [ $failures -ne 0 ]; then
  echo "mcp_client.sh: $failures libraries failed" >&2
  exit 1
fi
echo "mcp_client.sh: all libraries passed (${#libraries[@]}, stdio and Streamable HTTP)"
