#!/bin/bash
# bench/crash.sh — the crash-consistency scenario run longer: the
# `[crash]` case of tests/integration/crash_test.cpp with KILLS random SIGKILLs
# (default 500) instead of CI's 40, while test_load sends signed deliveries
# with 10 % duplicates and 2 % conflicts at RATE/s and an http action forwards
# every event to test_downstream. The same checks as in CI: every 2xx stored
# exactly once with the answered hash, conflicts recorded, one completed
# attempt and one downstream effect per event, integrity_check, verify-audit.
#
# usage: bench/crash.sh [KILLS=500] [BUILD_DIR=build/bench, relative to the repo root]
#   env: RATE=150 (deliveries/s offered), SEED=N (repeats a run's kill moments
#        and delivery plan; printed by every run), JOBS=2, SKIP_BUILD=1
# About 0.6 s per kill (a random 0-1.2 s from each spawn): ~5 min at 500, measured 63 s at 100.
# Not a test: never part of ctest or tests/run-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS=${1:-500}
BUILD=${2:-build/bench}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
  fi
  ninja -j"${JOBS:-2}" -C "$BUILD" integration_test >/dev/null || { echo "crash bench: build failed in $BUILD" >&2; exit 1; }
fi
start=$SECONDS
out=$(mktemp "${TMPDIR:-/tmp}/crash_bench.XXXXXX")
status=0
HOOKINBOX_CRASH_KILLS=$KILLS HOOKINBOX_CRASH_RATE=${RATE:-150} HOOKINBOX_CRASH_SEED=${SEED:-} \
  "$BUILD/tests/integration/integration_test" "[crash]" >"$out" 2>&1 || status=$?
if [ "$status" = 0 ]; then grep -E '^crash:|^All tests passed' "$out" || true; else tail -80 "$out"; fi
rm -f "$out"
echo "crash bench: $KILLS kills, $((SECONDS - start)) s, exit $status"
exit "$status"
