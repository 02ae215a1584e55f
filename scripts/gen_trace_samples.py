#!/usr/bin/env python3
"""Write samples/traces/jax_cpu_mlp_grad.trace.json.gz: a real trace from
jax.profiler.trace on the CPU backend (the TensorBoard-plugin layout,
plugins/profile/<run>/<host>.trace.json.gz), of one jitted gradient step of a
small MLP with the Python tracer on. Timestamps and thread ids differ from
run to run; the structure does not.

    python3 scripts/gen_trace_samples.py
"""
import glob
import os
import shutil
import tempfile

import jax
import jax.numpy as jnp

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "traces",
                   "jax_cpu_mlp_grad.trace.json.gz")


def loss(params, x):
    for w in params:
        x = jnp.tanh(x @ w)
    return (x * x).sum()


def main():
    params = [jnp.ones((64, 64)) * 0.01 for _ in range(3)]
    x = jnp.ones((32, 64))
    step = jax.jit(jax.grad(loss))
    step(params, x)[0].block_until_ready()  # compile outside the trace
    with tempfile.TemporaryDirectory() as log_dir:
        with jax.profiler.trace(log_dir):
            with jax.profiler.TraceAnnotation("train_step"):
                step(params, x)[0].block_until_ready()
        traces = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.trace.json.gz"))
        assert len(traces) == 1, traces
        shutil.copyfile(traces[0], OUT)
    print(OUT)


if __name__ == "__main__":
    main()
