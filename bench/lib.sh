# bench/lib.sh — the small helpers every bench script shares; sourced after
# the script set BENCH_NAME (its name in messages) and, for record(), RAW.
now_ms() { date +%s%3N; }
die() { echo "${BENCH_NAME:-bench}: FAIL: $*" >&2; exit 1; }
# PIDS holds what the script's cleanup kills; forget one that already exited.
forget_pid() { local keep=() p; for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; PIDS=("${keep[@]}"); }
wait_for() {  # DEADLINE_S DESCRIPTION COMMAND...: polls COMMAND until it succeeds, or dies
  local deadline=$(( $(date +%s) + $1 )) what=$2; shift 2
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out waiting for $what"
    sleep 0.01
  done
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }  # NAME LINE: the value of NAME=… in LINE
# user+sys ticks of a process, with its reaped children; 0 once it is gone.
cpu_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat" 2>/dev/null || echo 0; }
record() { echo "$1" | tee -a "$RAW"; }
