#!/usr/bin/env bash
# bench/fuzz.sh [SECONDS=300] [TARGET...] — long fuzz runs; not part of the test suite.
#
# Builds the clang fuzz tree (`packaging/build.sh fuzz`, build/fuzz; SKIP_BUILD=1
# uses it as is), then runs each target for SECONDS through tests/fuzz/run.sh
# (the same flags, dictionaries and failure report as the test suite's short
# run), keeping the corpus each target grows in build/fuzz-corpus/<target>/
# across runs. Prints executions, corpus size and peak RSS per target
# (libFuzzer -print_final_stats) for docs/RELIABILITY.md. JOBS targets run at
# once (default 2: the machine has 2 cores).
#
# MERGE=1 afterwards minimises the grown corpus into tests/fuzz/corpus/<target>/
# (libFuzzer -merge=1: only inputs that add coverage are copied) for a human
# to review and commit. A crash names its reproducer: commit it under
# tests/fuzz/regress/<target>/ with a name saying what it is, fix the bug, and
# ctest fuzz_replay replays it in every build from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
build=build/fuzz
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  bash packaging/build.sh fuzz
fi
mkdir -p build/fuzz-corpus
corpus=$(cd build/fuzz-corpus && pwd)
status=0
FUZZ_JOBS=${JOBS:-2} FUZZ_TARGETS="$*" FUZZ_CORPUS="$corpus" bash tests/fuzz/run.sh "$build" "$seconds" || status=$?
if [ "${MERGE:-0}" = 1 ]; then
  for d in "$corpus"/fuzz_*; do
    t=$(basename "$d")
    "$build/$t" -merge=1 "tests/fuzz/corpus/$t" "$d" >/dev/null 2>&1
    echo "$t: merged into tests/fuzz/corpus/$t ($(find "tests/fuzz/corpus/$t" -type f | wc -l) files): review before committing"
  done
fi
exit $status
