#!/usr/bin/env bash
# Configures and builds one variant into build/<name>.
#   packaging/build.sh release            RelWithDebInfo, no tests
#   packaging/build.sh test               RelWithDebInfo with tests
#   packaging/build.sh asan|tsan          sanitizer builds with tests
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-release}"
case "$variant" in
  release) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF) ;;
  test)    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON) ;;
  asan)    args=(-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DHOOKINBOX_SANITIZE=address) ;;
  tsan)    args=(-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DHOOKINBOX_SANITIZE=thread) ;;
  *) echo "usage: $0 release|test|asan|tsan" >&2; exit 2 ;;
esac
cmake -S . -B "build/$variant" -G Ninja "${args[@]}" >/dev/null
ninja -C "build/$variant"
