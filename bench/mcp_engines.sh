#!/usr/bin/env bash
# Two HTTP engines under the same MCP server (issue 34: "measure two and choose"): our
# `agentskills mcp --http` (Boost.Beast/Asio) and bench/mcp_mhd.cpp (libmicrohttpd, epoll thread
# pool), both on LIBRARY, under wrk with bench/mcp_wrk.lua's 2026-07-28 requests (mix 3:
# skills/list, skills/get, resources/read) at 64 and 256 connections, the two servers in turn
# (the order flips at each step, so that neither always runs first on a shared machine); then
# 1,000 idle keep-alive connections on each while a fresh client's request is timed
# (bench/mcp_idle.py); then 64 clients trickling header lines (bench/mcp_trickle.py) on each, and
# on a second mcp_mhd whose idle timeout is 2 s. One JSON line per run, with the server's CPU per
# answered request.
#   usage: bench/mcp_engines.sh BUILD_DIR LIBRARY [SECONDS]
#   SERVER_GLIBC_TUNABLES=...: GLIBC_TUNABLES for both servers (not wrk), e.g.
#   glibc.malloc.trim_threshold=67108864 (docs/performance.md, "Engines", says why)
#   (BUILD_DIR built with AGENTSKILLS_BUILD_BENCH=ON and libmicrohttpd-dev, for bench/mcp_mhd)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: mcp_engines.sh BUILD_DIR LIBRARY [SECONDS]"
build=$(cd "${1:?$usage}" && pwd)
library=$(cd "${2:?$usage}" && pwd)
seconds=${3:-10}
[ -x "$build/bench/mcp_mhd" ] || {
  echo "mcp_engines: $build/bench/mcp_mhd is missing (AGENTSKILLS_BUILD_BENCH=ON, libmicrohttpd-dev)" >&2
  exit 1
}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
tunables=${SERVER_GLIBC_TUNABLES:-}
# Only ever run in the background (&): exec makes $! the server itself.
serve() { if [ -n "$tunables" ]; then GLIBC_TUNABLES=$tunables exec "$@"; else exec "$@"; fi; }

logs=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT

serve "$build/agentskills" mcp --root "$library" --http 127.0.0.1:0 2>"$logs/beast" &
beast=$!
pids+=("$beast")
serve "$build/bench/mcp_mhd" --root "$library" --port 0 2>"$logs/mhd" &
mhd=$!
pids+=("$mhd")
for _ in $(seq 1 300); do
  grep -q "listening on" "$logs/beast" && grep -q "listening on" "$logs/mhd" && break
  sleep 0.1
done
beast_url=$(grep -o 'http://[^ ]*/mcp' "$logs/beast" | head -n 1)
mhd_url=$(grep -o 'http://[^ ]*/mcp' "$logs/mhd" | head -n 1)
[ -n "$beast_url" ] || { echo "mcp_engines: agentskills mcp did not start" >&2; cat "$logs/beast" >&2; exit 1; }
[ -n "$mhd_url" ] || { echo "mcp_engines: mcp_mhd did not start" >&2; cat "$logs/mhd" >&2; exit 1; }
# The first skill (by name) that both serve (both print the skills they leave out).
skill=""
for dir in $(find "$library" -mindepth 2 -maxdepth 2 -name SKILL.md | sort | xargs -n 1 dirname); do
  name=$(basename "$dir")
  if ! grep -q "$name" "$logs/beast" "$logs/mhd"; then skill=$name; break; fi
done
[ -n "$skill" ] || { echo "mcp_engines: no skill served by both" >&2; exit 1; }
echo "{\"library\":\"$library\",\"skill\":\"$skill\",\"seconds\":$seconds,\"tunables\":\"$tunables\",\"mhd\":\"$(grep -o 'libmicrohttpd [^,]*' "$logs/mhd")\"}"

rss() { awk '/VmHWM/ {h = $2} /VmRSS/ {r = $2} END {printf "\"peak_rss_kb\":%d,\"rss_kb\":%d", h, r}' "/proc/$1/status"; }
# The CPU time (user + system, in clock ticks) a process has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {  # run NAME PID URL CONNECTIONS (as bench/mcp_wrk.sh's run, mix 3)
  local out before after per_request
  before=$(cpu_ticks "$2")
  out=$(wrk -t2 -c "$4" -d "${seconds}s" --timeout 10s -s "$here/mcp_wrk.lua" "$3" -- "$skill" 3 | tail -n 1)
  after=$(cpu_ticks "$2")
  per_request=$(python3 -c 'import json, os, sys
d = json.loads(sys.argv[1])
print(round((int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / os.sysconf("SC_CLK_TCK") / max(d["requests"], 1), 1))' \
    "$out" "$before" "$after")
  echo "{\"server\":\"$1\",\"mix\":3,\"connections\":$4,${out#\{},\"cpu_us_per_request\":$per_request,$(rss "$2")}" |
    sed 's/},"cpu/,"cpu/'
}

# Warm both up.
wrk -t1 -c4 -d2s -s "$here/mcp_wrk.lua" "$beast_url" -- "$skill" 3 >/dev/null
wrk -t1 -c4 -d2s -s "$here/mcp_wrk.lua" "$mhd_url" -- "$skill" 3 >/dev/null
first=beast
for c in 64 256 64 256; do
  if [ "$first" = beast ]; then
    run beast "$beast" "$beast_url" "$c"
    run mhd "$mhd" "$mhd_url" "$c"
    first=mhd
  else
    run mhd "$mhd" "$mhd_url" "$c"
    run beast "$beast" "$beast_url" "$c"
    first=beast
  fi
done

python3 "$here/mcp_idle.py" "$beast_url" beast
python3 "$here/mcp_idle.py" "$mhd_url" mhd
# Slow clients: one header line every 100 ms, watched for 16 s (our request deadline is 10 s;
# libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT, 30 s here, counts inactivity).
python3 "$here/mcp_trickle.py" "$beast_url" beast 64 16
python3 "$here/mcp_trickle.py" "$mhd_url" mhd 64 16
serve "$build/bench/mcp_mhd" --root "$library" --port 0 --timeout 2 2>"$logs/mhd2" &
pids+=("$!")
for _ in $(seq 1 300); do grep -q "listening on" "$logs/mhd2" && break; sleep 0.1; done
python3 "$here/mcp_trickle.py" "$(grep -o 'http://[^ ]*/mcp' "$logs/mhd2" | head -n 1)" mhd_timeout_2s 64 16
echo "{\"server\":\"beast\",$(rss "$beast")}"
echo "{\"server\":\"mhd\",$(rss "$mhd")}"
