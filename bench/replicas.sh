#!/bin/bash
# bench/replicas.sh — the replicas benchmark, one command: accepted deliveries/s
# and processed events/s with 1, 2, 3 `hookinbox serve` replicas sharing one
# PostgreSQL database, beside one SQLite process measured the same way in the
# same run. Figures, not a pass/fail; every run is checked (any miss: exit 1).
# Method and how to read the table: bench/README.md "replicas.sh".
#
# usage: bash bench/replicas.sh [BUILD_DIR]        (default $BUILD or build/bench-release)
#   env: REPLICAS="1 2 3"  DURATION=10 (s of wrk per ingest run)  CONNS=32 (split over the replicas)
#        THREADS=2 (wrk threads in all, at least 1 per replica)  EVENTS=5000 (processed-events run)
#        WORKER_THREADS=4 (worker.threads = action.concurrency, per replica)  POOL_SIZE=4 (storage.pool_size)
#        CORPUS_RATE=16000 (corpus records per second of DURATION, all replicas together; a wrk
#                      thread that runs out fails the run)  SKIP_SQLITE=0  SKIP_BUILD=0  JOBS=2
#        WORK_DIR=DIR (scratch parent, default $TMPDIR or /tmp)  KEEP=1 (keep the scratch dir)
#        RESULTS_DIR=DIR (default $BUILD/bench-results/replicas-<UTC time>)
#        PG_FSYNC=on (off: PostgreSQL's fsync as tests/support/pg_cluster.sh leaves it, to see its share;
#                      the table then says so: those figures are not durable ones)
#
# PostgreSQL: a throw-away cluster from tests/support/pg_cluster.sh, with fsync
# turned back ON (the script turns it off for tests), so both backends' figures
# are durable ones (SQLite: WAL, synchronous = FULL; PostgreSQL: fsync = on,
# synchronous_commit = on). It runs on this machine: PostgreSQL, wrk and the
# downstream share the cores with the replicas.
# Never uses fixed ports (listen port 0 everywhere; the cluster gets a free
# port). Never prints a secret, a signature or a payload.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=replicas
# shellcheck source=bench/lib.sh
source bench/lib.sh
T_START=$(date +%s)
BUILD=${1:-${BUILD:-build/bench-release}}
REPLICAS=${REPLICAS:-"1 2 3"}
DURATION=${DURATION:-10}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
EVENTS=${EVENTS:-5000}
WORKER_THREADS=${WORKER_THREADS:-4}
POOL_SIZE=${POOL_SIZE:-4}
CORPUS_RATE=${CORPUS_RATE:-16000}
SKIP_SQLITE=${SKIP_SQLITE:-0}
JOBS=${JOBS:-2}
PG_FSYNC=${PG_FSYNC:-on}
RESULTS=${RESULTS_DIR:-$BUILD/bench-results/replicas-$(date -u +%Y%m%dT%H%M%SZ)}

CLK_TCK=$(getconf CLK_TCK)

# --- binaries: an existing Release tree (BUILD_TESTING=ON for test_load/test_downstream) ---
HB=$BUILD/hookinbox
DS=$BUILD/tests/support/test_downstream
LOAD=$BUILD/tests/support/test_load
[ -f "$BUILD/CMakeCache.txt" ] || die "$BUILD is not a configured build dir (bench/run.sh makes build/bench-release)"
grep -q '^BUILD_TESTING:BOOL=ON' "$BUILD/CMakeCache.txt" ||
  die "$BUILD has BUILD_TESTING off: no test_load/test_downstream (reconfigure it with -DBUILD_TESTING=ON)"
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # A no-op when the binaries are current.
  cmake --build "$BUILD" -j"$JOBS" --target hookinbox test_downstream test_load >/dev/null ||
    die "build failed in $BUILD"
fi
for b in "$HB" "$DS" "$LOAD"; do [ -x "$b" ] || die "$b missing"; done
for tool in wrk psql sqlite3 curl python3; do command -v "$tool" >/dev/null || die "$tool is needed"; done

# --- scratch, cleanup ------------------------------------------------------------------
WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/hookinbox-replicas.XXXXXX")
chmod 711 "$WORK"   # pg_cluster.sh runs postgres as the postgres user, which must reach $WORK/pg
if [ -d /dev/shm ] && [ -w /dev/shm ]; then SHM=$(mktemp -d /dev/shm/hookinbox-replicas.XXXXXX); else SHM=$WORK; fi
mkdir -p "$RESULTS"
RAW=$RESULTS/raw.txt
: >"$RAW"
PIDS=()
PG_DIR=$WORK/pg
cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  bash tests/support/pg_cluster.sh stop "$PG_DIR" 2>/dev/null || true
  [ "$SHM" = "$WORK" ] || rm -rf "$SHM"
  if [ "$rc" -ne 0 ] || [ "${KEEP:-0}" = 1 ]; then echo "replicas: scratch dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
# What else runs: the 1-min load average and other people's compilers.
load_note() { echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg) cc1plus=$(pgrep -c -x cc1plus || true)"; }
load_fields() { echo "loadavg=$(cut -d' ' -f1 /proc/loadavg) cc1plus=$(pgrep -c -x cc1plus || true)"; }

# --- PostgreSQL: a throw-away cluster, fsync back on ----------------------------------------
case "$PG_FSYNC" in on|off) ;; *) die "PG_FSYNC is on or off" ;; esac
PG_URL=$(bash tests/support/pg_cluster.sh start "$PG_DIR") || die "pg_cluster.sh start failed"
psql "$PG_URL" -XqAt -v ON_ERROR_STOP=1 -c "ALTER SYSTEM SET fsync = $PG_FSYNC" -c "SELECT pg_reload_conf()" >/dev/null
wait_for 10 "fsync = $PG_FSYNC" test "$(psql "$PG_URL" -XAtc 'SHOW fsync')" = "$PG_FSYNC"
PG_PID=$(head -1 "$PG_DIR/data/postmaster.pid")
PG_SETTINGS=$(psql "$PG_URL" -XAt -F' ' -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings
  WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'full_page_writes', 'server_version')")
# Transactions committed and rolled back in the bench database so far (a backend
# reports its counts when it exits or goes idle: read after the replicas stopped).
pg_xacts() { psql "$PG_URL" -XAt -F' ' -c "SELECT pg_stat_force_next_flush(); SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()" | tail -1; }
# The postmaster with its reaped children (backends that exited) and its live children.
pg_ticks() {
  local t p
  t=$(cpu_ticks "$PG_PID")
  for p in $(pgrep -P "$PG_PID" || true); do t=$(( t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) )); done
  echo "$t"
}

# --- one installation: init's certificate and demo secret, our config ------------------------
# write_config DIR BACKEND SCHEMA ACTION(0|1) [DS_PORT]
write_config() {
  local dir=$1 backend=$2 schema=$3 action=$4 ds_port=${5:-0} storage action_toml=""
  if [ "$backend" = postgres ]; then
    storage="backend = \"postgres\"
url = \"$PG_URL?options=-csearch_path%3D$schema\"
pool_size = $POOL_SIZE"
  else
    storage='path = "data/hookinbox.db"'
  fi
  if [ "$action" = 1 ]; then
    [ -f "$dir/secrets/forward.secret" ] || {
      echo "whsec_$(head -c 32 /dev/urandom | base64)" >"$dir/secrets/forward.secret"
      chmod 600 "$dir/secrets/forward.secret"
    }
    action_toml="
[endpoint.action]
type = \"http\"
url = \"http://127.0.0.1:$ds_port/events\"
forward_secret_file = \"secrets/forward.secret\"
idempotent_target = true
concurrency = $WORKER_THREADS
timeout_ms = 10000"
  fi
  # As bench/worker_bench.sh writes it (the integration tests' config), the storage varying.
  cat >"$dir/hookinbox.toml" <<TOML
[server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536

[admin]
listen = "127.0.0.1:0"

[storage]
$storage

[[endpoint]]
name = "demo"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"
$action_toml

[worker]
threads = $WORKER_THREADS
TOML
}

# new_instance DIR BACKEND -> SCHEMA (postgres: a fresh schema), DB (sqlite)
new_instance() {
  local dir=$1 backend=$2
  "$HB" init "$dir" >/dev/null
  SCHEMA=""
  DB=$dir/data/hookinbox.db
  if [ "$backend" = postgres ]; then
    SCHEMA=b_$(basename "$dir" | tr -c 'a-z0-9\n' _)
    psql "$PG_URL" -XqAt -v ON_ERROR_STOP=1 -c "CREATE SCHEMA $SCHEMA" >/dev/null
    rm -f "$DB"
  fi
  BACKEND=$backend
}
# q SQL: one query on the current instance (SQLite read-only: serve may be running)
q() {
  if [ "$BACKEND" = postgres ]; then
    psql "$PG_URL?options=-csearch_path%3D$SCHEMA" -XqAt -v ON_ERROR_STOP=1 -c "$1"
  else
    sqlite3 -batch -readonly "$DB" "$1"
  fi
}

# --- replicas ------------------------------------------------------------------------
listen_port() {  # LOG -> the public port of its "listening" line, or nothing yet
  sed -n 's/.*"event":"listening","url":"https:\/\/127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$1" | head -1
}
SERVE_PIDS=(); PORTS=()
# start_replicas DIR N: N `serve` from DIR/hookinbox.toml, spawned together; waits for each
# "listening" line and /readyz = 200.
start_replicas() {
  local dir=$1 n=$2 i log
  SERVE_PIDS=(); PORTS=()
  for i in $(seq 1 "$n"); do
    "$HB" serve -c "$dir/hookinbox.toml" >"$dir/serve-$i.log" 2>&1 &
    SERVE_PIDS+=("$!"); PIDS+=("$!")
  done
  for i in $(seq 1 "$n"); do
    log=$dir/serve-$i.log
    has_port() { kill -0 "${SERVE_PIDS[$1 - 1]}" 2>/dev/null || die "serve $1 exited; see $2"; [ -n "$(listen_port "$2")" ]; }
    wait_for 60 "serve $i to listen ($log)" has_port "$i" "$log"
    PORTS+=("$(listen_port "$log")")
  done
  for i in $(seq 1 "$n"); do
    ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/tls/cert.pem" "https://127.0.0.1:$1/readyz")" = 200 ]; }
    wait_for 30 "serve $i /readyz = 200" ready "${PORTS[$i - 1]}"
  done
}
stop_replicas() {  # DIR: SIGTERM to all, each must exit 0
  local dir=$1 p rc i=0
  for p in "${SERVE_PIDS[@]}"; do kill -TERM "$p"; done
  for p in "${SERVE_PIDS[@]}"; do
    i=$(( i + 1 )); rc=0; wait "$p" || rc=$?
    forget_pid "$p"
    [ "$rc" = 0 ] || die "serve $i exited $rc after SIGTERM; see $dir/serve-$i.log"
  done
}
serve_ticks() { local t=0 p; for p in "${SERVE_PIDS[@]}"; do t=$(( t + $(cpu_ticks "$p") )); done; echo "$t"; }
# Warnings and errors in the serve logs: counted per run, the lines kept for the report.
LOG_ISSUES=$RESULTS/serve-log-issues.txt
: >"$LOG_ISSUES"
log_issues() {  # LABEL DIR -> LOG_NOTE
  local n
  n=$(cat "$2"/serve-*.log | grep -c '"level":"\(warn\|warning\|error\|fatal\)"' || true)
  LOG_NOTE="serve_log_warn_error=$n"
  if [ "$n" -gt 0 ]; then
    { echo "== $1"; grep -h '"level":"\(warn\|warning\|error\|fatal\)"' "$2"/serve-*.log | head -20; } >>"$LOG_ISSUES"
    echo "# $1: $n warning/error lines in the serve logs (first ones in $LOG_ISSUES):" >&2
    grep -h '"level":"\(warn\|warning\|error\|fatal\)"' "$2"/serve-*.log | sed 's/"ts":"[^"]*",//' | sort | uniq -c | sort -rn | head -5 | cut -c1-300 >&2
  fi
}
xact_delta() {  # "COMMITS ROLLBACKS" before -> "commits=N rollbacks=N" since (the bench's own psql calls included)
  local c0 r0 c1 r1
  read -r c0 r0 <<<"$1"; read -r c1 r1 <<<"$(pg_xacts)"
  echo "commits=$(( c1 - c0 )) pg_rollbacks=$(( r1 - r0 ))"
}
ms_per_1k() { awk -v t="$1" -v n="$2" -v hz="$CLK_TCK" 'BEGIN{ if (n > 0) printf "%.0f", t * 1000 / hz / (n / 1000); else print "-" }'; }

# --- (a) accepted deliveries/s: one wrk per replica, run together -------------------------------
PEER_SECRET=$WORK/peer.secret   # test_load signs every record for the peer too; unused here
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$PEER_SECRET"
chmod 600 "$PEER_SECRET"
# ingest_run LABEL BACKEND N
ingest_run() {
  local label=$1 backend=$2 n=$3 dir=$WORK/ingest-$1 i
  new_instance "$dir" "$backend"
  write_config "$dir" "$backend" "$SCHEMA" 0
  # One corpus per replica, each with its own ids (distinct deliveries across replicas;
  # ~10 % are duplicates of a recent event of the same corpus). Written just before
  # the run: the demo endpoint accepts timestamps up to 300 s old.
  local records=$(( CORPUS_RATE * (DURATION + 2) / n ))
  for i in $(seq 1 "$n"); do
    "$LOAD" --write-corpus "$SHM/corpus-$i.txt" --secret-file "$dir/secrets/demo.secret" --peer-secret-file "$PEER_SECRET" \
      --deliveries "$records" --duplicates 0.10 --conflicts 0 --id-prefix "$label-r$i" --body-bytes 1024 \
      >"$dir/corpus-$i.log" 2>&1 || { cat "$dir/corpus-$i.log" >&2; die "test_load --write-corpus failed"; }
  done
  start_replicas "$dir" "$n"
  local load0 s0 p0 wpids=() conns threads
  threads=$(( THREADS / n )); [ "$threads" -ge 1 ] || threads=1
  load0=$(load_fields)
  local x0; x0=$(pg_xacts)
  s0=$(serve_ticks); p0=$(pg_ticks)
  for i in $(seq 1 "$n"); do
    conns=$(( CONNS / n + (i <= CONNS % n ? 1 : 0) ))
    [ "$conns" -ge "$threads" ] || die "CONNS=$CONNS is too few for $n replicas x $threads wrk threads"
    env CORPUS="$SHM/corpus-$i.txt" TARGET=hookinbox WRK_THREADS="$threads" CONN_CLOSE=0 ACKS="$dir/acks-$i.txt" \
      wrk -t"$threads" -c"$conns" -d"${DURATION}s" --timeout 5s -s bench/corpus.lua \
      "https://127.0.0.1:${PORTS[$i - 1]}/hooks/demo" >"$dir/wrk-$i.out" 2>&1 &
    wpids+=("$!"); PIDS+=("$!")
  done
  for i in $(seq 1 "$n"); do
    wait "${wpids[$i - 1]}" || die "$label: wrk $i failed; see $dir/wrk-$i.out"
    forget_pid "${wpids[$i - 1]}"
  done
  local s_cpu=$(( $(serve_ticks) - s0 )) p_cpu=$(( $(pg_ticks) - p0 ))
  stop_replicas "$dir"
  local xacts="commits=- pg_rollbacks=-"
  [ "$backend" = sqlite ] || xacts=$(xact_delta "$x0")
  # Figures: the sum over the replicas of each wrk's 2xx answers / its run time.
  local line ok=0 other=0 dps=0 per=""
  for i in $(seq 1 "$n"); do
    line=$(grep '^CORPUS ' "$dir/wrk-$i.out") || die "$label: wrk $i printed no CORPUS line ($dir/wrk-$i.out)"
    [ "$(field exhausted "$line")" = 0 ] || die "$label: wrk $i used up its corpus: raise CORPUS_RATE"
    local o2=$(field lua_2xx "$line") ot=$(field lua_other "$line") us=$(field duration_us "$line") d
    d=$(( o2 * 1000000 / (us > 0 ? us : 1) ))
    ok=$(( ok + o2 )); other=$(( other + ot )); dps=$(( dps + d )); per+="${per:+/}$d"
  done
  # Checks, after SIGTERM: no non-2xx answer; a delivery row for every 2xx answer
  # (at most one more per connection: committed as wrk stopped); every 'accepted'
  # answer names its own stored inbox row; no more inbox rows than that plus the
  # requests in flight; every delivery row sealed into the audit chain.
  [ "$other" = 0 ] || die "$label: $other answers were not 2xx ($dir/wrk-*.out)"
  local deliveries inbox acc acc_ids missing bad unsealed
  deliveries=$(q "SELECT count(*) FROM webhook_deliveries")
  inbox=$(q "SELECT count(*) FROM webhook_inbox")
  cat "$dir"/acks-*.txt >"$dir/acks.txt"
  [ "$(wc -l <"$dir/acks.txt")" = "$ok" ] || die "$label: $(wc -l <"$dir/acks.txt") ack lines for $ok 2xx answers"
  acc=$(awk '$2 == "accepted"' "$dir/acks.txt" | wc -l)
  awk '$2 == "accepted" {print $1}' "$dir/acks.txt" | sort -u >"$dir/accepted-ids.txt"
  acc_ids=$(wc -l <"$dir/accepted-ids.txt")
  [ "$acc" = "$acc_ids" ] || die "$label: $acc 'accepted' answers name only $acc_ids distinct inbox ids"
  if [ "$backend" = postgres ]; then
    missing=$(psql "$PG_URL?options=-csearch_path%3D$SCHEMA" -XqAt -v ON_ERROR_STOP=1 \
      -c "CREATE TEMP TABLE acked (id BIGINT)" -c "\\copy acked FROM '$dir/accepted-ids.txt'" \
      -c "SELECT count(*) FROM acked a WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.id = a.id)")
  else
    missing=$(sqlite3 -batch -readonly "$DB" "CREATE TEMP TABLE acked (id INTEGER);" ".import $dir/accepted-ids.txt acked" \
      "SELECT count(*) FROM acked a WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.id = a.id);")
  fi
  [ "$missing" = 0 ] || die "$label: $missing acknowledged inbox ids are not stored"
  [ "$deliveries" -ge "$ok" ] && [ "$deliveries" -le $(( ok + CONNS )) ] ||
    die "$label: $deliveries delivery rows for $ok 2xx answers on $CONNS connections"
  [ "$inbox" -ge "$acc_ids" ] && [ "$inbox" -le $(( acc_ids + CONNS )) ] ||
    die "$label: $inbox inbox rows for $acc_ids accepted answers on $CONNS connections"
  bad=$(q "SELECT count(*) FROM webhook_deliveries WHERE outcome NOT IN ('accepted', 'duplicate') OR http_status <> 200")
  [ "$bad" = 0 ] || die "$label: $bad delivery rows are not accepted/duplicate with 200"
  unsealed=$(q "SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL")
  [ "$unsealed" = 0 ] || die "$label: $unsealed delivery rows left out of the audit chain"
  log_issues "$label ingest" "$dir"
  record "RESULT phase=ingest backend=$backend replicas=$n accepted_per_s=$dps per_replica=$per answered_2xx=$ok other=$other delivery_rows=$deliveries inbox_rows=$inbox serve_cpu_ms_per_1k=$(ms_per_1k "$s_cpu" "$ok") pg_cpu_ms_per_1k=$([ "$backend" = postgres ] && ms_per_1k "$p_cpu" "$ok" || echo -) pg_$xacts $LOG_NOTE $load0"
  echo "# $(cat /proc/loadavg)"
  rm -f "$SHM"/corpus-*.txt
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- (b) processed events/s: EVENTS due events, N replicas with an http action ---------------------
# The rows as the door writes them (inbox 'received' and due, the delivery row, the
# original payload), inserted while no replica runs, as bench/worker_bench.sh does.
rows_sqlite() {
  cat <<SQL
BEGIN;
CREATE TEMP TABLE ids AS
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $EVENTS)
  SELECT i AS id, printf('evt_received_%08d', i) AS event_id, $(( $(now_ms) - EVENTS )) + i AS at,
         lower(hex(randomblob(32))) AS hash FROM s;
INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status,
                           attempt_count, next_attempt_at, received_at)
  SELECT id, 'generic', 'demo', 'default', event_id, 'invoice.paid', hash, 'received', 0, at, at FROM ids;
INSERT INTO webhook_deliveries (id, received_at, remote_addr, method, path, provider, endpoint, tenant_id,
                                event_id, event_type, inbox_id, outcome, http_status, payload_hash, body_bytes,
                                content_type, user_agent)
  SELECT id, at, '127.0.0.1', 'POST', '/hooks/demo', 'generic', 'demo', 'default', event_id, 'invoice.paid', id,
         'accepted', 200, hash, length('{"id":"' || event_id || '","type":"invoice.paid"}'), 'application/json',
         'replicas_bench' FROM ids;
INSERT INTO webhook_payloads (id, inbox_id, delivery_id, kind, payload_hash, content_type, body, created_at)
  SELECT id, id, id, 'original', hash, 'application/json',
         CAST('{"id":"' || event_id || '","type":"invoice.paid"}' AS BLOB), at FROM ids;
COMMIT;
SQL
}
rows_postgres() {  # the same rows; ids 1..EVENTS, then the identity sequences moved past them
  cat <<SQL
BEGIN;
CREATE TEMP TABLE ids AS
  SELECT i AS id, 'evt_received_' || lpad(i::text, 8, '0') AS event_id,
         (extract(epoch FROM clock_timestamp()) * 1000)::bigint - $EVENTS + i AS at,
         md5(random()::text) || md5(random()::text) AS hash
  FROM generate_series(1, $EVENTS) AS i;
INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status,
                           attempt_count, next_attempt_at, received_at)
  SELECT id, 'generic', 'demo', 'default', event_id, 'invoice.paid', hash, 'received', 0, at, at FROM ids;
INSERT INTO webhook_deliveries (id, received_at, remote_addr, method, path, provider, endpoint, tenant_id,
                                event_id, event_type, inbox_id, outcome, http_status, payload_hash, body_bytes,
                                content_type, user_agent)
  SELECT id, at, '127.0.0.1', 'POST', '/hooks/demo', 'generic', 'demo', 'default', event_id, 'invoice.paid', id,
         'accepted', 200, hash, length('{"id":"' || event_id || '","type":"invoice.paid"}'), 'application/json',
         'replicas_bench' FROM ids;
INSERT INTO webhook_payloads (id, inbox_id, delivery_id, kind, payload_hash, content_type, body, created_at)
  SELECT id, id, id, 'original', hash, 'application/json',
         convert_to('{"id":"' || event_id || '","type":"invoice.paid"}', 'UTF8'), at FROM ids;
SELECT setval(pg_get_serial_sequence('webhook_inbox', 'id'), $EVENTS);
SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'id'), $EVENTS);
SELECT setval(pg_get_serial_sequence('webhook_payloads', 'id'), $EVENTS);
COMMIT;
SQL
}
# process_run LABEL BACKEND N
process_run() {
  local label=$1 backend=$2 n=$3 dir=$WORK/process-$1
  new_instance "$dir" "$backend"
  if [ "$backend" = postgres ]; then
    # The schema is made by serve's migration runner: one replica, started and stopped.
    write_config "$dir" "$backend" "$SCHEMA" 0
    start_replicas "$dir" 1
    stop_replicas "$dir"
    rm -f "$dir"/serve-*.log
    rows_postgres | psql "$PG_URL?options=-csearch_path%3D$SCHEMA" -XqAt -v ON_ERROR_STOP=1 >/dev/null ||
      die "$label: inserting the events failed"
  else
    rows_sqlite | sqlite3 -batch "$DB" >/dev/null || die "$label: inserting the events failed"
  fi
  [ "$(q "SELECT count(*) FROM webhook_inbox WHERE status = 'received'")" = "$EVENTS" ] || die "$label: rows not inserted"
  "$DS" --port 0 --quiet >"$dir/downstream.out" 2>&1 &
  local ds_pid=$! ds_port
  PIDS+=("$ds_pid")
  wait_for 10 "test_downstream to listen" grep -q '^listening port=' "$dir/downstream.out"
  ds_port=$(sed -n 's/^listening port=//p' "$dir/downstream.out")
  write_config "$dir" "$backend" "$SCHEMA" 1 "$ds_port"

  local load0 s0 p0 t0 t1
  load0=$(load_fields)
  local x0; x0=$(pg_xacts)
  p0=$(pg_ticks)
  t0=$(now_ms)
  start_replicas "$dir" "$n"
  s0=0   # serve CPU from spawn: start-up is in the figure (it is in the wall time too)
  all_done() {
    local p; for p in "${SERVE_PIDS[@]}"; do kill -0 "$p" 2>/dev/null || die "$label: a serve exited early"; done
    [ "$(q "SELECT count(*) FROM webhook_inbox WHERE status = 'completed'")" = "$EVENTS" ]
  }
  wait_for $(( 60 + EVENTS / 20 )) "$label: all $EVENTS events completed" all_done
  t1=$(now_ms)
  local s_cpu=$(( $(serve_ticks) - s0 )) p_cpu=$(( $(pg_ticks) - p0 ))
  stop_replicas "$dir"
  local xacts="commits=- pg_rollbacks=-"
  [ "$backend" = sqlite ] || xacts=$(xact_delta "$x0")
  # Checks: one attempt per event, each completed with HTTP 200, every event
  # completed, the downstream saw every effect once.
  local attempts events_seen completed first last by_worker effects
  IFS='|' read -r attempts events_seen completed first last < <(q "SELECT count(*), count(DISTINCT inbox_id),
      sum(CASE WHEN outcome = 'completed' AND http_status = 200 THEN 1 ELSE 0 END), min(started_at), max(finished_at)
      FROM webhook_attempts")
  [ "$attempts" = "$EVENTS" ] && [ "$events_seen" = "$EVENTS" ] && [ "$completed" = "$EVENTS" ] ||
    die "$label: $attempts attempts on $events_seen events, $completed completed with 200; want $EVENTS each ($dir)"
  effects=$(curl -sf "http://127.0.0.1:$ds_port/_control/stats" | grep -o '"effects":[0-9]*' | cut -d: -f2)
  [ "$effects" = "$EVENTS" ] || die "$label: downstream effects=$effects; want $EVENTS"
  kill -TERM "$ds_pid"; wait "$ds_pid" 2>/dev/null || true; forget_pid "$ds_pid"
  # Attempts per replica (worker = host:pid:thread), to show each one took its share.
  by_worker=$(q "SELECT worker || '|' || count(*) FROM webhook_attempts GROUP BY worker" |
    awk -F'|' '{ split($1, w, ":"); n[w[1] ":" w[2]] += $2 } END { for (k in n) print n[k] }' | sort -rn | paste -sd/)
  local wall=$(( t1 - t0 )) span=$(( last - first ))
  [ "$span" -gt 0 ] || span=1
  log_issues "$label process" "$dir"
  record "RESULT phase=process backend=$backend replicas=$n events=$EVENTS processed_per_s=$(( EVENTS * 1000 / wall )) wall_ms=$wall attempts_span_per_s=$(( EVENTS * 1000 / span )) span_ms=$span attempts_by_replica=$by_worker serve_cpu_us_per_event=$(( s_cpu * 1000000 / CLK_TCK / EVENTS )) pg_cpu_us_per_event=$([ "$backend" = postgres ] && echo $(( p_cpu * 1000000 / CLK_TCK / EVENTS )) || echo -) pg_$xacts $LOG_NOTE $load0"
  echo "# $(cat /proc/loadavg)"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- machine facts ------------------------------------------------------------------------
{
  echo "# hookinbox replicas bench $(date -u +%FT%TZ)  results: $RESULTS"
  echo "# $("$HB" --version)  build: $BUILD ($BUILD_TYPE)  git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+dirty')"
  echo "# machine: nproc=$(nproc)  cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)  mem $(free -g | awk '/Mem:/{print $2}') GiB;" \
       "wrk, PostgreSQL and test_downstream run on the same $(nproc) cores as the replicas"
  echo "# db disk: $(df --output=source,fstype "$WORK" | tail -1 | xargs) (SQLite db and PostgreSQL data dir both in $WORK)"
  echo "# PostgreSQL (throw-away cluster, fsync turned back ON for the bench): $PG_SETTINGS"
  echo "# SQLite: WAL, synchronous = FULL (hookinbox's own settings)"
  echo "# DURATION=${DURATION}s CONNS=$CONNS (split over the replicas, one wrk each) THREADS=$THREADS EVENTS=$EVENTS WORKER_THREADS=$WORKER_THREADS (per replica) POOL_SIZE=$POOL_SIZE"
  echo "# at start: $(load_note)"
} | tee "$RESULTS/machine.txt"

# SQLite first, then the replicas (fewest first); each installation fresh.
[ "$SKIP_SQLITE" = 1 ] || { ingest_run sqlite1 sqlite 1; process_run sqlite1 sqlite 1; }
for n in $REPLICAS; do
  ingest_run "pg$n" postgres "$n"
  process_run "pg$n" postgres "$n"
done
echo "# at end: $(load_note)" | tee -a "$RESULTS/machine.txt"

# --- the table -------------------------------------------------------------------------------
get() {  # PHASE BACKEND REPLICAS FIELD
  local line; line=$(grep " phase=$1 backend=$2 replicas=$3 " "$RAW" | head -1)
  [ -n "$line" ] && field "$4" "$line" || echo -
}
ratio() { [ "$1" = - ] || [ "$2" = - ] || [ "$2" = 0 ] && echo - || awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
{
  echo
  echo "accepted/s: 2xx answers per second, summed over one wrk per replica (CONNS=$CONNS split), ${DURATION}s, 1 KB"
  echo "bodies, HTTPS keep-alive, demo endpoint without action. processed/s: $EVENTS due events / (spawn of the"
  echo "replicas -> all completed, polled); span/s: the same over first attempt start -> last attempt finish."
  echo "CPU: user+sys of all serve processes / of PostgreSQL (postmaster and backends), per 1 000 accepted or per event."
  echo "loadavg: 1-min load average before the figure (cc1plus = other people's compilers running then)."
  echo
  echo "| backend | replicas | accepted/s | vs SQLite | processed/s | vs SQLite | span/s | attempts per replica | serve CPU ms/1k acc | PG CPU ms/1k acc | PG commits/1k acc | serve CPU µs/event | PG CPU µs/event | loadavg (accept; process) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|"
  base_a=$(get ingest sqlite 1 accepted_per_s); base_p=$(get process sqlite 1 processed_per_s)
  row() {  # BACKEND N
    local a p
    a=$(get ingest "$1" "$2" accepted_per_s); p=$(get process "$1" "$2" processed_per_s)
    local c k; c=$(get ingest "$1" "$2" pg_commits); k=$(get ingest "$1" "$2" answered_2xx)
    [ "$c" = - ] || c=$(( c * 1000 / (k > 0 ? k : 1) ))
    printf '| %s | %s | **%s** | %s | **%s** | %s | %s | %s | %s | %s | %s | %s | %s | %s; %s |\n' "$1" "$2" "$a" "$(ratio "$a" "$base_a")" \
      "$p" "$(ratio "$p" "$base_p")" "$(get process "$1" "$2" attempts_span_per_s)" "$(get process "$1" "$2" attempts_by_replica)" \
      "$(get ingest "$1" "$2" serve_cpu_ms_per_1k)" "$(get ingest "$1" "$2" pg_cpu_ms_per_1k)" "$c" \
      "$(get process "$1" "$2" serve_cpu_us_per_event)" "$(get process "$1" "$2" pg_cpu_us_per_event)" \
      "$(get ingest "$1" "$2" loadavg)" "$(get process "$1" "$2" loadavg)"
  }
  [ "$SKIP_SQLITE" = 1 ] || row sqlite 1
  for n in $REPLICAS; do row postgres "$n"; done
  echo
  max_load=$(sed -n 's/.* loadavg=\([0-9.]*\).*/\1/p' "$RAW" | sort -g | tail -1)
  if awk -v l="${max_load:-0}" -v n="$(nproc)" 'BEGIN{exit !(l > n / 2)}'; then
    echo "NOTE: the 1-min load average reached $max_load on $(nproc) cores before a figure (others' work, and this bench's"
    echo "own previous run): these figures are depressed, lower than this machine gives when quiet. Compare rows only"
    echo "at similar load averages."
  fi
  [ "$PG_FSYNC" = on ] || echo "NOTE: PG_FSYNC=off: the PostgreSQL rows are NOT durable figures (fsync off)."
  echo "all checks passed: no non-2xx answer, every accepted answer stored, every event completed once (downstream effects = $EVENTS)."
  [ -s "$LOG_ISSUES" ] && echo "serve logs had warnings/errors: $LOG_ISSUES" || echo "serve logs: no warning or error lines."
  echo "whole bench: $(( $(date +%s) - T_START )) s; raw lines: $RAW"
} | tee "$RESULTS/table.md"
