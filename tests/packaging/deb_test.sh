#!/usr/bin/env bash
# shellcheck disable=SC2016  # bash -c bodies are single-quoted on purpose: they expand inside
# The .deb, checked as a user would meet it:
#   tests/packaging/deb_test.sh DEB [V5_FIXTURE_SQL [BUILD_TREE]]
# 1. dpkg-deb --info / --contents: name, version, arch, computed Depends,
#    conffiles, maintainer scripts, every shipped path.
# 2. Inside a throw-away root — an overlay of / in private mount and network namespaces,
#    chrooted (works offline, needs root; the host is never changed): dpkg -i,
#    the user and 0700 state dir, --version, check-config on the shipped
#    config, systemd-analyze verify, a receive smoke test with the installed
#    binary as user hookinbox, a reinstall that keeps data, secrets and an
#    edited conffile, an upgrade over a schema-5 database (migrated on start),
#    remove and purge (data kept); with BUILD_TREE, the install from source
#    (cmake --install + packaging/debian/postinst configure) on the same root.
# One line per check: "deb <check>: ok|FAIL why"; last line "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ "${1:-}" != --inside ]; then
  deb="$(readlink -f "$1")"; fixture="${2:+$(readlink -f "$2")}"; tree="${3:+$(readlink -f "$3")}"
  [ "$(id -u)" -eq 0 ] || { echo "deb_test: needs root (dpkg -i in a throw-away overlay root)"; echo "0 passed, 1 failed"; exit 1; }
  pass=0; fail=0
  check() {  # check NAME COMMAND...
    if out="$("${@:2}" 2>&1)"; then echo "deb $1: ok"; pass=$((pass + 1))
    else echo "deb $1: FAIL ${out//$'\n'/ | }"; fail=$((fail + 1)); fi
  }
  info="$(dpkg-deb --info "$deb")"; contents="$(dpkg-deb --contents "$deb" | awk '{print $NF}')"
  check "info: package, arch" grep -q '^ Package: hookinbox$' <<<"$info"
  check "info: amd64" grep -q '^ Architecture: amd64$' <<<"$info"
  check "file name" bash -c '[[ "$(basename "$0")" =~ ^hookinbox_[0-9]+\.[0-9]+\.[0-9]+_amd64\.deb$ ]]' "$deb"
  depends="$(sed -n 's/^ Depends: //p' <<<"$info" | tr ',' '\n' | awk '{print $1}')"
  for dep in adduser libsqlite3-0 libpq5 libssl3 libcurl4 libcpp-httplib0.11 libstdc++6 libc6; do
    check "info: Depends $dep" grep -qxF "$dep" <<<"$depends"
  done
  check "info: conffiles" bash -c 'dpkg-deb --ctrl-tarfile "$0" | tar -xO ./conffiles | grep -qx /etc/hookinbox/hookinbox.toml' "$deb"
  for s in postinst prerm postrm; do check "info: $s" grep -Eq "^ +[0-9]+ bytes, +[0-9]+ lines +\* +$s " <<<"$info"; done
  for p in ./usr/bin/hookinbox ./etc/hookinbox/hookinbox.toml ./lib/systemd/system/hookinbox.service \
           ./usr/share/doc/hookinbox/README.md ./usr/share/doc/hookinbox/providers.md \
           ./usr/share/man/man1/hookinbox.1.gz; do
    check "contents: $p" grep -qx "$p" <<<"$contents"
  done
  check "contents: nothing in /var or /usr/local" bash -c '! grep -Eq "^\./(var|usr/local)/." <<<"$0"' "$contents"
  users_before="$(getent passwd hookinbox || true)"
  # -n: a network namespace of its own, so the shipped ports (8443, 8081) are
  # free whatever else runs on the machine, and nothing leaves loopback.
  # -p -f --mount-proc: a pid namespace whose end kills every process left in
  # it, so a server the test started can never outlive the test.
  top="$(mktemp -d /tmp/deb_test.XXXXXX)"   # an empty mount point; everything inside is tmpfs
  inside="$(unshare -m -n -p -f --mount-proc --propagation private bash "$0" --inside "$deb" "$fixture" "$top" "$tree")"; echo "$inside"
  rmdir "$top"
  pass=$((pass + $(grep -c ': ok$' <<<"$inside"))); fail=$((fail + $(grep -c ': FAIL' <<<"$inside")))
  check "host untouched" bash -c '[ "$(getent passwd hookinbox || true)" = "$0" ] && ! dpkg -s hookinbox >/dev/null 2>&1' "$users_before"
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]; exit
fi

# --- inside the private mount namespace ------------------------------------
deb="$2"; fixture="$3"; top="$4"; tree="$5"   # upper/work must not be on overlayfs: tmpfs below
ip link set lo up
mount -t tmpfs tmpfs "$top"; mkdir -p "$top/u" "$top/w" "$top/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$top/u,workdir=$top/w" "$top/root" || { echo "deb overlay root: FAIL cannot mount overlayfs"; exit 0; }
for d in proc sys dev; do mount --rbind "/$d" "$top/root/$d"; done
mount -t tmpfs tmpfs "$top/root/tmp"
# That tmpfs hides whatever lives under the host's /tmp — a checkout or build
# tree there too (a clone in /tmp is where a new user tries the test command):
# the sources and the tree come back at their own paths, bound over it.
src="$(cd "$here/../.." && pwd)"
for p in "$src" "$tree"; do
  case "$p" in
    /tmp/*) mkdir -p "$top/root$p" && mount --bind "$p" "$top/root$p" ;;
  esac
done
cp "$deb" "$top/root/tmp/hookinbox.deb"
[ -n "$fixture" ] && cp "$fixture" "$top/root/tmp/v5.sql"
cp "$here/deb_inside.sh" "$top/root/tmp/deb_inside.sh"
# The root is an overlay of /, so the build tree and the sources keep their paths inside.
chroot "$top/root" bash /tmp/deb_inside.sh "$tree" "$src" </dev/null
