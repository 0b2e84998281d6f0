#!/usr/bin/env bash
# docs/deploy.md, run literally: 3 replicas of `agentskills mcp --http ... --state postgresql://...`
# behind nginx (the configuration block of docs/deploy.md, between its deploy:nginx markers, with
# only the listen and upstream ports replaced), PostgreSQL from tests/postgres/server.sh; the
# official SDK client in both eras through nginx (tests/mcp/replicas_test.cjs), one replica killed
# with SIGKILL mid-run, zero client-visible errors.
#
#   scripts/ci/replicas.sh BUILD_DIR [TMP_DIR]
#
# Needs nginx (tools/dev.sh deps installs it; no system nginx is started: this one runs in the
# foreground with its own configuration, pid, logs and temporary files) and the npm peers in
# AGENTSKILLS_MCP_PEERS (or installs them with ../shared/peers/setup-mcp-peers.sh). Everything it
# starts is stopped on exit. Exits non-zero on failure.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [TMP_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${AGENTSKILLS_SHARED:-$repo/../shared}
tmp=${2:-}
own_tmp=""
if [ -z "$tmp" ]; then
  tmp=$(mktemp -d)
  own_tmp=1
fi
mkdir -p "$tmp"
tmp=$(cd "$tmp" && pwd)
cli=$build/agentskills
[ -x "$cli" ] || { echo "replicas.sh: $cli not found" >&2; exit 1; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] || { echo "replicas.sh: no nginx (tools/dev.sh deps installs it)" >&2; exit 1; }

pids=()
pg_state=$tmp/postgres
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  bash "$repo/tests/postgres/server.sh" stop "$pg_state" >/dev/null 2>&1 || true
  if [ $status -ne 0 ]; then
    for f in "$tmp"/replica-*.log "$tmp"/nginx/error.log; do
      [ -f "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" >&2; }
    done
  fi
  [ -z "$own_tmp" ] || rm -rf "$tmp"
  exit $status
}
trap cleanup EXIT

peers=${AGENTSKILLS_MCP_PEERS:-}
if [ -z "$peers" ]; then
  peers=$tmp/peers
  bash "$shared/peers/setup-mcp-peers.sh" "$peers" >/dev/null
fi
node=$peers/node_modules/.bin/node
[ -x "$node" ] || { echo "replicas.sh: no Node 22 at $node" >&2; exit 1; }

# PostgreSQL on a unix socket, as the postgres tests start it.
bash "$repo/tests/postgres/server.sh" start "$pg_state" >/dev/null
state_uri=$(cat "$pg_state/uri")

# The library and its lock file (docs/deploy.md, "The same catalog everywhere").
lib=$tmp/library
cp -r "$repo/tests/data/library" "$lib"
"$cli" lock --root "$lib" --output "$tmp/agentskills-lock.json" >/dev/null

# 3 replicas, each on a free port it reports.
ports=()
for i in 1 2 3; do
  log=$tmp/replica-$i.log
  "$cli" mcp --http 127.0.0.1:0 --root "$lib" --lock "$tmp/agentskills-lock.json" --lock-strict \
    --state "$state_uri" --max-sessions-per-client 0 2>"$log" &
  pids+=($!)
  port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n 1)
    [ -n "$port" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || { echo "replicas.sh: replica $i exited" >&2; cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  [ -n "$port" ] || { echo "replicas.sh: replica $i did not listen" >&2; exit 1; }
  ports+=("$port")
done
replica_pids=("${pids[@]}")
skills=$(sed -n 's/.*serving \([0-9]*\) skills.*/\1/p' "$tmp/replica-1.log" | head -n 1)
for i in 2 3; do
  other=$(sed -n 's/.*serving \([0-9]*\) skills.*/\1/p' "$tmp/replica-$i.log" | head -n 1)
  [ "$other" = "$skills" ] || { echo "replicas.sh: replicas serve $skills and $other skills" >&2; exit 1; }
done

# nginx: docs/deploy.md's block, its ports replaced (8100 the front, 8101-8103 the replicas).
front=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/nginx"
chmod 0777 "$tmp/nginx"
block=$(sed -n '/<!-- deploy:nginx:begin -->/,/<!-- deploy:nginx:end -->/p' "$repo/docs/deploy.md" | sed '1,2d;$d' | sed '$d')
case "$block" in
  *"upstream agentskills_replicas"*"127.0.0.1:8101"*"127.0.0.1:8103"*"listen 127.0.0.1:8100"*) ;;
  *) echo "replicas.sh: docs/deploy.md has no nginx block between its deploy:nginx markers" >&2; exit 1 ;;
esac
printf '%s\n' "$block" |
  sed -e "s/127\.0\.0\.1:8100;/127.0.0.1:$front;/" -e "s/127\.0\.0\.1:8101 /127.0.0.1:${ports[0]} /" \
    -e "s/127\.0\.0\.1:8102 /127.0.0.1:${ports[1]} /" -e "s/127\.0\.0\.1:8103 /127.0.0.1:${ports[2]} /" \
    >"$tmp/nginx/agentskills.conf"
cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 256; }
http {
    log_format replicas '\$upstream_addr \$upstream_status \$request_method \$status';
    access_log $tmp/nginx/access.log replicas;
    client_body_temp_path $tmp/nginx/body;
    proxy_temp_path $tmp/nginx/proxy;
    fastcgi_temp_path $tmp/nginx/fastcgi;
    uwsgi_temp_path $tmp/nginx/uwsgi;
    scgi_temp_path $tmp/nginx/scgi;
    include $tmp/nginx/agentskills.conf;
}
CONF
"$nginx_bin" -t -q -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log"
"$nginx_bin" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" -g 'daemon off;' &
pids+=($!)
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$front") 2>/dev/null && break
  sleep 0.05
done

# The SDK client through nginx; the second replica dies after phase 1.
echo "replicas.sh: nginx on $front, replicas on ${ports[*]}, $skills skills"
timeout 120 "$node" "$repo/tests/mcp/replicas_test.cjs" --peers "$peers" --url "http://127.0.0.1:$front/mcp" \
  --skills "$skills" --kill "${replica_pids[1]}"
# Every replica answered requests (the killed one before it died), and every answer nginx gave
# the client was a success (GET /mcp, the SDK asking for an SSE stream, is 405 by design).
for port in "${ports[@]}"; do
  grep -q "127.0.0.1:$port [0-9]" "$tmp/nginx/access.log" ||
    { echo "replicas.sh: no request reached the replica on $port" >&2; exit 1; }
done
if grep -v -E ' (POST 200|POST 202|DELETE 200|GET 405)$' "$tmp/nginx/access.log" | grep -q .; then
  echo "replicas.sh: nginx answered a client with an error:" >&2
  grep -v -E ' (POST 200|POST 202|DELETE 200|GET 405)$' "$tmp/nginx/access.log" >&2
  exit 1
fi
if kill -0 "${replica_pids[1]}" 2>/dev/null; then
  echo "replicas.sh: the killed replica still runs" >&2
  exit 1
fi
echo "replicas.sh: ok"
