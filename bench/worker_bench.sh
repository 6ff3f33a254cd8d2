#!/bin/bash
# bench/worker_bench.sh — events/s of the worker: a no-op `exec`
# action (/bin/true) and an `http` action against a local downstream
# (tests/support/test_downstream), with 1/4/16 worker threads, on an empty
# table and with 1 000 000 completed rows already in it.
#
# usage: bench/worker_bench.sh [BUILD_DIR=build/bench, relative to the repo root] [EVENTS=4000]
#   env: WORKERS="1 4 16"  ACTIONS="exec http"  PREFILLS="0 1000000"
#        REPS=3          runs of the whole matrix; the table shows the median and the range
#        WORK_DIR=DIR    parent of the scratch dir (default $TMPDIR or /tmp); needs about 2.3 GB
#        KEEP=1          keep the scratch dir (it is always kept when the bench fails)
#        JOBS=2          ninja -j when it builds;  SKIP_BUILD=1  use the binaries as they are
#        EXEC_COMMAND=/bin/true   absolute path; /bin/false shows the checks failing the bench
#
# Method, per combination: a fresh installation (`hookinbox init`, then the
# integration tests' config with listen 127.0.0.1:0); EVENTS events inserted
# while the server is down, as the door writes them (inbox + delivery +
# payload rows, status 'received', one transaction); `hookinbox serve` started;
# when no event is due any more, SIGTERM. The figure is EVENTS divided by the
# span from the first attempt's started_at to the last attempt's finished_at
# (webhook_attempts, ms), so start-up, polling and shutdown are not counted.
# With REPS > 1 the table gives the median over the repetitions.
# Correctness is checked on every run (exactly one attempt per event, every
# event completed, the prefilled rows untouched, downstream effects = EVENTS);
# any miss fails the bench. Figures and how to read them: bench/README.md.
#
# Not a test: never part of ctest or tests/run-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=worker_bench
# shellcheck source=bench/lib.sh
source bench/lib.sh
BUILD=${1:-build/bench}
EVENTS=${2:-4000}
WORKERS=${WORKERS:-"1 4 16"}
ACTIONS=${ACTIONS:-"exec http"}
PREFILLS=${PREFILLS:-"0 1000000"}
JOBS=${JOBS:-2}
EXEC_COMMAND=${EXEC_COMMAND:-/bin/true}
REPS=${REPS:-3}


# --- build: only the two binaries the bench needs, not the test suites ---------
# packaging/build.sh is not used: its `release` variant turns BUILD_TESTING off,
# so it has no test_downstream, and its `test` variant builds every test.
HB=$BUILD/hookinbox
DS=$BUILD/tests/support/test_downstream
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
  fi
  ninja -j"$JOBS" -C "$BUILD" hookinbox test_downstream >/dev/null || die "build failed in $BUILD"
fi
[ -x "$HB" ] && [ -x "$DS" ] || die "$HB or $DS missing (build them, or leave SKIP_BUILD unset)"
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
SANITIZE=$(sed -n 's/^HOOKINBOX_SANITIZE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
command -v sqlite3 >/dev/null || die "the sqlite3 CLI is needed (apt-get install sqlite3)"
command -v curl >/dev/null || die "curl is needed"

# --- scratch space and cleanup ---------------------------------------------------
WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/worker_bench.XXXXXX")
PIDS=()
cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  if [ "$rc" -ne 0 ] || [ "${KEEP:-0}" = 1 ]; then
    echo "worker_bench: scratch dir kept: $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

sql() { sqlite3 -batch "$@"; }

# --- rows as the door writes them ------------------------------------------------
# One accepted delivery = an inbox row (status 'received', next_attempt_at =
# received_at), a webhook_deliveries row (accepted, 200) and the 'original'
# payload row; ids run together as they do when every delivery is new.
# payload_hash: 64 lower-case hex digits like the door's SHA-256; random here
# because the sqlite3 CLI has no SHA-256 and the worker never reads it.
# rows_sql FIRST COUNT STATUS RECEIVED_AT_BASE_MS -> SQL inserting ids FIRST..FIRST+COUNT-1
rows_sql() {
  local first=$1 count=$2 status=$3 t0=$4
  cat <<SQL
CREATE TEMP TABLE ids AS
  WITH RECURSIVE s(i) AS (SELECT $first UNION ALL SELECT i + 1 FROM s WHERE i < $first + $count - 1)
  SELECT i AS id, printf('evt_${status}_%08d', i) AS event_id, $t0 + i - $first AS at,
         lower(hex(randomblob(32))) AS hash FROM s;
INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status,
                           attempt_count, next_attempt_at, received_at, completed_at)
  SELECT id, 'generic', 'demo', 'default', event_id, 'invoice.paid', hash, '$status',
         CASE WHEN '$status' = 'completed' THEN 1 ELSE 0 END,
         CASE WHEN '$status' = 'completed' THEN NULL ELSE at END,
         at, CASE WHEN '$status' = 'completed' THEN at + 12 END FROM ids;
INSERT INTO webhook_deliveries (id, received_at, remote_addr, method, path, provider, endpoint, tenant_id,
                                event_id, event_type, inbox_id, outcome, http_status, payload_hash, body_bytes,
                                content_type, user_agent)
  SELECT id, at, '127.0.0.1', 'POST', '/hooks/demo', 'generic', 'demo', 'default', event_id, 'invoice.paid', id,
         'accepted', 200, hash, length('{"id":"' || event_id || '","type":"invoice.paid"}'), 'application/json',
         'worker_bench' FROM ids;
INSERT INTO webhook_payloads (id, inbox_id, delivery_id, kind, payload_hash, content_type, body, created_at)
  SELECT id, id, id, 'original', hash, 'application/json',
         CAST('{"id":"' || event_id || '","type":"invoice.paid"}' AS BLOB), at FROM ids;
SQL
  # A completed event also has its attempt row, as the worker leaves it.
  if [ "$status" = completed ]; then
    cat <<SQL
INSERT INTO webhook_attempts (id, inbox_id, attempt, worker, started_at, finished_at, outcome, exit_code)
  SELECT id, id, 1, 'old-host:1:0', at + 7, at + 12, 'completed', 0 FROM ids;
SQL
  fi
  echo "DROP TABLE ids;"
}

# The database with COUNT completed events (inbox + delivery + payload +
# attempt rows), made once by make_prefill and copied for every run.
prefill_db() { echo "$WORK/prefill-$1/data/hookinbox.db"; }
make_prefill() {
  local count=$1 db start t0
  db=$(prefill_db "$count")
  [ -f "$db" ] && return 0
  "$HB" init "$WORK/prefill-$count" >/dev/null
  t0=$(( $(now_ms) - 30 * 86400 * 1000 ))  # received over the last month or so
  start=$(now_ms)
  { echo "PRAGMA cache_size = -262144; BEGIN;"; rows_sql 1 "$count" completed "$t0"; echo "COMMIT;";
    echo "PRAGMA wal_checkpoint(TRUNCATE);"; } | sql "$db" >/dev/null
  local ms=$(( $(now_ms) - start ))
  echo "# prefill: $count completed events made in $(( ms / 1000 )).$(( ms % 1000 / 100 )) s (recursive CTE, one" \
       "transaction), db $(du -m "$db" | cut -f1) MB, copied for each run"
}

write_config() {  # DIR ACTION WORKERS DOWNSTREAM_PORT
  local dir=$1 action=$2 workers=$3 port=$4 action_toml
  if [ "$action" = exec ]; then
    action_toml="type = \"exec\"
command = [\"$EXEC_COMMAND\"]"
  else
    echo "whsec_$(head -c 32 /dev/urandom | base64)" >"$dir/secrets/forward.secret"
    chmod 600 "$dir/secrets/forward.secret"
    action_toml="type = \"http\"
url = \"http://127.0.0.1:$port/events\"
forward_secret_file = \"secrets/forward.secret\"
idempotent_target = true"
  fi
  # As tests/integration/harness.cpp WriteTestConfig writes it, plus the action.
  # concurrency = workers: the default (half of worker.threads) would leave
  # half of the threads idle with a single endpoint.
  cat >"$dir/hookinbox.toml" <<TOML
[server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536

[admin]
listen = "127.0.0.1:0"

[storage]
path = "data/hookinbox.db"

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

[endpoint.action]
$action_toml
concurrency = $workers
timeout_ms = 10000

[worker]
threads = $workers
TOML
}


start_downstream() {  # DIR -> sets DS_PID, DS_PORT
  "$DS" --port 0 --quiet >"$1/downstream.out" 2>&1 &
  DS_PID=$!; PIDS+=("$DS_PID")
  wait_for 10 "test_downstream to listen" grep -q '^listening port=' "$1/downstream.out"
  DS_PORT=$(sed -n 's/^listening port=//p' "$1/downstream.out")
}

downstream_stat() {  # NAME -> the counter from GET /_control/stats
  curl -sf "http://127.0.0.1:$DS_PORT/_control/stats" | grep -o "\"$1\":[0-9]*" | cut -d: -f2
}

q() { sql "$DB" "$1"; }
# While serve runs, read with -readonly only (as tests/integration/harness.cpp
# does): a closing read-write connection may checkpoint the database under
# measurement, and before the PrepareFile fix in store/database.cpp it even
# deleted the server's WAL (bench/README.md).
q_live() { sql -readonly "$DB" "$1"; }

# run_one PREFILL ACTION WORKERS -> sets RESULT_LINE; dies on any check that fails.
# Runs in the main shell (not in $(...)) so the EXIT trap sees its pids.
run_one() {
  local prefill=$1 action=$2 workers=$3 dir=$WORK/run-$1-$2-$3
  "$HB" init "$dir" >/dev/null
  DB=$dir/data/hookinbox.db
  if [ "$prefill" -gt 0 ]; then
    cp "$(prefill_db "$prefill")" "$DB"
    rm -f "$DB-wal" "$DB-shm"
  fi
  { echo "BEGIN;"; rows_sql $(( prefill + 1 )) "$EVENTS" received $(( $(now_ms) - EVENTS )); echo "COMMIT;"; } \
    | sql "$DB" >/dev/null
  DS_PORT=0
  [ "$action" = http ] && start_downstream "$dir"
  write_config "$dir" "$action" "$workers" "$DS_PORT"

  local t_start serve_pid
  t_start=$(now_ms)
  "$HB" serve -c "$dir/hookinbox.toml" >"$dir/serve.log" 2>&1 &
  serve_pid=$!; PIDS+=("$serve_pid")
  is_drained() {
    kill -0 "$serve_pid" 2>/dev/null || die "hookinbox serve exited early; see $dir/serve.log"
    [ "$(q_live "SELECT count(*) FROM webhook_inbox WHERE status IN ('received','retryable_failed','processing')")" = 0 ]
  }
  # Deadline: 30 s plus 20 ms an event (50 events/s), far below any sane figure.
  wait_for $(( 30 + EVENTS / 50 )) "the events to drain ($dir/serve.log)" is_drained
  local t_drained; t_drained=$(now_ms)
  # CPU of serve and its reaped children (the exec'd commands) over the whole
  # run, start-up included: less sensitive to other users' load than events/s.
  local cpu_ticks
  cpu_ticks=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$serve_pid/stat")
  kill -TERM "$serve_pid"
  local rc=0; wait "$serve_pid" || rc=$?
  forget_pid "$serve_pid"
  [ "$rc" = 0 ] || die "hookinbox serve exited $rc after SIGTERM; see $dir/serve.log"

  # --- correctness ---
  local where="inbox_id > $prefill" attempts events_seen completed_attempts first last statuses
  IFS='|' read -r attempts events_seen completed_attempts first last < <(q "SELECT count(*), count(DISTINCT inbox_id),
      coalesce(sum(outcome = 'completed'), 0), min(started_at), max(finished_at) FROM webhook_attempts WHERE $where")
  statuses=$(q "SELECT group_concat(status || '=' || n, ' ') FROM
      (SELECT status, count(*) AS n FROM webhook_inbox WHERE id > $prefill GROUP BY status)")
  [ "$attempts" = "$EVENTS" ] && [ "$events_seen" = "$EVENTS" ] && [ "$completed_attempts" = "$EVENTS" ] ||
    die "$prefill/$action/$workers: attempts=$attempts on $events_seen events, $completed_attempts completed; want $EVENTS each ($dir)"
  [ "$statuses" = "completed=$EVENTS" ] || die "$prefill/$action/$workers: inbox states $statuses; want completed=$EVENTS ($dir)"
  if [ "$prefill" -gt 0 ]; then
    local old
    old=$(q "SELECT count(*) FROM webhook_attempts WHERE inbox_id <= $prefill")
    [ "$old" = "$prefill" ] || die "$prefill/$action/$workers: the prefilled events got $old attempt rows; want $prefill"
  fi
  local effects="-"
  if [ "$action" = http ]; then
    effects=$(downstream_stat effects)
    local calls; calls=$(downstream_stat calls)
    [ "$effects" = "$EVENTS" ] || die "$prefill/$action/$workers: downstream effects=$effects calls=$calls; want $EVENTS"
    [ "$(q "SELECT count(*) FROM webhook_attempts WHERE $where AND http_status = 200")" = "$EVENTS" ] ||
      die "$prefill/$action/$workers: not every attempt recorded http_status 200"
    kill -TERM "$DS_PID"; wait "$DS_PID" 2>/dev/null || true; forget_pid "$DS_PID"
  else
    [ "$(q "SELECT count(*) FROM webhook_attempts WHERE $where AND exit_code = 0")" = "$EVENTS" ] ||
      die "$prefill/$action/$workers: not every attempt recorded exit_code 0"
  fi

  # --- figures ---
  local span=$(( last - first )) p50 p99
  [ "$span" -gt 0 ] || span=1
  p50=$(q "SELECT finished_at - started_at AS d FROM webhook_attempts WHERE $where ORDER BY d LIMIT 1 OFFSET $(( EVENTS / 2 ))")
  p99=$(q "SELECT finished_at - started_at AS d FROM webhook_attempts WHERE $where ORDER BY d LIMIT 1 OFFSET $(( EVENTS * 99 / 100 ))")
  RESULT_LINE="RESULT worker_bench prefill=$prefill action=$action workers=$workers events=$EVENTS span_ms=$span"
  RESULT_LINE+=" events_per_s=$(( EVENTS * 1000 / span )) attempt_p50_ms=$p50 attempt_p99_ms=$p99"
  RESULT_LINE+=" cpu_us_per_event=$(( cpu_ticks * 1000000 / $(getconf CLK_TCK) / EVENTS ))"
  RESULT_LINE+=" wall_ms=$(( t_drained - t_start )) effects=$effects"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# --- machine facts -----------------------------------------------------------------
cat <<EOF
# worker_bench $(date -u +%FT%TZ)
# $("$HB" --version)
# build: $BUILD  CMAKE_BUILD_TYPE=$BUILD_TYPE${SANITIZE:+  sanitize=$SANITIZE}  hookinbox built $(date -u -r "$HB" +%FT%TZ)
# machine: nproc=$(nproc)  cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)  mem=$(free -g | awk '/Mem:/{print $2}') GiB
# db filesystem: $(df --output=fstype,source "$WORK" | tail -1 | xargs) mounted at $(findmnt -n -o TARGET --target "$WORK") ($WORK)
# loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)  (other users' builds share these cores: figures are noisy)
# events per run: $EVENTS; span = first attempt start -> last attempt finish (webhook_attempts)
EOF

# Repetitions run the whole matrix again (not one combination back to back),
# so a burst of someone else's build spreads over combinations.
RESULTS=()
for rep in $(seq 1 "$REPS"); do
  for prefill in $PREFILLS; do
    if [ "$prefill" -gt 0 ]; then make_prefill "$prefill"; fi
    for action in $ACTIONS; do
      for workers in $WORKERS; do
        run_one "$prefill" "$action" "$workers"
        RESULT_LINE+=" rep=$rep"
        echo "$RESULT_LINE"
        RESULTS+=("$RESULT_LINE")
      done
    done
  done
done

# median FIELD PREFILL ACTION WORKERS -> "median min max" of FIELD over the repetitions
median() {
  local values
  values=$(for line in "${RESULTS[@]}"; do
    case "$line" in *" prefill=$2 action=$3 workers=$4 "*) field "$1" "$line" ;; esac
  done | sort -n)
  local n; n=$(wc -l <<<"$values")
  echo "$(sed -n "$(( (n + 1) / 2 ))p" <<<"$values") $(head -1 <<<"$values") $(tail -1 <<<"$values")"
}
echo "# loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "events/s = events / (last attempt finished_at - first attempt started_at); median of $REPS run(s), range min-max"
echo "(the top of the range is the least-disturbed run); serve CPU = user+sys of hookinbox serve and its exec'd"
echo "children over the whole run, start-up included, per event (the downstream's CPU is not in it)"
echo
printf '| prefilled rows | action | workers | events/s | range | span s | attempt p50 ms | attempt p99 ms | serve CPU µs/event |\n'
printf '|---:|---|---:|---:|---:|---:|---:|---:|---:|\n'
for prefill in $PREFILLS; do
  for action in $ACTIONS; do
    for workers in $WORKERS; do
      read -r eps lo hi < <(median events_per_s "$prefill" "$action" "$workers")
      read -r span _ < <(median span_ms "$prefill" "$action" "$workers")
      read -r p50 _ < <(median attempt_p50_ms "$prefill" "$action" "$workers")
      read -r p99 _ < <(median attempt_p99_ms "$prefill" "$action" "$workers")
      read -r cpu _ < <(median cpu_us_per_event "$prefill" "$action" "$workers")
      printf '| %s | %s | %s | **%s** | %s-%s | %d.%d | %s | %s | %s |\n' "$prefill" "$action" "$workers" "$eps" "$lo" "$hi" \
        $(( span / 1000 )) $(( span % 1000 / 100 )) "$p50" "$p99" "$cpu"
    done
  done
done
echo
echo "all checks passed: every event completed exactly once (attempts = events, http effects = events)"
