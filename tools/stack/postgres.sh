#!/usr/bin/env bash
# Private PostgreSQL 15 cluster on 127.0.0.1:$PG_PORT (trust auth, loopback only).
# Usage: postgres.sh install|up|down|status|reset
set -euo pipefail
STACK_COMPONENT=postgres
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_BIN=/usr/lib/postgresql/15/bin
DATABASES=(echoloop echoloop_test)

# Run a PostgreSQL binary as the cluster owner (initdb/postgres refuse to run as root).
as_pg() {
  if is_root; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

# The cluster lives in .infra/pg unless the postgres user cannot reach it
# (e.g. the repo is under /root); then in /var/tmp, with .infra/pg a symlink to it.
pg_base() {
  local link="$INFRA_DIR/pg" alt
  if [[ ! -e $link ]]; then
    mkdir -p "$INFRA_DIR"
    if is_root && ! runuser -u postgres -- test -x "$INFRA_DIR"; then
      alt="/var/tmp/echoloop-pg-$(printf '%s' "$REPO_ROOT" | sha256sum | cut -c1-12)"
      mkdir -p "$alt"
      ln -s "$alt" "$link"
    else
      mkdir -p "$link"
    fi
  fi
  readlink -f "$link"
}

BASE=$(pg_base)
DATA="$BASE/data"
SOCK_DIR="$BASE/run"
# Unix socket paths are limited to ~107 bytes; fall back to TCP only.
((${#SOCK_DIR} < 90)) || SOCK_DIR=""

psql_admin() {
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAtX "$@"
}

pg_running() { [[ -f $DATA/PG_VERSION ]] && as_pg "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

cmd_install() {
  [[ -x $PG_BIN/postgres ]] && return 0
  is_root || die "PostgreSQL 15 is missing: run as root, or 'sudo apt-get install -y postgresql-15'"
  log "installing postgresql-15 from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
}

init_cluster() {
  mkdir -p "$DATA" "$BASE/run"
  if is_root; then chown -R postgres:postgres "$BASE"; fi
  [[ -f $DATA/PG_VERSION ]] && return 0
  log "initdb $DATA"
  as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  echo "include = 'echoloop.conf'" >>"$DATA/postgresql.conf"
}

# Rewritten on every start so that PG_PORT overrides take effect.
write_config() {
  cat >"$DATA/echoloop.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$SOCK_DIR'
max_connections = 200
shared_buffers = 128MB
logging_collector = off
EOF
  cat >"$DATA/pg_hba.conf" <<'EOF'
local all all              trust
host  all all 127.0.0.1/32 trust
EOF
  if is_root; then chown postgres:postgres "$DATA/echoloop.conf" "$DATA/pg_hba.conf"; fi
}

# Idempotent: role and databases are created only when missing.
bootstrap_sql() {
  psql_admin >/dev/null <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'echoloop') THEN
    CREATE ROLE echoloop LOGIN CREATEDB PASSWORD 'echoloop';
  END IF;
END $$;
SELECT format('CREATE DATABASE %I OWNER echoloop', d)
  FROM unnest(ARRAY['echoloop', 'echoloop_test']) AS d
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d)
\gexec
SQL
}

cmd_up() {
  cmd_install
  ensure_dirs
  init_cluster
  write_config
  if pg_running; then
    log "already running on 127.0.0.1:$PG_PORT"
  else
    port_open 127.0.0.1 "$PG_PORT" && die "port $PG_PORT is in use by another process (set PG_PORT)"
    log "starting on 127.0.0.1:$PG_PORT"
    # Redirected by this shell, so the log can live in .infra/logs even when postgres can't write there.
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -w -t 60 start >>"$(log_file postgres)" 2>&1 </dev/null ||
      die "pg_ctl start failed (see $(log_file postgres))"
  fi
  wait_for_port 127.0.0.1 "$PG_PORT" 30 postgres
  bootstrap_sql
}

cmd_down() {
  if pg_running; then
    log "stopping"
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -w -t 60 -m fast stop >/dev/null
  fi
}

cmd_status() {
  if pg_running && port_open 127.0.0.1 "$PG_PORT"; then
    print_status postgres up "postgres://echoloop:echoloop@127.0.0.1:$PG_PORT/echoloop (+ echoloop_test)"
  else
    print_status postgres down "127.0.0.1:$PG_PORT"
    return 1
  fi
}

cmd_reset() {
  pg_running || cmd_up
  local db
  for db in "${DATABASES[@]}"; do
    log "recreating database $db"
    psql_admin -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"
  done
  bootstrap_sql
}

case "${1:-}" in
  install | up | down | status | reset) "cmd_$1" ;;
  *) die "usage: $0 install|up|down|status|reset" ;;
esac
