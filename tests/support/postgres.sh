#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and the bench: Debian's server
# binaries, a data directory in a fresh temporary folder owned by `postgres`
# (the server refuses to run as root), listening on loopback only.
#
#   tests/support/postgres.sh start [PORT]   prints the URL, e.g. postgres://inboxkit@127.0.0.1:54329/inboxkit
#   tests/support/postgres.sh stop           stops the cluster and removes its folder
#   tests/support/postgres.sh restart        stops and starts the server (same data): the tests' "database restart"
#   tests/support/postgres.sh down | up      stops the server (every connection cut) / starts it again, same data
#
# The state (folder, port) lives in .tmp/postgres.env of the checkout (or the file
# INBOXKIT_PG_STATE names, for a second cluster), so `stop`
# finds what `start` made.
set -euo pipefail
cd "$(dirname "$0")/../.."
STATE=${INBOXKIT_PG_STATE:-.tmp/postgres.env}

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [[ -z "$dir" ]]; then
    echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql; install Debian's postgresql package (apt-get install -y postgresql)." >&2
    exit 1
  fi
  echo "$dir"
}

as_postgres() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local port=${1:-54329}
  if [[ -f $STATE ]]; then
    echo "postgres.sh: a cluster is already recorded in $STATE; run '$0 stop' first." >&2
    exit 1
  fi
  local bin dir
  bin=$(bindir)
  dir=$(mktemp -d /tmp/inboxkit-pg.XXXXXX)
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
  as_postgres "$bin/initdb" -D "$dir/data" -U inboxkit --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  mkdir -p .tmp
  printf 'PG_DIR=%q\nPG_PORT=%q\nPG_BIN=%q\n' "$dir" "$port" "$bin" >"$STATE"
  run_server "$bin" "$dir" "$port"
  as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U inboxkit inboxkit
  echo "postgres://inboxkit@127.0.0.1:$port/inboxkit"
}

run_server() {
  local bin=$1 dir=$2 port=$3
  # fsync stays on: the durability tests rely on a commit being on disk.
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c shared_buffers=64MB" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
}

stop() {
  [[ -f $STATE ]] || return 0
  # shellcheck disable=SC1090
  source "$STATE"
  as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR" "$STATE"
}

down() {
  # shellcheck disable=SC1090
  source "$STATE"
  as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
}

up() {
  # shellcheck disable=SC1090
  source "$STATE"
  run_server "$PG_BIN" "$PG_DIR" "$PG_PORT"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop ;;
  restart) down; up ;;
  down) down ;;
  up) up ;;
  *) echo "usage: $0 start [PORT] | stop | restart | down | up" >&2; exit 2 ;;
esac
