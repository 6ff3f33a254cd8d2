#!/usr/bin/env bash
# Sustained load: N signed deliveries over HTTPS keep-alive into a
# receive-only endpoint, and what they leave behind.
#
#   bash tests/load/run.sh BUILD_DIR [N=50000]
#   env: CONNECTIONS=8  DUPLICATES=0.10  SAMPLES=20 (RSS/fd samples over the run)
#        KEEP=1 keeps the scratch dir (it is always kept when a check fails)
#        SERVE_ENV="MALLOC_ARENA_MAX=2"  extra environment for `serve` (for experiments)
#
# `hookinbox init` makes a fresh installation; its config (the demo endpoint,
# no action, so only the receive path is measured) gets listen ports 0.
# `serve` runs it over TLS; BUILD/tests/support/test_load sends N deliveries
# on CONNECTIONS connections, DUPLICATES of them repeats of a recent event,
# and samples the server's RSS and open fds. test_load closes every
# connection after the first 10 % (the warm-up) and at the end, and reads
# the server at those quiescent points (so open client sockets never count).
#
# Checks (exit 1 on any miss, each printed as `load <check>: ok|FAIL`):
#   every answer is 200; accepted = unique ids, duplicate = the rest;
#   inbox rows = unique ids; delivery rows = N;
#   RSS at the end <= 1.2 x RSS after the warm-up;
#   fds at the end = fds after the warm-up +-2;
#   serve stops on SIGTERM with exit 0; PRAGMA integrity_check is ok.
# Prints deliveries/s, p50/p99 latency, the RSS and fd curves. bench/load.sh
# runs it at 1 000 000. Never prints a secret or a payload.
set -euo pipefail

build_dir=${1:?usage: run.sh BUILD_DIR [N]}
n=${2:-50000}
connections=${CONNECTIONS:-8}
duplicates=${DUPLICATES:-0.10}
samples=${SAMPLES:-20}
bin="$(cd "$build_dir" && pwd)/hookinbox"
load="$(cd "$build_dir" && pwd)/tests/support/test_load"
if [ ! -x "$bin" ] || [ ! -x "$load" ]; then echo "load: $bin or $load missing (build hookinbox and test_load)" >&2; exit 1; fi
command -v sqlite3 >/dev/null || { echo "load: the sqlite3 CLI is needed" >&2; exit 1; }
command -v curl >/dev/null || { echo "load: curl is needed" >&2; exit 1; }

started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/hookinbox-load.XXXXXX")"
server_pid=""
failed=0
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ "$failed" = 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "load: scratch dir kept: $work"; fi
}
trap cleanup EXIT
check() {  # check NAME CONDITION-EXIT-STATUS DETAIL
  if [ "$2" = 0 ]; then echo "load $1: ok ($3)"; else echo "load $1: FAIL ($3)"; failed=1; fi
}

inst="$work/inst"
"$bin" init "$inst" >/dev/null
config="$inst/hookinbox.toml"
sed -i -e 's/127\.0\.0\.1:8443/127.0.0.1:0/' -e 's/127\.0\.0\.1:8081/127.0.0.1:0/' "$config"
if grep -q '^\[endpoint\.action\]' "$config"; then echo "load: init's demo endpoint has an action" >&2; exit 1; fi

# shellcheck disable=SC2086  # SERVE_ENV is a list of NAME=VALUE words
env ${SERVE_ENV:-} "$bin" serve -c "$config" >"$work/serve.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 300); do  # up to 30 s for the "listening" line
  port=$(sed -n 's/.*"event":"listening","url":"https:\/\/127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/serve.log" | head -1)
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { echo "load: serve did not listen"; cat "$work/serve.log"; failed=1; exit 1; }
for _ in $(seq 100); do
  curl -sf --cacert "$inst/tls/cert.pem" "https://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.1
done

echo "load: $n deliveries, $connections connections, $duplicates duplicates, serve pid $server_pid"
load_status=0
"$load" --url "https://127.0.0.1:$port/hooks/demo" --secret-file "$inst/secrets/demo.secret" \
  --ca "$inst/tls/cert.pem" --connections "$connections" --deliveries "$n" --duplicates "$duplicates" \
  --conflicts 0 --id-prefix "load$$" --server-pid "$server_pid" \
  --sample-every $(( n / samples > 0 ? n / samples : 1 )) >"$work/load.out" 2>&1 || load_status=$?
grep '^test_load:' "$work/load.out" || true
summary=$(grep '^summary ' "$work/load.out" || true)
[ -n "$summary" ] || { echo "load: test_load printed no summary (exit $load_status)"; cat "$work/load.out"; failed=1; exit 1; }
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$summary"; }

echo "load: RSS kB and fds of serve, by deliveries done:"
grep '^sample ' "$work/load.out" | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  printf "  %-5s done %8d  t %7.1f s  rss %7d kB  fds %3d\n", v["sample"], v["done"], v["t_s"], v["rss_kb"], v["fds"] }'

deliveries=$(val deliveries); unique=$(val unique_ids)
ok200=$(val statuses_200); ok200=${ok200:-0}
other=$(grep -o ' statuses_[0-9]*=' <<<"$summary" | grep -vc ' statuses_200=' || true)
accepted=$(val outcomes_accepted); accepted=${accepted:-0}
duplicate=$(val outcomes_duplicate); duplicate=${duplicate:-0}
check "answers" "$([ "$load_status" = 0 ] && [ "$deliveries" = "$n" ] && [ "$ok200" = "$n" ] && [ "$other" = 0 ]; echo $?)" \
  "$ok200 of $n answered 200, $other other statuses, test_load exit $load_status"
check "outcomes" "$([ "$accepted" = "$unique" ] && [ $((accepted + duplicate)) = "$n" ]; echo $?)" \
  "accepted $accepted, duplicate $duplicate, unique ids $unique"

inbox=$(sqlite3 -readonly "$inst/data/hookinbox.db" "SELECT count(*) FROM webhook_inbox")
delivery_rows=$(sqlite3 -readonly "$inst/data/hookinbox.db" "SELECT count(*) FROM webhook_deliveries")
check "inbox rows" "$([ "$inbox" = "$unique" ]; echo $?)" "$inbox rows, $unique unique ids"
check "delivery rows" "$([ "$delivery_rows" = "$n" ]; echo $?)" "$delivery_rows rows, $n deliveries"

rss_warm=$(val rss_warm_kb); rss_end=$(val rss_end_kb); rss_max=$(val rss_max_kb)
fds_warm=$(val fds_warm); fds_end=$(val fds_end)
check "rss" "$([ $((rss_end * 10)) -le $((rss_warm * 12)) ]; echo $?)" \
  "warm-up $rss_warm kB, end $rss_end kB ($(( (rss_end - rss_warm) * 100 / rss_warm ))%), max $rss_max kB, start $(val rss_start_kb) kB"
fd_diff=$((fds_end - fds_warm))
check "fds" "$([ "${fd_diff#-}" -le 2 ]; echo $?)" "warm-up $fds_warm, end $fds_end, start $(val fds_start)"

kill -TERM "$server_pid"
serve_exit=0
wait "$server_pid" || serve_exit=$?
server_pid=""
check "clean stop" "$([ "$serve_exit" = 0 ]; echo $?)" "serve exit $serve_exit"
integrity=$(sqlite3 -readonly "$inst/data/hookinbox.db" "PRAGMA integrity_check")
check "integrity" "$([ "$integrity" = ok ]; echo $?)" "$integrity"

echo "load: $(val rate | cut -d. -f1) deliveries/s, p50 $(val p50_ms) ms, p99 $(val p99_ms) ms, max $(val max_ms) ms;" \
  "load $(val seconds | cut -d. -f1) s, whole run $((SECONDS - started)) s"
[ "$failed" = 0 ] || { echo "load: FAIL"; exit 1; }
echo "load: all checks passed"
