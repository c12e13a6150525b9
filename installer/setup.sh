#!/usr/bin/env bash
# tensorcode set-up: installs the Debian packages, configures and builds.
#
#   installer/setup.sh ide     build, then open the IDE on a bundled example
#   installer/setup.sh test    build, then run the whole test suite (also an
#                              ASan+UBSan+LSan build of the engine's tests, a
#                              TSan build of the IDE worker/session test and
#                              every fuzzer for FUZZ_SECONDS on its corpus)
#   installer/setup.sh build   build only
#
# Environment: BUILD_DIR (default build), JOBS (default: all cores),
# FUZZ_SECONDS (default 15 per fuzz target in `test`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-build}
BUILD_DIR=${BUILD_DIR:-$root/build}
JOBS=${JOBS:-$(nproc)}

bash "$here/install-deps.sh"

# Paths inside the checkout hash relative, so a fresh clone elsewhere (CI)
# reuses the objects of an earlier build on this machine.
export CCACHE_BASEDIR="$root"

configure() {  # configure DIR [cmake args...]
  local dir=$1; shift
  local launcher=()
  command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "$@"
}

configure "$BUILD_DIR"
cmake --build "$BUILD_DIR" -j "$JOBS"

# ThreadSanitizer: the IDE's engine thread and session (QtCore only), in a
# small tree of its own that builds just that test and what it links.
tsan_stage() {
  local dir="${BUILD_DIR}-tsan"
  configure "$dir" -DTC_BUILD_BENCH=OFF -DTC_ENABLE_VULKAN=OFF -DTC_ENABLE_PYTHON=OFF \
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -DNDEBUG -fsanitize=thread" \
    "-DCMAKE_C_FLAGS_DEBUG=-O1 -DNDEBUG -fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
  cmake --build "$dir" -j "$JOBS" --target tc_views_worker_session_test
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/installer/sanitizers/tsan.supp" \
    ctest --test-dir "$dir" --output-on-failure -R '^views\.worker_session_test$'
}

# fuzz_cmake_args, fuzz_names, fuzz_extra_args, fuzz_seed_corpus.
source "$root/fuzz/fuzz_lib.sh"

# libFuzzer: every target in fuzz/ for a bounded time on its committed corpus
# (FUZZ_SECONDS each, default 15), in a clang tree of its own.
fuzz_stage() {
  local dir="${BUILD_DIR}-fuzz" seconds=${FUZZ_SECONDS:-15}
  CC=clang CXX=clang++ configure "$dir" "${fuzz_cmake_args[@]}"
  local targets=() name
  for name in $(fuzz_names); do targets+=(--target "tc_$name"); done
  cmake --build "$dir" -j "$JOBS" "${targets[@]}"
  for name in $(fuzz_names); do
    echo "fuzz: $name for ${seconds}s on its corpus (fuzz/corpus, fuzz/seeds.txt)"
    # A scratch corpus: the committed seeds plus the test data fuzz/seeds.txt
    # names; new inputs found here are not committed.
    local work; work=$(mktemp -d)
    fuzz_seed_corpus "${name%_fuzz}" "$work"
    # shellcheck disable=SC2046
    "$dir/bin/tc_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      $(fuzz_extra_args "$name") -artifact_prefix="$dir/crash-$name-" "$work" 2>&1 | tail -n 12
    local rc=${PIPESTATUS[0]}
    rm -rf "$work"
    [ "$rc" = 0 ] || { echo "fuzz: $name failed (exit $rc); the input is in $dir"; return 1; }
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
    # The engine's tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
    asan_dir="${BUILD_DIR}-asan"
    # -O1: sanitizer builds compile noticeably faster than at -O3 and still run quickly.
    configure "$asan_dir" -DTC_SANITIZE=ON -DTC_BUILD_IDE=OFF -DTC_BUILD_BENCH=OFF -DTC_ENABLE_VULKAN=OFF \
      -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_DEBUG=-O1 -DNDEBUG"
    cmake --build "$asan_dir" -j "$JOBS"
    # LeakSanitizer on; only the embedded CPython's lifetime allocations are suppressed.
    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$root/installer/sanitizers/lsan.supp print_suppressions=0" \
      UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir "$asan_dir" -j "$JOBS" --output-on-failure -LE "acceptance|gpu|slow"
    tsan_stage
    fuzz_stage
    # The full suite last, so its summary closes the output. Tests labelled
    # "slow" (the 100,000-node circuit on lavapipe, minutes) run only when
    # TC_SLOW_TESTS=1: `TC_SLOW_TESTS=1 installer/setup.sh test`.
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
