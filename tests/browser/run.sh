#!/usr/bin/env bash
# Browser test of the admin web UI: Debian's chromium, headless, driven by
# playwright-core (npm, pinned in package-lock.json) against the real binary.
#
#   bash tests/browser/run.sh BUILD_DIR
#   bash tests/browser/run.sh --install-only   (tests/run-all.sh: before the timed tests)
#
# Installs what it needs when missing: chromium (apt-get, as root) and the
# npm packages (`npm ci` into tests/browser/node_modules, gitignored,
# test-only, nothing from it ships). Fails with a clear message, never skips,
# when one of them cannot be had. browser.mjs does the rest: starts
# `hookinbox serve`, sends signed deliveries, and walks the UI (see its header).
set -euo pipefail

build_dir=${1:?usage: run.sh BUILD_DIR | --install-only}
install_only=""
if [ "$build_dir" = "--install-only" ]; then
  install_only=1
else
  [ -x "$build_dir/hookinbox" ] || { echo "browser: no hookinbox binary in $build_dir" >&2; exit 1; }
  bin="$(cd "$build_dir" && pwd)/hookinbox"
fi
here="$(cd "$(dirname "$0")" && pwd)"

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "browser: node and npm are needed (packaging/install-deps.sh installs them)" >&2; exit 1; }
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "browser: Node.js $node_major found; the pinned playwright-core needs 20 or later" >&2
  exit 1
fi
command -v sqlite3 >/dev/null ||
  { echo "browser: sqlite3 is needed to open the download (packaging/install-deps.sh installs it)" >&2; exit 1; }

# Debian's chromium: installed here rather than in install-deps.sh, since only
# this test needs it (about 300 MB). One apt-get at a time (ctest -j).
exec 8>"${TMPDIR:-/tmp}/hookinbox-browser-apt.lock"
flock 8
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "browser: Debian's chromium is not installed and this is not root: run 'apt-get install chromium'" >&2
    exit 1
  fi
  echo "browser: apt-get install chromium"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
    echo "browser: could not install Debian's chromium with apt-get; the browser test cannot run" >&2
    exit 1
  fi
fi
flock -u 8
chromium="$(command -v chromium)" || { echo "browser: chromium is still missing after apt-get" >&2; exit 1; }

# npm ci only when node_modules is missing or older than the lock file; the
# lock keeps two test runs of one tree (ctest -j, two build dirs) from racing.
stamp="$here/node_modules/.package-lock.json"
exec 9>"${TMPDIR:-/tmp}/hookinbox-browser-npm.lock"
flock 9
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  echo "browser: npm ci (playwright-core into tests/browser/node_modules)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
flock -u 9
[ -z "$install_only" ] || exit 0

work="$(mktemp -d "${TMPDIR:-/tmp}/hookinbox-browser.XXXXXX")"
node_pid=""
cleanup() {
  if [ -n "$node_pid" ] && kill -0 "$node_pid" 2>/dev/null; then
    kill "$node_pid" 2>/dev/null || true
    wait "$node_pid" 2>/dev/null || true
  fi
  # Keep the work folder (screenshots, server log) when asked to, for a look.
  if [ -z "${HOOKINBOX_BROWSER_KEEP:-}" ]; then rm -rf "$work"; else echo "browser: kept $work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# In the background so that a signal runs the trap at once, not after node.
status=0
node "$here/browser.mjs" --bin "$bin" --dir "$work" --chromium "$chromium" &
node_pid=$!
wait "$node_pid" || status=$?
node_pid=""
exit $status
