#!/usr/bin/env bash
# packaging/prometheus/hookinbox-rules.yml is valid Prometheus (promtool check
# rules) and raises the alerts it should from given series (promtool test
# rules with hookinbox-rules.test.yml). promtool comes from Debian's
# `prometheus` package (packaging/install-deps.sh); without it this test
# fails rather than skips, so a missing check cannot pass unnoticed.
set -euo pipefail
cd "$(dirname "$0")/../../packaging/prometheus"
if ! command -v promtool >/dev/null; then
  echo "prometheus_rules: promtool not found; install Debian's prometheus package (packaging/install-deps.sh)" >&2
  exit 1
fi
promtool check rules hookinbox-rules.yml
promtool test rules hookinbox-rules.test.yml
