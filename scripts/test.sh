#!/usr/bin/env bash
# README's test command: install, build, and run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DMEMPLAN_BUILD_TESTS=ON
# The browser tests fail rather than skip when chromium is missing here.
export MEMPLAN_REQUIRE_CHROMIUM=1
ctest --test-dir build --output-on-failure -j"${MEMPLAN_JOBS:-2}"
