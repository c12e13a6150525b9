#!/usr/bin/env bash
# Installs the Debian 12 packages tensorcode builds, tests and runs with.
# Safe to run repeatedly: apt-get only installs what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev
  libpython3.11-dev python3
  qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-svg-dev
  qt6-charts-dev libqt6opengl6-dev libqscintilla2-qt6-dev libgl-dev
  libgraphviz-dev
  libvulkan-dev mesa-vulkan-drivers glslang-dev glslang-tools spirv-tools
  xvfb fonts-dejavu-core dpkg-dev file ccache
  # Python package (pybind11 extension, pytest suite, the PyTorch bridge)
  pybind11-dev python3-pybind11 python3-pytest python3-numpy python3-torch
  # pip install into a venv (pyproject.toml; ctest python.venv_*), the stubs' checks (python.stubtest)
  python3-venv python3-pip mypy
  # Trainer's progress bar (optional at run time, tested when present); ONNX export's checker
  python3-tqdm python3-onnx
  # the package's rich display in notebooks (Graphviz's dot draws the circuit as SVG) and the
  # docs' example notebook, executed headless by ctest python.notebook
  graphviz jupyter-nbconvert python3-nbclient python3-ipykernel
  # Trainer's notebook bar with ipywidgets present (Debian 12's 6.0 is too old for tqdm's widget:
  # the text bar is chosen; ctest python.progress_widget checks that, SKIPPED without it)
  python3-ipywidgets
  # portable SIMD and all-cores evaluation
  libhwy-dev libtbb-dev
  # libFuzzer targets and the fuzz stage of CI
  clang libclang-rt-14-dev
  # tensorcode prove: Z3 decides (linked), the cvc5 binary gives the second opinion (run)
  libz3-dev cvc5
  # scale-out over MPI
  libopenmpi-dev openmpi-bin
  # the TypeScript SDK: the core compiled to WebAssembly; its example page in headless Chromium
  emscripten node-acorn chromium
)
# Node.js (with npm) backs the WGSL and WebAssembly cross-checks; the machine
# image ships it, and Debian's separate npm package conflicts with that build.
command -v node >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
