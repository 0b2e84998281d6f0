#!/usr/bin/env bash
# Side by side under wrk (Debian `wrk`): `agentskills mcp --http` and the official SDK's skills
# server (bench/mcp_sdk_http_server.mjs: createMcpHandler on node:http) on the same LIBRARY, with
# the same 2026-07-28 requests (bench/mcp_wrk.lua: skills/list, skills/get, resources/read and, for
# ours, tools/call of the activation tool — the SDK's skills server has no such tool), at 64 and
# 256 connections; then 1,000 idle keep-alive connections held on each server while a fresh
# client's request is timed. One JSON line per run; the servers' peak RSS after each.
# ROUNDS (default 3) runs of each server at each connection count, alternated (SDK, ours, SDK,
# ours…) so that a slower minute of this shared machine falls on both; then one summary line per
# connection count: the median requests/s of each over the same mix (3) and their ratio.
#   usage: [ROUNDS=N] bench/mcp_wrk.sh BUILD_DIR LIBRARY PEERS_DIR [SECONDS] [CONNECTIONS...]
#   (PEERS_DIR: where scripts/ci's setup-mcp-peers installed @modelcontextprotocol/server)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: [ROUNDS=N] mcp_wrk.sh BUILD_DIR LIBRARY PEERS_DIR [SECONDS] [CONNECTIONS...]"
build=$(cd "${1:?$usage}" && pwd)
library=$(cd "${2:?$usage}" && pwd)
peers=$(cd "${3:?$usage}" && pwd)
seconds=${4:-10}
shift $(( $# < 4 ? $# : 4 ))
connections=("$@")
[ ${#connections[@]} -gt 0 ] || connections=(64 256)
node=${NODE:-node}
rounds=${ROUNDS:-3}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

logs=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT

"$build/agentskills" mcp --root "$library" --http 127.0.0.1:0 2>"$logs/ours" &
ours=$!
pids+=("$ours")
"$node" "$here/mcp_sdk_http_server.mjs" "$peers" "$library" >"$logs/sdk" 2>&1 &
sdk=$!
pids+=("$sdk")
for _ in $(seq 1 300); do
  grep -q "listening on" "$logs/ours" && grep -qE '^[0-9]+$' "$logs/sdk" && break
  sleep 0.1
done
ours_url=$(grep -o 'http://[^ ]*/mcp' "$logs/ours" | head -n 1)
sdk_port=$(grep -E '^[0-9]+$' "$logs/sdk" | head -n 1)
[ -n "$ours_url" ] || { echo "mcp_wrk: our server did not start" >&2; cat "$logs/ours" >&2; exit 1; }
[ -n "$sdk_port" ] || { echo "mcp_wrk: the SDK's server did not start" >&2; cat "$logs/sdk" >&2; exit 1; }
sdk_url="http://127.0.0.1:$sdk_port/mcp"
# The first skill (by name) that both servers serve (each leaves some out, and says so).
skill=""
for dir in $(find "$library" -mindepth 2 -maxdepth 2 -name SKILL.md | sort | xargs -n 1 dirname); do
  name=$(basename "$dir")
  if ! grep -q "$name" "$logs/ours" "$logs/sdk"; then skill=$name; break; fi
done
[ -n "$skill" ] || { echo "mcp_wrk: no skill served by both" >&2; exit 1; }
echo "{\"library\":\"$library\",\"skill\":\"$skill\",\"seconds\":$seconds}"

rss() { awk '/VmHWM/ {h = $2} /VmRSS/ {r = $2} END {printf "\"peak_rss_kb\":%d,\"rss_kb\":%d", h, r}' "/proc/$1/status"; }

# The CPU time (user + system, in clock ticks) a process has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {  # run NAME PID URL MIX CONNECTIONS
  local out before after per_request
  before=$(cpu_ticks "$2")
  out=$(wrk -t2 -c "$5" -d "${seconds}s" --timeout 10s -s "$here/mcp_wrk.lua" "$3" -- "$skill" "$4" | tail -n 1)
  after=$(cpu_ticks "$2")
  # The server's CPU per answered request, in microseconds: steadier than requests/s on a shared
  # machine, where wrk and other programs take cores from the server.
  per_request=$(python3 -c 'import json, os, sys
d = json.loads(sys.argv[1])
print(round((int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / os.sysconf("SC_CLK_TCK") / max(d["requests"], 1), 1))' \
    "$out" "$before" "$after")
  echo "{\"server\":\"$1\",\"mix\":$4,\"connections\":$5,${out#\{},\"cpu_us_per_request\":$per_request,$(rss "$2")}" |
    sed 's/},"cpu/,"cpu/'
}

# Warm both up (the SDK's JIT, our caches).
wrk -t1 -c4 -d2s -s "$here/mcp_wrk.lua" "$ours_url" -- "$skill" 4 >/dev/null
wrk -t1 -c4 -d2s -s "$here/mcp_wrk.lua" "$sdk_url" -- "$skill" 3 >/dev/null
for c in "${connections[@]}"; do
  for _ in $(seq 1 "$rounds"); do
    run sdk "$sdk" "$sdk_url" 3 "$c" | tee -a "$logs/runs"
    run ours "$ours" "$ours_url" 3 "$c" | tee -a "$logs/runs"
  done
  run ours "$ours" "$ours_url" 4 "$c"
done
# The medians of the alternated runs (mix 3: the requests both servers answer) and their ratio.
python3 - "$logs/runs" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
for c in sorted({r["connections"] for r in runs}):
    def median(server, key):
        return statistics.median(r[key] for r in runs if r["server"] == server and r["connections"] == c)
    ours, sdk = median("ours", "req_per_s"), median("sdk", "req_per_s")
    print(json.dumps({"summary": "median of the alternated runs, mix 3", "connections": c,
                      "runs": sum(1 for r in runs if r["server"] == "ours" and r["connections"] == c),
                      "ours_req_per_s": round(ours), "sdk_req_per_s": round(sdk),
                      "ratio": round(ours / sdk, 1),
                      "ours_p99_ms_max": max(r["p99_ms"] for r in runs if r["server"] == "ours" and r["connections"] == c),
                      "errors": sum(r["errors"] + r["socket_errors"] for r in runs if r["connections"] == c),
                      "cpu_ratio": round(median("sdk", "cpu_us_per_request") / median("ours", "cpu_us_per_request"), 1)}))
PY

# 1,000 idle keep-alive connections (each has had one answer), then a fresh client, five times.
idle() {  # idle NAME URL
  python3 "$here/mcp_idle.py" "$2" "$1"
}
idle ours "$ours_url"
idle sdk "$sdk_url"
echo "{\"server\":\"ours\",$(rss "$ours")}"
echo "{\"server\":\"sdk\",$(rss "$sdk")}"
