#!/usr/bin/env bash
# CI's sanitizer job: AddressSanitizer + UndefinedBehaviorSanitizer (clang-14,
# leak detection on) over the memplan libraries, in its own build directory
# (build-asan/, or $MEMPLAN_ASAN_BUILD_DIR). The libraries are built
# instrumented (MEMPLAN_BUILD_FUZZ=ON, see fuzz/CMakeLists.txt); ctest runs
# the tests labelled `unit-sanitize` (the library unit tests) and replays fuzz
# corpora with the real libFuzzer binaries. Any sanitizer report fails the
# run.
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
# MEMPLAN_SANITIZE_SCOPE=full (CI's default): every fuzz target built with
# the viz, simulator, executor and cli libraries instrumented, every fuzz
# corpus replayed, and Graphviz's SVG rendered twice in one process
# (fuzz_svg_render_twice). 276 objects: about 9.5 minutes on 2 cores without
# a cache, tests included (a clean clone, 2026-11-29: 1,019 CPU-s and 520 s
# of wall to build, 568 s in all; see fuzz/README.md). A corpus replayed with
# assertions on catches what the release replay in ctest cannot (an
# invalid-UTF-8 assert in the Chrome trace went unseen that way).
# =lean (about 120 objects, half the time): the ir, parsers and analyzer
# libraries, their unit tests and the fuzz corpora of the parsers that need
# no more (HLO text, the HloProto's module graph).
# Both scopes also run memplan_report_parser_tests, and the full one
# memplan_html_report_tests: small binaries (3 objects more, about 25 CPU-s to
# build, 1 to run) whose tests build ir::Programs by hand, where a string_view
# field left pointing at a temporary is a use-after-free (one aborted CI).
scope="${MEMPLAN_SANITIZE_SCOPE:-full}"
targets="memplan_unit_tests memplan_hlo_module_tests memplan_report_parser_tests"
fuzz_tests='^fuzz_(hlo_text|hlo_proto_module)_corpus$'
if [ "$scope" != lean ]; then
  targets="$targets memplan_html_report_tests svg_render_check $(sed -n 's/^memplan_fuzzer(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt)"
  fuzz_tests='^fuzz_'
else
  targets="$targets hlo_text_fuzzer hlo_proto_module_fuzzer"
fi
cmake --build "$build" -j"$jobs" --target $targets
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$build" --output-on-failure -j"$jobs" -L unit-sanitize \
  -E '^HtmlReport\.MillionValuesStayBounded$'
ctest --test-dir "$build" --output-on-failure -j"$jobs" -R "$fuzz_tests"
