#!/usr/bin/env bash
# Installs the dependencies (idempotent), configures and builds memplan into
# ./build with Ninja. Extra arguments go to CMake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja "$@"
cmake --build build -j"${MEMPLAN_JOBS:-2}"
