#!/usr/bin/env bash
# A throwaway PostgreSQL server for the postgres store tests (the CTest fixture postgres_server).
#   server.sh start STATE_DIR   initdb into a new temporary directory, pg_ctl start on a unix
#                               socket only (no TCP), write the URI to STATE_DIR/uri
#   server.sh stop STATE_DIR    stop that server and remove its directory
# As root, the server runs as the unprivileged user `nobody` (PostgreSQL refuses to run as root).
# Fails, never skips, when PostgreSQL's server binaries are missing.
set -u
action=${1:-} state=${2:-}
[ -n "$action" ] && [ -n "$state" ] || { echo "usage: server.sh start|stop STATE_DIR" >&2; exit 2; }

bindir=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; break; fi
done
if [ -z "$bindir" ] && command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(command -v pg_ctl)")
fi

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

case "$action" in
  start)
    if [ -z "$bindir" ]; then
      echo "postgres server: FAILED: no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin" \
           "or on PATH; AGENTSKILLS_POSTGRES is ON, so its tests need them (Debian: apt-get install postgresql)" >&2
      exit 1
    fi
    mkdir -p "$state" || exit 1
    # Stop a server an interrupted run left behind.
    [ -f "$state/dir" ] && "$0" stop "$state" >/dev/null 2>&1
    dir=$(mktemp -d /tmp/agentskills-pg.XXXXXX) || exit 1
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir"
    echo "$dir" >"$state/dir"
    cd "$dir" || exit 1
    if ! as_server_user "$bindir/initdb" -D "$dir/data" -U agentskills --auth=trust -E UTF8 --no-sync \
         >"$dir/initdb.log" 2>&1; then
      echo "postgres server: FAILED: initdb" >&2; cat "$dir/initdb.log" >&2; exit 1
    fi
    if ! as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
         -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null; then
      echo "postgres server: FAILED: pg_ctl start" >&2; cat "$dir/server.log" >&2; exit 1
    fi
    echo "postgresql:///postgres?host=$dir&user=agentskills" >"$state/uri"
    echo "postgres server: started ($bindir) on $dir"
    ;;
  stop)
    [ -f "$state/dir" ] || { echo "postgres server: none to stop"; exit 0; }
    dir=$(cat "$state/dir")
    if [ -n "$bindir" ] && [ -d "$dir/data" ]; then
      (cd "$dir" && as_server_user "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null)
    fi
    case "$dir" in /tmp/agentskills-pg.*) rm -rf "$dir" ;; esac
    rm -f "$state/dir" "$state/uri"
    echo "postgres server: stopped"
    ;;
  *) echo "usage: server.sh start|stop STATE_DIR" >&2; exit 2 ;;
esac
