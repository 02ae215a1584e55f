#!/usr/bin/env bash
# README's first command: install, build, and analyze the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
./build/cli/memplan analyze samples/xla/seed004_gpu_decode-buffer-assignment.txt "$@"
