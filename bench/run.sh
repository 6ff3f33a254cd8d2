#!/bin/bash
# bench/run.sh — the ingest benchmark, one command: durable ingest over HTTPS
# (keep-alive c = 8/32/128 and a new TLS connection per request), the same
# corpus against the peer adnanh/webhook 2.8.0 in the same run, the worker
# with an `http` action, ingest with 0 / 1 M / 10 M rows stored, start-up to
# /readyz with the largest prefill, p99 at a fixed 2 000 deliveries/s, and
# the mixed case (bench/mixed.sh): ingest and forwarding beside
# 1 M receive-only events and 100 k due events of an endpoint at capacity.
# Prints one table (medians of REPS runs); every raw RESULT line goes to the
# results dir. Method, figures and checks: bench/README.md "run.sh".
#
# usage: bash bench/run.sh
#   env: REPS=3  DURATION=10 (s per wrk run)  PREFILLS="0 1M 10M"  SKIP_PEER=0  SKIP_WORKER=0
#        CONNS="8 32 128" (keep-alive rows)  CLOSE_CONNS=32 (new-connection row)  THREADS=2 (wrk -t)
#        RATE=2000 RATE_CONNS=32 (fixed-rate row)  WORKER_THREADS=16 WORKER_EVENTS=4000
#        VERIFY=exact (wrk response() records every answer; checked one by one) | count (counts only)
#        CORPUS_RATE=40000 (corpus records per second of DURATION; a run that would wrap fails)
#        SKIP_MIXED=0  ONLY_MIXED=0 (1: nothing but the mixed rows, so no peer, ingest, prefill, fixed-rate, worker rows)
#        MIXED_RECEIVE_ONLY=1000000 MIXED_AT_CAPACITY=100000 (the mixed prefill)  MIXED_CONNS=32  MIXED_DRAIN=5 (s)
#        BUILD=build/bench-release  SKIP_BUILD=1 (reuse binaries)  JOBS=2
#        WORK_DIR=DIR (scratch parent, default $TMPDIR or /tmp; a 10 M run needs a copy of its db, ~7 GB;
#                 a mixed run one of the mixed prefill, ~0.75 GB at full size)
#        PREFILL_CACHE=DIR (prefill dbs, reused while schema.sql and make_prefill/seal_prefill are
#                      unchanged; default $BUILD/bench-prefill; the 10 M one is ~6.6 GiB)
#        RESULTS_DIR=DIR (default $BUILD/bench-results/<UTC time>)  KEEP=1 (keep the scratch dir)
#
# Never uses fixed ports (listen port 0; the peer gets a free port from the
# kernel). Never prints a secret, a signature or a payload: the corpus and the
# secrets stay in the scratch dir (corpus on /dev/shm when it exists, so the
# corpus is not read from the disk under test). Not a test: never part of ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=bench
# shellcheck source=bench/lib.sh
source bench/lib.sh
T_START=$(date +%s)
BUILD=${BUILD:-build/bench-release}
REPS=${REPS:-3}
DURATION=${DURATION:-10}
PREFILLS=${PREFILLS:-"0 1M 10M"}
SKIP_PEER=${SKIP_PEER:-0}
SKIP_WORKER=${SKIP_WORKER:-0}
SKIP_MIXED=${SKIP_MIXED:-0}
ONLY_MIXED=${ONLY_MIXED:-0}
if [ "$ONLY_MIXED" = 1 ]; then
  [ "$SKIP_MIXED" != 1 ] || die "ONLY_MIXED=1 and SKIP_MIXED=1 leave nothing to run"
  SKIP_PEER=1 SKIP_WORKER=1 PREFILLS=""
fi
CONNS=${CONNS:-"8 32 128"}
CLOSE_CONNS=${CLOSE_CONNS:-32}
THREADS=${THREADS:-2}
RATE=${RATE:-2000}
RATE_CONNS=${RATE_CONNS:-32}
WORKER_THREADS=${WORKER_THREADS:-16}
WORKER_EVENTS=${WORKER_EVENTS:-4000}
VERIFY=${VERIFY:-exact}
CORPUS_RATE=${CORPUS_RATE:-40000}
JOBS=${JOBS:-2}
PREFILL_CACHE=${PREFILL_CACHE:-$BUILD/bench-prefill}
RESULTS=${RESULTS_DIR:-$BUILD/bench-results/$(date -u +%Y%m%dT%H%M%SZ)}
# The ingest row whose prefill variants are measured (keep-alive, this many connections).
PREFILL_CONNS=32

loadavg() { cut -d' ' -f1 /proc/loadavg; }
count_of() {  # 0 | 1M | 10M | 250k | 12345 -> number of rows
  case "$1" in
    *M) echo $(( ${1%M} * 1000000 )) ;;
    *k) echo $(( ${1%k} * 1000 )) ;;
    *) echo $(( $1 )) ;;
  esac
}

# --- build: a Release tree with only what the bench runs ------------------------
# -O2 rather than CMake's Release -O3: what packaging/build.sh and the .deb
# ship (RelWithDebInfo), without -g here, so the figures are the product's.
HB=$BUILD/hookinbox
DS=$BUILD/tests/support/test_downstream
LOAD=$BUILD/tests/support/test_load
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
      -DBUILD_TESTING=ON >/dev/null || die "cmake failed for $BUILD"
  fi
  ninja -j"$JOBS" -C "$BUILD" hookinbox test_downstream test_load >/dev/null || die "build failed in $BUILD"
fi
for b in "$HB" "$DS" "$LOAD"; do [ -x "$b" ] || die "$b missing (build it, or leave SKIP_BUILD unset)"; done
for tool in wrk sqlite3 curl python3; do
  command -v "$tool" >/dev/null || die "$tool is needed (packaging/install-deps.sh installs wrk and webhook)"
done
[ "$SKIP_PEER" = 1 ] || command -v webhook >/dev/null || die "webhook (adnanh/webhook) is needed, or SKIP_PEER=1"
[ "$VERIFY" = exact ] || [ "$VERIFY" = count ] || die "VERIFY is exact or count"

# --- scratch space, results, cleanup ---------------------------------------------
WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/hookinbox-bench.XXXXXX")
if [ -d /dev/shm ] && [ -w /dev/shm ]; then SHM=$(mktemp -d /dev/shm/hookinbox-bench.XXXXXX); else SHM=$WORK; fi
mkdir -p "$RESULTS" "$PREFILL_CACHE"
RAW=$RESULTS/raw.txt
: >"$RAW"
PIDS=()
cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  [ "$SHM" = "$WORK" ] || rm -rf "$SHM"
  if [ "$rc" -ne 0 ] || [ "${KEEP:-0}" = 1 ]; then echo "bench: scratch dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
hwm_kb() { awk '/^VmHWM:/{print $2}' "/proc/$1/status"; }
file_bytes() { local t=0 f; for f in "$@"; do [ -f "$f" ] && t=$(( t + $(stat -c %s "$f") )); done; echo "$t"; }
free_port() {  # a port the kernel hands out, never one of the lead's
  local p
  while :; do
    p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    case "$p" in 8443|8081|19443) ;; *) echo "$p"; return ;; esac
  done
}
note() { echo "$1" | tee -a "$RESULTS/machine.txt"; }
CLK_TCK=$(getconf CLK_TCK)

# --- the corpus ---------------------------------------------------------------------
# One corpus for every wrk run (hookinbox and webhook alike): CORPUS_RATE x
# (DURATION + 2) records, so no run at up to CORPUS_RATE/s wraps around (a
# thread that reaches the end of its slice stops and its run fails). The demo
# endpoint's timestamps must be within 300 s, so it is rewritten (same seed,
# same bodies and ids, fresh timestamps) when it could expire before the next
# run ends. Every run uses a fresh database, so reusing the ids across runs is fine.
CORPUS=$SHM/corpus.txt
CORPUS_RECORDS=$(( CORPUS_RATE * (DURATION + 2) ))
CORPUS_AT=0
CORPUS_MAX_AGE=$(( 270 - DURATION ))  # 30 s for start-up and checks before the 300 s tolerance
[ "$CORPUS_MAX_AGE" -ge 60 ] || die "DURATION=$DURATION is too long for the demo endpoint's 300 s timestamp tolerance"
PEER_SECRET=$WORK/peer.secret
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$PEER_SECRET"
chmod 600 "$PEER_SECRET"
# The demo endpoint's secret: one for all runs, copied into every fresh installation.
"$HB" init "$WORK/template" >/dev/null
DEMO_SECRET=$WORK/template/secrets/demo.secret
fresh_corpus() {
  [ $(( $(date +%s) - CORPUS_AT )) -lt "$CORPUS_MAX_AGE" ] && return 0
  "$LOAD" --write-corpus "$CORPUS" --secret-file "$DEMO_SECRET" --peer-secret-file "$PEER_SECRET" \
    --deliveries "$CORPUS_RECORDS" --duplicates 0.10 --conflicts 0 --id-prefix bench --body-bytes 1024 \
    >"$WORK/corpus.log" 2>&1 || { cat "$WORK/corpus.log" >&2; die "test_load --write-corpus failed"; }
  CORPUS_AT=$(date +%s)
}
RECLEN=0
# distinct_events FIRST COUNT [FIRST COUNT ...] -> distinct event ids among those corpus records
distinct_events() {
  while [ $# -gt 0 ]; do
    [ "$2" -gt 0 ] && tail -c +$(( $1 * RECLEN + 1 )) "$CORPUS" | head -n "$2" | cut -f4
    shift 2
  done | sort -u | wc -l
}

# --- prefill databases ------------------------------------------------------------
# N completed events as the door and the worker leave them: an inbox row, its
# webhook_deliveries row and its 'original' payload row, made with a recursive
# CTE straight into a fresh `init`ed db (journal off while filling, WAL again
# after), then sealed into the audit chain (seal_prefill). The rows are
# narrower than real ones so that 10 M fit in ~6.6 GB (~675 bytes an event,
# chain hashes included): 34-byte payloads instead of the corpus's 1 KB, no
# payload_hash or user_agent in webhook_deliveries, no attempt rows (ingest
# never reads them). The indexes the door writes to hold the same keys as
# with real rows; the tables themselves are smaller than real ones would be.
# Cached in PREFILL_CACHE under the row count and a hash of schema.sql and
# these two functions; copied (then fsync'd) for each run.
SCHEMA_HASH=$({ cat schema.sql; sed -n '/^make_prefill()/,/^}/p;/^seal_prefill()/,/^}/p' bench/run.sh; } |
  sha256sum | cut -c1-12)
prefill_db() { echo "$PREFILL_CACHE/prefill-$1-$SCHEMA_HASH/data/hookinbox.db"; }
make_prefill() {
  local n=$1 db dir t0 start
  db=$(prefill_db "$n")
  [ -f "$db" ] && { note "# prefill $n: cached $(du -m "$db" | cut -f1) MB ($db)"; return 0; }
  dir=$(dirname "$(dirname "$db")")
  rm -rf "$dir"
  "$HB" init "$dir" >/dev/null
  t0=$(( $(now_ms) - 30 * 86400 * 1000 ))
  start=$(now_ms)
  sqlite3 -batch "$db" >/dev/null <<SQL || die "prefill $n failed"
PRAGMA journal_mode = DELETE;
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1048576;
BEGIN;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $n)
INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status,
                           attempt_count, next_attempt_at, received_at, completed_at)
  SELECT i, 'generic', 'demo', 'default', printf('evt_prefill_%09d', i), 'invoice.paid',
         printf('%016x%016x%016x%016x', i, i * 7, i * 13, i * 31), 'completed', 1, NULL, $t0 + i / 4, $t0 + i / 4 + 12
  FROM s;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $n)
INSERT INTO webhook_deliveries (id, received_at, remote_addr, method, path, provider, endpoint, tenant_id, event_id,
                                event_type, inbox_id, outcome, http_status, payload_hash, body_bytes, content_type,
                                user_agent)
  SELECT i, $t0 + i / 4, '127.0.0.1', 'POST', '/hooks/demo', 'generic', 'demo', 'default',
         printf('evt_prefill_%09d', i), 'invoice.paid', i, 'accepted', 200, NULL, 34, 'application/json', NULL
  FROM s;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $n)
INSERT INTO webhook_payloads (id, inbox_id, delivery_id, kind, payload_hash, content_type, body, created_at)
  SELECT i, i, i, 'original', printf('%016x%016x%016x%016x', i, i * 7, i * 13, i * 31), 'application/json',
         CAST(printf('{"id":"evt_prefill_%09d"}', i) AS BLOB), $t0 + i / 4
  FROM s;
COMMIT;
PRAGMA journal_mode = WAL;
SQL
  local ms=$(( $(now_ms) - start ))
  seal_prefill "$dir"
  local sealed_ms=$(( $(now_ms) - start - ms ))
  note "# prefill $n: made in $(( ms / 1000 )) s, sealed in $(( sealed_ms / 1000 )) s, $(du -m "$db" | cut -f1) MB ($db)"
}

# The audit chain (schema.sql migration 6, src/store/audit_chain.h): every
# commit seals up to 5 000 unsealed webhook_deliveries rows, so unsealed
# prefill rows would be sealed during the measurement. The hashes need
# SHA-256, so hookinbox itself seals them: serve, then single deliveries
# (one commit each, test_load ids "seal-…") until no row is left unsealed.
# Those events stay in the prefill db; the runs count only rows after it.
seal_prefill() {
  local dir=$1 round=0 left
  sed -i -e 's/127\.0\.0\.1:8443/127.0.0.1:0/' -e 's/127\.0\.0\.1:8081/127.0.0.1:0/' "$dir/hookinbox.toml"
  start_serve "$dir"
  DB=$dir/data/hookinbox.db
  while left=$(q "SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL") && [ "$left" -gt 0 ]; do
    round=$(( round + 1 ))
    [ "$round" -le 100 ] || die "prefill: $left rows still unsealed after $round rounds"
    "$LOAD" --url "https://127.0.0.1:$PORT/hooks/demo" --secret-file "$dir/secrets/demo.secret" \
      --ca "$dir/tls/cert.pem" --connections 1 --deliveries $(( left / 5000 + 2 )) --duplicates 0 --conflicts 0 \
      --id-prefix "seal$round" >"$dir/seal.out" 2>&1 || die "prefill: sealing deliveries failed ($dir/seal.out)"
  done
  stop_serve "$dir"
}

# --- one installation -------------------------------------------------------------
# new_instance DIR PREFILL_ROWS: `hookinbox init`, listen ports 0, the shared
# demo secret, and the prefill db copied in (fsync'd, so its write-back does
# not land in the measurement).
new_instance() {
  local dir=$1 n=$2
  "$HB" init "$dir" >/dev/null
  sed -i -e 's/127\.0\.0\.1:8443/127.0.0.1:0/' -e 's/127\.0\.0\.1:8081/127.0.0.1:0/' "$dir/hookinbox.toml"
  grep -q '^\[endpoint\.action\]' "$dir/hookinbox.toml" && die "init's demo endpoint has an action; ingest needs none"
  cp "$DEMO_SECRET" "$dir/secrets/demo.secret"
  if [ "$n" -gt 0 ]; then
    local db=$dir/data/hookinbox.db
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$(prefill_db "$n")" "$db"
    sync "$db"
  fi
}
listen_port() {  # DIR -> the port of the "listening" line, or nothing yet
  sed -n 's/.*"event":"listening","url":"https:\/\/127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$1/serve.log" | head -1
}
has_port() { kill -0 "$SERVE_PID" 2>/dev/null || die "serve exited; see $1/serve.log"; [ -n "$(listen_port "$1")" ]; }
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$1/tls/cert.pem" "https://127.0.0.1:$PORT/readyz")" = 200 ]; }
start_serve() {  # DIR -> SERVE_PID, PORT
  : >"$1/serve.log"
  "$HB" serve -c "$1/hookinbox.toml" >"$1/serve.log" 2>&1 &
  SERVE_PID=$!; PIDS+=("$SERVE_PID")
  wait_for 60 "serve to listen ($1/serve.log)" has_port "$1"
  PORT=$(listen_port "$1")
  wait_for 30 "/readyz = 200" ready "$1"
}
stop_serve() {  # DIR: SIGTERM, and the exit status must be 0
  kill -TERM "$SERVE_PID"
  local rc=0; wait "$SERVE_PID" || rc=$?
  forget_pid "$SERVE_PID"
  [ "$rc" = 0 ] || die "hookinbox serve exited $rc after SIGTERM; see $1/serve.log"
}
q() { sqlite3 -batch -readonly "$DB" "$1"; }

# run_wrk URL CONNS CLOSE(0|1) TARGET DIR -> WRK_LINE (the CORPUS line)
run_wrk() {
  local acks=""
  [ "$VERIFY" = exact ] && acks=$5/acks.txt
  env CORPUS="$CORPUS" TARGET="$4" WRK_THREADS="$THREADS" CONN_CLOSE="$3" ${acks:+ACKS="$acks"} \
    wrk -t"$THREADS" -c"$2" -d"${DURATION}s" --timeout 5s -s bench/corpus.lua "$1" >"$5/wrk.out" 2>&1 ||
    die "wrk failed; see $5/wrk.out"
  WRK_LINE=$(grep '^CORPUS ' "$5/wrk.out") || die "wrk printed no CORPUS line; see $5/wrk.out"
  [ "$(field exhausted "$WRK_LINE")" = 0 ] ||
    die "a wrk thread used up its corpus slice ($CORPUS_RECORDS records): raise CORPUS_RATE ($5/wrk.out)"
  # answered 2xx and other statuses: counted by response() with VERIFY=exact,
  # else wrk's requests minus its status errors (>= 400)
  if [ "$VERIFY" = exact ]; then
    OK2XX=$(field lua_2xx "$WRK_LINE"); OTHER=$(field lua_other "$WRK_LINE")
  else
    OTHER=$(field err_status "$WRK_LINE"); OK2XX=$(( $(field requests "$WRK_LINE") - OTHER ))
  fi
  local ms=$(( $(field duration_us "$WRK_LINE") / 1000 ))
  DPS=$(( OK2XX * 1000 / (ms > 0 ? ms : 1) ))
  P50=$(awk -v u="$(field p50_us "$WRK_LINE")" 'BEGIN{printf "%.2f", u / 1000}')
  P99=$(awk -v u="$(field p99_us "$WRK_LINE")" 'BEGIN{printf "%.2f", u / 1000}')
  SENT_ARGS=()
  local t
  for t in $(seq 0 $(( THREADS - 1 ))); do
    SENT_ARGS+=("$(field "first_$t" "$WRK_LINE")" "$(field "sent_$t" "$WRK_LINE")")
  done
}
cpu_ms_per_1k() {  # TICKS DELIVERIES
  awk -v t="$1" -v n="$2" -v hz="$CLK_TCK" 'BEGIN{ if (n > 0) printf "%.0f", t * 1000 / hz / (n / 1000); else print "-" }'
}

# --- hookinbox ingest: one wrk run, then the checks --------------------------------
# measured_wrk PID URL CONNS CLOSE TARGET DIR: run_wrk against the server
# PID; sets LOAD0 (load average before), CPU_TICKS (the server's CPU over
# the run) and HWM (its peak RSS, kB).
measured_wrk() {
  local pid=$1 c0; shift
  LOAD0=$(loadavg)
  c0=$(cpu_ticks "$pid")
  run_wrk "$@"
  CPU_TICKS=$(( $(cpu_ticks "$pid") - c0 ))
  HWM=$(hwm_kb "$pid")
}

# hookinbox_run ROW PREFILL_ROWS CONNS CLOSE REP [startup]
# With "startup", it then measures start-up to /readyz on the same database
# (one copy of a large prefill less).
hookinbox_run() {
  local row=$1 n=$2 conns=$3 close=$4 rep=$5 startup=${6:-} dir
  dir=$WORK/$row-$rep
  new_instance "$dir" "$n"
  DB=$dir/data/hookinbox.db
  local before; before=$(file_bytes "$DB" "$DB-wal")
  # What was there before the run (the prefill, with its sealing events).
  IFS='|' read -r BASE_I BASE_D BASE_ROWS < <(q "SELECT (SELECT coalesce(max(id), 0) FROM webhook_inbox),
      (SELECT coalesce(max(id), 0) FROM webhook_deliveries), (SELECT count(*) FROM webhook_inbox)")
  fresh_corpus
  RECLEN=$(( $(head -1 "$CORPUS" | wc -c) ))
  start_serve "$dir"
  measured_wrk "$SERVE_PID" "https://127.0.0.1:$PORT/hooks/demo" "$conns" "$close" hookinbox "$dir"
  stop_serve "$dir"
  check_hookinbox "$row/$rep" "$n" "$conns" "$dir"
  local after; after=$(file_bytes "$DB" "$DB-wal")
  record "RESULT row=$row target=hookinbox prefill=$n conns=$conns close=$close rep=$rep dps=$DPS p50_ms=$P50 p99_ms=$P99 rss_kb=$HWM cpu_ms_per_1k=$(cpu_ms_per_1k "$CPU_TICKS" "$OK2XX") db_bytes_per_event=$(( (after - before) / (INBOX > 0 ? INBOX : 1) )) answered_2xx=$OK2XX other=$OTHER delivery_rows=$DELIVERIES inbox_rows=$INBOX distinct_sent=$UNIQUE_SENT wrk_timeouts=$(field err_timeout "$WRK_LINE") wrk_socket_errors=$(socket_errors) loadavg=$LOAD0"
  [ -z "$startup" ] || startup_run "$dir" "$n" "$rep"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}
socket_errors() { echo $(( $(field err_connect "$WRK_LINE") + $(field err_read "$WRK_LINE") + $(field err_write "$WRK_LINE") )); }

# check_hookinbox LABEL PREFILL CONNS DIR: every acknowledged delivery is in
# the database (read after SIGTERM). Sets DELIVERIES, INBOX, UNIQUE_SENT.
check_hookinbox() {
  local label=$1 n=$2 conns=$3 dir=$4
  [ "$OTHER" = 0 ] || die "$label: $OTHER answers were not 2xx ($dir/wrk.out)"
  DELIVERIES=$(q "SELECT count(*) FROM webhook_deliveries WHERE id > $BASE_D")
  INBOX=$(q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I")
  UNIQUE_SENT=$(distinct_events "${SENT_ARGS[@]}")
  local bad
  bad=$(q "SELECT count(*) FROM webhook_deliveries WHERE id > $BASE_D AND (outcome NOT IN ('accepted', 'duplicate') OR http_status <> 200)")
  [ "$bad" = 0 ] || die "$label: $bad delivery rows are not accepted/duplicate with 200"
  # Every 2xx wrk counted has its delivery row; at most one row per connection
  # more (requests the server committed as wrk stopped, never answered).
  [ "$DELIVERIES" -ge "$OK2XX" ] && [ "$DELIVERIES" -le $(( OK2XX + conns )) ] ||
    die "$label: $DELIVERIES delivery rows for $OK2XX 2xx answers on $conns connections"
  # The inbox holds at most the distinct events sent, and only the corpus's ids.
  [ "$INBOX" -le "$UNIQUE_SENT" ] || die "$label: $INBOX inbox rows but only $UNIQUE_SENT distinct events sent"
  [ "$(q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I AND event_id NOT LIKE 'bench-%'")" = 0 ] ||
    die "$label: inbox rows with ids the corpus never sent"
  [ "$(q "SELECT count(*) FROM webhook_inbox WHERE id <= $BASE_I")" = "$BASE_ROWS" ] || die "$label: prefilled rows changed"
  # Every delivery row is sealed into the audit chain by the commit that wrote it.
  [ "$(q "SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL")" = 0 ] ||
    die "$label: delivery rows left out of the audit chain"
  if [ "$VERIFY" = exact ]; then
    # One line "INBOX_ID OUTCOME" per 2xx answer: each answered inbox id must
    # be stored, with at least as many delivery rows as answers naming it, and
    # every 'accepted' answer must name a distinct new row.
    local acks=$dir/acks.txt missing short acc acc_ids
    [ "$(wc -l <"$acks")" = "$OK2XX" ] || die "$label: $(wc -l <"$acks") ack lines for $OK2XX 2xx answers"
    IFS='|' read -r missing short acc acc_ids < <(sqlite3 -batch -readonly "$DB" <<SQL
CREATE TEMP TABLE acks (inbox_id INTEGER, outcome TEXT);
.separator " "
.import $acks acks
.separator "|"
SELECT (SELECT count(*) FROM (SELECT DISTINCT inbox_id FROM acks) a
          WHERE NOT EXISTS (SELECT 1 FROM webhook_inbox i WHERE i.id = a.inbox_id AND i.id > $BASE_I)),
       (SELECT count(*) FROM (SELECT inbox_id, count(*) AS answers FROM acks GROUP BY inbox_id) a
          WHERE a.answers > (SELECT count(*) FROM webhook_deliveries d WHERE d.inbox_id = a.inbox_id)),
       (SELECT count(*) FROM acks WHERE outcome = 'accepted'),
       (SELECT count(DISTINCT inbox_id) FROM acks WHERE outcome = 'accepted');
SQL
)
    [ "$missing" = 0 ] || die "$label: $missing acknowledged inbox ids are not in the database"
    [ "$short" = 0 ] || die "$label: $short inbox ids have fewer delivery rows than 2xx answers"
    [ "$acc" = "$acc_ids" ] || die "$label: $acc 'accepted' answers name only $acc_ids distinct rows"
    [ "$INBOX" -ge "$acc_ids" ] || die "$label: $INBOX inbox rows, fewer than the $acc_ids accepted answers"
  else
    # Without the answers: every record taken but not answered (at most one in
    # flight per connection, wrk's check request, socket errors) may be missing.
    local slack=$(( conns + THREADS + $(field err_read "$WRK_LINE") + $(field err_write "$WRK_LINE") ))
    [ "$INBOX" -ge $(( UNIQUE_SENT - slack )) ] || die "$label: $INBOX inbox rows for $UNIQUE_SENT distinct events sent"
  fi
  if [ "$n" = 0 ]; then
    [ "$(q 'PRAGMA integrity_check')" = ok ] || die "$label: integrity_check failed"
  fi
}

# --- the peer: adnanh/webhook, one hook running /bin/true behind its HMAC rule --------
# Same corpus, same wrk script (X-Hub-Signature-256 = HMAC-SHA256 of the body),
# HTTPS with init's P-256 certificate. It stores nothing: no database checks,
# but every answer must be 2xx (a bad signature gets 500).
PEER_DIR=$WORK/peer
setup_peer() {
  "$HB" init "$PEER_DIR" >/dev/null   # only for its P-256 certificate
  python3 - "$PEER_SECRET" "$PEER_DIR/hooks.json" <<'PY'
import json, sys
secret = open(sys.argv[1]).read().strip()
hook = {"id": "bench", "execute-command": "/bin/true", "response-message": "ok",
        "trigger-rule": {"match": {"type": "payload-hmac-sha256", "secret": secret,
                                    "parameter": {"source": "header", "name": "X-Hub-Signature-256"}}}}
with open(sys.argv[2], "w") as f:
    json.dump([hook], f)
PY
  chmod 600 "$PEER_DIR/hooks.json"
}
peer_up() { kill -0 "$PEER_PID" 2>/dev/null || die "webhook exited; see $1/webhook.log"; curl -sk -o /dev/null "https://127.0.0.1:$PEER_PORT/"; }
peer_run() {  # ROW CONNS CLOSE REP
  local row=$1 conns=$2 close=$3 rep=$4 dir
  dir=$WORK/$row-$rep
  mkdir -p "$dir"
  fresh_corpus
  PEER_PORT=$(free_port)
  webhook -hooks "$PEER_DIR/hooks.json" -ip 127.0.0.1 -port "$PEER_PORT" -secure \
    -cert "$PEER_DIR/tls/cert.pem" -key "$PEER_DIR/tls/key.pem" >"$dir/webhook.log" 2>&1 &
  PEER_PID=$!; PIDS+=("$PEER_PID")
  wait_for 30 "webhook to listen on $PEER_PORT" peer_up "$dir"
  measured_wrk "$PEER_PID" "https://127.0.0.1:$PEER_PORT/hooks/bench" "$conns" "$close" webhook "$dir"
  kill -TERM "$PEER_PID"; wait "$PEER_PID" 2>/dev/null || true; forget_pid "$PEER_PID"
  [ "$OTHER" = 0 ] || die "$row/$rep: webhook answered $OTHER requests with a non-2xx status ($dir/wrk.out)"
  record "RESULT row=$row target=webhook conns=$conns close=$close rep=$rep dps=$DPS p50_ms=$P50 p99_ms=$P99 rss_kb=$HWM cpu_ms_per_1k=$(cpu_ms_per_1k "$CPU_TICKS" "$OK2XX") db_bytes_per_event=- answered_2xx=$OK2XX other=$OTHER wrk_timeouts=$(field err_timeout "$WRK_LINE") wrk_socket_errors=$(socket_errors) loadavg=$LOAD0"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- p99 at a fixed rate: test_load --rate (its own checks: exact ledger counts) ----
rate_run() {  # REP
  local rep=$1 row=hb-rate dir n summary
  dir=$WORK/$row-$rep
  new_instance "$dir" 0
  DB=$dir/data/hookinbox.db
  n=$(( RATE * DURATION ))
  start_serve "$dir"
  local load0 c0 c1 hwm
  load0=$(loadavg)
  c0=$(cpu_ticks "$SERVE_PID")
  "$LOAD" --url "https://127.0.0.1:$PORT/hooks/demo" --secret-file "$dir/secrets/demo.secret" \
    --ca "$dir/tls/cert.pem" --connections "$RATE_CONNS" --deliveries "$n" --duplicates 0.10 --conflicts 0 \
    --id-prefix rate --rate "$RATE" --body-bytes 1024 >"$dir/load.out" 2>&1 || die "$row/$rep: test_load failed ($dir/load.out)"
  c1=$(cpu_ticks "$SERVE_PID")
  hwm=$(hwm_kb "$SERVE_PID")
  stop_serve "$dir"
  summary=$(grep '^summary ' "$dir/load.out") || die "$row/$rep: no test_load summary"
  local ok200 unique inbox deliveries
  ok200=$(field statuses_200 "$summary"); unique=$(field unique_ids "$summary")
  inbox=$(q "SELECT count(*) FROM webhook_inbox"); deliveries=$(q "SELECT count(*) FROM webhook_deliveries")
  [ "$ok200" = "$n" ] || die "$row/$rep: $ok200 of $n answered 200"
  [ "$inbox" = "$unique" ] || die "$row/$rep: $inbox inbox rows for $unique unique ids answered"
  [ "$deliveries" = "$n" ] || die "$row/$rep: $deliveries delivery rows for $n deliveries"
  record "RESULT row=$row target=hookinbox prefill=0 conns=$RATE_CONNS close=0 rep=$rep dps=$(field rate "$summary" | cut -d. -f1) p50_ms=$(printf %.2f "$(field p50_ms "$summary")") p99_ms=$(printf %.2f "$(field p99_ms "$summary")") rss_kb=$hwm cpu_ms_per_1k=$(cpu_ms_per_1k $(( c1 - c0 )) "$n") db_bytes_per_event=- answered_2xx=$ok200 other=0 inbox_rows=$inbox loadavg=$load0"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- start-up to /readyz with the largest prefill ------------------------------------
# startup_run DIR PREFILL_ROWS REP: a stopped installation (the prefill plus one
# ingest run); ms from spawn to the first /readyz 200 (polled every ~10 ms)
startup_run() {
  local dir=$1 n=$2 rep=$3 t0 ms hwm
  t0=$(now_ms)
  start_serve "$dir"
  ms=$(( $(now_ms) - t0 ))
  hwm=$(hwm_kb "$SERVE_PID")
  stop_serve "$dir"
  record "RESULT row=hb-startup target=hookinbox prefill=$n rep=$rep startup_ms=$ms rss_kb=$hwm loadavg=$(loadavg)"
}

# --- the worker: bench/worker_bench.sh, one corner --------------------------------------
# A failed worker run (its checks: one attempt per event, all completed) does
# not stop the bench: the rest still runs, the table is printed, and the
# bench exits 1 naming it.
FAILURES=()
worker_run() {  # REP
  local line
  if ! line=$(SKIP_BUILD=1 WORKERS=$WORKER_THREADS ACTIONS=http PREFILLS=0 REPS=1 WORK_DIR=$WORK \
              bash bench/worker_bench.sh "$BUILD" "$WORKER_EVENTS" 2>"$WORK/worker-$1.err" | grep '^RESULT worker_bench'); then
    FAILURES+=("worker rep $1: $(grep -m1 FAIL "$WORK/worker-$1.err" || echo 'bench/worker_bench.sh failed')")
    echo "bench: ${FAILURES[-1]}" >&2
    return 0
  fi
  record "RESULT row=worker target=hookinbox workers=$WORKER_THREADS rep=$1 dps=$(field events_per_s "$line") p50_ms=$(field attempt_p50_ms "$line") p99_ms=$(field attempt_p99_ms "$line") rss_kb=- cpu_ms_per_1k=$(field cpu_us_per_event "$line") db_bytes_per_event=- loadavg=$(loadavg)"
}

# --- the mixed case: its own prefill, three rows, their checks -----------------------------------
# shellcheck source=bench/mixed.sh
source bench/mixed.sh

# --- machine facts -------------------------------------------------------------------------
DISK=$(df --output=source "$WORK" | tail -1)
disk_facts() {  # /dev/NAME -> "256G, rotational=1, scheduler ..." as the kernel reports it (virtio disks claim rotational)
  local name; name=$(basename "$1")
  [ -d "/sys/block/$name" ] || { echo "?"; return; }
  echo "$(lsblk -dno SIZE "$1" | xargs), rotational=$(cat "/sys/block/$name/queue/rotational"), scheduler $(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$name/queue/scheduler")"
}
{
  echo "# hookinbox bench $(date -u +%FT%TZ)  results: $RESULTS"
  echo "# $("$HB" --version)  build: $BUILD ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt"), -O2)  git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+dirty')"
  echo "# machine: nproc=$(nproc)  cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)  kernel $(uname -r)  mem $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "# db disk: $DISK $(df --output=fstype "$WORK" | tail -1 | xargs), $(disk_facts "$DISK"), mounted $(findmnt -no OPTIONS --target "$WORK")  corpus: $SHM"
  echo "# $(wrk -v 2>&1 | head -1 | cut -c1-60)  webhook $(webhook -version 2>/dev/null | head -1 || echo '-')  $(sqlite3 --version | cut -d' ' -f1)"
  echo "# REPS=$REPS DURATION=${DURATION}s PREFILLS='$PREFILLS' CONNS='$CONNS' CLOSE_CONNS=$CLOSE_CONNS THREADS=$THREADS VERIFY=$VERIFY corpus=$CORPUS_RECORDS records"
  echo "# SKIP_MIXED=$SKIP_MIXED ONLY_MIXED=$ONLY_MIXED MIXED_RECEIVE_ONLY=$MIXED_RECEIVE_ONLY MIXED_AT_CAPACITY=$MIXED_AT_CAPACITY MIXED_CONNS=$MIXED_CONNS MIXED_DRAIN=${MIXED_DRAIN}s"
  echo "# loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$RESULTS/machine.txt"

[ "$SKIP_PEER" = 1 ] || setup_peer
MAX_PREFILL=0
for p in $PREFILLS; do
  n=$(count_of "$p")
  if [ "$n" -gt 0 ]; then make_prefill "$n"; fi
  [ "$n" -gt "$MAX_PREFILL" ] && MAX_PREFILL=$n
done
[ "$SKIP_MIXED" = 1 ] || make_mixed_prefill

# Repetitions run the whole matrix again (not one row back to back), so a
# burst of someone else's load spreads over the rows; the peer runs are
# interleaved with hookinbox's in every repetition.
for rep in $(seq 1 "$REPS"); do
  echo "# repetition $rep/$REPS  loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$ONLY_MIXED" != 1 ]; then
    for c in $CONNS; do
      hookinbox_run "hb-ka-c$c" 0 "$c" 0 "$rep"
      [ "$SKIP_PEER" = 1 ] || peer_run "wh-ka-c$c" "$c" 0 "$rep"
    done
    hookinbox_run "hb-close-c$CLOSE_CONNS" 0 "$CLOSE_CONNS" 1 "$rep"
    [ "$SKIP_PEER" = 1 ] || peer_run "wh-close-c$CLOSE_CONNS" "$CLOSE_CONNS" 1 "$rep"
    for p in $PREFILLS; do
      n=$(count_of "$p")
      [ "$n" -gt 0 ] || continue
      hookinbox_run "hb-ka-c$PREFILL_CONNS-prefill$p" "$n" "$PREFILL_CONNS" 0 "$rep" \
        "$([ "$n" = "$MAX_PREFILL" ] && echo startup)"
    done
    rate_run "$rep"
  fi
  [ "$SKIP_WORKER" = 1 ] || worker_run "$rep"
  [ "$SKIP_MIXED" = 1 ] || mixed_runs "$rep"
done
echo "# loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RESULTS/machine.txt"

# --- the table -----------------------------------------------------------------------------
# stat ROW FIELD -> "median min max" over the repetitions ("-" when absent)
stat() {
  local values
  values=$(grep " row=$1 " "$RAW" | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | grep -v '^-$' | sort -g || true)
  if [ -z "$values" ]; then echo "- - -"; return; fi
  local n; n=$(wc -l <<<"$values")
  echo "$(sed -n "$(( (n + 1) / 2 ))p" <<<"$values") $(head -1 <<<"$values") $(tail -1 <<<"$values")"
}
med() { local m _; read -r m _ < <(stat "$1" "$2"); echo "$m"; }
ratio() {  # HOOKINBOX_ROW WEBHOOK_ROW
  local a b; a=$(med "$1" dps); b=$(med "$2" dps)
  if [ "$a" = - ] || [ "$b" = - ] || [ "$b" = 0 ]; then echo -; else awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1fx", a / b}'; fi
}
mb() { [ "$1" = - ] && echo - || awk -v k="$1" 'BEGIN{printf "%.0f", k / 1024}'; }
table_row() {  # LABEL ROW [PEER_ROW]
  local label=$1 row=$2 peer=${3:-} d lo hi
  grep -q " row=$row " "$RAW" || return 0
  read -r d lo hi < <(stat "$row" dps)
  printf '| %s | **%s** | %s–%s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$d" "$lo" "$hi" \
    "$(med "$row" p50_ms)" "$(med "$row" p99_ms)" "$(mb "$(med "$row" rss_kb)")" "$(med "$row" cpu_ms_per_1k)" \
    "$(med "$row" db_bytes_per_event)" "${peer:+$(ratio "$row" "$peer")}" "$(med "$row" loadavg)"
}
{
  echo
  echo "deliveries/s: median of $REPS run(s) of ${DURATION}s, range min–max. p50/p99: wrk's latency (acknowledgement, connect and"
  echo "TLS handshake excluded), ms. RSS: the server's VmHWM. CPU: server user+sys (with reaped children) per 1 000 2xx"
  echo "answers, during the load only. DB bytes/event: growth of db+wal after SIGTERM per new inbox row. Ratio: hookinbox/webhook."
  echo
  echo "| row | deliveries/s | range | p50 ms | p99 ms | peak RSS MB | CPU ms/1k | DB bytes/event | vs webhook | loadavg |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for c in $CONNS; do table_row "hookinbox HTTPS keep-alive c=$c" "hb-ka-c$c" "wh-ka-c$c"; done
  table_row "hookinbox new TLS conn/request c=$CLOSE_CONNS" "hb-close-c$CLOSE_CONNS" "wh-close-c$CLOSE_CONNS"
  for p in $PREFILLS; do
    [ "$(count_of "$p")" -gt 0 ] && table_row "hookinbox keep-alive c=$PREFILL_CONNS, $p rows stored" "hb-ka-c$PREFILL_CONNS-prefill$p" "wh-ka-c$PREFILL_CONNS"
  done
  table_row "hookinbox fixed $RATE/s, c=$RATE_CONNS (test_load)" hb-rate
  table_row "worker: http action, $WORKER_THREADS threads (events/s)" worker
  table_row "mixed db: receive-only endpoint, keep-alive c=$MIXED_CONNS, worker running" hb-mixed-ro
  table_row "mixed db: action endpoint + worker, keep-alive c=$MIXED_CONNS" hb-mixed-orders
  table_row "mixed db: fixed $RATE/s to the action endpoint + worker (test_load)" hb-mixed-rate
  for c in $CONNS; do table_row "webhook 2.8.0 HTTPS keep-alive c=$c" "wh-ka-c$c"; done
  table_row "webhook 2.8.0 new TLS conn/request c=$CLOSE_CONNS" "wh-close-c$CLOSE_CONNS"
  if grep -q ' row=hb-startup ' "$RAW"; then
    read -r s lo hi < <(stat hb-startup startup_ms)
    echo
    echo "start-up to /readyz = 200 with $MAX_PREFILL rows stored (warm page cache): **$s ms** (range $lo–$hi), peak RSS $(mb "$(med hb-startup rss_kb)") MB"
  fi
  mixed_summary
  echo
  echo "all checks passed: after every hookinbox run each 2xx answer has its stored delivery ($VERIFY), no non-2xx answer."
  for f in "${FAILURES[@]}"; do echo "FAILED: $f"; done
  echo "whole bench: $(( $(date +%s) - T_START )) s; raw lines: $RAW"
} | tee "$RESULTS/table.md"
[ "${#FAILURES[@]}" = 0 ] || die "${#FAILURES[@]} check(s) of the worker or mixed rows failed (above)"
