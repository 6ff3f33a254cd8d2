#!/usr/bin/env bash
# Interoperability suite: the providers' own npm packages against the real binary.
#
#   bash tests/interop/run.sh BUILD_DIR
#
# Signer packages (stripe, octokit, standardwebhooks, svix, twilio, hubspot,
# tweetnacl for discord; wave 2: workos, sanity, adyen, payos,
# coinbase-commerce) sign deliveries that a running `hookinbox serve` must
# accept, answer "duplicate" for a second time and 401 when tampered with.
# Verifier packages check what `hookinbox send-test` sends, through a capture
# server in interop.mjs; standardwebhooks also verifies what a second `hookinbox
# serve` (started by interop.mjs) forwards with its http action. The packages
# are installed into tests/interop/node_modules (gitignored, test-only; nothing
# from them ships) by `npm ci` from the committed package-lock.json, only when
# that folder is missing or stale.
#
# One line per case, `interop <provider> <check>: ok|FAIL reason`; exit 1 if
# any case failed. Secrets, keys and signatures are never printed.
set -euo pipefail

build_dir=${1:?usage: run.sh BUILD_DIR}
[ -x "$build_dir/hookinbox" ] || { echo "interop: no hookinbox binary in $build_dir" >&2; exit 1; }
bin="$(cd "$build_dir" && pwd)/hookinbox"
here="$(cd "$(dirname "$0")" && pwd)"
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "interop: node and npm are needed (packaging/install-deps.sh installs them)" >&2; exit 1; }
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "interop: Node.js $node_major found; the pinned @slack/bolt 5 and @shopify/shopify-api 15 need 20 or later" >&2
  exit 1
fi

# npm ci only when node_modules is missing or older than the lock file; the
# lock keeps two test runs of one tree (ctest -j, two build dirs) from racing.
stamp="$here/node_modules/.package-lock.json"
exec 9>"${TMPDIR:-/tmp}/hookinbox-interop-npm.lock"
flock 9
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  echo "interop: npm ci (test-only packages into tests/interop/node_modules)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
flock -u 9

work="$(mktemp -d "${TMPDIR:-/tmp}/hookinbox-interop.XXXXXX")"
server_pid=""
node_pid=""
cleanup() {
  for pid in $node_pid $server_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Certificate, storage folders (and a demo secret we do not use).
"$bin" init "$work" >/dev/null
umask 077
s="$work/secrets"

# Secrets in files, each in the form the provider's dashboard shows it.
printf 'whsec_%s' "$(openssl rand -hex 24)" >"$s/stripe.secret"
for p in github shopify slack twilio hubspot paddle square linear razorpay \
  line gocardless workos sanity adyen payos coinbase-commerce polar; do
  openssl rand -hex 32 | tr -d '\n' >"$s/$p.secret"
done
for p in standard-webhooks svix clerk resend; do
  printf 'whsec_%s' "$(openssl rand -base64 32)" >"$s/$p.secret"
done
# Discord: Ed25519; the dashboard shows the public key as hex.
openssl genpkey -algorithm ed25519 -out "$s/discord.key" 2>/dev/null
openssl pkey -in "$s/discord.key" -pubout -outform DER | tail -c 32 | od -An -v -tx1 | tr -d ' \n' >"$s/discord.pub"
# Telnyx: Ed25519 too; Mission Control shows the public key as base64 of the raw 32 bytes.
openssl genpkey -algorithm ed25519 -out "$s/telnyx.key" 2>/dev/null
openssl pkey -in "$s/telnyx.key" -pubout -outform DER | tail -c 32 | base64 -w0 >"$s/telnyx.pub"
# SendGrid: ECDSA P-256; the dashboard shows base64 DER SubjectPublicKeyInfo.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$s/sendgrid.key" 2>/dev/null
openssl pkey -in "$s/sendgrid.key" -pubout -outform DER | base64 -w0 >"$s/sendgrid.pub"

# One endpoint per preset, named after it. public_url is what the provider
# would have been given; the schemes that sign the URL verify against it.
endpoint() {  # endpoint PROVIDER [extra toml lines...]
  local p=$1
  shift
  printf '[[endpoint]]\nname = "%s"\nprovider = "%s"\n' "$p" "$p"
  for line in "$@"; do printf '%s\n' "$line"; done
  printf '\n'
}
public_url() { printf 'public_url = "https://hooks.example.test/hooks/%s"' "$1"; }
providers=(stripe github standard-webhooks svix clerk resend twilio hubspot discord
  slack shopify sendgrid paddle square linear razorpay
  line telnyx gocardless workos sanity adyen payos coinbase-commerce polar)
mkdir -p "$work/endpoints" "$work/check"
for p in "${providers[@]}"; do
  case $p in
    twilio | hubspot | square) endpoint "$p" "secret_file = \"secrets/$p.secret\"" "$(public_url "$p")" ;;
    discord | sendgrid | telnyx) endpoint "$p" "public_key_file = \"secrets/$p.pub\"" ;;
    *) endpoint "$p" "secret_file = \"secrets/$p.secret\"" ;;
  esac >"$work/endpoints/$p.toml"
done

server_toml='[server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"

[admin]
listen = "127.0.0.1:0"

[storage]
path = "data/hookinbox.db"
'

# Each endpoint alone first: a preset this binary does not know yet (or a
# key it rejects) fails that provider's cases by name instead of stopping
# the whole server from starting.
: >"$work/rejected"
printf '%s\n' "$server_toml" >"$work/hookinbox.toml"
for p in "${providers[@]}"; do
  cfg="$work/check/$p.toml"
  { printf '%s\n' "$server_toml" | sed "s#\"tls/#\"$work/tls/#; s#\"data/#\"$work/data/#"; \
    sed "s#\"secrets/#\"$work/secrets/#" "$work/endpoints/$p.toml"; } >"$cfg"
  if why="$("$bin" check-config -c "$cfg" 2>&1 >/dev/null)"; then
    cat "$work/endpoints/$p.toml" >>"$work/hookinbox.toml"
  else
    why="$(printf '%s\n' "$why" | { grep -v "^$cfg: [0-9]* error" || true; } | head -n 2 |
      sed "s#$cfg#config#g; s#$work/##g" | tr '\n' ' ')"
    printf '%s\t%s\n' "$p" "${why:-check-config failed}" >>"$work/rejected"
  fi
done

# Serve; the port (listen port 0) comes from the {"event":"listening",…} log line.
# timeout: should this script be killed outright (SIGKILL from a test runner),
# the server still goes away on its own.
: >"$work/serve.log"  # exists before the background shell opens it, for the poll below
timeout --kill-after=5 300 "$bin" serve -c "$work/hookinbox.toml" 2>"$work/serve.log" >/dev/null &
server_pid=$!
deadline=$((SECONDS + 30))
port=""
while [ -z "$port" ]; do
  port="$(sed -n 's/.*"event":"listening","url":"https:\/\/[^"]*:\([0-9][0-9]*\)".*/\1/p' "$work/serve.log" | head -n 1)"
  [ -n "$port" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
    echo "interop: hookinbox serve did not start:" >&2
    sed 's/^/  /' "$work/serve.log" >&2
    exit 1
  fi
  sleep 0.05  # poll interval, bounded by the deadline
done
base="https://127.0.0.1:$port"
until curl -fsS --cacert "$work/tls/cert.pem" -o /dev/null "$base/healthz" 2>/dev/null; do
  if ! kill -0 "$server_pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
    echo "interop: $base/healthz never answered 200" >&2
    exit 1
  fi
  sleep 0.05  # poll interval, bounded by the deadline
done

status=0
# In the background so that a signal runs the trap at once, not after node.
node "$here/interop.mjs" --bin "$bin" --dir "$work" --base "$base" &
node_pid=$!
wait "$node_pid" || status=$?
node_pid=""
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "interop: hookinbox serve exited during the run" >&2
  status=1
fi
exit $status
