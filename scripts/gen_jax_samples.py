#!/usr/bin/env python3
"""Generate memplan's ground-truth corpus from real JAX/XLA (CPU backend).

Every case is a small JAX program. The script compiles it with
``jax.jit(fn, ...).lower(*abstract_args).compile()`` while XLA dumps its
artifacts, then copies into ``samples/jax/<case>/``:

* the after-optimizations buffer-assignment text files of the case's module
  (with this XLA they are split in three: ``*-buffer-assignment.txt``,
  ``*-buffer-assignment-values.txt`` and ``*-live-range.txt``),
* ``*-memory-usage-report.txt``,
* the after-optimizations HLO text (``*.cpu_after_optimizations.txt``),
* the after-optimizations ``HloProto`` (``*.cpu_after_optimizations.hlo.pb``);
  the script checks that this proto carries the ``buffer_assignment`` field,
* ``truth.json``: versions, device count, module name, kept file names and
  every field of ``compiled.memory_analysis()`` except the serialized
  buffer-assignment proto.

Everything else XLA writes (before-optimizations modules, other modules, LLVM
IR, object files, debug options, compile_options.pb, the memory-usage-report
proto) is dropped. The ``module_NNNN.`` prefix XLA puts on dump file names is
removed so that tests can find files from ``truth.json``'s ``module_name``.

Each case is compiled in its own Python process (XLA reads ``XLA_FLAGS`` once
per process, and module ids count up per process), with abstract inputs
(``jax.ShapeDtypeStruct``) so nothing is computed and no helper modules are
compiled. Source paths in HLO metadata are made relative to the repository
root. Reruns on the same jax/jaxlib versions give byte-identical files.

Run (from anywhere)::

    pip install -r scripts/requirements-samples.txt
    python3 scripts/gen_jax_samples.py                 # all cases
    python3 scripts/gen_jax_samples.py scan_loop       # only some cases
    python3 scripts/gen_jax_samples.py --list

Adding a case: write a function decorated with ``@case("name", "description")``
that returns a ``Case`` (the traced function, a tuple of abstract arguments,
and optional ``jit`` keyword arguments such as ``donate_argnums``,
``in_shardings``/``out_shardings``; set ``num_devices`` for multi-device
programs and put anything else worth recording in ``extra``, which is merged
into ``truth.json``). Give the traced Python function a unique
``__name__`` (XLA's module is called ``jit_<name>``); keep sizes small so
``samples/jax`` stays around a few MB. Then rerun the script for that case.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "samples" / "jax"
HOST_DEVICE_COUNT = 8

# XLA flags other than the dump directory, recorded in truth.json.
BASE_XLA_FLAGS = [
    "--xla_dump_hlo_as_text",
    "--xla_dump_hlo_as_proto",
    f"--xla_force_host_platform_device_count={HOST_DEVICE_COUNT}",
]

# Filled in by main() after XLA_FLAGS is set: jax must not be imported earlier.
jax: Any = None
jnp: Any = None
np: Any = None


@dataclasses.dataclass
class Case:
    fn: Callable[..., Any]
    args: tuple
    jit_kwargs: dict = dataclasses.field(default_factory=dict)
    num_devices: int = 1
    extra: dict = dataclasses.field(default_factory=dict)  # goes to truth.json


CASES: dict[str, tuple[str, Callable[[], Case]]] = {}


def case(name: str, description: str):
    def register(builder: Callable[[], Case]):
        if name in CASES:
            raise ValueError(f"duplicate case {name}")
        CASES[name] = (description, builder)
        return builder
    return register


def sds(shape, dtype, sharding=None):
    return jax.ShapeDtypeStruct(tuple(shape), dtype, sharding=sharding)


def named(fn: Callable, name: str) -> Callable:
    fn.__name__ = name
    fn.__qualname__ = name
    return fn


# ---------------------------------------------------------------------------
# Model pieces
# ---------------------------------------------------------------------------

def layer_norm(x, scale, bias, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * scale + bias


def transformer_block(p, x, num_heads):
    b, s, d = x.shape
    hd = d // num_heads
    h = layer_norm(x, p["ln1_scale"], p["ln1_bias"])
    qkv = h @ p["w_qkv"]                                  # [b, s, 3d]
    q, k, v = jnp.split(qkv, 3, axis=-1)

    def heads(t):
        return t.reshape(b, s, num_heads, hd).transpose(0, 2, 1, 3)

    q, k, v = heads(q), heads(k), heads(v)
    logits = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.asarray(hd, x.dtype))
    mask = jnp.tril(jnp.ones((s, s), dtype=bool))
    logits = jnp.where(mask, logits, jnp.asarray(-1e4, x.dtype))
    probs = jax.nn.softmax(logits, axis=-1)
    attn = jnp.einsum("bhqk,bhkd->bhqd", probs, v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x = x + attn @ p["w_out"]
    h = layer_norm(x, p["ln2_scale"], p["ln2_bias"])
    h = jax.nn.gelu(h @ p["w_fc1"] + p["b_fc1"])
    return x + h @ p["w_fc2"] + p["b_fc2"]


def transformer_case(dtype) -> Case:
    batch, seq, d_model, num_heads, d_ff = 4, 64, 128, 4, 512
    params = {
        "ln1_scale": sds((d_model,), dtype),
        "ln1_bias": sds((d_model,), dtype),
        "w_qkv": sds((d_model, 3 * d_model), dtype),
        "w_out": sds((d_model, d_model), dtype),
        "ln2_scale": sds((d_model,), dtype),
        "ln2_bias": sds((d_model,), dtype),
        "w_fc1": sds((d_model, d_ff), dtype),
        "b_fc1": sds((d_ff,), dtype),
        "w_fc2": sds((d_ff, d_model), dtype),
        "b_fc2": sds((d_model,), dtype),
    }
    x = sds((batch, seq, d_model), dtype)
    target = sds((batch, seq, d_model), dtype)

    def loss_fn(p, x, target):
        y = transformer_block(p, x, num_heads)
        return jnp.mean(jnp.square((y - target).astype(jnp.float32)))

    suffix = jnp.dtype(dtype).name
    fn = named(jax.value_and_grad(loss_fn), f"transformer_block_{suffix}")
    return Case(fn, (params, x, target), extra={
        "config": dict(batch=batch, seq=seq, d_model=d_model,
                       num_heads=num_heads, d_ff=d_ff, dtype=suffix)})


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

@case("mlp_train_step", "3-layer f32 MLP: MSE loss, jax.grad, SGD update")
def _mlp_train_step() -> Case:
    batch, sizes = 64, [256, 512, 512, 128]
    params = [(sds((i, o), jnp.float32), sds((o,), jnp.float32))
              for i, o in zip(sizes[:-1], sizes[1:])]
    x = sds((batch, sizes[0]), jnp.float32)
    y = sds((batch, sizes[-1]), jnp.float32)

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i + 1 < len(params):
                h = jax.nn.relu(h)
        return jnp.mean(jnp.square(h - y))

    def mlp_train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new_params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
        return new_params, loss

    return Case(mlp_train_step, (params, x, y),
                extra={"config": dict(batch=batch, layer_sizes=sizes, dtype="float32")})


@case("transformer_block_f32",
      "one pre-LN transformer block (4-head causal attention + GELU MLP), value_and_grad, f32")
def _transformer_f32() -> Case:
    return transformer_case(jnp.float32)


@case("transformer_block_bf16", "same transformer block as transformer_block_f32, in bf16")
def _transformer_bf16() -> Case:
    return transformer_case(jnp.bfloat16)


@case("scan_loop", "tanh RNN cell under lax.scan (16 steps), loss + grad: while loops in HLO")
def _scan_loop() -> Case:
    steps, batch, d_in, d_hidden = 16, 8, 64, 128
    params = {"w_x": sds((d_in, d_hidden), jnp.float32),
              "w_h": sds((d_hidden, d_hidden), jnp.float32),
              "b": sds((d_hidden,), jnp.float32)}
    xs = sds((steps, batch, d_in), jnp.float32)
    h0 = sds((batch, d_hidden), jnp.float32)

    def loss_fn(p, xs, h0):
        def cell(h, x):
            h = jnp.tanh(x @ p["w_x"] + h @ p["w_h"] + p["b"])
            return h, jnp.sum(h, axis=-1)
        h_last, per_step = jax.lax.scan(cell, h0, xs)
        return jnp.mean(jnp.square(h_last)) + jnp.mean(per_step)

    fn = named(jax.value_and_grad(loss_fn), "scan_loop")
    return Case(fn, (params, xs, h0), extra={
        "config": dict(steps=steps, batch=batch, d_in=d_in, d_hidden=d_hidden, dtype="float32")})


@case("donated_args",
      "momentum-SGD update with donate_argnums=(0, 1): outputs alias the donated inputs")
def _donated_args() -> Case:
    shapes = [(512, 512), (512,), (512, 256)]
    params = [sds(s, jnp.float32) for s in shapes]
    momentum = [sds(s, jnp.float32) for s in shapes]
    grads = [sds(s, jnp.float32) for s in shapes]

    def donated_args(params, momentum, grads):
        new_m = [0.9 * m + g for m, g in zip(momentum, grads)]
        new_p = [p - 0.01 * m for p, m in zip(params, new_m)]
        return new_p, new_m

    return Case(donated_args, (params, momentum, grads),
                jit_kwargs={"donate_argnums": (0, 1)},
                extra={"config": dict(shapes=[list(s) for s in shapes], dtype="float32",
                                      donate_argnums=[0, 1])})


@case("sharded_8dev",
      "2-layer MLP train step on a ('data',4) x ('model',2) mesh of 8 CPU devices "
      "(Megatron-style: w1 column-, w2 row-sharded, batch data-sharded); per-device SPMD module")
def _sharded_8dev() -> Case:
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = np.array(jax.devices()[:HOST_DEVICE_COUNT]).reshape(4, 2)
    mesh = Mesh(devices, ("data", "model"))
    batch, d_model, d_ff = 256, 512, 1024
    specs = {"x": P("data", None), "y": P("data", None),
             "w1": P(None, "model"), "w2": P("model", None)}
    sh = {k: NamedSharding(mesh, v) for k, v in specs.items()}
    w1 = sds((d_model, d_ff), jnp.float32, sh["w1"])
    w2 = sds((d_ff, d_model), jnp.float32, sh["w2"])
    x = sds((batch, d_model), jnp.float32, sh["x"])
    y = sds((batch, d_model), jnp.float32, sh["y"])

    def loss_fn(w1, w2, x, y):
        h = jax.nn.relu(x @ w1)
        return jnp.mean(jnp.square(h @ w2 - y))

    def sharded_8dev(w1, w2, x, y):
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2, x, y)
        return w1 - 0.01 * g1, w2 - 0.01 * g2, loss

    replicated = NamedSharding(mesh, P())
    return Case(sharded_8dev, (w1, w2, x, y),
                jit_kwargs={"out_shardings": (sh["w1"], sh["w2"], replicated)},
                num_devices=HOST_DEVICE_COUNT,
                extra={"config": dict(batch=batch, d_model=d_model, d_ff=d_ff, dtype="float32"),
                       "mesh": {"axis_names": list(mesh.axis_names),
                                "shape": [int(n) for n in devices.shape]},
                       "partition_specs": {k: str(v) for k, v in specs.items()}})


@case("conv_grad",
      "four 3x3 NHWC convolutions (ReLU; the 2nd and 4th with stride 2), value_and_grad "
      "with respect to every kernel and the input: a convolution gradient program")
def _conv_grad() -> Case:
    batch, size, c_in, width, layers = [int(v) for v in os.environ.get(
        "CONV_CFG", "16,32,3,64,4").split(",")]
    x = sds((batch, size, size, c_in), jnp.float32)
    kernels, c = [], c_in
    for i in range(layers):
        c_next = width * (2 ** (i // 2))
        kernels.append(sds((3, 3, c, c_next), jnp.float32))
        c = c_next

    def loss_fn(kernels, x):
        h = x
        for i, k in enumerate(kernels):
            stride = 2 if i % 2 == 1 else 1
            h = jax.lax.conv_general_dilated(h, k, (stride, stride), "SAME",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = jax.nn.relu(h)
        return jnp.mean(jnp.square(h))

    fn = named(jax.value_and_grad(loss_fn, argnums=(0, 1)), "conv_grad")
    return Case(fn, (kernels, x), extra={
        "config": dict(batch=batch, size=size, in_channels=c_in, width=width, layers=layers,
                       kernel=[3, 3], dtype="float32")})


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

MODULE_PREFIX = re.compile(r"^module_(\d+)\.(.+)$")


def proto_top_level_fields(data: bytes) -> set[int]:
    """Field numbers at the top level of a protobuf message (wire format)."""
    fields, i, n = set(), 0, len(data)

    def varint(i):
        value = shift = 0
        while True:
            if i >= n:
                raise ValueError("truncated varint")
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, i

    while i < n:
        key, i = varint(i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(i)
        elif wire == 1:
            i += 8
        elif wire == 2:
            length, i = varint(i)
            i += length
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        fields.add(field)
    if i != n:
        raise ValueError("trailing bytes")
    return fields


def has_buffer_assignment(path: Path) -> bool:
    # xla.HloProto: hlo_module = 1, buffer_assignment = 3.
    try:
        return {1, 3} <= proto_top_level_fields(path.read_bytes())
    except ValueError:
        return False


def keep_file(rest: str, module_name: str) -> bool:
    """rest: dump file name without the module_NNNN. prefix."""
    if not rest.startswith(module_name + "."):
        return False
    tail = rest[len(module_name) + 1:]
    if "after_optimizations" not in tail:
        return False
    return tail.endswith(".txt") or tail.endswith(".pb")


def memory_stats(compiled) -> dict:
    stats = compiled.memory_analysis()
    out = {}
    for attr in sorted(dir(stats)):
        if attr.startswith("_") or attr.startswith("serialized_"):
            continue
        try:
            value = getattr(stats, attr)
        except Exception:  # a field this backend does not fill in
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            out[attr] = value
    return out


def jaxlib_version() -> str:
    import jaxlib
    return jaxlib.__version__


def abstract_desc(tree) -> list:
    leaves, _ = jax.tree_util.tree_flatten(tree)
    desc = []
    for leaf in leaves:
        item = {"shape": list(leaf.shape), "dtype": jnp.dtype(leaf.dtype).name}
        if getattr(leaf, "sharding", None) is not None:
            item["spec"] = str(leaf.sharding.spec)
        desc.append(item)
    return desc


def run_case(name: str, description: str, builder, dump_dir: Path, out_root: Path) -> dict:
    c = builder()
    before = set(os.listdir(dump_dir))
    compiled = jax.jit(c.fn, **c.jit_kwargs).lower(*c.args).compile()
    new_files = sorted(set(os.listdir(dump_dir)) - before)

    module_name = re.match(r"HloModule\s+([^\s,]+)", compiled.as_text()).group(1)
    ids = set()
    for f in new_files:
        m = MODULE_PREFIX.match(f)
        if m and m.group(2).startswith(module_name + "."):
            ids.add(m.group(1))
    if len(ids) != 1:
        raise RuntimeError(f"{name}: expected one dumped module {module_name}, got ids {ids}")
    (module_id,) = ids

    case_dir = out_root / name
    if case_dir.exists():
        shutil.rmtree(case_dir)
    case_dir.mkdir(parents=True)

    kept, ba_proto = [], None
    for f in new_files:
        m = MODULE_PREFIX.match(f)
        if not m or m.group(1) != module_id or not keep_file(m.group(2), module_name):
            continue
        src, rest = dump_dir / f, m.group(2)
        if rest.endswith(".pb"):
            if not has_buffer_assignment(src):
                continue  # e.g. the memory-usage-report proto
            ba_proto = rest
        shutil.copyfile(src, case_dir / rest)
        kept.append(rest)
    kept.sort()
    if ba_proto is None:
        raise RuntimeError(f"{name}: no after-optimizations HloProto with buffer_assignment")
    if not any("buffer-assignment" in k for k in kept):
        raise RuntimeError(f"{name}: no buffer-assignment text dump found")

    truth = {
        "case": name,
        "description": description,
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib_version(),
        "platform": jax.devices()[0].platform,
        "num_devices": c.num_devices,
        "host_platform_device_count": jax.device_count(),
        "module_name": module_name,
        "dump_files": kept,
        "dump_file_name_note": "XLA wrote each file as module_<NNNN>.<name>; the "
                               "module_<NNNN>. prefix is stripped here",
        "hlo_proto_with_buffer_assignment": ba_proto,
        "xla_flags": BASE_XLA_FLAGS,
        "jit_kwargs": {k: repr(v) for k, v in sorted(c.jit_kwargs.items())},
        "inputs": abstract_desc(c.args),
        "memory_analysis": memory_stats(compiled),
    }
    truth.update(c.extra)
    with open(case_dir / "truth.json", "w") as fh:
        json.dump(truth, fh, indent=2, sort_keys=True)
        fh.write("\n")
    return truth


def worker(name: str, out_root: Path, keep_dump: bool) -> int:
    """Compile one case in this (fresh) process and write its sample."""
    if "jax" in sys.modules:
        raise RuntimeError("jax was imported before XLA_FLAGS could be set")
    dump_dir = Path(tempfile.mkdtemp(prefix=f"memplan_xla_dump_{name}_"))
    os.environ["XLA_FLAGS"] = " ".join([f"--xla_dump_to={dump_dir}"] + BASE_XLA_FLAGS)
    os.environ["JAX_PLATFORMS"] = "cpu"

    global jax, jnp, np
    import jax as _jax
    import jax.numpy as _jnp
    import numpy as _np
    jax, jnp, np = _jax, _jnp, _np
    # Record source paths relative to the repository root so the dumps do not
    # depend on where the checkout lives.
    jax.config.update("jax_hlo_source_file_canonicalization_regex",
                      "^" + re.escape(str(REPO_ROOT) + os.sep))
    if jax.device_count() != HOST_DEVICE_COUNT:
        raise RuntimeError(f"expected {HOST_DEVICE_COUNT} CPU devices, got {jax.devices()}")

    try:
        description, builder = CASES[name]
        truth = run_case(name, description, builder, dump_dir, out_root)
        ma = truth["memory_analysis"]
        print(f"{name}: module {truth['module_name']}, "
              f"arg={ma.get('argument_size_in_bytes')} out={ma.get('output_size_in_bytes')} "
              f"alias={ma.get('alias_size_in_bytes')} temp={ma.get('temp_size_in_bytes')} "
              f"peak={ma.get('peak_memory_in_bytes')}, {len(truth['dump_files'])} files")
    finally:
        if keep_dump:
            print(f"{name}: full XLA dump kept in {dump_dir}")
        else:
            shutil.rmtree(dump_dir, ignore_errors=True)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output root (default: {DEFAULT_OUT})")
    parser.add_argument("--keep-dump", action="store_true",
                        help="keep XLA's full dump directories and print their paths")
    parser.add_argument("--list", action="store_true", help="list cases and exit")
    parser.add_argument("--worker", metavar="CASE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out_root = args.out.resolve()

    if args.worker:
        return worker(args.worker, out_root, args.keep_dump)
    if args.list:
        for n, (d, _) in CASES.items():
            print(f"{n}: {d}")
        return 0
    unknown = [n for n in args.cases if n not in CASES]
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}; see --list")

    # One process per case: XLA reads XLA_FLAGS once per process, and module
    # ids (stored in the HloProto) count up per process, so a fresh process
    # makes each case's output independent of which other cases ran.
    failed = []
    for n in args.cases or list(CASES):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", n, "--out", str(out_root)]
        if args.keep_dump:
            cmd.append("--keep-dump")
        if subprocess.run(cmd).returncode != 0:
            failed.append(n)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
