#!/usr/bin/env bash
# Installs the real n8n that tests/n8n/run.sh drives, into tests/n8n/node_modules
# (gitignored, test-only; nothing from it ships), from the committed
# package-lock.json: n8n 1.123.50, the newest 1.x that builds on node 20, with
# xlsx overridden to the registry's 0.18.5 (n8n-nodes-base fetches it from a
# CDN that is often unreachable; only the spreadsheet nodes use it).
#
#   bash tests/n8n/install.sh          # then: bash tests/n8n/run.sh
#
# 3–8 minutes (about 8 with an empty npm cache) and 1.7 GB on 2 cores (sqlite3
# and a few other native modules are compiled when their prebuilt binaries
# cannot be fetched). Skipped when node_modules is newer than the lock file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "n8n install: node and npm are needed (packaging/install-deps.sh installs them)" >&2; exit 1; }
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "n8n install: Node.js $node_major found; n8n 1.123.50 needs 20 or later" >&2
  exit 1
fi
stamp="$here/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ "$stamp" -nt "$here/package-lock.json" ]; then
  echo "n8n install: up to date ($here/node_modules)"
  exit 0
fi
echo "n8n install: npm ci into $here/node_modules (about 8 minutes)"
# SCARF_ANALYTICS: a dependency's install hook would report the install.
(cd "$here" && SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error)
"$here/node_modules/.bin/n8n" --version
