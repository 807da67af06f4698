#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the run-history tests and benchmarks.
#
#   pg_cluster.sh start DIR     initdb (trust authentication) in a new temporary
#                               directory and start the server on a Unix socket
#                               only (listen_addresses=''), on a port of its own;
#                               DIR/url receives the URL of its "postgres" database
#   pg_cluster.sh createdb DIR NAME
#                               create database NAME; prints its URL
#   pg_cluster.sh stop DIR      stop the server and remove everything it had
#
# The server refuses to run as root: as root, initdb, pg_ctl and the server run
# as the `postgres` user (runuser). Binaries: $ETP_PG_BIN, else
# /usr/lib/postgresql/15/bin. Missing binaries are an error, not a skip: CI
# installs Debian's `postgresql`. ETP_PG_DURABLE=1 keeps fsync and synchronous
# commits on (benchmarks); the tests turn them off (they kill clients, never
# the server). ETP_PG_OPTIONS adds server options (e.g. "-c huge_pages=on" for
# a benchmark on a machine with vm.nr_hugepages set).
set -euo pipefail

BIN=${ETP_PG_BIN:-/usr/lib/postgresql/15/bin}
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: pg_cluster.sh start|stop DIR | createdb DIR NAME" >&2
  exit 2
fi

as_server() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
start)
  for b in initdb pg_ctl postgres psql; do
    if [ ! -x "$BIN/$b" ]; then
      echo "pg_cluster.sh: $BIN/$b not found: install Debian's postgresql (apt-get install postgresql)" >&2
      exit 1
    fi
  done
  mkdir -p "$dir"
  if [ -f "$dir/state" ]; then
    "$0" stop "$dir" || true
  fi
  tmp=$(mktemp -d /tmp/etprof-pg.XXXXXX)
  mkdir "$tmp/sock"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres: "$tmp"
  fi
  # The socket directory is private, so any port number is free in it.
  port=$((20000 + RANDOM % 40000))
  echo "tmp=$tmp" >"$dir/state"
  echo "port=$port" >>"$dir/state"
  if ! as_server "$BIN/initdb" -D "$tmp/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
      >"$tmp/initdb.log" 2>&1; then
    cat "$tmp/initdb.log" >&2
    exit 1
  fi
  durable="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  if [ "${ETP_PG_DURABLE:-0}" = 1 ]; then
    durable=""
  fi
  if ! as_server "$BIN/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
      -o "-k $tmp/sock -c listen_addresses='' -p $port -c max_connections=60 $durable ${ETP_PG_OPTIONS:-}" start \
      >/dev/null; then
    cat "$tmp/server.log" >&2
    exit 1
  fi
  echo "postgresql://postgres@/postgres?host=$tmp/sock&port=$port" >"$dir/url"
  echo "PostgreSQL started: $(cat "$dir/url")"
  ;;
createdb)
  name=${3:?database name}
  # shellcheck disable=SC1091
  . "$dir/state"
  "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock" -p "$port" -U postgres -d postgres \
    -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS \"$name\"" -c "CREATE DATABASE \"$name\"" >/dev/null
  echo "postgresql://postgres@/$name?host=$tmp/sock&port=$port"
  ;;
stop)
  if [ ! -f "$dir/state" ]; then
    echo "pg_cluster.sh: no cluster recorded in $dir" >&2
    exit 0
  fi
  # shellcheck disable=SC1091
  . "$dir/state"
  as_server "$BIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
  case "$tmp" in
  /tmp/etprof-pg.*) rm -rf "$tmp" ;;
  esac
  rm -f "$dir/state" "$dir/url"
  echo "PostgreSQL stopped"
  ;;
*)
  echo "usage: pg_cluster.sh start|stop DIR | createdb DIR NAME" >&2
  exit 2
  ;;
esac
