#!/usr/bin/env bash
# CI's sanitizer job: AddressSanitizer + UndefinedBehaviorSanitizer (clang-14,
# leak detection on) over the memplan libraries, in its own build directory
# (build-asan/, or $MEMPLAN_ASAN_BUILD_DIR). Lean, to keep CI short on two
# cores: the libraries are built instrumented (MEMPLAN_BUILD_FUZZ=ON, see
# fuzz/CMakeLists.txt), and ctest runs the tests labelled `sanitize` (the
# library unit tests) and `fuzz` (every committed fuzz corpus, replayed once
# by the real libFuzzer binaries). Any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${MEMPLAN_ASAN_BUILD_DIR:-build-asan}"
jobs="${MEMPLAN_JOBS:-2}"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -G Ninja \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DMEMPLAN_BUILD_FUZZ=ON -DMEMPLAN_BUILD_TESTS=ON -DMEMPLAN_BUILD_BENCH=OFF \
  "${launcher[@]}" >/dev/null
# The binaries of the selected tests only.
targets=$(sed -n 's/^memplan_fuzzer(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt)
cmake --build "$build" -j"$jobs" --target memplan_unit_tests memplan_hlo_module_tests $targets
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$build" --output-on-failure -j"$jobs" -L 'sanitize|fuzz'
