#!/usr/bin/env python3
"""Generate memplan's sharded ground-truth corpus (samples/sharded) from real JAX/XLA.

For every program in scripts/sharding_programs.py this script

(a) compiles it once on one CPU device and keeps, like gen_jax_samples.py,
    the after-optimizations dumps (buffer assignment, values, live range,
    memory-usage report, HLO text, HloProto with buffer assignment), the jaxpr
    (``<module>.jaxpr.txt``) and ``truth.json`` with ``memory_analysis()`` and
    ``cost_analysis()``;
(b) compiles it under each candidate sharding on 8 emulated CPU devices
    (``--xla_force_host_platform_device_count=8``): the family rules below
    give a plan, the plan is written as ``candidates/<cand>.plan.yaml``, read
    back, and its PartitionSpecs are what the compile uses; the sharded
    compile's per-device ``memory_analysis()``, ``cost_analysis()``, the
    HloSharding and per-device shape of every input and output, and the
    collectives of the optimized per-device HLO go to
    ``candidates/<cand>.truth.json``.

Output shardings are left to XLA (unspecified) and recorded. The sharded
dumps are not kept unless ``--dumps DIR`` is given (debugging only).

The family rules (documented in samples/sharded/README.md; `memplan plan
--family` reproduces them):

* dp: data arguments sharded on their leading dim over ``dp``; the rest
  replicated.
* fsdp: data as dp but over ``fsdp``; every other argument with at least
  2^18 elements sharded over ``fsdp`` on its largest dim that is divisible by
  the axis size and not sharded yet (ties: the earliest dim).
* tp: from the program's tp plan (argument glob -> colwise | rowwise):
  colwise shards the last dim over ``tp``, rowwise the second-to-last; the
  rest replicated, data replicated.
* ep (MoE only): the program's expert arguments sharded on their leading dim
  over ``ep``; data over ``ep`` (and over ``dp`` before it when the mesh has
  one).
* On 2-D meshes the rules compose: tp (or ep) first, then fsdp on what is
  left, and data over the data axes (dp, fsdp, and for ep meshes ep).

Every case runs in a fresh Python process; the script's own stack frames are
excluded from the HLO metadata so that only sharding_programs.py lines
appear there. Reruns with the pinned jax/jaxlib give byte-identical files.

Run::

    pip install -r scripts/requirements-samples.txt
    python3 scripts/gen_sharding_corpus.py              # everything
    python3 scripts/gen_sharding_corpus.py moe_train_step --candidates ep8,dp8
    python3 scripts/gen_sharding_corpus.py --list
    python3 scripts/gen_sharding_corpus.py --out /tmp/s && diff -r /tmp/s samples/sharded
    python3 scripts/gen_sharding_corpus.py mlp_train_step --candidates tp8 --dumps /tmp/d
    python3 scripts/gen_sharding_corpus.py --check      # the corpus against its rules; no jax
    python3 scripts/gen_sharding_corpus.py --summary    # rewrite summary.json, README table

``--check`` (run by ctest as ``sharded_corpus``) re-derives every plan file
from ``families.yaml`` and the argument shapes with the family rules,
compares it byte for byte, adds the input and output shards up to
``memory_analysis()``, checks that collective groups partition the devices
and that summary.json and the README table are current.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent
REPO_ROOT = SCRIPTS.parent
DEFAULT_OUT = REPO_ROOT / "samples" / "sharded"
sys.path.insert(0, str(SCRIPTS))

import gen_jax_samples as gjs  # noqa: E402  (helpers only; it imports no jax at load)

HOST_DEVICE_COUNT = gjs.HOST_DEVICE_COUNT
MIN_FSDP_ELEMENTS = 2 ** 18
SINGLE = "single"

# Candidate name -> mesh axes (name, size), major to minor. Devices in iota order.
CANDIDATES: dict[str, list[tuple[str, int]]] = {
    "dp8": [("dp", 8)],
    "fsdp8": [("fsdp", 8)],
    "tp8": [("tp", 8)],
    "dp4_tp2": [("dp", 4), ("tp", 2)],
    "dp2_tp4": [("dp", 2), ("tp", 4)],
    "fsdp4_tp2": [("fsdp", 4), ("tp", 2)],
    "ep8": [("ep", 8)],
    "dp2_ep4": [("dp", 2), ("ep", 4)],
}
BASE_CANDIDATES = ["dp8", "fsdp8", "tp8", "dp4_tp2", "dp2_tp4", "fsdp4_tp2"]
KNOWN_AXES = ("dp", "fsdp", "tp", "ep")

# Filled in by the worker once XLA_FLAGS is set.
jax: Any = None
jnp: Any = None
np: Any = None
programs: Any = None


# ---------------------------------------------------------------------------
# Family rules -> plans (pure Python; no jax needed)
# ---------------------------------------------------------------------------

def glob_regex(pattern: str) -> re.Pattern:
    """`*` any run of characters, `?` one character; everything else literal."""
    out = []
    for ch in pattern:
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
    return re.compile("".join(out) + r"\Z", re.S)


def match_one(name: str, patterns, what: str):
    hits = [p for p in patterns if glob_regex(p).match(name)]
    if len(hits) > 1:
        raise ValueError(f"argument {name} matches several {what} patterns: {hits}")
    return hits[0] if hits else None


def family_specs(args: list[dict], families: dict, mesh: list[tuple[str, int]]) -> dict:
    """The family rules. args: [{name, top, shape}] in parameter order.

    Returns name -> list with one entry per dim: None, an axis name, or a list
    of axis names.
    """
    axes = dict(mesh)
    unknown = set(axes) - set(KNOWN_AXES)
    if unknown:
        raise ValueError(f"unknown mesh axes {sorted(unknown)}")
    data_axes = [a for a, _ in mesh if a in ("dp", "fsdp", "ep")]
    data_entry = data_axes[0] if len(data_axes) == 1 else (list(data_axes) or None)
    specs = {}
    for arg in args:
        shape, name = arg["shape"], arg["name"]
        spec: list = [None] * len(shape)
        if arg["top"] in families["data"]:
            if not shape:
                raise ValueError(f"data argument {name} is a scalar")
            spec[0] = data_entry
        else:
            if "tp" in axes:
                style = match_one(name, families["tp"], "tp")
                if style is not None:
                    style = families["tp"][style]
                    if style == "colwise" and len(shape) >= 1:
                        spec[-1] = "tp"
                    elif style == "rowwise" and len(shape) >= 2:
                        spec[-2] = "tp"
                    else:
                        raise ValueError(f"{name}: {style} needs more dims than {shape}")
            if "ep" in axes and match_one(name, families["ep"], "ep") is not None:
                spec[0] = "ep"
            if "fsdp" in axes and math.prod(shape) >= MIN_FSDP_ELEMENTS:
                order = sorted(range(len(shape)), key=lambda d: (-shape[d], d))
                for d in order:
                    if spec[d] is None and shape[d] % axes["fsdp"] == 0:
                        spec[d] = "fsdp"
                        break
        for d, entry in enumerate(spec):
            if entry is None:
                continue
            ways = math.prod(axes[a] for a in ([entry] if isinstance(entry, str) else entry))
            if shape[d] % ways:
                raise ValueError(f"{name}: dim {d} of {shape} does not divide by {ways}")
        specs[name] = spec
    return specs


# Plain scalars that YAML 1.1 readers take for booleans or null.
YAML_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def yaml_key(name: str) -> str:
    """A plan key: bare when it is an identifier YAML reads as a string,
    double-quoted otherwise."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.lower() not in YAML_SPECIAL:
        return name
    if '"' in name or "\\" in name:
        raise ValueError(f"argument name needs escaping: {name}")
    return f'"{name}"'


def yaml_entry(entry) -> str:
    if entry is None:
        return "null"
    if isinstance(entry, str):
        return entry
    return "[" + ", ".join(entry) + "]"


def shape_text(dtype: str, shape) -> str:
    short = {"float32": "f32", "bfloat16": "bf16", "int32": "s32", "float16": "f16"}[dtype]
    return f"{short}[{','.join(str(d) for d in shape)}]"


def plan_yaml(program: str, candidate: str, mesh, args: list[dict], specs: dict,
              donate: list[str]) -> str:
    lines = [f"# memplan plan: {program} under {candidate}",
             "mesh: {" + ", ".join(f"{a}: {n}" for a, n in mesh) + "}",
             "arguments:"]
    for arg in args:
        spec = "[" + ", ".join(yaml_entry(e) for e in specs[arg["name"]]) + "]"
        lines.append(f"  {yaml_key(arg['name'])}: {spec}"
                     f"  # parameter {arg['number']}, {shape_text(arg['dtype'], arg['shape'])}")
    lines.append("outputs: {}")
    if donate:
        lines.append("donate:")
        lines += [f"  - {yaml_key(n)}" for n in donate]
    else:
        lines.append("donate: []")
    return "\n".join(lines) + "\n"


def read_plan(text: str) -> dict:
    """Reads a plan back with PyYAML: the compile uses what the file says."""
    import yaml
    plan = yaml.safe_load(text)
    mesh = [(str(a), int(n)) for a, n in plan["mesh"].items()]
    specs = {}
    for key, spec in plan["arguments"].items():
        specs[str(key)] = [e if e is None or isinstance(e, str) else list(e) for e in spec]
    return {"mesh": mesh, "arguments": specs, "outputs": plan.get("outputs") or {},
            "donate": [str(d) for d in plan.get("donate") or []]}


def families_yaml(program: str, families: dict) -> str:
    lines = [f"# memplan family inputs: {program}",
             "data: [" + ", ".join(families["data"]) + "]",
             f"min_fsdp_elements: {MIN_FSDP_ELEMENTS}"]
    if families["tp"]:
        lines.append("tp:")
        lines += [f"  {yaml_key(p)}: {families['tp'][p]}" for p in sorted(families["tp"])]
    else:
        lines.append("tp: {}")
    lines.append("ep: [" + ", ".join(yaml_key(p) for p in families["ep"]) + "]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# HLO text: entry parameters, layouts, collectives
# ---------------------------------------------------------------------------

DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
               "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8,
               "c64": 8, "c128": 16}
ARRAY = re.compile(r"\b([a-z]+[0-9]*)\[([0-9,]*)\]")
COMPUTATION = re.compile(r"^(ENTRY\s+)?%([^\s(]+)\s.*\{\s*$")
INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%([^\s=]+)\s*=\s*")
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
               "collective-permute", "collective-broadcast", "ragged-all-to-all")


def arrays_in(text: str) -> list[dict]:
    out = []
    for dtype, dims in ARRAY.findall(text):
        if dtype not in DTYPE_BYTES:
            continue
        shape = [int(d) for d in dims.split(",") if d]
        out.append({"dtype": dtype, "shape": shape,
                    "bytes": DTYPE_BYTES[dtype] * math.prod(shape)})
    return out


def split_type(rest: str) -> tuple[str, str]:
    """rest starts at an instruction's type; returns (type text, remainder)."""
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                return rest[:i + 1], rest[i + 1:].lstrip()
    i = rest.index(" ")
    return rest[:i], rest[i + 1:]


NAMED_MESH_GROUPS = (r"mesh\[(?P<axes>[^\]]*)\]"
                     r"(?:,\s*device_ids=\((?P<ids>[0-9,\[\]T()]*?)\))?"
                     r"\s*\{(?P<chosen>[^}]*)\}")


def iota_ids(text: str):
    """`[2,4]T(1,0)` or `[8]` (an iota reshaped and transposed) or `0,4,1,5`."""
    m = re.fullmatch(r"\[([0-9,]+)\](?:T\(([0-9,]+)\))?", text)
    if m:
        dims = [int(v) for v in m.group(1).split(",")]
        ids = np.arange(math.prod(dims)).reshape(dims)
        if m.group(2):
            ids = ids.transpose([int(v) for v in m.group(2).split(",")])
        return ids.reshape(-1)
    if re.fullmatch(r"[0-9]+(,[0-9]+)*", text):
        return np.array([int(v) for v in text.split(",")])
    raise ValueError(f"unsupported device_ids: {text}")


def attr(text: str, key: str):
    """The value of `key=` in an instruction's attributes, braces balanced."""
    m = re.search(r"[ ,]" + re.escape(key) + "=", text)
    if not m:
        return None
    i = m.end()
    if text.startswith("mesh[", i):
        # named-mesh replica groups: mesh['a'=4,'b'=2] {'a'}, optionally with
        # the mesh's devices: mesh['a'=4,'b'=2], device_ids=([2,4]T(1,0)) {'a'}
        m2 = re.match(NAMED_MESH_GROUPS, text[i:])
        if not m2:
            raise ValueError(f"unsupported named-mesh replica groups: {text[i:i + 120]}")
        return m2.group(0)
    if text[i] in "{[":
        depth, j = 0, i
        while j < len(text):
            if text[j] in "{[(":
                depth += 1
            elif text[j] in "}])":
                depth -= 1
                if depth == 0:
                    j += 1
                    # iota form: [4,2]<=[8] or [2,4]<=[4,2]T(1,0)
                    m2 = re.match(r"<=\[[0-9,]*\](T\([0-9,]*\))?", text[j:])
                    if m2:
                        j += m2.end()
                    return text[i:j]
            j += 1
    m = re.match(r"[^,\s]+", text[i:])
    return m.group(0)


def expand_groups(text: str | None):
    """replica_groups text -> explicit list of device lists (XLA semantics)."""
    if text is None:
        return None
    m = re.fullmatch(r"\[([0-9,]+)\]<=\[([0-9,]+)\](?:T\(([0-9,]+)\))?", text)
    if m:
        shape = [int(v) for v in m.group(1).split(",")]
        dims = [int(v) for v in m.group(2).split(",")]
        ids = np.arange(math.prod(dims)).reshape(dims)
        if m.group(3):
            ids = ids.transpose([int(v) for v in m.group(3).split(",")])
        return ids.reshape(shape).tolist()
    m = re.fullmatch(NAMED_MESH_GROUPS, text)
    if m:
        axes = [(a, int(n)) for a, n in re.findall(r"'([^']+)'=([0-9]+)", m["axes"])]
        names = [a for a, _ in axes]
        chosen = re.findall(r"'([^']+)'", m["chosen"])
        if (len(axes) != len(m["axes"].split(",")) or not set(chosen) <= set(names)
                or len(m["chosen"].split(",")) != len(chosen)):
            raise ValueError(f"unsupported named-mesh replica groups: {text}")
        sizes = [n for _, n in axes]
        ids = iota_ids(m["ids"]) if m["ids"] else np.arange(math.prod(sizes))
        if ids.size != math.prod(sizes):
            raise ValueError(f"device_ids do not fill the mesh: {text}")
        others = [names.index(a) for a in names if a not in chosen]
        picked = [names.index(a) for a in chosen]
        group = math.prod(sizes[d] for d in picked)
        return ids.reshape(sizes).transpose(others + picked).reshape(-1, group).tolist()
    if text in ("{}", "{{}}"):
        return []
    if not re.fullmatch(r"\{(\{[0-9,]*\},?)*\}", text):
        raise ValueError(f"unsupported replica_groups: {text}")
    return [[int(v) for v in g.split(",") if v] for g in re.findall(r"\{([0-9,]*)\}", text[1:-1])]


def parse_hlo(text: str) -> dict:
    """Computations, instruction types, call edges and collectives of HLO text."""
    comps: dict[str, list[tuple[str, str, str, str]]] = {}
    entry, current = None, None
    for line in text.splitlines():
        m = COMPUTATION.match(line)
        if m and not INSTRUCTION.match(line):
            current = m.group(2)
            comps[current] = []
            if m.group(1):
                entry = current
            continue
        if line.strip() == "}":
            current = None
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            type_text, rest = split_type(line[m.end():])
            opcode = re.match(r"([a-z][a-z0-9-]*)\(", rest)
            comps[current].append((m.group(2), type_text, opcode.group(1) if opcode else "",
                                   rest))
    return {"entry": entry, "computations": comps}


def loop_multipliers(hlo: dict) -> dict:
    """Computation -> how many times it runs per step (while trip counts
    multiplied through; None where a loop's trip count is unknown)."""
    mult = {hlo["entry"]: 1}
    work = [hlo["entry"]]
    while work:
        comp = work.pop()
        for _, _, opcode, rest in hlo["computations"][comp]:
            edges = []
            if opcode == "while":
                trip = re.search(r'"known_trip_count":\{"n":"([0-9]+)"\}', rest)
                n = int(trip.group(1)) if trip else None
                for key in ("body", "condition"):
                    target = attr(rest, key)
                    if target:
                        edges.append((target.lstrip("%"), n if key == "body" else
                                      (n + 1 if n is not None else None)))
            else:
                for key in ("to_apply", "calls"):
                    target = attr(rest, key)
                    if target:
                        edges.append((target.lstrip("%"), 1))
                branches = attr(rest, "branch_computations")
                if branches:
                    edges += [(b.strip().lstrip("%"), 1) for b in branches[1:-1].split(",")]
            for target, n in edges:
                if target not in hlo["computations"] or target in mult:
                    continue
                parent = mult[comp]
                mult[target] = None if parent is None or n is None else parent * n
                work.append(target)
    return mult


def collectives(hlo: dict) -> list[dict]:
    mult = loop_multipliers(hlo)
    out = []
    for comp in sorted(hlo["computations"]):
        instrs = hlo["computations"][comp]
        types = {name: t for name, t, _, _ in instrs}
        for name, type_text, opcode, rest in instrs:
            kind = opcode[:-len("-start")] if opcode.endswith("-start") else opcode
            if kind not in COLLECTIVES:
                continue
            operands = re.sub(r"/\*.*?\*/", "",
                              re.match(r"[a-z0-9-]+\(([^)]*)\)", rest).group(1))
            operand_names = [o.strip().lstrip("%") for o in operands.split(",") if o.strip()]
            result = arrays_in(type_text)
            if opcode.endswith("-start"):
                # async start: the tuple holds operands then results; keep results
                result = result[len(operand_names):] or result
            operand_arrays = [a for o in operand_names for a in arrays_in(types.get(o, ""))]
            groups_text = attr(rest, "replica_groups")
            item = {
                "computation": comp,
                "name": name,
                "kind": kind,
                "result": [f"{a['dtype']}[{','.join(map(str, a['shape']))}]" for a in result],
                "result_bytes": sum(a["bytes"] for a in result),
                "operands": [f"{a['dtype']}[{','.join(map(str, a['shape']))}]"
                             for a in operand_arrays],
                "operand_bytes": sum(a["bytes"] for a in operand_arrays),
                "replica_groups": groups_text,
                "groups": expand_groups(groups_text),
                "executions_per_step": mult.get(comp),
            }
            if opcode.endswith("-start"):
                item["async"] = True
            for key in ("dimensions", "source_target_pairs"):
                value = attr(rest, key)
                if value is not None:
                    item[key] = value
            out.append(item)
    return out


def collective_summary(items: list[dict]) -> list[dict]:
    rows: dict[str, dict] = {}
    for c in items:
        r = rows.setdefault(c["kind"], {"kind": c["kind"], "instructions": 0,
                                        "result_bytes": 0, "executions_per_step": 0,
                                        "result_bytes_per_step": 0})
        r["instructions"] += 1
        r["result_bytes"] += c["result_bytes"]
        n = c["executions_per_step"]
        if n is None or r["executions_per_step"] is None:
            r["executions_per_step"] = r["result_bytes_per_step"] = None
        else:
            r["executions_per_step"] += n
            r["result_bytes_per_step"] += n * c["result_bytes"]
    return [rows[k] for k in sorted(rows)]


def entry_layout(text: str) -> tuple[list[str], list[str]]:
    """Per-device shapes of the entry parameters and results, from the module header."""
    header = text.split("\n", 1)[0]
    i = header.index("entry_computation_layout={") + len("entry_computation_layout={")
    depth, j = 1, i
    while depth:
        depth += {"{": 1, "}": -1}.get(header[j], 0)
        j += 1
    params, results = header[i:j - 1].split(")->", 1)
    strip = lambda s: [f"{a['dtype']}[{','.join(map(str, a['shape']))}]" for a in arrays_in(s)]
    return strip(params), strip(results)


def unescape_hlo_string(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def entry_parameter_names(text: str) -> dict[int, str]:
    hlo = parse_hlo(text)
    names = {}
    for _, _, opcode, rest in hlo["computations"][hlo["entry"]]:
        if opcode != "parameter":
            continue
        number = int(re.match(r"parameter\(([0-9]+)\)", rest).group(1))
        m = re.search(r'op_name="((?:[^"\\]|\\.)*)"', rest)
        names[number] = unescape_hlo_string(m.group(1)) if m else None
    return names


# ---------------------------------------------------------------------------
# JAX side
# ---------------------------------------------------------------------------

def flat_arguments(prog) -> list[dict]:
    args = []
    for top, tree in zip(prog.arg_names, prog.args):
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            shape = [int(d) for d in leaf.shape]
            dtype = jnp.dtype(leaf.dtype)
            args.append({"name": top + jax.tree_util.keystr(path), "top": top,
                         "number": len(args), "shape": shape, "dtype": dtype.name,
                         "elements": math.prod(shape),
                         "bytes": math.prod(shape) * dtype.itemsize,
                         "role": "data" if top in prog.data else "parameter"})
    return args


def families_of(prog) -> dict:
    return {"data": list(prog.data), "tp": dict(prog.tp), "ep": list(prog.ep)}


def donated_names(prog, args) -> list[str]:
    tops = {prog.arg_names[i] for i in prog.donate_argnums}
    return [a["name"] for a in args if a["top"] in tops]


def numeric_dict(d: dict) -> dict:
    return {k: d[k] for k in sorted(d)
            if isinstance(d[k], (int, float)) and not isinstance(d[k], bool)}


def cost_stats(compiled) -> dict:
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):  # older jax returned one dict per device program
        if len(cost) != 1:
            raise RuntimeError(f"expected one cost_analysis dict, got {len(cost)}")
        cost = cost[0]
    return numeric_dict(dict(cost))


def check_names(label: str, args: list[dict], hlo_text: str):
    names = entry_parameter_names(hlo_text)
    want = {a["number"]: a["name"] for a in args}
    if names != want:
        raise RuntimeError(f"{label}: entry parameter names {names} differ from the "
                           f"pytree paths {want}")


def json_text(obj, indent: int = 0, used: int = 0, width: int = 160) -> str:
    """JSON with sorted keys, indented by 2; a list or object whose one-line
    form fits in `width` columns (`used` of them taken by the key) stays on
    one line, and so does every list of scalars."""
    flat = json.dumps(obj, sort_keys=True, separators=(", ", ": "))
    scalars = isinstance(obj, list) and all(not isinstance(v, (list, dict)) for v in obj)
    if (not isinstance(obj, (list, dict)) or not obj or scalars
            or indent + used + len(flat) <= width):
        return flat
    pad = " " * (indent + 2)
    if isinstance(obj, list):
        items = [pad + json_text(v, indent + 2, 0, width) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = []
    for k in sorted(obj):
        key = json.dumps(k) + ": "
        items.append(pad + key + json_text(obj[k], indent + 2, len(key), width))
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def check_output_size(label: str, mem: dict, out_sum: int, n_outputs: int):
    """XLA CPU: output_size_in_bytes = the output arrays + the result tuple's
    index table (one 8-byte pointer per element) when there are several."""
    table = 8 * n_outputs if n_outputs > 1 else 0
    if mem["output_size_in_bytes"] != out_sum + table:
        raise RuntimeError(f"{label}: output_size_in_bytes {mem['output_size_in_bytes']} != "
                           f"{out_sum} bytes of outputs + {table} bytes of tuple table")


def write_json(path: Path, obj, width: int = 160):
    path.write_text(json_text(obj, width=width) + "\n")


def versions() -> dict:
    return {"jax_version": jax.__version__, "jaxlib_version": gjs.jaxlib_version(),
            "platform": jax.devices()[0].platform,
            "host_platform_device_count": jax.device_count()}


def run_single(prog, out_dir: Path, dump_dir: Path):
    args = flat_arguments(prog)
    jitted = jax.jit(prog.fn, donate_argnums=prog.donate_argnums)
    before = set(os.listdir(dump_dir))
    compiled = jitted.lower(*prog.args).compile()
    new_files = sorted(set(os.listdir(dump_dir)) - before)
    text = compiled.as_text()
    check_names(prog.name, args, text)

    if out_dir.exists():  # keep candidates/ of other runs; replace the rest
        for p in out_dir.iterdir():
            if p.is_file():
                p.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)
    module_name, kept = copy_module_dump(prog.name, text, new_files, dump_dir, out_dir)

    jaxpr_file = f"{module_name}.jaxpr.txt"
    (out_dir / jaxpr_file).write_text(str(jax.make_jaxpr(prog.fn)(*prog.args)) + "\n")
    (out_dir / "families.yaml").write_text(families_yaml(prog.name, families_of(prog)))

    out_info = jax.tree_util.tree_flatten_with_path(compiled.out_info)[0]
    outputs = [{"index": i, "path": jax.tree_util.keystr(p), "shape": [int(d) for d in o.shape],
                "dtype": jnp.dtype(o.dtype).name,
                "bytes": math.prod(o.shape) * jnp.dtype(o.dtype).itemsize}
               for i, (p, o) in enumerate(out_info)]
    mem = gjs.memory_stats(compiled)
    arg_sum = sum(a["bytes"] for a in args)
    if mem["argument_size_in_bytes"] != arg_sum:
        raise RuntimeError(f"{prog.name}: argument_size_in_bytes "
                           f"{mem['argument_size_in_bytes']} != sum of argument bytes {arg_sum}")
    out_sum = sum(o["bytes"] for o in outputs)
    check_output_size(prog.name, mem, out_sum, len(outputs))
    truth = {
        "program": prog.name,
        "description": prog.description,
        "config": prog.config,
        **versions(),
        "num_devices": 1,
        "xla_flags": gjs.BASE_XLA_FLAGS,
        "module_name": module_name,
        "dump_files": kept,
        "dump_file_name_note": "XLA wrote each file as module_<NNNN>.<name>; the "
                               "module_<NNNN>. prefix is stripped here",
        "hlo_proto_with_buffer_assignment": f"{module_name}.cpu_after_optimizations.hlo.pb",
        "jaxpr_file": jaxpr_file,
        "families_file": "families.yaml",
        "families": families_of(prog),
        "donated_arguments": [prog.arg_names[i] for i in prog.donate_argnums],
        "donate_argnums": list(prog.donate_argnums),
        "arguments": args,
        "outputs": outputs,
        "memory_analysis": mem,
        "checks": {"sum_of_argument_bytes": arg_sum, "sum_of_output_bytes": out_sum,
                   "output_tuple_index_table_bytes": mem["output_size_in_bytes"] - out_sum},
        "cost_analysis": cost_stats(compiled),
    }
    write_json(out_dir / "truth.json", truth)
    return truth


def copy_module_dump(label: str, text: str, new_files, dump_dir: Path, out_dir: Path):
    module_name = re.match(r"HloModule\s+([^\s,]+)", text).group(1)
    ids = {m.group(1) for f in new_files
           if (m := gjs.MODULE_PREFIX.match(f)) and m.group(2).startswith(module_name + ".")}
    if len(ids) != 1:
        raise RuntimeError(f"{label}: expected one dumped module {module_name}, got ids {ids}")
    (module_id,) = ids
    kept = []
    for f in new_files:
        m = gjs.MODULE_PREFIX.match(f)
        if not m or m.group(1) != module_id or not gjs.keep_file(m.group(2), module_name):
            continue
        if m.group(2).endswith(".pb") and not gjs.has_buffer_assignment(dump_dir / f):
            continue
        shutil.copyfile(dump_dir / f, out_dir / m.group(2))
        kept.append(m.group(2))
    kept.sort()
    proto = f"{module_name}.cpu_after_optimizations.hlo.pb"
    if proto not in kept or not any("buffer-assignment" in k for k in kept):
        raise RuntimeError(f"{label}: missing buffer-assignment text or HloProto in {kept}")
    return module_name, kept


def spec_to_partition_spec(spec: list):
    from jax.sharding import PartitionSpec as P
    return P(*[tuple(e) if isinstance(e, list) else e for e in spec])


def partition_spec_to_list(spec, ndim: int) -> list:
    out = []
    for e in tuple(spec) + (None,) * (ndim - len(tuple(spec))):
        out.append(list(e) if isinstance(e, tuple) else e)
    return out


def shard_info(sharding, shape, device_shape_text: str) -> dict:
    """What JAX assigned (HloSharding) and the per-device shape the module
    takes or returns; `uneven` where a sharded dim does not divide (the
    device shape is then XLA's padded shard)."""
    dev = arrays_in(device_shape_text)[0]
    info = {"hlo_sharding": str(sharding._to_xla_hlo_sharding(len(shape))),
            "spec": partition_spec_to_list(sharding.spec, len(shape)),
            "shard_shape": dev["shape"], "shard_bytes": dev["bytes"]}
    try:
        jax_shard = [int(d) for d in sharding.shard_shape(tuple(shape))]
    except Exception:  # IndivisibleError: JAX states no shard shape
        info["uneven"] = True
        return info
    if jax_shard != dev["shape"]:
        raise RuntimeError(f"JAX's shard_shape {jax_shard} for {sharding} differs from "
                           f"the module's {device_shape_text}")
    return info


def run_candidate(prog, candidate: str, out_dir: Path):
    from jax.sharding import Mesh, NamedSharding

    args = flat_arguments(prog)
    mesh_axes = CANDIDATES[candidate]
    specs = family_specs(args, families_of(prog), mesh_axes)
    text = plan_yaml(prog.name, candidate, mesh_axes, args, specs, donated_names(prog, args))
    cand_dir = out_dir / "candidates"
    cand_dir.mkdir(parents=True, exist_ok=True)
    (cand_dir / f"{candidate}.plan.yaml").write_text(text)

    # Compile from what the plan file says.
    plan = read_plan((cand_dir / f"{candidate}.plan.yaml").read_text())
    if plan["arguments"] != specs or plan["mesh"] != mesh_axes:
        raise RuntimeError(f"{candidate}: plan file does not read back as written")
    if [a["name"] for a in args] != list(plan["arguments"]):
        raise RuntimeError(f"{candidate}: plan arguments are not in parameter order")
    devices = jax.devices()
    if [d.id for d in devices] != list(range(HOST_DEVICE_COUNT)):
        raise RuntimeError(f"unexpected device ids {[d.id for d in devices]}")
    sizes = [n for _, n in plan["mesh"]]
    mesh = Mesh(np.array(devices[:math.prod(sizes)]).reshape(sizes),
                tuple(a for a, _ in plan["mesh"]))
    shardings = {n: NamedSharding(mesh, spec_to_partition_spec(s))
                 for n, s in plan["arguments"].items()}
    leaves_by_top = {}
    for a in args:
        leaves_by_top.setdefault(a["top"], []).append(a)
    sharded_args = []
    for top, tree in zip(prog.arg_names, prog.args):
        leaves, treedef = jax.tree_util.tree_flatten(tree)
        sharded = [jax.ShapeDtypeStruct(l.shape, l.dtype, sharding=shardings[a["name"]])
                   for l, a in zip(leaves, leaves_by_top[top])]
        sharded_args.append(jax.tree_util.tree_unflatten(treedef, sharded))
    donate = tuple(i for i, top in enumerate(prog.arg_names)
                   if all(a["name"] in plan["donate"] for a in leaves_by_top[top]))
    if donate != tuple(prog.donate_argnums):
        raise RuntimeError(f"{candidate}: plan donation {plan['donate']} is not whole arguments")

    compiled = jax.jit(prog.fn, donate_argnums=donate).lower(*sharded_args).compile()
    text = compiled.as_text()
    check_names(f"{prog.name}/{candidate}", args, text)
    in_layout, out_layout = entry_layout(text)
    hlo = parse_hlo(text)
    mem = gjs.memory_stats(compiled)

    in_shardings = jax.tree_util.tree_leaves(compiled.input_shardings[0])
    inputs = []
    for a, sh, dev in zip(args, in_shardings, in_layout):
        info = shard_info(sh, a["shape"], dev)
        if info.pop("spec") != plan["arguments"][a["name"]]:
            raise RuntimeError(f"{candidate}: JAX's sharding of {a['name']} is not the plan's "
                               f"{plan['arguments'][a['name']]}")
        inputs.append({"name": a["name"], "parameter": a["number"], **info})
    arg_bytes = sum(i["shard_bytes"] for i in inputs)
    if arg_bytes != mem["argument_size_in_bytes"]:
        raise RuntimeError(f"{prog.name}/{candidate}: argument_size_in_bytes "
                           f"{mem['argument_size_in_bytes']} != sum of shard bytes {arg_bytes}")

    out_info = jax.tree_util.tree_flatten_with_path(compiled.out_info)[0]
    out_shardings = jax.tree_util.tree_leaves(compiled.output_shardings)
    outputs = []
    for i, ((path, o), sh, dev) in enumerate(zip(out_info, out_shardings, out_layout)):
        outputs.append({"index": i, "path": jax.tree_util.keystr(path),
                        **shard_info(sh, [int(d) for d in o.shape], dev)})
    if len(outputs) != len(out_layout):
        raise RuntimeError(f"{candidate}: {len(outputs)} outputs, layout has {len(out_layout)}")

    out_sum = sum(o["shard_bytes"] for o in outputs)
    check_output_size(f"{prog.name}/{candidate}", mem, out_sum, len(outputs))

    coll = collectives(hlo)
    truth = {
        "program": prog.name,
        "candidate": candidate,
        **versions(),
        "num_devices": math.prod(sizes),
        "mesh": {"axis_names": [a for a, _ in plan["mesh"]], "shape": sizes,
                 "devices": [int(d.id) for d in mesh.devices.flat]},
        "plan_file": f"{candidate}.plan.yaml",
        "donate_argnums": list(donate),
        "num_partitions": int(re.search(r"num_partitions=([0-9]+)", text).group(1)),
        "inputs": inputs,
        "outputs": outputs,
        "memory_analysis": mem,
        "cost_analysis": cost_stats(compiled),
        "checks": {
            "sum_of_input_shard_bytes": arg_bytes,
            "sum_of_output_shard_bytes": out_sum,
            "output_tuple_index_table_bytes": mem["output_size_in_bytes"] - out_sum,
        },
        "collectives": coll,
        "collective_summary": collective_summary(coll),
    }
    # One line per input, output and collective.
    write_json(cand_dir / f"{candidate}.truth.json", truth, width=480)
    return truth


def worker(name: str, candidate: str, out_root: Path, dumps: Path | None,
           dump_passes: str | None = None) -> int:
    global jax, jnp, np, programs
    if "jax" in sys.modules:
        raise RuntimeError("jax was imported before XLA_FLAGS could be set")
    tmp_dump = None
    if candidate == SINGLE:
        tmp_dump = Path(tempfile.mkdtemp(prefix=f"memplan_xla_dump_{name}_"))
        dump_dir = tmp_dump
    else:
        dump_dir = dumps / name / candidate if dumps else None
        if dump_dir:
            if dump_dir.exists():
                shutil.rmtree(dump_dir)
            dump_dir.mkdir(parents=True)
    flags = list(gjs.BASE_XLA_FLAGS)
    if dump_dir is not None:
        flags = [f"--xla_dump_to={dump_dir}"] + flags
        if dump_passes and candidate != SINGLE:
            flags.append(f"--xla_dump_hlo_pass_re={dump_passes}")
    else:
        flags = [f for f in flags if not f.startswith("--xla_dump")]
    os.environ["XLA_FLAGS"] = " ".join(flags)
    os.environ["JAX_PLATFORMS"] = "cpu"

    import jax as _jax
    import jax.numpy as _jnp
    import numpy as _np
    jax, jnp, np = _jax, _jnp, _np
    from jax._src import source_info_util
    # Only sharding_programs.py frames go into the HLO metadata: edits to this
    # driver (or to gen_jax_samples.py) must not change the dumps.
    for f in (__file__, gjs.__file__):
        source_info_util.register_exclusion(str(Path(f).resolve()))
    jax.config.update("jax_hlo_source_file_canonicalization_regex",
                      "^" + re.escape(str(REPO_ROOT) + os.sep))
    import sharding_programs as _programs
    programs = _programs
    if jax.device_count() != HOST_DEVICE_COUNT:
        raise RuntimeError(f"expected {HOST_DEVICE_COUNT} CPU devices, got {jax.devices()}")

    prog = programs.PROGRAMS[name]()
    out_dir = out_root / name
    try:
        if candidate == SINGLE:
            truth = run_single(prog, out_dir, dump_dir)
        else:
            truth = run_candidate(prog, candidate, out_dir)
    finally:
        if tmp_dump is not None:
            shutil.rmtree(tmp_dump, ignore_errors=True)
    ma, ca = truth["memory_analysis"], truth["cost_analysis"]
    print(f"{name}/{candidate}: arg={ma['argument_size_in_bytes']} "
          f"out={ma['output_size_in_bytes']} alias={ma['alias_size_in_bytes']} "
          f"temp={ma['temp_size_in_bytes']} peak={ma.get('peak_memory_in_bytes')} "
          f"flops={ca.get('flops')}", flush=True)
    return 0


# ---------------------------------------------------------------------------
# Summary and README table
# ---------------------------------------------------------------------------

def footprint(ma: dict) -> int:
    return (ma["argument_size_in_bytes"] + ma["output_size_in_bytes"]
            - ma["alias_size_in_bytes"] + ma["temp_size_in_bytes"])


def summary_rows(out_root: Path, order: list[str]) -> list[dict]:
    """Rows in `order` of programs (others after, by name), candidates in
    CANDIDATES order after `single`."""
    rows = []
    rank = {n: i for i, n in enumerate(order)}
    dirs = [p for p in out_root.iterdir() if p.is_dir()]
    for prog_dir in sorted(dirs, key=lambda p: (rank.get(p.name, len(rank)), p.name)):
        files = [(SINGLE, prog_dir / "truth.json")]
        order = {c: i for i, c in enumerate(CANDIDATES)}
        cands = sorted((prog_dir / "candidates").glob("*.truth.json"),
                       key=lambda p: order.get(p.name.split(".")[0], len(order)))
        files += [(p.name.split(".")[0], p) for p in cands]
        for cand, path in files:
            if not path.exists():
                continue
            t = json.loads(path.read_text())
            ma, ca = t["memory_analysis"], t["cost_analysis"]
            rows.append({
                "program": prog_dir.name,
                "candidate": cand,
                "mesh": ({a: n for a, n in zip(t["mesh"]["axis_names"], t["mesh"]["shape"])}
                         if "mesh" in t else {}),
                "num_devices": t["num_devices"],
                "argument_bytes": ma["argument_size_in_bytes"],
                "output_bytes": ma["output_size_in_bytes"],
                "alias_bytes": ma["alias_size_in_bytes"],
                "temp_bytes": ma["temp_size_in_bytes"],
                "device_footprint_bytes": footprint(ma),
                "peak_memory_bytes": ma.get("peak_memory_in_bytes"),
                "flops": ca.get("flops"),
                "bytes_accessed": ca.get("bytes accessed"),
                "collectives": sum(c["instructions"] for c in t.get("collective_summary", [])),
            })
    return rows


def mib(n: int) -> str:
    return f"{n / 2**20:.2f}"


TABLE_BEGIN = "<!-- BEGIN TABLE: written by scripts/gen_sharding_corpus.py -->"
TABLE_END = "<!-- END TABLE -->"


def table_markdown(rows: list[dict]) -> str:
    lines = ["| program | candidate | argument | output | alias | temp | footprint | "
             "peak − (arg + out − alias), bytes | GFLOP | collectives |",
             "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        flops = f"{r['flops'] / 1e9:.3f}" if r["flops"] is not None else "-"
        peak = "-"
        if r["peak_memory_bytes"] is not None:
            peak = f"{r['peak_memory_bytes'] - (r['argument_bytes'] + r['output_bytes'] - r['alias_bytes']):,}"
        lines.append(f"| {r['program']} | {r['candidate']} | {mib(r['argument_bytes'])} | "
                     f"{mib(r['output_bytes'])} | {mib(r['alias_bytes'])} | "
                     f"{mib(r['temp_bytes'])} | {mib(r['device_footprint_bytes'])} | {peak} | "
                     f"{flops} | {r['collectives']} |")
    return "\n".join(lines)


def write_summary(out_root: Path, order: list[str]):
    rows = summary_rows(out_root, order)
    write_json(out_root / "summary.json", width=400, obj={
        "note": "one row per program x candidate; 'single' is the one-device compile. "
                "Bytes are per device, from memory_analysis(); device_footprint_bytes = "
                "argument + output - alias + temp; flops and bytes_accessed from "
                "cost_analysis() of the (per-device) compiled module",
        "rows": rows})
    readme = out_root / "README.md"
    if readme.exists():
        text = readme.read_text()
        if TABLE_BEGIN in text and TABLE_END in text:
            head, rest = text.split(TABLE_BEGIN, 1)
            _, tail = rest.split(TABLE_END, 1)
            readme.write_text(head + TABLE_BEGIN + "\n" + table_markdown(rows) + "\n"
                              + TABLE_END + tail)


# ---------------------------------------------------------------------------
# --check: the committed corpus against its own rules (no jax, no yaml)
# ---------------------------------------------------------------------------

ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "int32": 4}


def spec_ways(spec: list, axes: dict) -> list[int]:
    return [1 if e is None else math.prod(axes[a] for a in ([e] if isinstance(e, str) else e))
            for e in spec]


def check_program(prog_dir: Path) -> list[str]:
    errors = []

    def expect(cond: bool, what: str):
        if not cond:
            errors.append(f"{prog_dir.name}: {what}")

    truth = json.loads((prog_dir / "truth.json").read_text())
    args, families, ma = truth["arguments"], truth["families"], truth["memory_analysis"]
    expect((prog_dir / "families.yaml").read_text() == families_yaml(prog_dir.name, families),
           "families.yaml differs from truth.json's families")
    expect(sum(a["bytes"] for a in args) == ma["argument_size_in_bytes"],
           "argument bytes do not add up to argument_size_in_bytes")
    out_sum = sum(o["bytes"] for o in truth["outputs"])
    table = 8 * len(truth["outputs"]) if len(truth["outputs"]) > 1 else 0
    expect(out_sum + table == ma["output_size_in_bytes"],
           "output bytes + tuple table differ from output_size_in_bytes")
    for f in truth["dump_files"] + [truth["jaxpr_file"]]:
        expect((prog_dir / f).is_file(), f"missing {f}")
    donate = [a["name"] for a in args if a["top"] in truth["donated_arguments"]]

    for path in sorted((prog_dir / "candidates").glob("*.truth.json")):
        cand = path.name[:-len(".truth.json")]
        t = json.loads(path.read_text())
        mesh = list(zip(t["mesh"]["axis_names"], t["mesh"]["shape"]))
        expect(CANDIDATES.get(cand) == mesh, f"{cand}: mesh {mesh} is not the candidate's")
        expect(t["mesh"]["devices"] == list(range(math.prod(t["mesh"]["shape"]))),
               f"{cand}: devices not in iota order")
        specs = family_specs(args, families, mesh)
        want = plan_yaml(prog_dir.name, cand, mesh, args, specs, donate)
        plan_path = prog_dir / "candidates" / f"{cand}.plan.yaml"
        expect(plan_path.is_file() and plan_path.read_text() == want,
               f"{cand}: plan file is not what the family rules give")
        axes = dict(mesh)
        m = t["memory_analysis"]
        for a, i in zip(args, t["inputs"]):
            shard = [d // w for d, w in zip(a["shape"], spec_ways(specs[a["name"]], axes))]
            expect(i["name"] == a["name"] and i["shard_shape"] == shard and
                   i["shard_bytes"] == math.prod(shard) * ITEMSIZE[a["dtype"]],
                   f"{cand}: input {a['name']}: shard {i['shard_shape']} of {i['shard_bytes']} "
                   f"bytes where the plan gives {shard}")
        expect(len(t["inputs"]) == len(args), f"{cand}: input count")
        expect(sum(i["shard_bytes"] for i in t["inputs"]) == m["argument_size_in_bytes"],
               f"{cand}: input shards do not add up to argument_size_in_bytes")
        outs = t["outputs"]
        table = 8 * len(outs) if len(outs) > 1 else 0
        expect(sum(o["shard_bytes"] for o in outs) + table == m["output_size_in_bytes"],
               f"{cand}: output shards + tuple table differ from output_size_in_bytes")
        for o, g in zip(outs, truth["outputs"]):
            ceil = [-(-d // w) for d, w in zip(g["shape"], spec_ways(o["spec"], axes))]
            expect(o["shard_shape"] == ceil and o.get("uneven", False) ==
                   any(d % w for d, w in zip(g["shape"], spec_ways(o["spec"], axes))),
                   f"{cand}: output {o['index']} shard {o['shard_shape']} != ceil {ceil}")
        n = math.prod(t["mesh"]["shape"])
        for c in t["collectives"]:
            groups = c["groups"]
            if c["kind"] == "collective-permute":
                continue
            flat = sorted(d for g in groups for d in g)
            expect(flat == list(range(n)) and len({len(g) for g in groups}) == 1,
                   f"{cand}: {c['name']} groups {groups} do not partition the devices")
    return errors


def check_corpus(out_root: Path) -> list[str]:
    """Every invariant the corpus promises, from its files alone."""
    errors = []
    dirs = sorted(p for p in out_root.iterdir() if p.is_dir())
    if not dirs:
        return [f"{out_root}: no programs"]
    for prog_dir in dirs:
        errors += check_program(prog_dir)
    summary = json.loads((out_root / "summary.json").read_text())
    if summary["rows"] != summary_rows(out_root, [r["program"] for r in summary["rows"]]):
        errors.append("summary.json differs from the truth files")
    readme = (out_root / "README.md").read_text()
    if table_markdown(summary["rows"]) not in readme:
        errors.append("README.md's table differs from summary.json")
    return errors


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def program_candidates() -> dict[str, list[str]]:
    """Program name -> its candidates. Imports jax: call only in the driver,
    never in a worker before XLA_FLAGS is set."""
    import sharding_programs
    return {n: BASE_CANDIDATES + list(b().extra_candidates)
            for n, b in sharding_programs.PROGRAMS.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="*", help="program names (default: all)")
    parser.add_argument("--candidates", help="comma-separated candidates (default: all of "
                        "each program); 'single' is the one-device compile")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output root (default: {DEFAULT_OUT})")
    parser.add_argument("--dumps", type=Path,
                        help="keep the full XLA dumps of the sharded compiles under "
                             "DIR/<program>/<candidate> (not part of the corpus)")
    parser.add_argument("--dump-passes", metavar="REGEX",
                        help="with --dumps, also dump the module after each compiler pass "
                             "whose name matches REGEX (XLA's --xla_dump_hlo_pass_re), e.g. "
                             "'shardy.*|spmd-partitioning' to read each instruction's sharding "
                             "as propagation left it")
    parser.add_argument("--list", action="store_true", help="list programs and candidates")
    parser.add_argument("--check", action="store_true",
                        help="check the corpus under --out against its rules (no jax needed): "
                             "plans follow the family rules, shards add up, summary and "
                             "README table are current")
    parser.add_argument("--summary", action="store_true",
                        help="only rewrite summary.json and the README table from the truth files")
    parser.add_argument("--worker", nargs=2, metavar=("PROGRAM", "CANDIDATE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out_root = args.out.resolve()
    dumps = args.dumps.resolve() if args.dumps else None
    if args.dump_passes and not dumps:
        parser.error("--dump-passes needs --dumps DIR")

    if args.worker:
        return worker(args.worker[0], args.worker[1], out_root, dumps, args.dump_passes)
    if args.check:
        errors = check_corpus(out_root)
        for e in errors:
            print(f"error: {e}", file=sys.stderr)
        print(f"{out_root}: {'FAILED' if errors else 'ok'}")
        return 1 if errors else 0
    cands = program_candidates()
    names = list(cands)
    if args.list:
        for n in names:
            print(f"{n}: {', '.join([SINGLE] + cands[n])}")
        return 0
    if args.summary:
        write_summary(out_root, names)
        return 0
    unknown = [n for n in args.programs if n not in names]
    if unknown:
        parser.error(f"unknown program(s): {', '.join(unknown)}; see --list")
    wanted = args.candidates.split(",") if args.candidates else None
    if wanted:
        bad = [c for c in wanted if c != SINGLE and c not in CANDIDATES]
        if bad:
            parser.error(f"unknown candidate(s): {', '.join(bad)}")

    failed = []
    for n in args.programs or names:
        todo = [SINGLE] + cands[n]
        if wanted:
            todo = [c for c in todo if c in wanted]
        for c in todo:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", n, c,
                   "--out", str(out_root)]
            if dumps:
                cmd += ["--dumps", str(dumps)]
            if args.dump_passes:
                cmd += ["--dump-passes", args.dump_passes]
            if subprocess.run(cmd).returncode != 0:
                failed.append(f"{n}/{c}")
    if out_root.exists():
        write_summary(out_root, names)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
