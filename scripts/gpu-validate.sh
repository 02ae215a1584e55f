#!/usr/bin/env bash
# What a user does on a GPU machine to check memplan against the real thing:
#
#   1. compile the corpus programs (scripts/gen_jax_samples.py's cases) with
#      JAX on the GPU, dump their buffer assignments, run them, and read
#      memory_stats()'s peak_bytes_in_use;
#   2. check that `memplan analyze` reproduces memory_analysis() on those GPU
#      dumps (argument, output, alias, temp bytes);
#   3. check that `memplan validate --backend=cuda`, replaying each dump on
#      the GPU, measures the peak the plan says;
#   4. run `memplan bench-collectives` over all GPUs (mpirun when several)
#      and a GEMM sweep (a plan of GEMMs through `memplan validate`) against
#      the hardware preset where `memplan hw show` knows the GPU.
#
# Usage: scripts/gpu-validate.sh [OUT_DIR]     (default: gpu-validate-out)
# Environment: MEMPLAN (the binary; default build/cli/memplan),
#   PYTHON (default python3; needs jax with CUDA), CASES (space-separated
#   case names; default all), MPIRUN (default mpirun).
#
# Writes OUT_DIR/summary.md (the figures and the commands that made them,
# ready for docs/validation.md) and the raw JSON beside it. Exits 0 when
# every check passes, 1 when one fails, 2 when this machine cannot run it
# (no GPU, no JAX with CUDA, memplan built without its CUDA backend).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-gpu-validate-out}"
memplan="${MEMPLAN:-$repo/build/cli/memplan}"
python="${PYTHON:-python3}"
mpirun="${MPIRUN:-mpirun}"

fail_setup() {
  echo "gpu-validate: $*" >&2
  exit 2
}

command -v nvidia-smi >/dev/null 2>&1 || fail_setup "no nvidia-smi: this machine has no NVIDIA driver (run this on a GPU machine)"
gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
[ "$gpus" -ge 1 ] || fail_setup "nvidia-smi lists no GPU"
[ -x "$memplan" ] || fail_setup "no memplan binary at $memplan (build it: scripts/build.sh, or set MEMPLAN)"
[ -f "$(dirname "$memplan")/libmemplan_cuda.so" ] || [ -n "${MEMPLAN_CUDA_BACKEND:-}" ] ||
  fail_setup "memplan was built without its CUDA backend (libmemplan_cuda.so is missing beside $memplan; configure where CMake finds the CUDA toolkit, cuBLAS and NCCL)"
"$python" - <<'EOF' || fail_setup "$python has no JAX with a CUDA backend (pip install 'jax[cuda12]')"
import jax
assert any(d.platform == "gpu" for d in jax.devices()), jax.devices()
EOF

mkdir -p "$out"
# Open MPI refuses root unless told twice; GPU containers often run as root.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec "$python" "$repo/scripts/gpu_validate.py" --repo "$repo" --out "$out" --memplan "$memplan" \
  --mpirun "$mpirun" --gpus "$gpus" ${CASES:+--cases $CASES}
