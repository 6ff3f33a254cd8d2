#!/usr/bin/env bash
# The README's first command: install what is missing, build, and serve the
# embedded default (self-signed certificate, demo endpoint, random secret) from
# ./local, printing the URL and a curl command that sends a signed delivery.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
bash packaging/build.sh release
mkdir -p local
cd local
exec ../build/release/hookinbox serve
