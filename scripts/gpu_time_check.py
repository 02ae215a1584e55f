#!/usr/bin/env python3
"""memplan's time model against a GPU, on programs large enough to be
compute-bound: MLP training steps (three layers of width W, batch W, MSE
loss, SGD) for a range of W, in bf16 and f32.

Each (dtype, W) is compiled on the GPU in its own process while XLA dumps it
(XLA_FLAGS is read once per process), then timed: the median wall time of one
call after warm-ups. `memplan cost DUMP --hw PRESET` predicts the compute time
of the same optimized module (docs/cost-model.md: roofline with efficiency
factors, no launch overheads). The table gives both and the signed error.

Usage (on a GPU machine with JAX+CUDA):
  scripts/gpu_time_check.py --memplan build/cli/memplan --out OUT [--hw h200]
      [--widths 1024 2048 4096 8192] [--dtypes bfloat16 float32]
Writes OUT/summary.md and OUT/results.json; prints the table. Runs on the
CPU too (for trying the script), where the figures say nothing about a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def worker(dtype: str, width: int, dump_dir: Path, out: Path) -> None:
    os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump_dir} --xla_dump_hlo_as_text --xla_dump_hlo_as_proto"
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    import jax
    import jax.numpy as jnp

    dt = jnp.dtype(dtype)
    key = jax.random.PRNGKey(0)
    keys = jax.random.split(key, 5)
    params = [jax.random.normal(keys[i], (width, width), dt) * 0.02 for i in range(3)]
    x = jax.random.normal(keys[3], (width, width), dt)
    y = jax.random.normal(keys[4], (width, width), dt)

    def loss(params, x, y):
        h = x
        for i, w in enumerate(params):
            h = h @ w
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        return jnp.mean((h.astype(jnp.float32) - y.astype(jnp.float32)) ** 2)

    def step(params, x, y):
        g = jax.grad(loss)(params, x, y)
        return [w - jnp.asarray(0.01, dt) * gw for w, gw in zip(params, g)]

    compiled = jax.jit(step).lower(params, x, y).compile()
    for _ in range(3):
        jax.block_until_ready(compiled(params, x, y))
    times = []
    for _ in range(21):
        start = time.perf_counter()
        jax.block_until_ready(compiled(params, x, y))
        times.append(time.perf_counter() - start)
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    out.write_text(json.dumps({
        "device": jax.devices()[0].device_kind,
        "jax_version": jax.__version__,
        "step_seconds_median": sorted(times)[len(times) // 2],
        "step_seconds_min": min(times),
        "xla_flops": float(dict(cost).get("flops", 0.0)),
    }))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memplan", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--hw", default="h200")
    parser.add_argument("--widths", type=int, nargs="*", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--dtypes", nargs="*", default=["bfloat16", "float32"])
    parser.add_argument("--keep-dumps", action="store_true",
                        help="copy each step's optimized-module dump to OUT/dumps/<dtype>_<W>/")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        dtype, width, dump_dir, out = args.worker
        worker(dtype, int(width), Path(dump_dir), Path(out))
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    rows, results, commands = [], [], []
    for dtype in args.dtypes:
        for width in args.widths:
            dump_dir = Path(tempfile.mkdtemp(prefix=f"memplan_time_{dtype}_{width}_"))
            measured_path = args.out / f"measured_{dtype}_{width}.json"
            cmd = [sys.executable, __file__, "--memplan", args.memplan, "--out", str(args.out),
                   "--worker", dtype, str(width), str(dump_dir), str(measured_path)]
            commands.append(shlex.join(cmd))
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                rows.append(f"| {dtype} | {width} | worker failed: {run.stderr.strip().splitlines()[-1:]} |")
                continue
            measured = json.loads(measured_path.read_text())
            # The jitted step's optimized module (jax.random's jits are dumped too).
            dumps = sorted(dump_dir.glob("*.jit_step.*after_optimizations-buffer-assignment.txt"))
            if args.keep_dumps:
                kept = args.out / "dumps" / f"{dtype}_{width}"
                kept.mkdir(parents=True, exist_ok=True)
                for f in dump_dir.glob("*.jit_step.*after_optimizations*"):
                    if f.suffix == ".txt" or f.name.endswith(".hlo.pb"):
                        shutil.copyfile(f, kept / f.name)
            cost_cmd = [args.memplan, "cost", str(dumps[-1]), "--hw", args.hw, "--format=json"]
            commands.append(shlex.join(cost_cmd))
            cost = subprocess.run(cost_cmd, capture_output=True, text=True)
            if cost.returncode != 0:
                rows.append(f"| {dtype} | {width} | memplan cost failed: {cost.stderr.strip()} |")
                continue
            ours = json.loads(cost.stdout)
            predicted = ours["compute_seconds"]
            step = measured["step_seconds_median"]
            flops = ours["executed"]["flops"]
            result = {"dtype": dtype, "width": width, "predicted_seconds": predicted,
                      "matmul_seconds": ours.get("matmul_seconds"), "flops": flops,
                      "xla_flops": measured["xla_flops"], **measured}
            results.append(result)
            rows.append(f"| {dtype} | {width} | {flops / 1e9:.1f} | {1e6 * predicted:.1f} | {1e6 * step:.1f} | "
                        f"{100 * (predicted - step) / step:+.1f}% | {flops / step / 1e12:.1f} |")
    device = results[0]["device"] if results else "unknown"
    lines = [f"# memplan cost against measured steps ({device}, preset {args.hw})", "",
             "| dtype | W | GFLOP (memplan) | predicted (us) | measured median (us) | error | achieved TFLOP/s |",
             "|---|---|---|---|---|---|---|"] + rows + ["", "```"] + commands + ["```", ""]
    (args.out / "summary.md").write_text("\n".join(lines))
    (args.out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
