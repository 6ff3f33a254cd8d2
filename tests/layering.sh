#!/usr/bin/env bash
# Fails when a module includes a header from a peer or a higher layer. The
# rule (README "Guide to folders"), lowest first:
#   common <- config <- {verify, store, action} <- {worker, http, alert} <- admin <- cli
# action (one attempt against a downstream) uses verify/ only for its crypto;
# worker (the loop and its policy) joins store's WorkQueue to the actions;
# alert (conditions, incidents, channels) reads the store and sends like an action;
# http (the public listener) verifies and stores; admin serves the store with
# http's listener and answers, and ends a handler's async attempt with
# worker's policy; only cli wires everything.
set -uo pipefail
src="$(dirname "$0")/../src"
declare -A allowed=(
  [common]="common"
  [config]="common config"
  [verify]="common config verify"
  [store]="common config store"
  [action]="common config verify action"
  [worker]="common config verify store action worker"
  [http]="common config verify store http"
  [alert]="common config verify store action alert"
  [admin]="common config store worker http admin"
  [cli]="common config verify store action worker http alert admin cli"
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
