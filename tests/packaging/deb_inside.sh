#!/usr/bin/env bash
# shellcheck disable=SC2016  # bash -c bodies are single-quoted on purpose: they expand inside
# Run by deb_test.sh inside the throw-away root. Prints "deb <check>: ok|FAIL".
set -uo pipefail
CONF=/etc/hookinbox/hookinbox.toml; STATE=/var/lib/hookinbox
tree="${1:-}"; src="${2:-}"   # a built tree and the sources, for the install from source
check() { if out="$("${@:2}" 2>&1)"; then echo "deb $1: ok"; else echo "deb $1: FAIL ${out//$'\n'/ | }"; fi; }
as_user() { setpriv --reuid=hookinbox --regid=hookinbox --init-groups "$@"; }  # exec, no parent left
serve_smoke() {  # serve_smoke NAME: start, two identical deliveries, SIGTERM
  # setpriv itself, not as_user: a backgrounded function is a subshell, and
  # its pid is not the server's.
  # A fresh log per run: the background child truncates it only once it has
  # started, and a leftover "listening" line would let the wait pass too early.
  rm -f /tmp/serve.log; : >/tmp/serve.log
  setpriv --reuid=hookinbox --regid=hookinbox --init-groups hookinbox serve -c "$CONF" 2>>/tmp/serve.log &
  local pid=$!
  for _ in $(seq 100); do grep -q '"listening"' /tmp/serve.log && break; sleep 0.1; done
  check "$1: listening" grep -q '"listening"' /tmp/serve.log || cat /tmp/serve.log >&2
  check "$1: accepted then duplicate" bash -c \
    'out="$(setpriv --reuid=hookinbox --regid=hookinbox --init-groups hookinbox send-test demo -c '"$CONF"' --times 2)" &&
     grep -q "^200 .*\"accepted\"" <<<"$out" && grep -q "^200 .*\"duplicate\"" <<<"$out" || { echo "send-test: $out"; ss -ltnp; tail -5 /tmp/serve.log; false; }'
  # What `systemctl reload` (ExecReload) sends: the certificate is re-read, the server stays.
  kill -HUP "$pid" 2>/dev/null
  for _ in $(seq 100); do grep -q '"tls_reloaded"' /tmp/serve.log && break; sleep 0.1; done
  check "$1: SIGHUP reloads the certificate, server stays" bash -c \
    'grep -q "\"tls_reloaded\"" /tmp/serve.log && kill -0 "$0" || { tail -3 /tmp/serve.log; false; }' "$pid"
  kill -TERM "$pid" 2>/dev/null; wait "$pid"; local rc=$?
  check "$1: SIGTERM exit 0" bash -c '[ "$0" -eq 0 ] || { echo "exit $0"; tail -3 /tmp/serve.log; false; }' "$rc"
}

export DEBIAN_FRONTEND=noninteractive
check "dpkg -i" dpkg -i /tmp/hookinbox.deb
check "user hookinbox is a system user" bash -c 'IFS=: read -r _ _ uid _ _ home shell < <(getent passwd hookinbox) &&
  [ "$uid" -lt 1000 ] && [ "$home" = /var/lib/hookinbox ] && [ "$shell" = /usr/sbin/nologin ]'
check "state dir 0700 hookinbox" test "$(stat -c '%a %U %G' $STATE)" = "700 hookinbox hookinbox"
check "--version: version, commit, SQLite, OpenSSL" bash -c \
  'v="$(hookinbox --version)"; grep -q "^hookinbox [0-9]" <<<"$v" && grep -q "commit" <<<"$v" &&
   grep -q "SQLite 3\." <<<"$v" && grep -q "OpenSSL 3\." <<<"$v" || { echo "$v"; false; }'
check "check-config on the shipped config" as_user hookinbox check-config -c "$CONF"
check "secrets and key 0600" bash -c 'for f in '"$STATE"'/secrets/* '"$STATE"'/tls/key.pem; do
  [ "$(stat -c %a "$f")" = 600 ] || { echo "$f"; exit 1; }; done'
check "systemd-analyze verify" systemd-analyze verify /lib/systemd/system/hookinbox.service
check "service enabled" test -L /etc/systemd/system/multi-user.target.wants/hookinbox.service
serve_smoke "receive"

# Reinstall (postinst configure <old-version>): nothing written is replaced.
echo "# edited by the admin" >>"$CONF"
state_hashes() { (cd $STATE && sha256sum data/hookinbox.db secrets/admin.token secrets/demo.secret tls/cert.pem tls/key.pem); }
check "state files made by postinst" state_hashes
before="$(state_hashes 2>&1)"
check "dpkg -i again" dpkg -i /tmp/hookinbox.deb
check "data, secrets, certificate unchanged" test "$(state_hashes 2>&1)" = "$before"
check "edited conffile kept" grep -q '^# edited by the admin$' "$CONF"

# Upgrade over a database the previous version wrote (schema 5).
if [ -f /tmp/v5.sql ]; then
  rm -f $STATE/data/hookinbox.db*
  as_user sqlite3 $STATE/data/hookinbox.db </tmp/v5.sql >/dev/null
  check "fixture is schema 5" test "$(sqlite3 $STATE/data/hookinbox.db 'PRAGMA user_version')" = 5
  check "dpkg -i over schema 5" dpkg -i /tmp/hookinbox.deb
  check "postinst did not touch the old database" test "$(sqlite3 $STATE/data/hookinbox.db 'PRAGMA user_version')" = 5
  serve_smoke "upgraded"
  check "migrated on start" test "$(sqlite3 $STATE/data/hookinbox.db 'PRAGMA user_version')" -gt 5
  check "old events kept" test "$(sqlite3 $STATE/data/hookinbox.db 'SELECT count(*) FROM webhook_inbox')" -ge 2
  check "verify-audit after upgrade" as_user hookinbox verify-audit $STATE/data/hookinbox.db
fi

check "dpkg -r" dpkg -r hookinbox
check "removed: binary gone, data and config kept" bash -c '[ ! -e /usr/bin/hookinbox ] && [ -f '"$STATE"'/data/hookinbox.db ] && [ -f '"$CONF"' ]'
check "dpkg -P" dpkg -P hookinbox
check "purged: config gone, data kept" bash -c '[ ! -e /etc/hookinbox ] && [ -f '"$STATE"'/data/hookinbox.db ]'

# From source, on the same root (user and data left by the purge above): the
# README's steps without a package.
if [ -n "$tree" ]; then
  check "from source: cmake --install" cmake --install "$tree" --prefix /usr
  check "from source: postinst configure" sh "$src/packaging/debian/postinst" configure
  check "from source: check-config" as_user hookinbox check-config -c "$CONF"
  serve_smoke "from source"
fi
