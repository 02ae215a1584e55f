#!/usr/bin/env python3
"""Write samples/jaxpr/: jaxprs printed by the installed JAX (str(make_jaxpr)),
one per construct memplan's jaxpr parser reads, and truth.json with facts
taken from the jaxpr objects themselves (not from the text), for
tests/jaxpr_test.cc:

  eqns        equations of the top-level jaxpr
  all_eqns    equations of every jaxpr, nested ones included, each printed
              jaxpr counted once (shared ones too)
  invars      the top-level input avals as JAX prints them
  constvars   the number of constant binders
  outvars     the number of outputs
  primitives  the top-level equations' primitive names, in order

    XLA_FLAGS=--xla_force_host_platform_device_count=4 python3 scripts/gen_jaxpr_samples.py
"""
import json
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

import jax  # noqa: E402
import jax.extend  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import shard_map  # noqa: E402
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "jaxpr")
CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


@case("mlp_grad")
def mlp_grad():
    def loss(params, x):
        for w, b in params:
            x = jax.nn.relu(x @ w + b)
        return x.sum()
    params = [(jnp.ones((8, 16)), jnp.ones(16)), (jnp.ones((16, 4)), jnp.ones(4))]
    return jax.make_jaxpr(jax.grad(loss))(params, jnp.ones((2, 8)))


@case("scan_while_cond")
def scan_while_cond():
    def f(c, xs, p):
        c, ys = jax.lax.scan(lambda c, x: (c * x + 1.0, c), c, xs)
        i, v = jax.lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 2.0), (0, ys))
        return jax.lax.cond(p, lambda v: v + 1, lambda v: v - 1, v), i
    return jax.make_jaxpr(f)(1.0, jnp.ones(5), True)


@case("remat_custom_vjp")
def remat_custom_vjp():
    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)
    cv.defvjp(lambda x: (jnp.sin(x), x), lambda r, g: (g * jnp.cos(r),))

    @jax.checkpoint
    def block(x):
        return jnp.tanh(cv(x) @ jnp.ones((4, 4), jnp.bfloat16))
    return jax.make_jaxpr(lambda x: jax.grad(lambda y: block(y).astype(jnp.float32).sum())(x))(
        jnp.ones((2, 4), jnp.bfloat16))


@case("sharding")
def sharding():
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))
    inner = jax.jit(lambda a, b: a @ b, donate_argnums=0,
                    in_shardings=(NamedSharding(mesh, P("x", None)), None))

    def f(a, b):
        c = inner(a, b)
        c = jax.lax.with_sharding_constraint(c, NamedSharding(mesh, P("x", None)))
        return shard_map(lambda t: jax.lax.psum(t, "x"), mesh=mesh, in_specs=P("x", "y"),
                         out_specs=P(None, "y"))(c)
    return jax.make_jaxpr(f)(jnp.ones((4, 4)), jnp.ones((4, 4)))


@case("consts_gather_conv")
def consts_gather_conv():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    def f(x, w, i):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME")
        t = jnp.asarray(table)
        return y.sum() + t[i].sum() + jnp.take(t, jnp.array([0, 1]), axis=0).sum()
    return jax.make_jaxpr(f)(jnp.ones((1, 3, 8, 8)), jnp.ones((4, 3, 3, 3)), 2)


@case("shared_layers")
def shared_layers():
    @jax.jit
    def layer(x, w):
        for _ in range(6):
            x = jnp.tanh(x @ w) * 2 + 1
        return x
    return jax.make_jaxpr(lambda x, w: layer(layer(x, w), w))(jnp.ones((4, 4)), jnp.ones((4, 4)))


def count_eqns(jaxpr, seen):
    if id(jaxpr) in seen:
        return 0
    seen.add(id(jaxpr))
    n = len(jaxpr.eqns)
    for eqn in jaxpr.eqns:
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            n += count_eqns(sub, seen)
    return n


def main():
    os.makedirs(OUT, exist_ok=True)
    truth = {"jax": jax.__version__}
    for name, fn in CASES.items():
        closed = fn()
        with open(os.path.join(OUT, name + ".jaxpr"), "w") as f:
            f.write(str(closed) + "\n")
        with open(os.path.join(OUT, name + ".source_info.jaxpr"), "w") as f:
            # Source paths relative to the repository, so reruns elsewhere match.
            root = os.path.abspath(os.path.join(OUT, "..", "..")) + os.sep
            text = closed.jaxpr.pretty_print(source_info=True, name_stack=True)
            f.write(text.replace(root, "") + "\n")
        j = closed.jaxpr
        truth[name] = {
            "eqns": len(j.eqns),
            "all_eqns": count_eqns(j, set()),
            "invars": [v.aval.str_short(short_dtypes=True) for v in j.invars],
            "constvars": len(j.constvars),
            "outvars": len(j.outvars),
            "primitives": [e.primitive.name for e in j.eqns],
        }
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
