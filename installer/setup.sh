#!/usr/bin/env bash
# tensorcode set-up: installs the Debian packages, configures and builds.
#
#   installer/setup.sh ide     build, then open the IDE on a bundled example
#   installer/setup.sh test    build, then run the whole test suite (also an
#                              ASan+UBSan build of the engine's tests)
#   installer/setup.sh build   build only
#
# Environment: BUILD_DIR (default build), JOBS (default: all cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=${1:-build}
BUILD_DIR=${BUILD_DIR:-$root/build}
JOBS=${JOBS:-$(nproc)}

bash "$here/install-deps.sh"

configure() {  # configure DIR [cmake args...]
  local dir=$1; shift
  local launcher=()
  command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "$@"
}

configure "$BUILD_DIR"
cmake --build "$BUILD_DIR" -j "$JOBS"

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
    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir "$asan_dir" -j "$JOBS" --output-on-failure -LE "acceptance|gpu|slow"
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
