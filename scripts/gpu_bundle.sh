#!/usr/bin/env bash
# Packs a built memplan for a GPU machine that has CUDA but not memplan's
# Debian libraries (how docs/validation.md's H200 runs were made):
#
#   scripts/gpu_bundle.sh [BUILD_DIR] [OUT_DIR]     (defaults: build, .gpu)
#
# OUT_DIR gets memplan and libmemplan_cuda.so (stripped), lib/ with the
# shared libraries `ldd` lists for them from this machine except the C and
# C++ runtimes and CUDA's own (the GPU machine's are used), and memplan.sh, a
# wrapper that finds the GPU machine's CUDA 13 libraries (cudart, cuBLAS,
# cuBLASLt, NCCL: a toolkit or the pip wheels) and runs memplan with both on
# LD_LIBRARY_PATH. There:
#
#   MEMPLAN=OUT_DIR/memplan.sh scripts/gpu-validate.sh OUT
#   scripts/gpu_time_check.py --memplan OUT_DIR/memplan.sh --out OUT
set -euo pipefail
build="${1:-build}"
out="${2:-.gpu}"
for f in "$build/cli/memplan" "$build/cli/libmemplan_cuda.so"; do
  [ -f "$f" ] || { echo "gpu_bundle: no $f (build memplan with its CUDA backend first)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out/lib"
strip -o "$out/memplan" "$build/cli/memplan"
strip -o "$out/libmemplan_cuda.so" "$build/cli/libmemplan_cuda.so"
ldd "$build/cli/memplan" "$build/cli/libmemplan_cuda.so" | awk '$3 ~ /^\// {print $3}' | sort -u |
  while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libstdc++*|libgcc_s*|libdl.so*|libpthread*|librt.so*|ld-linux*) ;;
      libcuda*|libcublas*|libnccl*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
cat > "$out/memplan.sh" <<'WRAP'
#!/bin/sh
# memplan with the libraries it was built against (lib/) and this machine's
# CUDA 13 libraries.
d=$(cd "$(dirname "$0")" && pwd)
if [ -z "${MEMPLAN_CUDA_LIBS:-}" ]; then
  for n in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    f=$(find /usr/local /opt /usr -xdev -name "$n" 2>/dev/null | head -1)
    [ -n "$f" ] && MEMPLAN_CUDA_LIBS="${MEMPLAN_CUDA_LIBS:+$MEMPLAN_CUDA_LIBS:}$(dirname "$f")"
  done
  export MEMPLAN_CUDA_LIBS
fi
LD_LIBRARY_PATH="$d/lib:${MEMPLAN_CUDA_LIBS:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/memplan" "$@"
WRAP
chmod +x "$out/memplan.sh"
echo "gpu_bundle: $out ($(du -sh "$out" | cut -f1)); run $out/memplan.sh on the GPU machine"
