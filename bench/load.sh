#!/bin/bash
# bench/load.sh — sustained load at scale: tests/load/run.sh with
# 1 000 000 signed deliveries (10 % duplicates, 8 TLS keep-alive connections)
# into a receive-only endpoint. Prints deliveries/s, p50/p99 latency, and the
# RSS and fd curves of `serve` (test_load samples /proc/PID every N/SAMPLES
# deliveries, plus quiescent readings after the warm-up and at the end), and
# applies the load test's checks (every answer 200, rows = unique ids and N,
# RSS at the end <= 1.2 x after the warm-up, fds +-2).
#
# usage: bench/load.sh [N=1000000] [BUILD_DIR=build/bench, relative to the repo root]
#   env: JOBS=2 (ninja -j when it builds); SKIP_BUILD=1 uses the binaries as they are;
#        CONNECTIONS, DUPLICATES, SAMPLES, KEEP, SERVE_ENV: see tests/load/run.sh
# About 8-9 min at ~2 000 deliveries/s on 2 cores; the db grows to ~0.6 GB in $TMPDIR.
# Not a test: never part of ctest or tests/run-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
BUILD=${2:-build/bench}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
  fi
  ninja -j"${JOBS:-2}" -C "$BUILD" hookinbox test_load >/dev/null || { echo "load bench: build failed in $BUILD" >&2; exit 1; }
fi
echo "load bench: $(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt") build $BUILD, $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
SAMPLES=${SAMPLES:-40} exec bash tests/load/run.sh "$BUILD" "$N"
