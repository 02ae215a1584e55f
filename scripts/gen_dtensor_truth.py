#!/usr/bin/env python3
"""Generate memplan's DTensor ground truth from real PyTorch (CPU, no GPUs).

Writes ``samples/sharding/dtensor_placements.json``: for every case (a mesh
shape, placements, a global shape) and every mesh coordinate, what PyTorch
itself computes:

* ``local_shape`` and ``global_offset`` from
  ``torch.distributed.tensor._utils._compute_local_shape_and_global_offset``
  (what DTensor uses to size each rank's local tensor),
* ``indices``: per tensor dim, the global indices the rank holds as
  [start, stop) ranges, found by splitting index tensors with each
  placement's own ``_split_tensor`` mesh dim by mesh dim, left to right, as
  ``distribute_tensor`` does,
* the placements' ``repr`` and ``str`` forms.

No process group is needed. torch is not one of memplan's dependencies; run
this with a Python that has it (``pip install -r
scripts/requirements-dtensor.txt``, the CPU wheel from PyPI is enough)::

    python3 scripts/gen_dtensor_truth.py
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import torch
from torch.distributed.tensor import Partial, Replicate, Shard
from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset
from torch.distributed.tensor.placement_types import _StridedShard

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "samples" / "sharding" / "dtensor_placements.json"


def SS(dim, sf):
    return _StridedShard(dim, split_factor=sf)


# (name, mesh shape, placements, global shape)
CASES = [
    ("1d_even", (4,), [Shard(0)], (8, 3)),
    ("1d_uneven", (4,), [Shard(0)], (10, 3)),
    ("1d_empty_shards", (4,), [Shard(0)], (2, 3)),
    ("1d_chunk_leaves_two_empty", (4,), [Shard(0)], (5,)),
    ("1d_last_dim", (4,), [Shard(-1)], (3, 6)),
    ("1d_replicate", (4,), [Replicate()], (5, 5)),
    ("1d_partial", (2,), [Partial()], (4,)),
    ("1d_partial_avg", (2,), [Partial("avg")], (4,)),
    ("2d_shard_replicate", (2, 4), [Shard(0), Replicate()], (8, 8)),
    ("2d_replicate_shard", (2, 4), [Replicate(), Shard(1)], (8, 6)),
    ("2d_shard_both_dims", (2, 4), [Shard(0), Shard(1)], (6, 10)),
    ("2d_same_dim", (2, 4), [Shard(0), Shard(0)], (16,)),
    ("2d_same_dim_uneven", (2, 4), [Shard(0), Shard(0)], (5,)),
    ("2d_same_dim_uneven_13", (2, 4), [Shard(0), Shard(0)], (13, 2)),
    ("2d_partial_shard", (2, 2), [Partial(), Shard(0)], (4, 4)),
    ("2d_strided_fsdp_tp", (2, 2), [SS(0, 2), Shard(0)], (8, 8)),
    ("2d_strided_uneven", (2, 2), [SS(0, 2), Shard(0)], (10, 3)),
    ("1d_strided_alone", (2,), [SS(0, 2)], (8, 2)),
    ("1d_strided_alone_uneven", (3,), [SS(1, 2)], (2, 7)),
    ("2d_strided_tp4", (2, 4), [SS(0, 4), Shard(0)], (16,)),
    ("3d_all", (2, 2, 2), [Shard(0), Shard(1), Shard(2)], (4, 6, 3)),
    ("3d_mixed", (2, 2, 2), [Shard(1), Replicate(), Shard(0)], (5, 7)),
    ("3d_same_dim", (2, 2, 2), [Shard(0), Shard(0), Shard(0)], (11,)),
    ("3d_partial_replicate", (2, 2, 2), [Replicate(), Partial(), Shard(1)], (4, 9)),
]


def ranges(indices):
    out = []
    for i in indices:
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


def dim_placement(p):
    """The same placement acting on dim 0 of a 1-D index tensor."""
    if isinstance(p, _StridedShard):
        return _StridedShard(0, split_factor=p.split_factor)
    return Shard(0)


def run_case(name, mesh_shape, placements, shape):
    ndim = len(shape)
    rows = []
    for coord in itertools.product(*(range(n) for n in mesh_shape)):
        local_shape, offset = _compute_local_shape_and_global_offset(
            shape, mesh_shape, list(coord), placements)
        indices = []
        for d in range(ndim):
            idx = torch.arange(shape[d])
            for i, p in enumerate(placements):
                # _StridedShard is not a Shard subclass in torch 2.15.
                if not isinstance(p, (Shard, _StridedShard)):
                    continue
                if p.dim % ndim != d:
                    continue
                pieces, _ = dim_placement(p)._split_tensor(
                    idx, mesh_shape[i], with_padding=False, contiguous=False)
                idx = pieces[coord[i]]
            indices.append(ranges(idx.tolist()))
        rows.append({
            "coordinate": list(coord),
            "local_shape": list(local_shape),
            "global_offset": list(offset),
            "indices": indices,
        })
    return {
        "name": name,
        "mesh_shape": list(mesh_shape),
        "placements_repr": repr(placements),
        "placements_str": "[" + ", ".join(str(p) for p in placements) + "]",
        "shape": list(shape),
        "ranks": rows,
    }


def main():
    data = {
        "generator": "scripts/gen_dtensor_truth.py",
        "torch_version": torch.__version__,
        "cases": [run_case(*c) for c in CASES],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(REPO)}: {len(CASES)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
