#!/usr/bin/env bash
# A throw-away PostgreSQL 15 cluster for the test command and for developers:
# the store and integration suites reach it through HOOKINBOX_TEST_PG_URL.
#
#   bash tests/support/pg_cluster.sh start DIR [PORT]   -> prints one line: the libpq URL
#   bash tests/support/pg_cluster.sh stop DIR           -> harmless when it is not running
#
# DIR holds everything (data/, the unix socket, server.log); delete it after
# `stop`. The server listens on 127.0.0.1 only, on PORT or a free port, with
# trust authentication for loopback and the socket: a test fixture, never a
# server to keep. fsync is off: the tests kill hookinbox processes, never this
# server or the machine, so a flush to the platter proves nothing here and
# costs the store suite 5x its time (52 s against 10 s). synchronous_commit
# stays on: a commit still returns only after the server wrote its WAL.
# initdb and postgres refuse to run as root, so as root they run as the
# `postgres` OS user (Debian's package creates it), which must be able to reach DIR.
set -euo pipefail

die() { echo "pg_cluster: $*" >&2; exit 1; }

bindir() {
  local d
  d=$(pg_config --bindir 2>/dev/null || true)
  [ -x "$d/initdb" ] || d=/usr/lib/postgresql/15/bin
  [ -x "$d/initdb" ] || die "no initdb in \$(pg_config --bindir) or $d (install postgresql)"
  echo "$d"
}

# Runs a server binary as the user that owns the cluster.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

log_tail() {
  echo "pg_cluster: server log ($1/server.log), last lines:" >&2
  tail -n 30 "$1/server.log" >&2 2>/dev/null || echo "(no log)" >&2
}

make_dir() {
  local dir=$1
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    die "$dir exists and is not empty (stop it, delete it, or pick another DIR)"
  fi
  # The unix socket path is limited to 107 bytes.
  [ ${#dir} -le 90 ] || die "$dir is too long for a unix socket directory (at most 90 characters)"
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$dir"
    runuser -u postgres -- test -w "$dir" ||
      die "the postgres user cannot reach $dir: a parent directory is not searchable by it (chmod o+x it, or pass DIR=\$(mktemp -d) itself)"
  fi
}

init_cluster() {
  local dir=$1 bin=$2
  # --no-sync: a crash of this machine during initdb only loses a throw-away
  # cluster; it saves seconds.
  # Locale C: text sorts by bytes, as SQLite's BINARY collation does.
  if ! as_owner "$bin/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C --no-sync \
      --auth-local=trust --auth-host=trust >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    die "initdb failed"
  fi
  # Loopback only: trust must never reach another host.
  cat >"$dir/data/pg_hba.conf" <<'EOF'
local all all              trust
host  all all 127.0.0.1/32 trust
host  all all ::1/128      trust
EOF
  cat >>"$dir/data/postgresql.conf" <<EOF

# pg_cluster.sh: a throw-away cluster for tests.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 32MB
fsync = off
synchronous_commit = on
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
EOF
}

# Starts the server on $2 and waits until it accepts connections or dies.
# pg_ctl -w watches the postmaster (it fails at once when, say, the port is
# taken); pg_isready through the socket in DIR then proves that the server
# answering is this one (on 127.0.0.1:$2 another could).
start_server() {
  local dir=$1 port=$2 bin=$3
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "-p $port" -w -t 30 start >/dev/null 2>&1 ||
    return 1
  local deadline=$((SECONDS + 10))
  until "$bin/pg_isready" -q -h "$dir" -p "$port" -d postgres -U postgres; do
    [ $SECONDS -lt $deadline ] || { echo "pg_cluster: not accepting connections within 10 s" >&2; return 1; }
    sleep 0.05
  done
}

cmd_start() {
  local dir port=${2:-} bin
  [ -n "${1:-}" ] || die "usage: pg_cluster.sh start DIR [PORT]"
  bin=$(bindir)
  make_dir "$1"
  dir=$(cd "$1" && pwd)
  cd "$dir"   # the postgres user may not be able to read the caller's directory
  init_cluster "$dir" "$bin"
  # A free port can be taken between picking and binding it: pick again then.
  local tries=1
  [ -n "$port" ] || tries=5
  for ((i = 0; i < tries; i++)); do
    local p=${port:-$(free_port)}
    if start_server "$dir" "$p" "$bin"; then
      if ! "$bin/psql" -q -h "$dir" -p "$p" -U postgres -d postgres -v ON_ERROR_STOP=1 \
          -c 'CREATE DATABASE hookinbox' >/dev/null; then
        log_tail "$dir"
        die "could not create database hookinbox"
      fi
      echo "postgresql://postgres@127.0.0.1:$p/hookinbox" | tee "$dir/url"
      return 0
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  done
  log_tail "$dir"
  die "server did not start"
}

cmd_stop() {
  local dir=${1:-} bin
  [ -n "$dir" ] || die "usage: pg_cluster.sh stop DIR"
  [ -f "$dir/data/postmaster.pid" ] || return 0
  bin=$(bindir)
  dir=$(cd "$dir" && pwd)
  cd "$dir"
  # A stale pid file (the postmaster crashed or was killed) means nothing to
  # stop. A killed postmaster can linger as a zombie when nothing reaps it,
  # which pg_ctl would take for a running server.
  local pid state
  pid=$(head -n 1 "$dir/data/postmaster.pid")
  state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)
  [ -n "$state" ] && [ "$state" != Z ] || return 0
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  *) die "usage: pg_cluster.sh start DIR [PORT] | stop DIR" ;;
esac
