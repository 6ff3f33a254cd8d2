#!/usr/bin/env bash
# Configures and builds one variant into build/<name>.
#   packaging/build.sh release            RelWithDebInfo, no tests
#   packaging/build.sh test               RelWithDebInfo with tests (and the package rules)
#   packaging/build.sh asan|tsan [-D...]  sanitizer builds with tests; further arguments go to
#                                         cmake (the test command passes HOOKINBOX_INTEGRATION_CLIENT)
#   packaging/build.sh deb [TREE]         hookinbox_<version>_amd64.deb in build/deb, or
#                                         packaged from an already built tree (e.g. build/test)
#   packaging/build.sh fuzz               the libFuzzer targets (clang, ASan+UBSan) in build/fuzz:
#                                         a standalone tree of tests/fuzz/ and the product sources
#                                         it needs; run them with tests/fuzz/run.sh build/fuzz SECONDS
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-release}"
case "$variant" in
  release) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF) ;;
  # The test trees keep line tables only (-g1): backtraces and sanitizer
  # reports still name file:line, and the three builds of the test command
  # compile about a third faster than with full -g (the .deb strips anyway).
  test)    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
                 -DBUILD_TESTING=ON -DHOOKINBOX_PACKAGE=ON) ;;
  asan)    args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DBUILD_TESTING=ON -DHOOKINBOX_SANITIZE=address) ;;
  tsan)    args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DBUILD_TESTING=ON -DHOOKINBOX_SANITIZE=thread) ;;
  deb)     args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DHOOKINBOX_PACKAGE=ON) ;;
  fuzz)    # Its own project (tests/fuzz/CMakeLists.txt) and compiler: the g++ trees are untouched.
           CC=clang-14 CXX=clang++-14 cmake -S tests/fuzz -B build/fuzz -G Ninja >/dev/null
           exec ninja -C build/fuzz ;;
  *) echo "usage: $0 release|test|asan|tsan|deb [TREE] | fuzz" >&2; exit 2 ;;
esac
tree="build/$variant"
if [ "$variant" != deb ]; then args+=("${@:2}"); fi
if [ "$variant" = deb ] && [ -n "${2:-}" ]; then
  tree="$2"   # reuse a tree configured with -DHOOKINBOX_PACKAGE=ON: no second compile
else
  cmake -S . -B "$tree" -G Ninja "${args[@]}" >/dev/null
fi
ninja -C "$tree"
if [ "$variant" = deb ]; then
  (cd "$tree" && cpack -G DEB >/dev/null)
  ls "$tree"/hookinbox_*_amd64.deb
fi
