#!/usr/bin/env bash
# Installs memplan's build and test dependencies from Debian's packages.
# Idempotent: packages already present are skipped, so re-running is cheap.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libabsl-dev libprotobuf-dev protobuf-compiler
  llvm-14-dev zlib1g-dev libzstd-dev libtinfo-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
  libgraphviz-dev graphviz
  libopenmpi-dev openmpi-bin
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  chromium python3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
