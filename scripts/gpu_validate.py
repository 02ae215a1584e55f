#!/usr/bin/env python3
"""The work of scripts/gpu-validate.sh (read that first): memplan against
JAX/XLA and the hardware on a GPU machine.

Each corpus case (scripts/gen_jax_samples.py) is compiled, dumped and run on
the GPU in a fresh process (--worker), which writes OUT/<case>/ (the dump,
truth.json with memory_analysis(), truth-gpu.json with memory_stats()). Then
memplan analyzes and replays each dump, sweeps collectives and GEMMs, and
OUT/summary.md gathers the figures with the commands that made them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# memory_analysis() field -> `memplan analyze --format=json` field.
CATEGORIES = [
    ("argument_size_in_bytes", "argument_bytes"),
    ("output_size_in_bytes", "output_bytes"),
    ("alias_size_in_bytes", "alias_bytes"),
    ("temp_size_in_bytes", "temp_bytes"),
]

GEMM_SIZES = [1024, 2048, 4096, 8192, 16384]
GEMM_TYPES = [("bf16", "bf16"), ("f16", "f16"), ("f32", "f32")]
GEMM_REPEATS = 10

# nvidia-smi's name -> the simulator's hardware preset.
PRESETS = [("H200", "h200"), ("H100", "h100"), ("A100", "a100"), ("B200", "b200")]


def run(cmd: list[str], log: list[str], check: bool = False, **kwargs) -> subprocess.CompletedProcess:
    log.append(shlex.join(cmd))
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if check and result.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({result.returncode}):\n{result.stderr}")
    return result


# ---------------------------------------------------------------------------
# Worker: one case on the GPU, in its own process (XLA reads XLA_FLAGS once).

def worker(case: str, repo: Path, out_root: Path) -> int:
    dump_dir = Path(tempfile.mkdtemp(prefix=f"memplan_gpu_dump_{case}_"))
    os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump_dir} --xla_dump_hlo_as_text --xla_dump_hlo_as_proto"
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    sys.path.insert(0, str(repo / "scripts"))
    import gen_jax_samples as corpus  # noqa: E402  (needs XLA_FLAGS set first)
    import jax
    import jax.numpy as jnp
    import numpy as np

    corpus.jax, corpus.jnp, corpus.np = jax, jnp, np
    corpus.BASE_XLA_FLAGS = ["--xla_dump_hlo_as_text", "--xla_dump_hlo_as_proto"]
    jax.config.update("jax_hlo_source_file_canonicalization_regex", "^" + str(repo) + os.sep)
    description, builder = corpus.CASES[case]
    case_dir = out_root / case
    try:
        try:
            c = builder()
        except Exception as e:  # e.g. a mesh of more devices than there are
            c = None
            reason = f"cannot build the case on {len(jax.devices())} GPU(s): {e}"
        if c is not None and c.num_devices > len(jax.devices()):
            reason = f"needs {c.num_devices} devices, this machine has {len(jax.devices())}"
            c = None
        if c is None:
            case_dir.mkdir(parents=True, exist_ok=True)
            (case_dir / "skipped.txt").write_text(reason + "\n")
            return 0
        truth = corpus.run_case(case, description, builder, dump_dir, out_root)
        compiled = jax.jit(c.fn, **c.jit_kwargs).lower(*c.args).compile()
        device = jax.devices()[0]

        def concrete(leaf):
            x = np.zeros(leaf.shape, leaf.dtype)
            sharding = getattr(leaf, "sharding", None)
            return jax.device_put(x, sharding if sharding is not None else device)

        inputs = jax.tree_util.tree_map(concrete, c.args)
        jax.block_until_ready(inputs)
        before = device.memory_stats() or {}
        outputs = compiled(*inputs)
        jax.block_until_ready(outputs)
        after = device.memory_stats() or {}
        del outputs
        step_times = time_steps(compiled, lambda: jax.tree_util.tree_map(concrete, c.args), jax)
        gpu = {
            "case": case,
            "device": device.device_kind,
            "jax_version": jax.__version__,
            "memory_analysis": truth["memory_analysis"],
            "memory_stats_with_inputs": before,
            "memory_stats_after_run": after,
            # The allocator's peak counts compilation (autotuning scratch) too:
            # the run's own peak shows only when it exceeds what came before.
            "peak_bytes_in_use": after.get("peak_bytes_in_use"),
            "peak_is_the_runs": after.get("peak_bytes_in_use", 0) > before.get("peak_bytes_in_use", 0),
            "inputs_bytes_in_use": before.get("bytes_in_use"),
            "cost_analysis": cost_analysis(compiled),
            # Wall time of one call after warm-up runs, fresh inputs each
            # time (donated ones are consumed), outside the timing.
            "step_seconds_median": sorted(step_times)[len(step_times) // 2],
            "step_seconds_min": min(step_times),
            "step_runs": len(step_times),
        }
        (case_dir / "truth-gpu.json").write_text(json.dumps(gpu, indent=2, sort_keys=True) + "\n")
        return 0
    finally:
        shutil.rmtree(dump_dir, ignore_errors=True)


def time_steps(compiled, make_inputs, jax, warmup: int = 3, runs: int = 21) -> list[float]:
    """Seconds per call of `compiled`, each on fresh inputs, after warm-ups."""
    times = []
    for i in range(warmup + runs):
        inputs = make_inputs()
        jax.block_until_ready(inputs)
        start = time.perf_counter()
        jax.block_until_ready(compiled(*inputs))
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def cost_analysis(compiled) -> dict:
    """XLA's cost_analysis() of the compiled program, numbers only."""
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):  # older jax: one dict per device program
        cost = cost[0] if cost else {}
    return {k: v for k, v in dict(cost or {}).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


# ---------------------------------------------------------------------------
# Checks.

def check_analyze(memplan: str, case_dir: Path, log: list[str]) -> tuple[bool, list[str]]:
    truth = json.loads((case_dir / "truth.json").read_text())["memory_analysis"]
    result = run([memplan, "analyze", str(case_dir), "--format=json"], log)
    if result.returncode != 0:
        return False, [f"memplan analyze failed: {result.stderr.strip()}"]
    ours = json.loads(result.stdout)
    (case_dir / "analyze.json").write_text(result.stdout)
    rows, ok = [], True
    for xla_key, our_key in CATEGORIES:
        xla, mine = truth.get(xla_key), ours.get(our_key)
        same = xla == mine
        ok = ok and same
        rows.append(f"{our_key}: memplan {mine}, memory_analysis {xla}{'' if same else '  MISMATCH'}")
    return ok, rows


def check_validate(memplan: str, case_dir: Path, log: list[str]) -> tuple[bool, dict]:
    result = run([memplan, "validate", str(case_dir), "--backend=cuda", "--format=json"], log)
    (case_dir / "validate.json").write_text(result.stdout)
    if result.returncode != 0 or not result.stdout:
        return False, {"error": result.stderr.strip()}
    rank = json.loads(result.stdout)["ranks"][0]
    ok = rank["outcome"] == "ok" and rank["measured_peak_bytes"] == rank["planned_peak_bytes"]
    return ok, rank


def check_cost(memplan: str, case_dir: Path, gpu: dict, preset: str | None, log: list[str]) -> str:
    """A table row: `memplan cost`'s FLOPs and bytes accessed against XLA's
    cost_analysis() of the GPU compile, and its predicted compute time on
    the preset against the measured step, as signed errors (findings, not
    gates: the targets are held on the CPU corpus)."""
    xla = gpu.get("cost_analysis") or {}
    result = run([memplan, "cost", str(case_dir), "--format=json"] + (["--hw", preset] if preset else []), log)
    if result.returncode != 0 or not result.stdout:
        return f"memplan cost failed: {result.stderr.strip()}"
    (case_dir / "cost.json").write_text(result.stdout)
    ours = json.loads(result.stdout)["xla"]

    def signed(mine, theirs):
        if not theirs:
            return f"{mine} vs {theirs}"
        return f"{100.0 * (mine - theirs) / theirs:+.2f}%"

    predicted = json.loads(result.stdout)["compute_seconds"]
    measured = gpu.get("step_seconds_median")
    return (f"{signed(ours['flops'], xla.get('flops'))} | "
            f"{signed(ours['bytes_accessed'], xla.get('bytes accessed'))} | "
            f"{ours.get('custom_calls', 0)} | {1e6 * predicted:.1f} | "
            f"{'-' if measured is None else f'{1e6 * measured:.1f}'} | "
            f"{signed(predicted, measured)}")


def gemm_plan(path: Path) -> list[dict]:
    ops = []
    for dtype, out_dtype in GEMM_TYPES:
        for n in GEMM_SIZES:
            ops.append({"step": len(ops), "kind": "gemm", "m": n, "n": n, "k": n, "dtype": dtype,
                        "out_dtype": out_dtype, "count": GEMM_REPEATS, "label": f"{dtype} {n}^3"})
    plan = {"schema": "memplan.executor-plan.v1", "name": "GEMM sweep",
            "source": "scripts/gpu_validate.py", "ranks": [{"rank": 0, "ops": ops}]}
    path.write_text(json.dumps(plan, indent=1) + "\n")
    return ops


def preset_peaks(memplan: str, gpu_name: str, log: list[str]) -> tuple[str | None, dict]:
    """The preset's dense peak FLOP/s per dtype, read from `memplan hw show`'s
    YAML (its `device.peak_flops` block, values such as `989.5TFLOP/s`)."""
    preset = next((p for key, p in PRESETS if key in gpu_name), None)
    if preset is None:
        return None, {}
    result = run([memplan, "hw", "show", preset], log)
    if result.returncode != 0:
        return preset, {}
    peaks, in_block = {}, False
    scale = {"T": 1e12, "P": 1e15, "G": 1e9}
    for line in result.stdout.splitlines():
        if re.match(r"^\s+peak_flops:", line):
            in_block = True
            continue
        if in_block:
            m = re.match(r"^\s+(\w+):\s*([0-9.]+)\s*([TPG])FLOP/s", line)
            if not m:
                if re.match(r"^\s+\w+:", line) and "TOPS" in line:
                    continue  # int8's TOPS
                break
            peaks[m.group(1)] = float(m.group(2)) * scale[m.group(3)]
    return preset, peaks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--memplan", required=True)
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--gpus", type=int, default=1)
    parser.add_argument("--cases", nargs="*")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out = args.out.resolve()
    if args.worker:
        return worker(args.worker, args.repo.resolve(), out)

    sys.path.insert(0, str(args.repo / "scripts"))
    import gen_jax_samples as corpus  # only CASES' names: jax is not imported here
    cases = args.cases or list(corpus.CASES)
    log: list[str] = []
    lines = ["# GPU validation", "",
             f"Run on {datetime.date.today().isoformat()} with `scripts/gpu-validate.sh` "
             f"({args.gpus} GPU(s)).", ""]
    smi = run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], log)
    gpu_name = smi.stdout.strip().splitlines()[0] if smi.stdout.strip() else "unknown GPU"
    lines += [f"GPU: {gpu_name}", ""]
    failures, costs = [], []
    preset, peaks = preset_peaks(args.memplan, gpu_name, log)

    lines += ["## Corpus programs on the GPU", "",
              "| case | analyze = memory_analysis | planned peak (B) | measured peak (B) | "
              "JAX peak_bytes_in_use (B) | note |", "|---|---|---|---|---|---|"]
    for case in cases:
        result = run([sys.executable, __file__, "--repo", str(args.repo), "--out", str(out),
                      "--memplan", args.memplan, "--worker", case], log)
        case_dir = out / case
        if result.returncode != 0:
            failures.append(f"{case}: compiling or running on the GPU failed")
            lines.append(f"| {case} | - | - | - | - | failed: see {case}/worker.log |")
            case_dir.mkdir(parents=True, exist_ok=True)
            (case_dir / "worker.log").write_text(result.stdout + result.stderr)
            continue
        if (case_dir / "skipped.txt").exists():
            lines.append(f"| {case} | - | - | - | - | skipped: {(case_dir / 'skipped.txt').read_text().strip()} |")
            continue
        analyze_ok, analyze_rows = check_analyze(args.memplan, case_dir, log)
        validate_ok, rank = check_validate(args.memplan, case_dir, log)
        gpu = json.loads((case_dir / "truth-gpu.json").read_text())
        if not analyze_ok:
            failures.append(f"{case}: memplan analyze differs from memory_analysis(): " + "; ".join(analyze_rows))
        if not validate_ok:
            failures.append(f"{case}: memplan validate: {rank.get('problem') or rank.get('error') or rank}")
        costs.append(f"| {case} | {check_cost(args.memplan, case_dir, gpu, preset, log)} |")
        jax_peak = gpu.get("peak_bytes_in_use")
        note = "" if gpu.get("peak_is_the_runs") else "JAX's peak was set before the run (compilation)"
        lines.append(f"| {case} | {'yes' if analyze_ok else 'NO'} | {rank.get('planned_peak_bytes', '-')} | "
                     f"{rank.get('measured_peak_bytes', '-')} | {jax_peak} | {note} |")

    lines += ["", "## memplan cost against XLA's cost_analysis() and the measured step (signed errors)", "",
              f"Predicted: `memplan cost --hw {preset}` compute_seconds (roofline, no launch overheads). "
              "Measured: median wall time of one call of the compiled program (21 calls after 3 warm-ups).", "",
              "| case | FLOPs | bytes accessed | custom-calls | predicted (us) | measured (us) | time error |",
              "|---|---|---|---|---|---|---|"] + costs
    lines += ["", "## Collectives", ""]
    bench = [args.memplan, "bench-collectives", "--backend=cuda", "--max-bytes=1GiB", "--format=json"]
    if args.gpus > 1:
        bench = [args.mpirun, "-np", str(args.gpus)] + bench
    result = run(bench, log)
    if result.returncode != 0 or not result.stdout:
        failures.append(f"bench-collectives failed: {result.stderr.strip()}")
        lines.append("bench-collectives failed; see the log below.")
    else:
        (out / "collectives.json").write_text(result.stdout)
        sweep = json.loads(result.stdout)
        if any(r["wrong"] for r in sweep["results"]):
            failures.append("bench-collectives: some results were wrong")
        lines += [f"{sweep['ranks']} rank(s). Largest size of each collective:", "",
                  "| collective | bytes | time (us) | algbw (GB/s) | busbw (GB/s) | #wrong |", "|---|---|---|---|---|---|"]
        largest = {}
        for r in sweep["results"]:
            largest[r["collective"]] = r
        for r in largest.values():
            lines.append(f"| {r['collective']} | {r['bytes']} | {r['time_us']:.1f} | {r['algbw_gbps']:.2f} | "
                         f"{r['busbw_gbps']:.2f} | {r['wrong']} |")
        if sweep["ranks"] == 1:
            lines += ["", "One GPU: collectives move nothing between devices, so bus bandwidth is 0."]

    lines += ["", "## GEMMs against the hardware preset", ""]
    ops = gemm_plan(out / "gemm-plan.json")
    result = run([args.memplan, "validate", str(out / "gemm-plan.json"), "--backend=cuda", "--format=json"], log)
    if result.returncode != 0 or not result.stdout:
        failures.append(f"GEMM sweep failed: {result.stderr.strip()}")
        lines.append("The GEMM sweep failed; see the log below.")
    else:
        (out / "gemm.json").write_text(result.stdout)
        gemms = json.loads(result.stdout)["ranks"][0]["gemms"]
        lines += [f"Preset: {preset or 'none for this GPU'}"
                  f"{'' if peaks else ' (memplan hw show gave no peak FLOP/s to compare with)'}", "",
                  "| dtype | m=n=k | time (us, x%d) | TFLOP/s | of preset peak |" % GEMM_REPEATS, "|---|---|---|---|---|"]
        for g in gemms:
            peak = peaks.get(g["dtype"])
            share = f"{100 * g['tflops'] * 1e12 / peak:.1f}%" if peak else "-"
            lines.append(f"| {g['dtype']} | {g['m']} | {g['time_us']:.1f} | {g['tflops']:.1f} | {share} |")

    lines += ["", "## Result", ""]
    lines += [f"- FAIL: {f}" for f in failures] or ["- PASS: every check held."]
    lines += ["", "## Commands", "", "```"] + log + ["```", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
