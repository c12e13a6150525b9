#!/usr/bin/env bash
# Builds the engine as WebAssembly (dist/tensorcode_core.wasm and its loader
# dist/tensorcode_core.js) with Debian's Emscripten, outside the main build:
#
#   sdk/typescript/scripts/build-core.sh [BUILD_DIR] [-DTC_WASM_SIMD=OFF ...]
#                                        (default BUILD_DIR: sdk/typescript/build-wasm)
#
# The list of core sources comes from the main build's configure step
# (build/sdk/typescript/core_sources.cmake, or $TC_CORE_SOURCES_FILE): run
# `cmake -S . -B build` once first. The main build does all of this through
# its `tensorcode_wasm` target when emcc is installed; `npm run build` then
# only copies the result.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-wasm}
shift || true
command -v emcc >/dev/null || { echo "emcc not found: apt-get install emscripten" >&2; exit 1; }
sources=${TC_CORE_SOURCES_FILE:-$here/../../build/sdk/typescript/core_sources.cmake}
[ -f "$sources" ] || { echo "no $sources: configure the main build first (cmake -S . -B build)" >&2; exit 1; }
# Debian's emcc runs its JavaScript optimizer with node, which must find
# Debian's acorn (node-acorn) under /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
toolchain=$(dirname "$(readlink -f "$(command -v emcc)")")/cmake/Modules/Platform/Emscripten.cmake
[ -f "$toolchain" ] || toolchain=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
cmake -S "$here/native" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DTC_CORE_SOURCES_FILE="$(readlink -f "$sources")" "$@"
cmake --build "$build" -j "${JOBS:-$(nproc)}"
mkdir -p "$here/dist"
cp "$build/tensorcode_core.js" "$here/dist/tensorcode_core.js"
[ ! -f "$build/tensorcode_core.wasm" ] || cp "$build/tensorcode_core.wasm" "$here/dist/tensorcode_core.wasm"
echo "built: $here/dist/tensorcode_core.{js,wasm}"
