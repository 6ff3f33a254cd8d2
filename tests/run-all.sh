#!/usr/bin/env bash
# The README's second command (and .ci/run): install what is missing, build,
# and run every test — unit, integration, crash, load — in a normal build, on
# SQLite and again on a throw-away PostgreSQL; a bounded run of every fuzz
# target; the Debian package installed into a throw-away root; and the suite
# again under AddressSanitizer + UndefinedBehaviorSanitizer and under
# ThreadSanitizer (the store suite on both databases there too); hookinbox in
# front of a real n8n (npm's n8n, pinned: 1.7 GB). Each phase
# prints its start time in seconds since the run began. About 40 minutes on
# 2 cores from a clean clone (docs/RELIABILITY.md says what each part proves).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
# The browser test's chromium and playwright-core, here rather than inside its ctest timeout.
bash tests/browser/run.sh --install-only

# The pinned n8n for ctest n8n_test (tests/n8n/install.sh: npm ci, 3–8
# minutes, download and unpacking) in the background while the normal tree
# compiles; the suite waits for it before its tests. In a session of its own,
# so a run that stops early ends npm too (the trap), not only its shell.
n8n_log=$(mktemp)
setsid bash tests/n8n/install.sh >"$n8n_log" 2>&1 &
n8n_install=$!

# One throw-away PostgreSQL for every suite that runs on it too (the store
# suite, ctest *_postgres): tests/support/pg_cluster.sh, stopped on exit.
pg_dir=$(mktemp -d)
trap '[ -z "$n8n_install" ] || kill -TERM -- "-$n8n_install" 2>/dev/null || true; rm -f "$n8n_log"
      bash tests/support/pg_cluster.sh stop "$pg_dir" >/dev/null 2>&1 || true; rm -rf "$pg_dir"' EXIT
HOOKINBOX_TEST_PG_URL=$(bash tests/support/pg_cluster.sh start "$pg_dir")
export HOOKINBOX_TEST_PG_URL

# Twice as many ctest entries as cores: the end-to-end suites spend most of
# their time waiting on a server's timeouts and polls (the worker's suite used
# 41 s of CPU in 128 s), so one entry per core left the cores half idle.
jobs=$(( $(nproc) * 2 ))
# A failed install is printed and the suite goes on: ctest n8n_test runs
# install.sh again and fails, naming it, if n8n is still missing.
wait_for_n8n() {
  echo "=== n8n install (at ${SECONDS}s)"
  local status=0
  wait "$n8n_install" || status=$?
  n8n_install=""
  if [ "$status" -ne 0 ]; then cat "$n8n_log"; echo "n8n: tests/n8n/install.sh failed (exit $status)" >&2
  else tail -n 2 "$n8n_log"; fi
}
run_suite() {
  local variant=$1
  echo "=== build: $variant (at ${SECONDS}s)"
  bash packaging/build.sh "$@"
  if [ "$variant" = test ]; then wait_for_n8n; fi
  echo "=== test: $variant (at ${SECONDS}s)"
  (cd "build/$variant" && ctest --output-on-failure -j "$jobs" --timeout 900)
}

run_suite test
# Fuzzing (tests/fuzz/): a clang tree of its own, each target briefly from its
# seeds; a crash prints its reproducer and fails the run. bench/fuzz.sh runs them longer.
echo "=== fuzz (at ${SECONDS}s)"
bash packaging/build.sh fuzz
bash tests/fuzz/run.sh build/fuzz 6
# The .deb from the tree just tested (no second compile), installed into a
# throw-away root: tests/packaging/deb_test.sh (needs root, as CI runs).
echo "=== package: deb (at ${SECONDS}s)"
bash packaging/build.sh deb build/test
bash tests/packaging/deb_test.sh build/test/hookinbox_*_amd64.deb tests/fixtures/db/v5-issue5-binary.sql build/test
# The sanitizer trees drive their own binaries with the integration client
# just built and tested (tests/integration/CMakeLists.txt says why).
client="-DHOOKINBOX_INTEGRATION_CLIENT=$PWD/build/test/tests/integration/integration_test"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_suite asan "$client"
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp" run_suite tsan "$client"
echo "=== all suites passed (in ${SECONDS}s)"
