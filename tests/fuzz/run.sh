#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS — the test suite's bounded fuzz run.
#
# Runs every fuzz_* executable in BUILD_DIR (the clang tree: `bash
# packaging/build.sh fuzz`) for SECONDS each, two at a time (2 cores),
# starting from a scratch copy of its seeds (tests/fuzz/corpus/<target>/) and
# past crashes (tests/fuzz/regress/<target>/): what the run discovers stays in
# the copy, so the committed corpus never grows here (bench/fuzz.sh can merge).
# Any crash, leak, timeout, OOM or property violation fails the run and names
# the saved input, how to reproduce it, and where to commit it as a regression.
#   FUZZ_JOBS      targets run at once (default 2)
#   FUZZ_TARGETS   which targets, space-separated (default: every fuzz_* in BUILD_DIR)
#   FUZZ_CORPUS    keep the grown corpus in FUZZ_CORPUS/<target>/ across runs
#                  instead of a scratch copy (bench/fuzz.sh; never the repo's)
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD_DIR SECONDS}" && pwd)
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/hookinbox-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
corpora=${FUZZ_CORPUS:-$work}
# Inputs that crashed outlive the scratch corpus: they are the report.
artifacts="$build/fuzz-artifacts"
rm -rf "$artifacts" && mkdir -p "$artifacts"

# The longest input each target is given: what its parser sees in practice
# (a header value, a timestamp, a body up to the deep seeds' size).
max_len_of() {
  case $1 in
    fuzz_timestamp) echo 128 ;;
    fuzz_signature_header) echo 4096 ;;
    fuzz_form) echo 32768 ;;
    fuzz_receive|fuzz_redact|fuzz_handler_api_json) echo 262144 ;;
    *) echo 65536 ;;
  esac
}

# The dictionary a target's mutations draw tokens from, if any.
dict_of() {
  case $1 in
    fuzz_json|fuzz_json_pointer|fuzz_redact|fuzz_handler_api_json) echo "$here/dict/fuzz_json.dict" ;;
    fuzz_verify|fuzz_receive) echo "$here/dict/fuzz_verify.dict" ;;
    *) [ -f "$here/dict/$1.dict" ] && echo "$here/dict/$1.dict" ;;
  esac
}

run_one() {  # target
  local t=$1
  local corpus="$corpora/$t" log="$artifacts/$t.log"
  mkdir -p "$corpus" "$artifacts/$t"
  cp "$here/corpus/$t"/* "$corpus"/
  if [ -d "$here/regress/$t" ]; then cp "$here/regress/$t"/* "$corpus"/ 2>/dev/null || true; fi
  local dict=() d
  d=$(dict_of "$t" || true)
  if [ -n "$d" ]; then dict=(-dict="$d"); fi
  if "$build/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len_of "$t")" \
       -print_final_stats=1 -artifact_prefix="$artifacts/$t/" "${dict[@]}" "$corpus" >"$log" 2>&1; then
    local runs files rss
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    rss=$(grep -m1 -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    files=$(find "$corpus" -type f | wc -l)
    echo "fuzz $t: ok ($runs runs in ${seconds}s, corpus $files files, peak RSS ${rss} MB)"
  else
    echo "fuzz $t: FAILED"
    # The finding and the stack frames in our code, not libFuzzer's own.
    grep -E "ERROR|fuzz property violated|SUMMARY|#[0-9]+ 0x.* (${here%/tests/fuzz}/(src|tests))" "$log" | head -n 30 ||
      tail -n 30 "$log"
    for a in "$artifacts/$t"/*; do
      [ -e "$a" ] || continue
      echo "  reproducer: $a"
      echo "  reproduce:  $build/$t $a"
      echo "  keep it:    cp $a $here/regress/$t/<what-it-is>   (replayed by ctest fuzz_replay and by every fuzz run)"
    done
    echo "  full log:   $log"
    return 1
  fi
}
export -f run_one max_len_of dict_of
export build seconds here corpora artifacts

targets=()
if [ -n "${FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  for f in "$build"/fuzz_*; do
    [ -f "$f" ] && [ -x "$f" ] && targets+=("$(basename "$f")")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets in $build"; exit 1; }
for t in "${targets[@]}"; do
  [ -d "$here/corpus/$t" ] || { echo "fuzz: $t has no seeds in $here/corpus/$t"; exit 1; }
done
# xargs exits 123 when any run failed; every target still runs.
if printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'; then
  echo "fuzz: all ${#targets[@]} targets ok"
else
  echo "fuzz: FAILED (see above)"
  exit 1
fi
