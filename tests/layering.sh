#!/usr/bin/env bash
# Fails when a module includes a header from a peer or a higher layer
# (STYLE.md "Dependency rule"): common <- config <- {verify, store} <- http <- cli;
# worker sits beside store and uses verify/ only for its crypto (never store/ or http/);
# runner (the worker loop) joins store's WorkQueue to worker's actions, and only cli wires it;
# admin (the admin listener) serves the store's Ledger with http's answer helpers.
set -uo pipefail
src="$(dirname "$0")/../src"
declare -A allowed=(
  [common]="common"
  [config]="common config"
  [verify]="common config verify"
  [store]="common config store"
  [worker]="common config verify worker"
  [runner]="common config verify store worker runner"
  [http]="common config verify store http"
  [admin]="common config store http admin"
  [cli]="common config verify store worker runner http admin cli"
)
bad=0
for module in "${!allowed[@]}"; do
  while IFS=: read -r file _ line; do
    dep=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$line")
    if [[ " ${allowed[$module]} " != *" $dep "* ]]; then
      echo "layering: $file includes $dep/ (allowed for $module/: ${allowed[$module]})"
      bad=1
    fi
  done < <(grep -rn '^#include "[a-z_]*/' "$src/$module")
done
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
