#!/usr/bin/env bash
# Load test of `agentskills mcp --http` on loopback: starts the server on LIBRARY, runs
# bench/mcp_load.mjs (CLIENTS concurrent clients x REQUESTS mixed requests), prints its JSON line
# and the server's peak RSS, stops the server. Exits non-zero on any error.
#   usage: bench/mcp_load.sh BUILD_DIR LIBRARY [CLIENTS] [REQUESTS] [THREADS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: mcp_load.sh BUILD_DIR LIBRARY [CLIENTS] [REQUESTS] [THREADS]}" && pwd)
library=${2:?usage: mcp_load.sh BUILD_DIR LIBRARY [CLIENTS] [REQUESTS] [THREADS]}
clients=${3:-64}
requests=${4:-2000}
threads=${5:-0}  # io threads; 0 = one per hardware thread
node=${NODE:-node}
log=$(mktemp)
"$build/agentskills" mcp --root "$library" --http 127.0.0.1:0 --threads "$threads" 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 200); do
  grep -q "listening on" "$log" && break
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
url=$(grep -o 'http://[^ ]*/mcp' "$log" | head -n 1)
[ -n "$url" ] || { echo "mcp_load: the server did not start" >&2; cat "$log" >&2; exit 1; }
rc=0
timeout 900 "$node" "$here/mcp_load.mjs" "$url" "$clients" "$requests" || rc=$?
rss=$(awk '/VmHWM/ {print $2, $3}' /proc/$pid/status)
cpu=$(awk '{print ($14 + $15) / 100}' /proc/$pid/stat)
echo "{\"server_peak_rss\":\"$rss\",\"server_cpu_seconds\":$cpu,\"threads\":$threads}"
kill -TERM $pid
wait $pid || true
exit $rc
