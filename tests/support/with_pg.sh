#!/usr/bin/env bash
# Runs a command with HOOKINBOX_TEST_PG_URL set: the run's PostgreSQL when the
# environment names one (the test command starts one for all suites), else a
# throw-away cluster started here (tests/support/pg_cluster.sh) and stopped
# when the command ends. So `ctest` alone runs the PostgreSQL suites too.
#   bash tests/support/with_pg.sh COMMAND [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${HOOKINBOX_TEST_PG_URL:-}" ]; then
  exec "$@"
fi
dir=$(mktemp -d)
cleanup() {
  bash "$here/pg_cluster.sh" stop "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
HOOKINBOX_TEST_PG_URL=$(bash "$here/pg_cluster.sh" start "$dir")
export HOOKINBOX_TEST_PG_URL
"$@"
