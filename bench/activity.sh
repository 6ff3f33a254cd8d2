#!/usr/bin/env bash
# bench/activity.sh — how long GET /admin/api/activity (the dashboard's
# charts) takes on a SQLite database holding DELIVERIES delivery rows spread
# over the last 7 days (one endpoint; 80 % accepted, 10 % duplicate, 10 %
# rejected) and one finished attempt per accepted event. Prints the median
# of REPS calls per range, measured by curl, and each query's own time in
# the sqlite3 CLI.
#   BIN=build/test/hookinbox DELIVERIES=1000000 REPS=5 bash bench/activity.sh
set -euo pipefail
BENCH_NAME=activity
cd "$(dirname "$0")/.."
source bench/lib.sh
BIN=${BIN:-build/test/hookinbox}
DELIVERIES=${DELIVERIES:-1000000}
REPS=${REPS:-5}
work=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

"$BIN" init "$work" >/dev/null
sed -i 's/127.0.0.1:8443/127.0.0.1:0/; s/127.0.0.1:8081/127.0.0.1:0/' "$work/hookinbox.toml"
db=$work/data/hookinbox.db
now=$(now_ms)
week=$((7 * 86400 * 1000))
echo "activity: filling $DELIVERIES deliveries over 7 days"
sqlite3 "$db" <<SQL
PRAGMA journal_mode = WAL;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $DELIVERIES)
INSERT INTO webhook_deliveries (received_at, endpoint, provider, outcome, http_status, request_count)
SELECT $now - $week + i * ($week / $DELIVERIES), 'demo', 'generic',
       CASE i % 10 WHEN 0 THEN 'duplicate' WHEN 1 THEN 'rejected' ELSE 'accepted' END, 200, 1 FROM n;
INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, status, received_at, completed_at)
SELECT 'generic', 'demo', 'default', 'evt_' || id, 'h', 'completed', received_at, received_at + 50
  FROM webhook_deliveries WHERE outcome = 'accepted';
INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome)
SELECT id, 1, 'w', received_at + 10, received_at + 50, CASE id % 20 WHEN 0 THEN 'retryable_failed' ELSE 'completed' END
  FROM webhook_inbox;
COMMIT;
SQL
for q in deliveries attempts; do
  if [ $q = deliveries ]; then
    sql="SELECT coalesce(endpoint, ''), (received_at - ?1) / ?2, outcome, sum(request_count) FROM webhook_deliveries WHERE received_at >= ?1 AND received_at < ?3 GROUP BY 1, 2, 3"
  else
    sql="SELECT i.endpoint, (a.finished_at - ?1) / ?2, a.outcome, count(*) FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id WHERE a.finished_at >= ?1 AND a.finished_at < ?3 AND a.kind = 'action' AND a.outcome IN ('completed', 'retryable_failed', 'dead_lettered', 'unknown') GROUP BY 1, 2, 3"
  fi
  sql=${sql//\?1/$((now - week))}; sql=${sql//\?2/21600000}; sql=${sql//\?3/$((now + 21600000))}
  printf 'activity: sqlite3 7d %s query: ' $q
  printf '.timer on\n%s;\n' "$sql" | sqlite3 "$db" | grep '^Run Time' | tail -1
done

"$BIN" serve -c "$work/hookinbox.toml" 2>"$work/serve.log" &
PIDS+=($!)
wait_for 30 "the admin listener" grep -q admin_listening "$work/serve.log"
admin=$(grep admin_listening "$work/serve.log" | grep -o 'http://127.0.0.1:[0-9]*' | head -1)
token=$(cat "$work/secrets/admin.token")
for range in 24h 7d; do
  times=()
  for _ in $(seq "$REPS"); do
    times+=("$(curl -sS -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "$admin/admin/api/activity?range=$range")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p")
  echo "activity: GET /admin/api/activity?range=$range on $DELIVERIES deliveries: median ${median}s (of $REPS: ${times[*]})"
done
