#!/usr/bin/env python3
"""Generate memplan's sharding ground truth from real JAX/XLA (CPU backend).

Writes ``samples/sharding/jax_partition_specs.json``: for every case (a mesh,
a device order, a PartitionSpec and a global shape) what JAX itself says:

* ``hlo_sharding``: ``NamedSharding._to_xla_hlo_sharding(ndim)`` as text,
* ``mesh_repr`` / ``mesh_str`` / ``named_sharding_repr`` / ``spec_repr``: the
  reprs JAX prints, so that memplan's parsers read what users copy,
* ``shard_shape`` and ``devices_indices_map`` (device id -> [start, stop) per
  dim) when the shape divides evenly (JAX refuses uneven shapes there),
* ``picture``: what ``jax.debug.visualize_sharding`` prints (without color,
  as into a file) for rank-1 and rank-2 cases JAX can draw,
* ``xla_shard_shape``: the per-device shape in the SPMD-partitioned program
  XLA compiles for ``sin(with_sharding_constraint(x, sharding))``, which for
  uneven shapes shows XLA's padding to ceil(N/d).

It also records, for a list of HloSharding texts, what XLA makes of them
(``xla_client.HloSharding.from_string``: the canonical text, the V2 form of
named shardings, and the serialized OpSharding bytes as hex), and decodes the
OpSharding bytes found in seed 003 (Alpa).

Run (from anywhere; needs ``pip install -r scripts/requirements-samples.txt``)::

    python3 scripts/gen_sharding_truth.py

Reruns with the same jax/jaxlib give the same file.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax.sharding import AxisType, Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "samples" / "sharding" / "jax_partition_specs.json"

U = P.UNCONSTRAINED

# (name, axis names, axis sizes, device order or None, spec, shape, dtype)
CASES = [
    # Seed 001: Mesh('x': 4, 'y': 1), P('x', None), f32[20,16].
    ("seed001", ("x", "y"), (4, 1), None, P("x", None), (20, 16), "float32"),
    ("seed001_transposed", ("x", "y"), (4, 1), None, P(None, "x"), (16, 20), "float32"),
    # 1-axis meshes.
    ("1d_shard", ("x",), (8,), None, P("x"), (64,), "float32"),
    ("1d_shard_2d", ("x",), (8,), None, P("x", None), (16, 4), "bfloat16"),
    ("1d_shard_dim1", ("x",), (4,), None, P(None, "x"), (3, 8), "float32"),
    ("1d_replicated", ("x",), (4,), None, P(), (6, 5), "float32"),
    ("1d_none", ("x",), (4,), None, P(None, None), (6, 5), "int32"),
    ("1d_short_spec", ("x",), (2,), None, P("x"), (4, 6, 2), "float32"),
    ("1d_tuple_of_one", ("x",), (4,), None, P(("x",), None), (8, 2), "float32"),
    ("1d_uneven", ("x",), (4,), None, P("x"), (10,), "float32"),
    ("1d_uneven_small", ("x",), (8,), None, P("x"), (5,), "float32"),
    ("1d_device_order", ("x",), (4,), (0, 2, 1, 3), P("x"), (8,), "float32"),
    ("1d_device_order_rev", ("x",), (8,), (7, 6, 5, 4, 3, 2, 1, 0), P(None, "x"), (2, 16), "float16"),
    ("1d_size1", ("x",), (1,), None, P("x"), (4,), "float32"),
    # 2-axis meshes.
    ("2d_both", ("x", "y"), (4, 2), None, P("x", "y"), (8, 4), "float32"),
    ("2d_swapped", ("x", "y"), (4, 2), None, P("y", "x"), (8, 4), "float32"),
    ("2d_x_only", ("x", "y"), (4, 2), None, P("x", None), (8, 4), "float32"),
    ("2d_y_only", ("x", "y"), (4, 2), None, P("y"), (8, 4), "float32"),
    ("2d_y_dim1", ("x", "y"), (4, 2), None, P(None, "y"), (8, 4), "float32"),
    ("2d_x_dim1", ("x", "y"), (2, 4), None, P(None, "x"), (8, 4), "float32"),
    ("2d_tuple_xy", ("x", "y"), (4, 2), None, P(("x", "y"), None), (16, 3), "float32"),
    ("2d_tuple_yx", ("x", "y"), (4, 2), None, P(("y", "x"), None), (16, 3), "float32"),
    ("2d_tuple_dim1", ("x", "y"), (2, 4), None, P(None, ("y", "x")), (3, 16), "float32"),
    ("2d_replicated", ("x", "y"), (2, 4), None, P(None, None), (4, 4), "float32"),
    ("2d_size1_axis", ("x", "y"), (8, 1), None, P("y", "x"), (4, 16), "float32"),
    ("2d_uneven_x", ("x", "y"), (4, 2), None, P("x", None), (10, 3), "float32"),
    ("2d_uneven_both", ("x", "y"), (4, 2), None, P("x", "y"), (10, 3), "float32"),
    ("2d_uneven_tuple", ("x", "y"), (4, 2), None, P(("x", "y"),), (13,), "float32"),
    ("2d_device_order", ("x", "y"), (2, 2), (0, 2, 1, 3), P("x", "y"), (4, 4), "float32"),
    ("2d_device_order_partial", ("x", "y"), (2, 4), (7, 6, 5, 4, 3, 2, 1, 0), P("y"), (8, 2), "float32"),
    ("2d_device_order_transposed", ("x", "y"), (4, 2), (0, 2, 4, 6, 1, 3, 5, 7), P("x", "y"), (8, 8), "float32"),
    ("2d_unconstrained", ("x", "y"), (4, 2), None, P("x", U), (8, 4), "float32"),
    ("2d_unreduced", ("x", "y"), (4, 2), None, P("x", unreduced={"y"}), (8, 4), "float32"),
    # 3-axis meshes.
    ("3d_all", ("a", "b", "c"), (2, 2, 2), None, P("a", "b", "c"), (4, 4, 4), "float32"),
    ("3d_b_only", ("a", "b", "c"), (2, 2, 2), None, P("b"), (4, 4), "float32"),
    ("3d_c_only", ("a", "b", "c"), (2, 2, 2), None, P(None, "c"), (4, 4), "float32"),
    ("3d_tuple_ac", ("a", "b", "c"), (2, 2, 2), None, P(("a", "c")), (8, 2), "float32"),
    ("3d_tuple_ca", ("a", "b", "c"), (2, 2, 2), None, P(("c", "a")), (8, 2), "float32"),
    ("3d_c_a", ("a", "b", "c"), (2, 2, 2), None, P("c", "a"), (4, 4), "float32"),
    ("3d_transpose_all", ("a", "b", "c"), (2, 2, 2), None, P("c", "b", "a"), (2, 4, 6), "float32"),
    ("3d_tuple_cb_a", ("a", "b", "c"), (2, 2, 2), None, P(("c", "b"), "a"), (8, 2), "float32"),
    ("3d_uneven", ("a", "b", "c"), (2, 2, 2), None, P("a", ("b", "c")), (3, 7), "float32"),
    ("3d_124", ("a", "b", "c"), (1, 2, 4), None, P("c", "b"), (8, 4), "float32"),
    ("3d_214_b", ("a", "b", "c"), (2, 1, 4), None, P(None, "a"), (4, 6), "float32"),
    ("3d_device_order", ("a", "b", "c"), (2, 2, 2), (1, 0, 3, 2, 5, 4, 7, 6), P("a", "c"), (4, 4), "float32"),
    ("3d_replicated", ("a", "b", "c"), (2, 2, 2), None, P(), (2, 2), "float32"),
    ("3d_rank3_partial", ("a", "b", "c"), (2, 2, 2), None, P(None, "c", None), (2, 4, 2), "int8"),
    ("3d_unreduced", ("a", "b", "c"), (2, 2, 2), None, P("a", unreduced={"c"}), (4, 4), "float32"),
]

# HloSharding texts: what XLA makes of them.
HLO_TEXTS = [
    "{replicated}",
    "{manual}",
    "{unknown}",
    "{unreduced}",
    "{maximal device=3}",
    "{devices=[2,1]0,1}",
    "{devices=[4,1]<=[4]}",
    "{devices=[2,2]<=[4]}",
    "{devices=[2,2]<=[2,2]T(0,1)}",
    "{devices=[2,2]<=[2,2]T(1,0)}",
    "{devices=[2,4]<=[2,2,2]T(2,0,1)}",
    "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
    "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
    "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
    "{devices=[2,1,2]3,2,1,0 last_tile_dim_replicate}",
    "{devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}",
    "{devices=[2,1,1,2]0,1,2,3 last_tile_dim_replicate}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
    "{devices=[1,1,2,2]<=[4] last_tile_dims={replicated, manual}}",
    "{devices=[2,1,2]0,1,2,3 last_tile_dims={unreduced}}",
    "{devices=[2,1,2,2]<=[8] last_tile_dims={replicated, replicated}}",
    "{devices=[1,4]<=[4] last_tile_dims={manual}}",
    "{devices=[2,2,1]<=[4] last_tile_dims={manual}}",
    "{devices=[1,1,4]<=[4] last_tile_dims={manual}}",
    "{devices=[2,1]0,1 metadata={op_name=\"a\"}}",
    "{replicated shard_as 2}",
    "{devices=[2]0,1 shard_like 7}",
    "{{replicated}, {maximal device=1}}",
    "{{replicated}, {devices=[2]0,1}, {manual}, {devices=[2,1]1,0}, {unknown}, {devices=[1,2]<=[2]}}",
    "{mesh['x'=2,'y'=2], [{'x'}, {}]}",
    "{mesh['a'=2,'b'=4,'c'=4], [{}, {'a', 'c'}], replicated={'b'}}",
    "{maximal_mesh[device_id=5]}",
    "{mesh['a'=16,'b'=4], [{'b', 'a':(1)2}]}",
    "{mesh['a'=16,'b'=4], [{'a':(1)2, 'a':(8)2}, {'a':(2)4, 'b'}]}",
    "{mesh['x'=4], [{'x', ?}]}",
    "{mesh['x'=2,'y'=2], device_ids=(0,2,1,3), [{'x'}, {'y'}]}",
    "{mesh['a'=2,'b'=2,'c'=2], device_ids=(0,2,4,6,1,3,5,7), [{'c'}, {'a', 'b'}]}",
    "{mesh['x'=2,'y'=2], unreduced}",
    "{mesh['x'=2,'y'=2], replicated}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], unreduced={'b'}}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], manual={'b'}}",
    "{mesh['a'=2,'b'=3,'c'=4,'d'=5], [{'a'}], replicated={'d'}, unreduced={'c'}, manual={'b'}}",
]

SEED003_BYTES = [
    b'\x08\x03\x1a\x02\x02\x01"\x02\x00\x01',
    b'\x08\x03\x1a\x02\x01\x02"\x02\x00\x01',
    b'\x08\x03\x1a\x01\x02"\x02\x00\x01',
    b'\x08\x02*\x00*\n\x08\x03\x1a\x02\x02\x01"\x02\x00\x01*\t\x08\x03\x1a\x01\x02"\x02\x00\x01',
    b'',
]


def indices_map(sharding, shape):
    out = {}
    for device, index in sharding.devices_indices_map(shape).items():
        out[str(device.id)] = [
            [s.start if s.start is not None else 0, s.stop if s.stop is not None else n]
            for s, n in zip(index, shape)
        ]
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


SINE_RE = re.compile(r"= (\w+)\[([\d,]*)\](?:\{[^}]*\})? sine\(")


def xla_shard_shape(sharding, replicated, shape, dtype):
    fn = jax.jit(lambda x: jnp.sin(jax.lax.with_sharding_constraint(x, sharding)),
                 in_shardings=replicated, out_shardings=replicated)
    text = fn.lower(jax.ShapeDtypeStruct(shape, dtype)).compile().as_text()
    shapes = {m.group(2) for m in SINE_RE.finditer(text)}
    if len(shapes) != 1:
        raise RuntimeError(f"expected one sine shape, found {shapes}")
    dims = shapes.pop()
    return [int(d) for d in dims.split(",")] if dims else []


def picture(sharding, shape):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        jax.debug.visualize_sharding(shape, sharding, use_color=False)
    return buffer.getvalue()


def run_case(name, names, sizes, order, spec, shape, dtype):
    # Unreduced axes must be Explicit in JAX; every other case uses Auto.
    devices = np.array(jax.devices())
    count = int(np.prod(sizes))
    chosen = devices[:count] if order is None else devices[list(order)]
    types = (AxisType.Explicit if spec.unreduced else AxisType.Auto,) * len(names)
    mesh = Mesh(chosen.reshape(sizes), names, axis_types=types)
    sharding = NamedSharding(mesh, spec)
    case = {
        "name": name,
        "mesh_axes": [[n, s] for n, s in zip(names, sizes)],
        "device_order": [d.id for d in mesh.devices.flat],
        "mesh_repr": repr(mesh),
        "mesh_str": str(mesh),
        "spec_repr": repr(spec),
        "named_sharding_repr": repr(sharding),
        "shape": list(shape),
        "dtype": dtype,
        "hlo_sharding": str(sharding._to_xla_hlo_sharding(len(shape))),
    }
    try:
        case["shard_shape"] = list(sharding.shard_shape(shape))
        case["devices_indices_map"] = indices_map(sharding, shape)
        if len(shape) <= 2:
            case["picture"] = picture(sharding, shape)
    except (ValueError, NotImplementedError) as e:
        case["shard_shape"] = None
        case["devices_indices_map"] = None
        case["jax_refuses"] = type(e).__name__
    if not spec.unreduced:
        replicated = NamedSharding(mesh, P())
        case["xla_shard_shape"] = xla_shard_shape(sharding, replicated, shape, dtype)
    return case


def hlo_text_case(text):
    sharding = xc.HloSharding.from_string(text)
    entry = {
        "text": text,
        "xla": repr(sharding),
        "op_sharding_hex": sharding.to_proto().SerializeToString().hex(),
    }
    v2 = sharding.v3_to_v2_sharding()
    if repr(v2) != repr(sharding):
        entry["v2"] = repr(v2)
    return entry


def main():
    cases = [run_case(*c) for c in CASES]
    texts = [hlo_text_case(t) for t in HLO_TEXTS]
    seed = []
    for raw in SEED003_BYTES:
        proto = xc.OpSharding()
        proto.ParseFromString(raw)
        seed.append({"bytes_repr": repr(raw), "hex": raw.hex(),
                     "xla": repr(xc.HloSharding.from_proto(proto))})
    data = {
        "generator": "scripts/gen_sharding_truth.py",
        "jax_version": jax.__version__,
        "jaxlib_version": jax.lib.__version__,
        "device_count": len(jax.devices()),
        "cases": cases,
        "hlo_sharding_texts": texts,
        "seed003_op_shardings": seed,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUT.relative_to(REPO)}: {len(cases)} cases, {len(texts)} texts", file=sys.stderr)


if __name__ == "__main__":
    main()
