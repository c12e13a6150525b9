#!/usr/bin/env bash
# Long fuzzing runs by hand: every target for RUNS executions (default ten
# million), JOBS at a time (default: all cores) at `nice -n ${NICE:-19}`, each
# on a growing scratch corpus seeded like CI's (fuzz/corpus, fuzz/seeds.txt).
#
#   fuzz/run_all.sh [RUNS] [TARGET...]     e.g. fuzz/run_all.sh 10000000 wgsl_fuzz
#
# Prints one line per target (exit status, seconds, executions) and exits 1
# if any target found a crash, leak, timeout or property failure; the input
# that failed is then in $FUZZ_WORK/crash-<target>-*.
# Environment: FUZZ_DIR (build tree, default build-asan: the sanitizer tree
# installer/setup.sh test builds, whose objects it reuses), FUZZ_WORK (corpora
# and logs, default $FUZZ_DIR/long-run), JOBS, NICE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=fuzz/fuzz_lib.sh
source "$root/fuzz/fuzz_lib.sh"
runs=${1:-10000000}
[ $# -gt 0 ] && shift
names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(fuzz_names)
dir=${FUZZ_DIR:-$root/build-asan}
work=${FUZZ_WORK:-$dir/long-run}
jobs_max=${JOBS:-$(nproc)}

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -G Ninja -DPython3_EXECUTABLE=/usr/bin/python3 \
  "${launcher[@]}" "${fuzz_cmake_args[@]}" >/dev/null
targets=()
for name in "${names[@]}"; do targets+=(--target "tc_$name"); done
cmake --build "$dir" "${targets[@]}"

mkdir -p "$work"
: > "$work/summary.txt"
one() {  # one NAME: RUNS executions of tc_NAME, a summary line appended
  local name=$1 start rc=0 count
  start=$(date +%s)
  # shellcheck disable=SC2046
  nice -n "${NICE:-19}" "$dir/bin/tc_$name" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    $(fuzz_extra_args "$name") -artifact_prefix="$work/crash-$name-" "$work/$name" >"$work/$name.log" 2>&1 || rc=$?
  count=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  echo "$name exit=$rc seconds=$(($(date +%s) - start)) executions=${count:-0}" >>"$work/summary.txt"
}
for name in "${names[@]}"; do
  if [ ! -d "$work/$name" ]; then
    mkdir -p "$work/$name"
    fuzz_seed_corpus "${name%_fuzz}" "$work/$name"
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  echo "fuzz: $name for $runs executions (log: $work/$name.log)"
  one "$name" &
done
wait
cat "$work/summary.txt"
! grep -qv ' exit=0 ' "$work/summary.txt"
