# Shared by installer/setup.sh (the CI fuzz stage) and fuzz/run_all.sh (long
# runs by hand), so both build, seed and run the targets the same way.
# Source it with $root set to the repository root.

# CMake arguments of the sanitizer tree, which is also the fuzz tree: clang,
# ASan and UBSan (TC_SANITIZE) plus libFuzzer's coverage
# (TC_BUILD_FUZZERS: -fsanitize=fuzzer-no-link on every library, libFuzzer's
# main on the fuzz targets alone), with the engine's tests. installer/setup.sh
# test runs the tests and the fuzzers from this one tree; fuzz/run_all.sh
# builds only the fuzz targets in it. No IDE, benches or Vulkan (the
# sanitizer stage tests the engine), -O1 with line tables for stack traces.
fuzz_cmake_args=(-DTC_SANITIZE=ON -DTC_BUILD_FUZZERS=ON -DTC_BUILD_TESTS=ON -DTC_BUILD_IDE=OFF -DTC_BUILD_BENCH=OFF
  -DTC_ENABLE_VULKAN=OFF -DCMAKE_BUILD_TYPE=Debug
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only -DNDEBUG" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only -DNDEBUG")

# The target names (tc_<name>), one per fuzz/<name>.cpp.
fuzz_names() {
  local src
  for src in "$root"/fuzz/*_fuzz.cpp; do basename "$src" .cpp; done
}

# Extra libFuzzer flags of target $1. WGSL and SPIR-V: each execution costs
# time in proportion to the shader's length (the whole text is lexed, parsed
# and lowered), and shaders past 2 KiB reach no parser or lowering state a
# shorter one cannot, so inputs are capped there (the 10 KB test shaders are
# cut to their first 2 KiB as seeds); that triples the executions per second.
# The Python frontend likewise at 4 KiB: its grown corpus reached 92 KB
# programs and fell to about 750 executions per second per core, where
# inputs of 4 KiB or less run at about twice that. Size itself is tested by
# the source and budget limits' own tests, not by mutation.
fuzz_extra_args() {
  case $1 in
    wgsl_fuzz|spirv_fuzz) echo "-max_len=2048" ;;
    frontend_fuzz) echo "-max_len=4096" ;;
  esac
}

# Copies target $1's seeds into folder $2: fuzz/corpus/$1/ if it exists, and
# the test-data globs fuzz/seeds.txt lists for $1.
fuzz_seed_corpus() {
  local target=$1 work=$2 line globs g f
  [ -d "$root/fuzz/corpus/$target" ] && cp -r "$root/fuzz/corpus/$target/." "$work/"
  line=$(grep -E "^$target " "$root/fuzz/seeds.txt" || true)
  read -r -a globs <<< "${line#"$target"}"
  for g in "${globs[@]}"; do
    for f in "$root"/$g; do [ -f "$f" ] && cp "$f" "$work/"; done
  done
  [ -n "$(ls -A "$work")" ] || { echo "fuzz: no seeds for $target"; return 1; }
}
