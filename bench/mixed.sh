# shellcheck shell=bash
# bench/mixed.sh — the mixed-case rows of bench/run.sh: ingest and
# forwarding on a database that holds what a real installation accumulates,
# with the worker running. Sourced by run.sh after its helpers (it uses HB, DS,
# LOAD, WORK, PREFILL_CACHE, DEMO_SECRET, the corpus, start_serve,
# measured_wrk, check_hookinbox, seal_prefill, record, q, FAILURES); not run
# on its own. Method and figures: bench/README.md "run.sh", "The mixed rows".
#
# The installation: init's `demo` endpoint (no action: receive-only), `slow`
# (http action to a test_downstream that holds every request until released,
# concurrency 1, 1 h timeout: its one slot stays busy all the run) and
# `orders` (http action to a second, fast test_downstream; worker.threads
# left at its default, 4). The db holds MIXED_RECEIVE_ONLY received events of
# `demo` and MIXED_AT_CAPACITY due events of `slow`, all older than anything
# the runs send, so a claim for `orders` that walks the due index in
# (next_attempt_at, id) order meets all of them first.

MIXED_RECEIVE_ONLY=${MIXED_RECEIVE_ONLY:-1000000}
MIXED_AT_CAPACITY=${MIXED_AT_CAPACITY:-100000}
MIXED_CONNS=${MIXED_CONNS:-32}
MIXED_DRAIN=${MIXED_DRAIN:-5}
# 4 worker threads (the default), one held by `slow` all the run: 3 are left,
# and the default concurrency (threads / 2 = 2) would leave one of them idle.
MIXED_ORDERS_CONCURRENCY=${MIXED_ORDERS_CONCURRENCY:-3}
# worker.threads: unset = the default (4); set only to see what more threads change.
MIXED_WORKER_THREADS=${MIXED_WORKER_THREADS:-}
# Attempts the prefilled `slow` events may get: the held one, and the few a
# release at shutdown lets finish before the worker stops claiming.
MIXED_SLOW_MAX_ATTEMPTS=5
[ "$MIXED_AT_CAPACITY" -ge 1 ] || die "MIXED_AT_CAPACITY must be at least 1 (the slow endpoint needs an event to hold)"
[ "$MIXED_RECEIVE_ONLY" -ge 0 ] || die "MIXED_RECEIVE_ONLY must be a count"

# --- the mixed prefill ------------------------------------------------------------------
# Rows as the door writes them (status 'received', next_attempt_at =
# received_at, attempt_count 0, no attempt rows), narrow like make_prefill's:
# ids 1..RO are `demo` events received over the 30 days before generation,
# ids RO+1..RO+SLOW are `slow` events received in the hour before it (all
# due, behind every `demo` row in the due index). Sealed by seal_prefill,
# whose deliveries add a few `demo` events. Cached in PREFILL_CACHE under the
# two counts and a hash of schema.sql, the schema the binary's `init` makes
# (a binary older or newer than schema.sql would otherwise reuse, or make, a
# prefill that serve migrates at every start), this function and seal_prefill.
MIXED_HASH=$({ cat schema.sql; sqlite3 -batch -readonly "$WORK/template/data/hookinbox.db" .schema
               sed -n '/^make_mixed_prefill()/,/^}/p' bench/mixed.sh
               sed -n '/^seal_prefill()/,/^}/p' bench/run.sh; } | sha256sum | cut -c1-12)
mixed_db() { echo "$PREFILL_CACHE/mixed-$MIXED_RECEIVE_ONLY-$MIXED_AT_CAPACITY-$MIXED_HASH/data/hookinbox.db"; }
make_mixed_prefill() {
  local ro=$MIXED_RECEIVE_ONLY slow=$MIXED_AT_CAPACITY db dir now start
  db=$(mixed_db)
  [ -f "$db" ] && { note "# mixed prefill $ro + $slow: cached $(du -m "$db" | cut -f1) MB ($db)"; return 0; }
  dir=$(dirname "$(dirname "$db")")
  rm -rf "$dir"
  "$HB" init "$dir" >/dev/null
  now=$(now_ms)
  start=$now
  sqlite3 -batch "$db" >/dev/null <<SQL || die "mixed prefill failed"
PRAGMA journal_mode = DELETE;
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1048576;
BEGIN;
CREATE TEMP VIEW mixed AS
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $ro + $slow)
  SELECT i, CASE WHEN i <= $ro THEN 'demo' ELSE 'slow' END AS ep,
         CASE WHEN i <= $ro THEN $now - 30 * 86400000 + i * (29 * 86400000 / $(( ro > 0 ? ro : 1 )))
              ELSE $now - 3600000 + (i - $ro) * (3600000 / $slow) END AS at
  FROM s;
INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status,
                           attempt_count, next_attempt_at, received_at, completed_at)
  SELECT i, 'generic', ep, 'default', printf('evt_mixed_%09d', i), 'invoice.paid',
         printf('%016x%016x%016x%016x', i, i * 7, i * 13, i * 31), 'received', 0, at, at, NULL
  FROM mixed;
INSERT INTO webhook_deliveries (id, received_at, remote_addr, method, path, provider, endpoint, tenant_id, event_id,
                                event_type, inbox_id, outcome, http_status, payload_hash, body_bytes, content_type,
                                user_agent)
  SELECT i, at, '127.0.0.1', 'POST', '/hooks/' || ep, 'generic', ep, 'default',
         printf('evt_mixed_%09d', i), 'invoice.paid', i, 'accepted', 200, NULL, 33, 'application/json', NULL
  FROM mixed;
INSERT INTO webhook_payloads (id, inbox_id, delivery_id, kind, payload_hash, content_type, body, created_at)
  SELECT i, i, i, 'original', printf('%016x%016x%016x%016x', i, i * 7, i * 13, i * 31), 'application/json',
         CAST(printf('{"id":"evt_mixed_%09d"}', i) AS BLOB), at
  FROM mixed;
COMMIT;
PRAGMA journal_mode = WAL;
SQL
  local ms=$(( $(now_ms) - start ))
  seal_prefill "$dir"
  local sealed_ms=$(( $(now_ms) - start - ms ))
  note "# mixed prefill $ro + $slow: made in $(( ms / 1000 )) s, sealed in $(( sealed_ms / 1000 )) s, $(du -m "$db" | cut -f1) MB ($db)"
}

# --- one mixed installation ---------------------------------------------------------------
ds_stat() { curl -sf -m 5 "http://127.0.0.1:$1/_control/stats" | grep -o "\"$2\":[0-9]*" | cut -d: -f2 || true; }
start_ds() {  # DIR NAME -> DS_PID_OUT, DS_PORT_OUT
  "$DS" --port 0 --quiet >"$1/$2.out" 2>&1 &
  DS_PID_OUT=$!; PIDS+=("$DS_PID_OUT")
  wait_for 10 "test_downstream $2 to listen" grep -qs '^listening port=' "$1/$2.out"
  DS_PORT_OUT=$(sed -n 's/^listening port=//p' "$1/$2.out")
}
endpoint_toml() {  # NAME: an endpoint signed like init's demo (the corpus and test_load sign for it)
  cat <<TOML

[[endpoint]]
name = "$1"
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
TOML
}
# mixed_instance DIR: the installation, the prefill copied in (fsync'd), both
# downstreams started (SLOW_PID/SLOW_PORT hold every request, FAST_PID/FAST_PORT
# answer at once); sets DB and the snapshot the checks compare with.
mixed_instance() {
  local dir=$1
  "$HB" init "$dir" >/dev/null
  sed -i -e 's/127\.0\.0\.1:8443/127.0.0.1:0/' -e 's/127\.0\.0\.1:8081/127.0.0.1:0/' "$dir/hookinbox.toml"
  grep -q '^\[endpoint\.action\]\|^\[worker\]' "$dir/hookinbox.toml" && die "init's config has an action or [worker]; the mixed rows need neither"
  cp "$DEMO_SECRET" "$dir/secrets/demo.secret"
  echo "whsec_$(head -c 32 /dev/urandom | base64)" >"$dir/secrets/forward.secret"
  chmod 600 "$dir/secrets/forward.secret"
  DB=$dir/data/hookinbox.db
  rm -f "$DB" "$DB-wal" "$DB-shm"
  cp "$(mixed_db)" "$DB"
  sync "$DB"
  start_ds "$dir" slow; SLOW_PID=$DS_PID_OUT; SLOW_PORT=$DS_PORT_OUT
  curl -sf -m 5 -o /dev/null -X POST -d '{"hold":true}' "http://127.0.0.1:$SLOW_PORT/_control/default" ||
    die "cannot make the slow downstream hold"
  start_ds "$dir" fast; FAST_PID=$DS_PID_OUT; FAST_PORT=$DS_PORT_OUT
  { endpoint_toml orders
    cat <<TOML

[endpoint.action]
type = "http"
url = "http://127.0.0.1:$FAST_PORT/orders"
forward_secret_file = "secrets/forward.secret"
idempotent_target = true
concurrency = $MIXED_ORDERS_CONCURRENCY
timeout_ms = 10000
TOML
    endpoint_toml slow
    cat <<TOML

[endpoint.action]
type = "http"
url = "http://127.0.0.1:$SLOW_PORT/slow"
forward_secret_file = "secrets/forward.secret"
idempotent_target = true
concurrency = 1
timeout_ms = 3600000
TOML
    [ -z "$MIXED_WORKER_THREADS" ] || printf '\n[worker]\nthreads = %s\n' "$MIXED_WORKER_THREADS"
  } >>"$dir/hookinbox.toml"
  # What the prefill holds, for the checks after the run (one scan of the inbox).
  IFS='|' read -r BASE_I BASE_D BASE_ROWS BASE_RO BASE_SLOW < <(q "SELECT max(id), (SELECT max(id) FROM webhook_deliveries),
      count(*), coalesce(sum(endpoint = 'demo' AND status = 'received' AND attempt_count = 0), 0),
      coalesce(sum(endpoint = 'slow' AND status = 'received' AND attempt_count = 0), 0) FROM webhook_inbox")
  [ "$BASE_SLOW" = "$MIXED_AT_CAPACITY" ] && [ "$BASE_RO" -ge "$MIXED_RECEIVE_ONLY" ] ||
    die "mixed prefill: $BASE_RO received demo and $BASE_SLOW slow events; want >= $MIXED_RECEIVE_ONLY and $MIXED_AT_CAPACITY"
  [ "$(q 'SELECT count(*) FROM webhook_attempts')" = 0 ] || die "mixed prefill: it holds attempt rows"
}
slot_held() { kill -0 "$SERVE_PID" 2>/dev/null || die "serve exited; see $1/serve.log"; [ "$(ds_stat "$SLOW_PORT" holding)" = 1 ]; }
# The slow endpoint's one slot must be taken before the load and still be
# held by the same request after it, or the run did not measure the mixed case.
slot_still_held() {  # LABEL
  local holding calls
  holding=$(ds_stat "$SLOW_PORT" holding); calls=$(ds_stat "$SLOW_PORT" calls)
  [ "$holding" = 1 ] && [ "$calls" = 1 ] ||
    die "$1: the slow endpoint's slot was not held all the run (holding=$holding calls=$calls)"
}
alive() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$s" != Z ]; }
# SIGTERM, then release the held request until serve has exited: the worker
# waits for its running actions (worker.shutdown_grace_seconds), and a
# release that lands before it stops claiming lets the next `slow` event be
# claimed and held again. Then both downstreams are stopped.
stop_mixed() {  # DIR
  kill -TERM "$SERVE_PID"
  wait_for 30 "serve to log its shutdown ($1/serve.log)" grep -q '"event":"shutdown"' "$1/serve.log"
  local deadline=$(( $(date +%s) + 60 ))
  while alive "$SERVE_PID"; do
    [ "$(date +%s)" -lt "$deadline" ] || die "serve did not exit within 60 s of SIGTERM ($1/serve.log)"
    curl -s -m 2 -o /dev/null -X POST -d "" "http://127.0.0.1:$SLOW_PORT/_control/release" || true
    sleep 0.05
  done
  local rc=0; wait "$SERVE_PID" || rc=$?
  forget_pid "$SERVE_PID"
  [ "$rc" = 0 ] || die "hookinbox serve exited $rc after SIGTERM; see $1/serve.log"
  FAST_EFFECTS=$(ds_stat "$FAST_PORT" effects)
  local p
  for p in "$SLOW_PID" "$FAST_PID"; do kill -TERM "$p"; wait "$p" 2>/dev/null || true; forget_pid "$p"; done
}
# The prefilled rows are untouched, except that `slow` events may have had a
# few attempts (the held one, and those released at shutdown).
check_mixed_prefill() {  # LABEL
  local rows ro slow slow_touched other_attempts slow_attempts
  IFS='|' read -r rows ro slow slow_touched < <(q "SELECT count(*),
      coalesce(sum(endpoint = 'demo' AND status = 'received' AND attempt_count = 0), 0),
      coalesce(sum(endpoint = 'slow'), 0),
      coalesce(sum(endpoint = 'slow' AND (status <> 'received' OR attempt_count > 0)), 0)
      FROM webhook_inbox WHERE id <= $BASE_I")
  IFS='|' read -r other_attempts slow_attempts < <(q "SELECT coalesce(sum(i.endpoint <> 'slow'), 0),
      coalesce(sum(i.endpoint = 'slow'), 0) FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id
      WHERE a.inbox_id <= $BASE_I")
  [ "$rows" = "$BASE_ROWS" ] || die "$1: $rows prefilled inbox rows, there were $BASE_ROWS"
  [ "$ro" = "$BASE_RO" ] || die "$1: $ro receive-only events still received, there were $BASE_RO"
  [ "$slow" = "$BASE_SLOW" ] || die "$1: $slow slow events, there were $BASE_SLOW"
  [ "$other_attempts" = 0 ] || die "$1: $other_attempts attempts on prefilled events that have no action"
  [ "$slow_touched" -le "$MIXED_SLOW_MAX_ATTEMPTS" ] && [ "$slow_attempts" -le "$MIXED_SLOW_MAX_ATTEMPTS" ] ||
    die "$1: $slow_attempts attempts on $slow_touched prefilled slow events; want at most $MIXED_SLOW_MAX_ATTEMPTS"
  SLOW_ATTEMPTS=$slow_attempts
}
backlog() {  # the `orders` events not finished yet (all of them are newer than the prefill)
  q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I AND endpoint = 'orders'
      AND status IN ('received', 'retryable_failed', 'processing')"
}
forwards_between() {  # FROM_MS TO_MS -> `orders` events completed in that window (read after the run)
  q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I AND endpoint = 'orders' AND status = 'completed'
      AND completed_at BETWEEN $1 AND $2"
}
per_s() { awk -v n="$1" -v ms="$2" 'BEGIN{ printf "%.0f", (ms > 0 ? n * 1000 / ms : 0) }'; }

# --- rows 1 and 2: wrk keep-alive to the receive-only endpoint, then to `orders` --------------
# mixed_wrk_run ROW ENDPOINT REP
mixed_wrk_run() {
  local row=$1 endpoint=$2 rep=$3 dir t0 t1 b0 b1
  dir=$WORK/$row-$rep
  mixed_instance "$dir"
  fresh_corpus
  # shellcheck disable=SC2034  # read by run.sh's distinct_events
  RECLEN=$(( $(head -1 "$CORPUS" | wc -c) ))
  start_serve "$dir"
  wait_for 60 "the slow endpoint's slot to be taken ($dir/serve.log)" slot_held "$dir"
  b0=$(backlog); t0=$(now_ms)
  measured_wrk "$SERVE_PID" "https://127.0.0.1:$PORT/hooks/$endpoint" "$MIXED_CONNS" 0 hookinbox "$dir"
  t1=$(now_ms); b1=$(backlog)
  slot_still_held "$row/$rep"
  stop_mixed "$dir"
  check_hookinbox "$row/$rep" "$BASE_ROWS" "$MIXED_CONNS" "$dir"
  check_mixed_prefill "$row/$rep"
  local fwd new line ratio=-
  fwd=$(forwards_between "$t0" "$t1")
  new=$(q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I AND endpoint = 'orders'")
  if [ "$endpoint" = demo ]; then
    MIXED_RO_DPS=$DPS
  elif [ -n "${MIXED_RO_DPS:-}" ] && [ "$MIXED_RO_DPS" -gt 0 ]; then
    ratio=$(awk -v a="$DPS" -v b="$MIXED_RO_DPS" 'BEGIN{printf "%.2f", a / b}')
  fi
  line="RESULT row=$row target=hookinbox prefill=$BASE_ROWS endpoint=$endpoint conns=$MIXED_CONNS close=0 rep=$rep"
  line+=" dps=$DPS p50_ms=$P50 p99_ms=$P99 rss_kb=$HWM cpu_ms_per_1k=$(cpu_ms_per_1k "$CPU_TICKS" "$OK2XX")"
  line+=" db_bytes_per_event=- window_ms=$(( t1 - t0 )) forwards=$fwd forwards_per_s=$(per_s "$fwd" $(( t1 - t0 )))"
  line+=" orders_events=$new backlog_start=$b0 backlog_end=$b1 ingest_ratio=$ratio slow_attempts=$SLOW_ATTEMPTS"
  line+=" downstream_effects=$FAST_EFFECTS answered_2xx=$OK2XX other=$OTHER delivery_rows=$DELIVERIES inbox_rows=$INBOX"
  line+=" distinct_sent=$UNIQUE_SENT wrk_timeouts=$(field err_timeout "$WRK_LINE") wrk_socket_errors=$(socket_errors)"
  record "$line loadavg=$LOAD0"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- row 3: test_load at RATE to `orders`, then the drain -------------------------------------
# Acks and forwards are compared over one window (just before test_load starts
# to just after it ends): the events completed in it against the new events
# accepted in it (duplicates need no forward). A server that cannot take RATE
# would stretch the run (RATE x DURATION deliveries at whatever it takes), so
# test_load gets SIGTERM at 2 x DURATION + 5 s (it then sends nothing new and
# waits for the answers in flight; truncated=1) and the checks count what it
# sent. Falling behind is recorded in FAILURES (the table is still printed); a
# stored-data check dies at once.
mixed_rate_run() {  # REP
  local rep=$1 row=hb-mixed-rate dir n t0 t1 b0 b1 b2 drain_ms c0 c1 hwm load0 summary lp truncated=0 deadline
  dir=$WORK/$row-$rep
  mixed_instance "$dir"
  start_serve "$dir"
  wait_for 60 "the slow endpoint's slot to be taken ($dir/serve.log)" slot_held "$dir"
  load0=$(loadavg)
  b0=$(backlog); c0=$(cpu_ticks "$SERVE_PID"); t0=$(now_ms)
  "$LOAD" --url "https://127.0.0.1:$PORT/hooks/orders" --secret-file "$dir/secrets/demo.secret" \
    --ca "$dir/tls/cert.pem" --connections "$RATE_CONNS" --deliveries $(( RATE * DURATION )) --duplicates 0.10 \
    --conflicts 0 --id-prefix mixrate --rate "$RATE" --body-bytes 1024 >"$dir/load.out" 2>&1 &
  lp=$!; PIDS+=("$lp")
  # A watchdog, not a poll: a loop of date/kill forks every 50 ms took ~6 % of the
  # two cores from the server it measures.
  { sleep $(( 2 * DURATION + 5 )); kill -TERM "$lp" 2>/dev/null; } &
  local watchdog=$!
  wait "$lp" || die "$row/$rep: test_load failed ($dir/load.out)"
  forget_pid "$lp"
  if alive "$watchdog"; then kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null || true; else truncated=1; fi
  t1=$(now_ms); c1=$(cpu_ticks "$SERVE_PID"); b1=$(backlog)
  summary=$(grep '^summary ' "$dir/load.out") || die "$row/$rep: no test_load summary"
  n=$(field deliveries "$summary")
  hwm=$(hwm_kb "$SERVE_PID")
  slot_still_held "$row/$rep"
  # The drain: poll the backlog down to max(200, 1 % of the deliveries sent).
  local limit=$(( n / 100 > 200 ? n / 100 : 200 )) deadline=$(( t1 + MIXED_DRAIN * 1000 ))
  b2=$b1
  while [ "$b2" -gt "$limit" ] && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.1; b2=$(backlog); done
  drain_ms=$(( $(now_ms) - t1 ))
  stop_mixed "$dir"
  local ok200 unique inbox deliveries fwd
  ok200=$(field statuses_200 "$summary"); unique=$(field unique_ids "$summary")
  inbox=$(q "SELECT count(*) FROM webhook_inbox WHERE id > $BASE_I")
  deliveries=$(q "SELECT count(*) FROM webhook_deliveries WHERE id > $BASE_D")
  [ "$ok200" = "$n" ] || die "$row/$rep: $ok200 of $n answered 200"
  [ "$inbox" = "$unique" ] || die "$row/$rep: $inbox inbox rows for $unique unique ids answered"
  [ "$deliveries" = "$n" ] || die "$row/$rep: $deliveries delivery rows for $n deliveries"
  [ "$(q "SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL")" = 0 ] ||
    die "$row/$rep: delivery rows left out of the audit chain"
  check_mixed_prefill "$row/$rep"
  fwd=$(forwards_between "$t0" "$t1")
  local win=$(( t1 - t0 ))
  record "RESULT row=$row target=hookinbox prefill=$BASE_ROWS endpoint=orders conns=$RATE_CONNS close=0 rep=$rep dps=$(field rate "$summary" | cut -d. -f1) new_per_s=$(per_s "$unique" "$win") forwards_per_s=$(per_s "$fwd" "$win") p50_ms=$(printf %.2f "$(field p50_ms "$summary")") p99_ms=$(printf %.2f "$(field p99_ms "$summary")") rss_kb=$hwm cpu_ms_per_1k=$(cpu_ms_per_1k $(( c1 - c0 )) "$n") db_bytes_per_event=- window_ms=$win truncated=$truncated sent=$n forwards=$fwd new_events=$unique backlog_start=$b0 backlog_end=$b1 backlog_growth=$(( b1 - b0 )) backlog_drained=$b2 drain_limit=$limit drain_ms=$drain_ms slow_attempts=$SLOW_ATTEMPTS downstream_effects=$FAST_EFFECTS answered_2xx=$ok200 other=0 inbox_rows=$inbox loadavg=$load0"
  # forwards/s >= 0.98 x new events/s over the same window, and drained in time.
  if [ $(( fwd * 100 )) -lt $(( unique * 98 )) ]; then
    FAILURES+=("$row/$rep: $fwd orders events forwarded in the ${win} ms window for $unique accepted (< 98 %)")
    echo "bench: ${FAILURES[-1]}" >&2
  fi
  if [ "$b2" -gt "$limit" ]; then
    FAILURES+=("$row/$rep: orders backlog $b2 > $limit after a ${MIXED_DRAIN} s drain (it was $b1 when the load ended)")
    echo "bench: ${FAILURES[-1]}" >&2
  fi
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

mixed_runs() {  # REP: the three rows, in order (row 2's ratio uses row 1 of the same repetition)
  MIXED_RO_DPS=
  mixed_wrk_run hb-mixed-ro demo "$1"
  mixed_wrk_run hb-mixed-orders orders "$1"
  mixed_rate_run "$1"
}

# The lines under the table (run.sh's stat/med over the RESULT lines).
mixed_summary() {
  grep -q ' row=hb-mixed-' "$RAW" || return 0
  echo
  echo "mixed db: $MIXED_RECEIVE_ONLY events stored on the receive-only endpoint, $MIXED_AT_CAPACITY due on an endpoint at its"
  echo "concurrency limit (1, held all the run); \`orders\`: http action, worker.threads 4 (default), concurrency $MIXED_ORDERS_CONCURRENCY."
  if grep -q ' row=hb-mixed-orders ' "$RAW"; then
    echo "mixed/receive-only ingest ratio: $(med hb-mixed-orders ingest_ratio) (target ≥ 0.80)"
    # The receive-only row itself against the empty db (no worker), when that row ran too.
    local ro empty
    ro=$(med hb-mixed-ro dps); empty=$(med "hb-ka-c$MIXED_CONNS" dps)
    if [ "$ro" != - ] && [ "$empty" != - ] && [ "$empty" -gt 0 ]; then
      echo "receive-only on the mixed db / keep-alive c=$MIXED_CONNS on an empty db: $(awk -v a="$ro" -v b="$empty" 'BEGIN{printf "%.2f", a / b}')"
    fi
    echo "orders under wrk c=$MIXED_CONNS: acks/s $(med hb-mixed-orders dps), forwards/s $(med hb-mixed-orders forwards_per_s)," \
         "backlog $(med hb-mixed-orders backlog_start) → $(med hb-mixed-orders backlog_end), p99 $(med hb-mixed-orders p99_ms) ms"
  fi
  if grep -q ' row=hb-mixed-rate ' "$RAW"; then
    grep ' row=hb-mixed-rate ' "$RAW" | grep -q ' truncated=1 ' &&
      echo "orders at fixed $RATE/s: the server could not take $RATE/s; test_load was stopped at 2 x DURATION + 5 s"
    echo "orders at fixed $RATE/s: acks/s $(med hb-mixed-rate dps) (new events/s $(med hb-mixed-rate new_per_s))," \
         "forwards/s $(med hb-mixed-rate forwards_per_s), backlog growth $(med hb-mixed-rate backlog_growth)," \
         "backlog after ≤ ${MIXED_DRAIN} s drain $(med hb-mixed-rate backlog_drained) (limit $(med hb-mixed-rate drain_limit)), p99 $(med hb-mixed-rate p99_ms) ms"
  fi
}
