#!/usr/bin/env bash
# tensorcode set-up: installs the Debian packages, configures and builds.
#
#   installer/setup.sh ide     build, then open the IDE on a bundled example
#   installer/setup.sh test    build, then run the whole test suite (also a
#                              clang ASan+UBSan+LSan tree that runs the
#                              engine's tests and every fuzzer for
#                              FUZZ_SECONDS on its corpus, and a TSan build of
#                              the IDE worker/session test)
#   installer/setup.sh build   build only
#
# Environment: BUILD_DIR (default build), JOBS (default: all cores),
# FUZZ_SECONDS (default 15 per fuzz target in `test`), TC_SLOW_TESTS=1 (also
# the tests labelled slow).
#
# Every stage prints its start, end and seconds ("==> stage NAME: ..."), and
# `test` prints a table of them before the full suite, whose ctest summary
# closes the output (docs/testing.md, "Where CI's time goes").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-build}
BUILD_DIR=${BUILD_DIR:-$root/build}
JOBS=${JOBS:-$(nproc)}

stage_rows=()
stage() {  # stage NAME COMMAND...: runs COMMAND as one timed stage
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s)
  echo "==> stage $name: start $(date -u +%H:%M:%S)"
  # In a subshell with errexit of its own: a command after `||` would run
  # the stage with errexit off, so a failed build step would go on to test
  # whatever binaries an earlier run left.
  set +e
  (set -e; "$@")
  rc=$?
  set -e
  t1=$(date +%s)
  echo "==> stage $name: end $(date -u +%H:%M:%S), $((t1 - t0)) s, exit $rc"
  stage_rows+=("$(printf '%-18s %6d s   exit %d' "$name" $((t1 - t0)) "$rc")")
  return "$rc"
}
stage_table() {
  echo "==> stage times (seconds):"
  printf '    %s\n' "${stage_rows[@]}"
}
# A failing stage ends the script (set -e): show where the time went first.
trap 'rc=$?; if [ "$rc" != 0 ] && [ ${#stage_rows[@]} -gt 0 ]; then stage_table; fi' EXIT

stage deps bash "$here/install-deps.sh"

# The compiler cache serves every tree of this script and any other checkout
# on the machine (a developer's tree and CI's fresh clone alike):
# - paths inside the checkout are hashed relative to it (CCACHE_BASEDIR), and
#   no target puts an absolute checkout path on a compile line
#   (tests/support/test_paths.h);
# - precompiled headers are cacheable only with this sloppiness (ccache
#   otherwise counts every user of one as "could not use precompiled header");
# - the size holds the release, sanitizer and TSan trees together.
export CCACHE_BASEDIR="$root"
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
# - the sanitizer tree has line tables (-gline-tables-only), and ccache keys
#   objects with debug information on the working directory unless told not
#   to: without this a second checkout's sanitizer tree missed every object
#   (the line tables then name the first checkout's build folder).
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
have_ccache=0
command -v ccache >/dev/null 2>&1 && have_ccache=1

configure() {  # configure DIR [cmake args...]
  local dir=$1; shift
  local launcher=()
  [ "$have_ccache" = 1 ] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "$@"
}
build_tree() {  # build_tree DIR [cmake --build args...]
  local dir=$1; shift
  cmake --build "$dir" -j "$JOBS" "$@"
}
cache_stats() {  # the compiler cache's hits and misses since the last zeroing
  [ "$have_ccache" = 1 ] || return 0
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2}
    $1=="cache_miss"{m+=$2}
    $1=="could_not_use_precompiled_header"||$1=="could_not_use_modules"{u+=$2}
    END{t=h+m; printf "==> compiler cache: %d hits, %d misses (%.0f%% hit rate), %d uncacheable\n", h, m, (t? 100*h/t : 0), u}'
}
[ "$have_ccache" = 1 ] && ccache --zero-stats >/dev/null

main_build() {
  configure "$BUILD_DIR"
  build_tree "$BUILD_DIR"
}
stage build main_build
cache_stats

# fuzz_cmake_args (the sanitizer tree's flags), fuzz_names, fuzz_extra_args,
# fuzz_seed_corpus.
source "$root/fuzz/fuzz_lib.sh"
san_dir="${BUILD_DIR}-asan"

# One clang tree with ASan + UBSan (+ LSan at run time) and libFuzzer's
# coverage on every library: it runs the engine's tests and is the fuzzers'
# tree too, so core is compiled twice in `test` (release, sanitizers), not
# three times.
san_build() {
  CC=clang CXX=clang++ configure "$san_dir" "${fuzz_cmake_args[@]}"
  build_tree "$san_dir"
}

san_tests() {
  # LeakSanitizer on; only the embedded CPython's lifetime allocations are suppressed.
  ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$root/installer/sanitizers/lsan.supp print_suppressions=0" \
    UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$san_dir" -j "$JOBS" --output-on-failure --no-tests=error -LE "acceptance|gpu|slow"
}

# ThreadSanitizer: the IDE's engine thread and session (QtCore only), in a
# small tree of its own that builds just that test and what it links.
tsan_stage() {
  local dir="${BUILD_DIR}-tsan"
  configure "$dir" -DTC_BUILD_BENCH=OFF -DTC_ENABLE_VULKAN=OFF -DTC_ENABLE_PYTHON=OFF \
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -DNDEBUG -fsanitize=thread" \
    "-DCMAKE_C_FLAGS_DEBUG=-O1 -DNDEBUG -fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
  build_tree "$dir" --target tc_views_worker_session_test
  # --no-tests=error: a pattern that matched nothing would otherwise pass.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/installer/sanitizers/tsan.supp" \
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -R '^views\.worker_session_test$'
}

# libFuzzer: every target in fuzz/ for a bounded time on its committed corpus
# (FUZZ_SECONDS each, default 15), from the sanitizer tree.
fuzz_stage() {
  local seconds=${FUZZ_SECONDS:-15} name
  for name in $(fuzz_names); do
    echo "fuzz: $name for ${seconds}s on its corpus (fuzz/corpus, fuzz/seeds.txt)"
    # A scratch corpus: the committed seeds plus the test data fuzz/seeds.txt
    # names; new inputs found here are not committed.
    local work; work=$(mktemp -d)
    fuzz_seed_corpus "${name%_fuzz}" "$work"
    # shellcheck disable=SC2046
    "$san_dir/bin/tc_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      $(fuzz_extra_args "$name") -artifact_prefix="$san_dir/crash-$name-" "$work" 2>&1 | tail -n 12
    local rc=${PIPESTATUS[0]}
    rm -rf "$work"
    [ "$rc" = 0 ] || { echo "fuzz: $name failed (exit $rc); the input is in $san_dir"; return 1; }
  done
}

case "$mode" in
  build)
    echo "built: $BUILD_DIR/bin/tensorcode"
    ;;
  ide)
    example="$root/resources/examples/choose.py"
    if [ -x "$BUILD_DIR/bin/tensorcode-ide" ]; then
      exec "$BUILD_DIR/bin/tensorcode-ide" "$example"
    fi
    echo "tensorcode-ide is not built (TC_BUILD_IDE=OFF?); running the CLI on $example instead"
    exec "$BUILD_DIR/bin/tensorcode" run "$root/resources/examples/choose.json" --set a=5
    ;;
  test)
    export QT_QPA_PLATFORM=offscreen MESA_SHADER_CACHE_DISABLE=true
    stage sanitize-build san_build
    cache_stats
    stage sanitize-tests san_tests
    stage tsan tsan_stage
    stage fuzz fuzz_stage
    cache_stats
    stage_table
    # The full suite last, so its summary closes the output (its own time is
    # ctest's "Total Test time"). Tests labelled "slow" (the 100,000-node
    # circuit on lavapipe, minutes) run only when TC_SLOW_TESTS=1.
    echo "==> stage suite: start $(date -u +%H:%M:%S)"
    trap - EXIT
    if [ "${TC_SLOW_TESTS:-0}" = 1 ]; then
      ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure
    else
      ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure -LE slow
    fi
    ;;
  *)
    echo "usage: installer/setup.sh ide|test|build" >&2
    exit 2
    ;;
esac
