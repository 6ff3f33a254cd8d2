#!/usr/bin/env bash
# Installs what hookinbox needs to build and test, from Debian 12 packages only.
# Idempotent and fast: when every package is present it only checks and exits.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config            # toolchain
  libcpp-httplib-dev libssl-dev               # HTTPS server (compiled cpp-httplib, OpenSSL 3)
  libcurl4-openssl-dev                        # the email alert channel's SMTP client (libcurl)
  libsqlitecpp-dev libsqlite3-dev             # storage
  postgresql libpq-dev                        # PostgreSQL backend: the client library, and the server
                                              # the test command starts a throw-away cluster of
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  catch2                                      # unit tests
  sqlite3 curl openssl ca-certificates        # integration tests and the README tour
  python3-aiosmtpd                            # the email alert channel's SMTP server in the integration tests
                                              # (tests/support/smtp_capture.py, run with /usr/bin/python3)
  help2man dpkg-dev file                      # the .deb: man page from --help, computed Depends
  systemd adduser util-linux iproute2         # package test: systemd-analyze verify, unshare, ip
  clang libclang-rt-14-dev                    # fuzzing: libFuzzer + ASan/UBSan runtimes (only Recommended by
                                              # clang, so --no-install-recommends needs it named)
  prometheus                                  # promtool: tests/packaging/prometheus_rules.sh checks and unit-tests
                                              # packaging/prometheus/hookinbox-rules.yml
  wrk webhook python3                         # bench/run.sh only (never in CI or ctest): the load generator,
                                              # the peer it is compared with (adnanh/webhook 2.8.0), and
                                              # python3 for the peer's hooks file and a free port
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm for tests/interop (the providers' own packages, test-only).
# A node already on the PATH is kept; otherwise Debian's (Node 18, which
# tests/interop/run.sh refuses by name: its pinned packages need Node 20+).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root (or with sudo)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
