#!/usr/bin/env bash
# docs/deploy.md, run literally: 3 replicas of `agentskills mcp --http ... --state postgresql://...`
# behind nginx (the configuration block of docs/deploy.md, between its deploy:nginx markers, with
# only the listen and upstream ports replaced), PostgreSQL from tests/postgres/server.sh; the
# official SDK client in both eras through nginx (tests/mcp/replicas_test.cjs), one replica killed
# with SIGKILL while reads are in flight, zero client-visible errors. Over tests/data/library and
# every library of ../shared/corpus (scripts/ci/corpus_libraries.sh), one after another.
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
    for f in "${failed_run:-$tmp/none}"/replica-*.log "${failed_run:-$tmp/none}"/nginx/error.log; do
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

# tests/data/library and every library of the corpus, one after another.
source "$repo/scripts/ci/corpus_libraries.sh"
corpus_libraries "$repo" "$shared"

# serve_library LIBRARY N: the whole run over one library (in $tmp/run-N).
serve_library() {
  local lib=$1 run=$tmp/run-$2 i log port other skills front block
  mkdir -p "$run"
  failed_run=$run  # whose logs the exit trap shows, until this run has passed
  # Its lock file (docs/deploy.md, "The same catalog everywhere").
  "$cli" lock --root "$lib" --output "$run/agentskills-lock.json" >/dev/null 2>"$run/lock.log" ||
    { echo "replicas.sh: agentskills lock failed" >&2; cat "$run/lock.log" >&2; return 1; }

  # 3 replicas, each on a free port it reports.
  local ports=() replica_pids=()
  for i in 1 2 3; do
    log=$run/replica-$i.log
    "$cli" mcp --http 127.0.0.1:0 --root "$lib" --lock "$run/agentskills-lock.json" --lock-strict \
      --state "$state_uri" --trust-proxy 127.0.0.1 2>"$log" &
    pids+=($!)
    replica_pids+=($!)
    port=""
    for _ in $(seq 1 200); do
      port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n 1)
      [ -n "$port" ] && break
      kill -0 "${pids[-1]}" 2>/dev/null || { echo "replicas.sh: replica $i exited" >&2; cat "$log" >&2; return 1; }
      sleep 0.05
    done
    [ -n "$port" ] || { echo "replicas.sh: replica $i did not listen" >&2; return 1; }
    ports+=("$port")
  done
  skills=$(sed -n 's/.*serving \([0-9]*\) skills.*/\1/p' "$run/replica-1.log" | head -n 1)
  for i in 2 3; do
    other=$(sed -n 's/.*serving \([0-9]*\) skills.*/\1/p' "$run/replica-$i.log" | head -n 1)
    [ "$other" = "$skills" ] || { echo "replicas.sh: replicas serve $skills and $other skills" >&2; return 1; }
  done

  # nginx: docs/deploy.md's block, its ports replaced (8100 the front, 8101-8103 the replicas).
  front=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$run/nginx"
  chmod 0777 "$run/nginx"
  block=$(sed -n '/<!-- deploy:nginx:begin -->/,/<!-- deploy:nginx:end -->/p' "$repo/docs/deploy.md" | sed '1,2d;$d' | sed '$d')
  case "$block" in
    *"upstream agentskills_replicas"*"127.0.0.1:8101"*"127.0.0.1:8103"*"listen 127.0.0.1:8100"*) ;;
    *) echo "replicas.sh: docs/deploy.md has no nginx block between its deploy:nginx markers" >&2; return 1 ;;
  esac
  printf '%s\n' "$block" |
    sed -e "s/127\.0\.0\.1:8100;/127.0.0.1:$front;/" -e "s/127\.0\.0\.1:8101 /127.0.0.1:${ports[0]} /" \
      -e "s/127\.0\.0\.1:8102 /127.0.0.1:${ports[1]} /" -e "s/127\.0\.0\.1:8103 /127.0.0.1:${ports[2]} /" \
      >"$run/nginx/agentskills.conf"
  cat >"$run/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $run/nginx/nginx.pid;
error_log $run/nginx/error.log warn;
events { worker_connections 256; }
http {
    log_format replicas '\$upstream_addr \$upstream_status \$request_method \$status';
    access_log $run/nginx/access.log replicas;
    client_body_temp_path $run/nginx/body;
    proxy_temp_path $run/nginx/proxy;
    fastcgi_temp_path $run/nginx/fastcgi;
    uwsgi_temp_path $run/nginx/uwsgi;
    scgi_temp_path $run/nginx/scgi;
    include $run/nginx/agentskills.conf;
}
CONF
  "$nginx_bin" -t -q -p "$run/nginx" -c "$run/nginx/nginx.conf" -e "$run/nginx/error.log" || return 1
  "$nginx_bin" -p "$run/nginx" -c "$run/nginx/nginx.conf" -e "$run/nginx/error.log" -g 'daemon off;' &
  pids+=($!)
  local nginx_pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$front") 2>/dev/null && break
    sleep 0.05
  done

  # The SDK client through nginx; the second replica dies in the middle, with reads in flight.
  echo "replicas.sh: $lib: nginx on $front, replicas on ${ports[*]}, $skills skills"
  timeout 300 "$node" "$repo/tests/mcp/replicas_test.cjs" --peers "$peers" --url "http://127.0.0.1:$front/mcp" \
    --skills "$skills" --kill "${replica_pids[1]}" || return 1
  # Every replica answered requests (the killed one before it died), and every answer nginx gave
  # the client was a success (GET /mcp, the SDK asking for an SSE stream, is 405 by design).
  for port in "${ports[@]}"; do
    grep -q "127.0.0.1:$port [0-9]" "$run/nginx/access.log" ||
      { echo "replicas.sh: no request reached the replica on $port" >&2; return 1; }
  done
  if grep -v -E ' (POST 200|POST 202|DELETE 200|GET 405)$' "$run/nginx/access.log" | grep -q .; then
    echo "replicas.sh: nginx answered a client with an error:" >&2
    grep -v -E ' (POST 200|POST 202|DELETE 200|GET 405)$' "$run/nginx/access.log" >&2
    return 1
  fi
  if kill -0 "${replica_pids[1]}" 2>/dev/null; then
    echo "replicas.sh: the killed replica still runs" >&2
    return 1
  fi
  # The requests the killed replica held when it died went to another (nginx logs both tries).
  retried=$(grep -c ', ' "$run/nginx/access.log" || true)
  echo "replicas.sh: $lib: ok ($retried requests passed on from the killed replica)"
  for i in 1 3; do kill "${replica_pids[$((i - 1))]}" 2>/dev/null || true; done
  kill "$nginx_pid" 2>/dev/null || true
  for pid in "${replica_pids[@]}" "$nginx_pid"; do wait "$pid" 2>/dev/null || true; done
  failed_run=""
}

failed_run=""
n=0
for lib in "${libraries[@]}"; do
  n=$((n + 1))
  serve_library "$lib" "$n" || { echo "replicas.sh: FAILED on $lib" >&2; exit 1; }
done
echo "replicas.sh: ok (${#libraries[@]} libraries)"
