#!/usr/bin/env bash
# README's test command: install, build, and run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DMEMPLAN_BUILD_TESTS=ON
ctest --test-dir build --output-on-failure -j"${MEMPLAN_JOBS:-2}"
