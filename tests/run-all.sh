#!/usr/bin/env bash
# The README's second command (and .ci/run): install what is missing, build,
# and run every test — unit, integration, crash, load — in a normal build, on
# SQLite and again on a throw-away PostgreSQL; a bounded run of every fuzz
# target; the Debian package installed into a throw-away root; and the suite
# again under AddressSanitizer + UndefinedBehaviorSanitizer and under
# ThreadSanitizer (the store suite on both databases there too). Each phase
# prints its start time in seconds since the run began. About 40 minutes on
# 2 cores from a clean clone (docs/RELIABILITY.md says what each part proves).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
# The browser test's chromium and playwright-core, here rather than inside its ctest timeout.
bash tests/browser/run.sh --install-only

# One throw-away PostgreSQL for every suite that runs on it too (the store
# suite, ctest *_postgres): tests/support/pg_cluster.sh, stopped on exit.
pg_dir=$(mktemp -d)
trap 'bash tests/support/pg_cluster.sh stop "$pg_dir" >/dev/null 2>&1 || true; rm -rf "$pg_dir"' EXIT
HOOKINBOX_TEST_PG_URL=$(bash tests/support/pg_cluster.sh start "$pg_dir")
export HOOKINBOX_TEST_PG_URL

# Twice as many ctest entries as cores: the end-to-end suites spend most of
# their time waiting on a server's timeouts and polls (the worker's suite used
# 41 s of CPU in 128 s), so one entry per core left the cores half idle.
jobs=$(( $(nproc) * 2 ))
run_suite() {
  local variant=$1
  echo "=== build: $variant (at ${SECONDS}s)"
  bash packaging/build.sh "$@"
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
