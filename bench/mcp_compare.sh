#!/usr/bin/env bash
# Side by side, in one run: the SDK's own skills server (loadSkills + McpServer + serveStdio) and
# `agentskills mcp` serve the same library to the same client (bench/mcp_bench_client.cjs: the
# SDK's SkillsClient lists every skill and reads and verifies every file). Each server runs RUNS
# times, alternately; prints each run and the median CPU time (user+sys) of each and their ratio.
#   usage: bench/mcp_compare.sh BUILD_DIR PEERS_DIR LIBRARY [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: mcp_compare.sh BUILD_DIR PEERS_DIR LIBRARY [RUNS]}" && pwd)
peers=$(cd "${2:?usage}" && pwd)
library=$(cd "${3:?usage}" && pwd)
runs=${4:-5}
node=$peers/node_modules/.bin/node
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ours=()
sdk=()
for i in $(seq 1 "$runs"); do
  s=$("$node" "$here/mcp_bench_client.cjs" "$peers" "$tmp/sdk$i" "$node" "$here/mcp_sdk_server.mjs" "$peers" "$library")
  o=$("$node" "$here/mcp_bench_client.cjs" "$peers" "$tmp/ours$i" "$build/agentskills" mcp --root "$library" --max-lines 0)
  echo "run $i sdk:  $s"
  echo "run $i ours: $o"
  sdk+=("$(echo "$s" | sed 's/.*"server_cpu_s":\([0-9.]*\).*/\1/')")
  ours+=("$(echo "$o" | sed 's/.*"server_cpu_s":\([0-9.]*\).*/\1/')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ms=$(median "${sdk[@]}")
mo=$(median "${ours[@]}")
echo "median server CPU (user+sys): sdk ${ms}s, agentskills ${mo}s, ratio $(awk -v o="$mo" -v s="$ms" 'BEGIN {printf "%.3f", o / s}')"
