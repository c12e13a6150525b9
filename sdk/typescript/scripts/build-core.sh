#!/usr/bin/env bash
# Builds the engine as WebAssembly (dist/tensorcode_core.js, the .wasm
# embedded) with Debian's Emscripten, without the main CMake build:
#
#   sdk/typescript/scripts/build-core.sh [BUILD_DIR]     (default: sdk/typescript/build-wasm)
#
# The main build does the same through its `tensorcode_wasm` target when
# emcc is installed; `npm run build` then only copies the result.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-wasm}
command -v emcc >/dev/null || { echo "emcc not found: apt-get install emscripten" >&2; exit 1; }
# Debian's emcc runs its JavaScript optimizer with node, which must find
# Debian's acorn (node-acorn) under /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
toolchain=$(dirname "$(readlink -f "$(command -v emcc)")")/cmake/Modules/Platform/Emscripten.cmake
[ -f "$toolchain" ] || toolchain=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake
cmake -S "$here/native" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "${JOBS:-$(nproc)}"
mkdir -p "$here/dist"
cp "$build/tensorcode_core.js" "$here/dist/tensorcode_core.js"
echo "built: $here/dist/tensorcode_core.js"
