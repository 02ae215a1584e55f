"""The JAX programs of memplan's sharded ground-truth corpus (samples/sharded).

Read by scripts/gen_sharding_corpus.py, which compiles each program once on
one device and once per candidate sharding on 8 emulated CPU devices. This
module holds only model code and the per-program inputs of the family rules
(which arguments are data, the tensor-parallel and expert-parallel layouts);
the rules themselves and the driver live in gen_sharding_corpus.py.

The source lines of this file appear in the HLO metadata of the committed
dumps (the driver's own frames are excluded), so editing it changes the
dumps: rerun the generator afterwards.

Conventions every program follows, because the family rules rely on them:

* data arguments (inputs and labels) have the batch as their leading
  dimension;
* weights are stored [in, out] (dense), HWIO (convolution kernels), with any
  stacking dimension (layers of a scan, experts of an MoE) in front, so that
  a column-parallel weight is sharded on its last dimension and a
  row-parallel weight on its second-to-last;
* every argument is used by the program (JAX would prune an unused one and
  shift the entry parameter numbers).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Program:
    name: str                     # directory under samples/sharded
    description: str
    fn: Callable[..., Any]        # traced function; __name__ gives jit_<name>
    args: tuple                   # abstract arguments (ShapeDtypeStruct pytrees)
    arg_names: tuple[str, ...]    # the Python parameter names of fn, in order
    data: tuple[str, ...]         # top-level arguments that are data (batch-leading)
    tp: dict[str, str]            # argument glob -> colwise | rowwise
    ep: tuple[str, ...] = ()      # argument globs whose leading dim is the expert dim
    donate_argnums: tuple[int, ...] = ()
    extra_candidates: tuple[str, ...] = ()
    config: dict = dataclasses.field(default_factory=dict)


PROGRAMS: dict[str, Callable[[], Program]] = {}


def program(name: str):
    def register(builder):
        if name in PROGRAMS:
            raise ValueError(f"duplicate program {name}")
        PROGRAMS[name] = builder
        return builder
    return register


def sds(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(tuple(shape), dtype)


def sgd(params, grads, lr=0.01):
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def layer_norm(x, scale=None, bias=None, eps=1e-5):
    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axis=-1, keepdims=True)
    y = (x32 - mean) * jax.lax.rsqrt(var + eps)
    if scale is not None:
        y = y * scale.astype(jnp.float32)
    if bias is not None:
        y = y + bias.astype(jnp.float32)
    return y.astype(x.dtype)


def mse(y, target):
    return jnp.mean(jnp.square((y - target).astype(jnp.float32)))


# ---------------------------------------------------------------------------
# 1. MLP train step
# ---------------------------------------------------------------------------

@program("mlp_train_step")
def _mlp() -> Program:
    batch, d_model, d_ff = 256, 512, 2048
    # Two MLP blocks (up then down projection), like a transformer's FFNs.
    dims = [(d_model, d_ff), (d_ff, d_model), (d_model, d_ff), (d_ff, d_model)]
    params = [(sds((i, o)), sds((o,))) for i, o in dims]
    x = sds((batch, d_model))
    y = sds((batch, d_model))

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i % 2 == 0:
                h = jax.nn.relu(h)
        return mse(h, y)

    def mlp_train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return sgd(params, grads), loss

    return Program(
        "mlp_train_step",
        "two MLP blocks (512-2048-512, twice; ReLU), MSE loss, value_and_grad, SGD; f32",
        mlp_train_step, (params, x, y), ("params", "x", "y"),
        data=("x", "y"),
        tp={"params[0][?]": "colwise", "params[1][0]": "rowwise",
            "params[2][?]": "colwise", "params[3][0]": "rowwise"},
        config=dict(batch=batch, d_model=d_model, d_ff=d_ff, blocks=2, dtype="float32"))


# ---------------------------------------------------------------------------
# 2./3. Transformer block
# ---------------------------------------------------------------------------

def transformer_params(d_model, d_ff, dtype, biases):
    """GPT-2 style (LayerNorm scale and bias, biases on every linear layer),
    or OLMo style (non-parametric LayerNorm, no biases)."""
    p = {
        "w_q": sds((d_model, d_model), dtype), "w_k": sds((d_model, d_model), dtype),
        "w_v": sds((d_model, d_model), dtype), "w_o": sds((d_model, d_model), dtype),
        "w_fc1": sds((d_model, d_ff), dtype), "w_fc2": sds((d_ff, d_model), dtype),
    }
    if biases:
        for n in ("ln1_scale", "ln1_bias", "ln2_scale", "ln2_bias",
                  "b_q", "b_k", "b_v", "b_o", "b_fc2"):
            p[n] = sds((d_model,), dtype)
        p["b_fc1"] = sds((d_ff,), dtype)
    return p


# Megatron layout: q, k, v and fc1 column-parallel (with their biases),
# w_o and fc2 row-parallel; LayerNorms and the row-parallel biases replicated.
TRANSFORMER_TP = {
    "*['w_q']": "colwise", "*['w_k']": "colwise", "*['w_v']": "colwise",
    "*['b_q']": "colwise", "*['b_k']": "colwise", "*['b_v']": "colwise",
    "*['w_o']": "rowwise",
    "*['w_fc1']": "colwise", "*['b_fc1']": "colwise",
    "*['w_fc2']": "rowwise",
}


def transformer_block(p, x, num_heads):
    b, s, d = x.shape
    hd = d // num_heads

    def linear(h, w, bias):
        y = h @ p[w]
        return y + p[bias] if bias in p else y

    h = layer_norm(x, p.get("ln1_scale"), p.get("ln1_bias"))
    q, k, v = linear(h, "w_q", "b_q"), linear(h, "w_k", "b_k"), linear(h, "w_v", "b_v")

    def heads(t):
        return t.reshape(b, s, num_heads, hd)

    q, k, v = heads(q), heads(k), heads(v)
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(jnp.asarray(hd, x.dtype))
    mask = jnp.tril(jnp.ones((s, s), dtype=bool))
    logits = jnp.where(mask, logits, jnp.asarray(-1e4, logits.dtype))
    probs = jax.nn.softmax(logits.astype(jnp.float32), axis=-1).astype(x.dtype)
    attn = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, d)
    x = x + linear(attn, "w_o", "b_o")
    h = layer_norm(x, p.get("ln2_scale"), p.get("ln2_bias"))
    h = jax.nn.gelu(linear(h, "w_fc1", "b_fc1"))
    return x + linear(h, "w_fc2", "b_fc2")


@program("transformer_fwd")
def _transformer_fwd() -> Program:
    # GPT-2 small's block sizes: 12 heads of 64. Under tp8 the 768 q/k/v
    # columns split into 96 per device, 1.5 heads: the head dimension (12) does
    # not divide by 8. The LM head has a vocabulary of 1001 tokens, padded to
    # 1024 columns in the weight (as GPT-2 code pads 50257 to 50304) and
    # sliced back to 1001 in the logits: 1001 does not divide by 8 either, so
    # XLA pads the sharded logits (tiles of 126, 8 x 126 = 1008).
    batch, seq, d_model, num_heads, d_ff = 8, 128, 768, 12, 3072
    vocab, vocab_padded = 1001, 1024
    dtype = jnp.bfloat16
    params = transformer_params(d_model, d_ff, dtype, biases=True)
    params["lnf_scale"] = sds((d_model,), dtype)
    params["lnf_bias"] = sds((d_model,), dtype)
    params["w_vocab"] = sds((d_model, vocab_padded), dtype)
    x = sds((batch, seq, d_model), dtype)

    def transformer_fwd(params, x):
        h = transformer_block(params, x, num_heads)
        h = layer_norm(h, params["lnf_scale"], params["lnf_bias"])
        return (h @ params["w_vocab"])[..., :vocab]

    return Program(
        "transformer_fwd",
        "one pre-LN GPT-2-small transformer block (12 causal heads of 64, GELU MLP 3072) "
        "and a final LayerNorm + LM head over a vocabulary of 1001 (weight padded to 1024 "
        "columns, logits sliced to 1001), forward only (inference); bf16",
        transformer_fwd, (params, x), ("params", "x"),
        data=("x",), tp={**TRANSFORMER_TP, "params['w_vocab']": "colwise"},
        config=dict(batch=batch, seq=seq, d_model=d_model, num_heads=num_heads,
                    d_ff=d_ff, vocab=vocab, vocab_padded=vocab_padded, dtype="bfloat16"))


def adam(params, grads, opt_state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    count = opt_state["count"] + 1
    mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt_state["mu"], grads)
    nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g),
                                opt_state["nu"], grads)
    t = count.astype(jnp.float32)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    new_params = jax.tree_util.tree_map(
        lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps), params, mu, nu)
    return new_params, {"count": count, "mu": mu, "nu": nu}


@program("transformer_train_adam")
def _transformer_train_adam() -> Program:
    # d_model 512: w_q, w_k, w_v and w_o have exactly 2^18 elements, the FSDP
    # rule's threshold (sharded: the rule is "at least 2^18").
    batch, seq, d_model, num_heads, d_ff = 8, 128, 512, 8, 2048
    params = transformer_params(d_model, d_ff, jnp.float32, biases=False)
    opt_state = {"count": sds((), jnp.int32),
                 "mu": dict(params), "nu": dict(params)}
    x = sds((batch, seq, d_model))
    y = sds((batch, seq, d_model))

    def loss_fn(params, x, y):
        return mse(transformer_block(params, x, num_heads), y)

    def transformer_train_adam(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new_params, new_state = adam(params, grads, opt_state)
        return new_params, new_state, loss

    return Program(
        "transformer_train_adam",
        "one OLMo-style pre-LN transformer block (non-parametric LayerNorm, no biases; 8 "
        "causal heads of 64, d_model 512, GELU MLP 2048), MSE loss, value_and_grad, Adam "
        "written in jax.numpy; params and optimizer state donated; f32",
        transformer_train_adam, (params, opt_state, x, y),
        ("params", "opt_state", "x", "y"),
        data=("x", "y"), tp=TRANSFORMER_TP, donate_argnums=(0, 1),
        config=dict(batch=batch, seq=seq, d_model=d_model, num_heads=num_heads,
                    d_ff=d_ff, dtype="float32", optimizer="adam(lr=1e-3, b1=0.9, "
                    "b2=0.999, eps=1e-8)", donate_argnums=[0, 1]))


# ---------------------------------------------------------------------------
# 4. Conv net train step
# ---------------------------------------------------------------------------

@program("convnet_train_step")
def _convnet() -> Program:
    batch, hw, c_in, classes = 64, 32, 3, 10
    convs = [("conv1", 3, c_in, 64, 1), ("conv2", 3, 64, 128, 2), ("conv3", 3, 128, 256, 2)]
    params = {}
    for name, k, ci, co, _ in convs:
        params[name] = {"kernel": sds((k, k, ci, co)), "bias": sds((co,))}
    flat = (hw // 4) * (hw // 4) * 256
    params["dense1"] = {"kernel": sds((flat, 256)), "bias": sds((256,))}
    params["dense2"] = {"kernel": sds((256, classes)), "bias": sds((classes,))}
    x = sds((batch, hw, hw, c_in))
    labels = sds((batch,), jnp.int32)

    def loss_fn(params, x, labels):
        h = x
        for name, _, _, _, stride in convs:
            h = jax.lax.conv_general_dilated(
                h, params[name]["kernel"], (stride, stride), "SAME",
                dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = jax.nn.relu(h + params[name]["bias"])
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ params["dense1"]["kernel"] + params["dense1"]["bias"])
        logits = h @ params["dense2"]["kernel"] + params["dense2"]["bias"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    def convnet_train_step(params, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        return sgd(params, grads), loss

    return Program(
        "convnet_train_step",
        "NHWC conv net: three 3x3 convs (64, 128/2, 256/2 channels; ReLU), dense 16384-256-10 "
        "head, softmax cross-entropy on int32 labels, value_and_grad, SGD; f32",
        convnet_train_step, (params, x, labels), ("params", "x", "labels"),
        data=("x", "labels"),
        # Output channels of every conv kernel (HWIO: O, the last dim) and
        # their biases; the dense head stays replicated.
        tp={"params['conv?']['kernel']": "colwise", "params['conv?']['bias']": "colwise"},
        config=dict(batch=batch, image=[hw, hw, c_in], classes=classes,
                    convs=[dict(name=n, kernel=k, c_in=ci, c_out=co, stride=s)
                           for n, k, ci, co, s in convs],
                    dense=[flat, 256, classes], dtype="float32"))


# ---------------------------------------------------------------------------
# 5. MoE layer with expert parallelism
# ---------------------------------------------------------------------------

@program("moe_train_step")
def _moe() -> Program:
    # GShard-style top-2 routing with per-group capacity; a group is one
    # sequence, so the dispatch never crosses the batch dimension.
    batch, seq, d_model, d_ff, experts, top_k = 8, 256, 512, 1024, 8, 2
    capacity = math.ceil(top_k * seq / experts * 1.25)
    params = {"router": sds((d_model, experts)),
              "w_in": sds((experts, d_model, d_ff)),
              "w_out": sds((experts, d_ff, d_model))}
    x = sds((batch, seq, d_model))
    y = sds((batch, seq, d_model))

    def moe_layer(params, x):
        gates = jax.nn.softmax(x @ params["router"], axis=-1)           # [g,s,e]
        top_gates, top_idx = jax.lax.top_k(gates, top_k)                # [g,s,k]
        masks = jax.nn.one_hot(top_idx, experts, dtype=x.dtype)         # [g,s,k,e]
        # Position of each token in its expert's buffer: choice 0 first, then 1.
        flat = masks.transpose(0, 2, 1, 3).reshape(x.shape[0], top_k * seq, experts)
        pos = (jnp.cumsum(flat, axis=1) - 1.0) * flat
        pos = pos.reshape(x.shape[0], top_k, seq, experts).transpose(0, 2, 1, 3)
        keep = masks * (pos < capacity)
        slots = jax.nn.one_hot(jnp.sum(pos * keep, axis=-1), capacity, dtype=x.dtype)
        dispatch = jnp.einsum("gske,gskc->gsec", keep, slots)            # [g,s,e,c]
        combine = jnp.einsum("gsk,gske,gskc->gsec", top_gates, keep, slots)
        expert_in = jnp.einsum("gsec,gsd->egcd", dispatch, x)
        h = jax.nn.relu(jnp.einsum("egcd,edf->egcf", expert_in, params["w_in"]))
        expert_out = jnp.einsum("egcf,efd->egcd", h, params["w_out"])
        out = jnp.einsum("gsec,egcd->gsd", combine, expert_out)
        # Switch-style load-balancing loss.
        frac = jnp.mean(masks[:, :, 0, :], axis=(0, 1))
        prob = jnp.mean(gates, axis=(0, 1))
        return x + out, experts * jnp.sum(frac * prob)

    def loss_fn(params, x, y):
        out, aux = moe_layer(params, x)
        return mse(out, y) + 0.01 * aux

    def moe_train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return sgd(params, grads), loss

    return Program(
        "moe_train_step",
        f"MoE layer: softmax router, top-{top_k} of {experts} experts with per-sequence "
        f"capacity {capacity} (one-hot dispatch/combine einsums), expert FFNs "
        f"{d_model}-{d_ff}-{d_model} with a leading expert dim, load-balancing loss, "
        "value_and_grad, SGD; f32",
        moe_train_step, (params, x, y), ("params", "x", "y"),
        data=("x", "y"),
        tp={"params['w_in']": "colwise", "params['w_out']": "rowwise"},
        ep=("params['w_in']", "params['w_out']"),
        extra_candidates=("ep8", "dp2_ep4"),
        config=dict(batch=batch, seq=seq, d_model=d_model, d_ff=d_ff, experts=experts,
                    top_k=top_k, capacity=capacity, capacity_factor=1.25, dtype="float32"))


# ---------------------------------------------------------------------------
# 6. lax.scan over a stack of layers
# ---------------------------------------------------------------------------

@program("scan_layers_train_step")
def _scan_layers() -> Program:
    batch, d_model, d_ff, layers = 128, 512, 2048, 6
    params = {"w1": sds((layers, d_model, d_ff)), "b1": sds((layers, d_ff)),
              "w2": sds((layers, d_ff, d_model)), "b2": sds((layers, d_model))}
    x = sds((batch, d_model))
    y = sds((batch, d_model))

    def loss_fn(params, x, y):
        def layer(h, p):
            return h + jax.nn.relu(h @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"], None
        h, _ = jax.lax.scan(layer, x, params)
        return mse(h, y)

    def scan_layers_train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return sgd(params, grads), loss

    return Program(
        "scan_layers_train_step",
        f"lax.scan over a stack of {layers} residual MLP layers ({d_model}-{d_ff}-{d_model}, "
        "weights with a leading layer dim), MSE loss, value_and_grad (forward and backward "
        "while loops), SGD; f32",
        scan_layers_train_step, (params, x, y), ("params", "x", "y"),
        data=("x", "y"),
        tp={"params['w1']": "colwise", "params['b1']": "colwise",
            "params['w2']": "rowwise"},
        config=dict(batch=batch, d_model=d_model, d_ff=d_ff, layers=layers, dtype="float32"))


# ---------------------------------------------------------------------------
# 7. A small GPT language model train step (held out: written after the
#    predictor's rules, to measure them on a program they were not read from)
# ---------------------------------------------------------------------------

GPT_TP = {**TRANSFORMER_TP, "*['wte']": "rowwise"}


@program("gpt_lm_train_step")
def _gpt_lm() -> Program:
    # Two unrolled GPT-2 style blocks, a token embedding looked up by index
    # (a gather) and tied to the LM head (its transpose), learned positions,
    # softmax cross-entropy against integer labels, SGD with momentum; the
    # parameters and the momentum donated. Vocabulary-parallel under tp: the
    # embedding is sharded on its vocabulary dimension.
    batch, seq, d_model, num_heads, d_ff, vocab, layers = 8, 128, 256, 4, 1024, 4096, 2
    blocks = [transformer_params(d_model, d_ff, jnp.float32, biases=True)
              for _ in range(layers)]
    params = {"wte": sds((vocab, d_model)), "wpe": sds((seq, d_model)),
              "blocks": blocks, "lnf_scale": sds((d_model,)), "lnf_bias": sds((d_model,))}
    momentum = jax.tree_util.tree_map(lambda s: s, params)
    tokens = sds((batch, seq), jnp.int32)
    labels = sds((batch, seq), jnp.int32)

    def loss_fn(params, tokens, labels):
        h = params["wte"][tokens] + params["wpe"][None, :, :]
        for p in params["blocks"]:
            h = transformer_block(p, h, num_heads)
        h = layer_norm(h, params["lnf_scale"], params["lnf_bias"])
        logits = h @ params["wte"].T
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))

    def gpt_lm_train_step(params, momentum, tokens, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, labels)
        momentum = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, momentum, grads)
        params = jax.tree_util.tree_map(lambda p, m: p - 1e-3 * m, params, momentum)
        return params, momentum, loss

    return Program(
        "gpt_lm_train_step",
        f"a {layers}-block GPT-2 style language model ({num_heads} causal heads, d_model "
        f"{d_model}, GELU MLP {d_ff}), token embedding gathered by index and tied to the LM "
        f"head over a vocabulary of {vocab}, learned positions, softmax cross-entropy on "
        "integer labels, value_and_grad, SGD with momentum; params and momentum donated; f32",
        gpt_lm_train_step, (params, momentum, tokens, labels),
        ("params", "momentum", "tokens", "labels"),
        data=("tokens", "labels"), tp=GPT_TP, donate_argnums=(0, 1),
        config=dict(batch=batch, seq=seq, d_model=d_model, num_heads=num_heads, d_ff=d_ff,
                    vocab=vocab, layers=layers, dtype="float32",
                    optimizer="sgd with momentum 0.9, lr 1e-3", donate_argnums=[0, 1]))


# ---------------------------------------------------------------------------
# 8. A Llama-style train step (held out, like program 7)
# ---------------------------------------------------------------------------

LLAMA_TP = {
    "*['wq']": "colwise", "*['wk']": "colwise", "*['wv']": "colwise",
    "*['w_gate']": "colwise", "*['w_up']": "colwise",
    "*['wo']": "rowwise", "*['w_down']": "rowwise",
}


def rms_norm(x, scale, eps=1e-6):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + eps) * scale


def rotary(t, positions):
    # t: [b, s, h, hd]; rotate the two halves of each head by position.
    half = t.shape[-1] // 2
    freqs = 1.0 / (10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
    angles = positions[:, None].astype(jnp.float32) * freqs[None, :]        # [s, half]
    cos, sin = jnp.cos(angles)[None, :, None, :], jnp.sin(angles)[None, :, None, :]
    t1, t2 = t[..., :half], t[..., half:]
    return jnp.concatenate([t1 * cos - t2 * sin, t1 * sin + t2 * cos], axis=-1)


@program("llama_train_step")
def _llama() -> Program:
    # Two pre-RMSNorm blocks with grouped-query attention (8 query heads
    # sharing 4 key/value heads, rotary positions) and a SwiGLU MLP, each
    # block rematerialised (jax.checkpoint), MSE loss, Adam; params and
    # optimizer state donated.
    batch, seq, d_model, heads, kv_heads, d_ff, layers = 8, 128, 256, 8, 4, 1024, 2
    hd = d_model // heads

    def block_params():
        return {"attn_norm": sds((d_model,)), "mlp_norm": sds((d_model,)),
                "wq": sds((d_model, heads * hd)), "wk": sds((d_model, kv_heads * hd)),
                "wv": sds((d_model, kv_heads * hd)), "wo": sds((heads * hd, d_model)),
                "w_gate": sds((d_model, d_ff)), "w_up": sds((d_model, d_ff)),
                "w_down": sds((d_ff, d_model))}

    params = {"blocks": [block_params() for _ in range(layers)], "final_norm": sds((d_model,))}
    opt_state = {"count": sds((), jnp.int32), "mu": jax.tree_util.tree_map(lambda s: s, params),
                 "nu": jax.tree_util.tree_map(lambda s: s, params)}
    x = sds((batch, seq, d_model))
    y = sds((batch, seq, d_model))

    def block(p, h):
        b, s, _ = h.shape
        positions = jnp.arange(s)
        a = rms_norm(h, p["attn_norm"])
        q = rotary((a @ p["wq"]).reshape(b, s, heads, hd), positions)
        k = rotary((a @ p["wk"]).reshape(b, s, kv_heads, hd), positions)
        v = (a @ p["wv"]).reshape(b, s, kv_heads, hd)
        k = jnp.repeat(k, heads // kv_heads, axis=2)
        v = jnp.repeat(v, heads // kv_heads, axis=2)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(jnp.float32(hd))
        mask = jnp.tril(jnp.ones((s, s), dtype=bool))
        probs = jax.nn.softmax(jnp.where(mask, logits, -1e9), axis=-1)
        attn = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, heads * hd)
        h = h + attn @ p["wo"]
        m = rms_norm(h, p["mlp_norm"])
        return h + (jax.nn.silu(m @ p["w_gate"]) * (m @ p["w_up"])) @ p["w_down"]

    def loss_fn(params, x, y):
        h = x
        for p in params["blocks"]:
            h = jax.checkpoint(block)(p, h)
        return mse(rms_norm(h, params["final_norm"]), y)

    def llama_train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new_params, new_state = adam(params, grads, opt_state)
        return new_params, new_state, loss

    return Program(
        "llama_train_step",
        f"{layers} Llama-style blocks (RMSNorm, {heads} query heads sharing {kv_heads} "
        f"key/value heads with rotary positions, SwiGLU MLP {d_ff}), each rematerialised "
        "(jax.checkpoint), MSE loss, value_and_grad, Adam; params and optimizer state "
        "donated; f32",
        llama_train_step, (params, opt_state, x, y), ("params", "opt_state", "x", "y"),
        data=("x", "y"), tp=LLAMA_TP, donate_argnums=(0, 1),
        config=dict(batch=batch, seq=seq, d_model=d_model, heads=heads, kv_heads=kv_heads,
                    d_ff=d_ff, layers=layers, dtype="float32", remat="per block",
                    optimizer="adam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8)",
                    donate_argnums=[0, 1]))


# ---------------------------------------------------------------------------
# 9. A mixed-precision train step (held out, like programs 7 and 8)
# ---------------------------------------------------------------------------

@program("bf16_mixed_train_step")
def _bf16_mixed() -> Program:
    # Two OLMo-style blocks computed in bf16 from f32 master weights (each
    # weight cast to bf16 where it is read), the loss in f32, Adam on the
    # f32 weights; params and optimizer state donated.
    batch, seq, d_model, num_heads, d_ff, layers = 8, 128, 512, 8, 2048, 2
    blocks = [transformer_params(d_model, d_ff, jnp.float32, biases=False)
              for _ in range(layers)]
    params = {"blocks": blocks}
    opt_state = {"count": sds((), jnp.int32), "mu": jax.tree_util.tree_map(lambda s: s, params),
                 "nu": jax.tree_util.tree_map(lambda s: s, params)}
    x = sds((batch, seq, d_model))
    y = sds((batch, seq, d_model))

    def loss_fn(params, x, y):
        h = x.astype(jnp.bfloat16)
        for p in params["blocks"]:
            h = transformer_block(jax.tree_util.tree_map(lambda w: w.astype(jnp.bfloat16), p),
                                  h, num_heads)
        return mse(h, y)

    def bf16_mixed_train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new_params, new_state = adam(params, grads, opt_state)
        return new_params, new_state, loss

    return Program(
        "bf16_mixed_train_step",
        f"{layers} OLMo-style blocks ({num_heads} causal heads, d_model {d_model}, GELU MLP "
        f"{d_ff}) computed in bf16 from f32 master weights, MSE loss in f32, value_and_grad, "
        "Adam on the f32 weights; params and optimizer state donated",
        bf16_mixed_train_step, (params, opt_state, x, y), ("params", "opt_state", "x", "y"),
        data=("x", "y"), tp=TRANSFORMER_TP, donate_argnums=(0, 1),
        config=dict(batch=batch, seq=seq, d_model=d_model, num_heads=num_heads, d_ff=d_ff,
                    layers=layers, dtype="float32 master weights, bfloat16 compute",
                    optimizer="adam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8)",
                    donate_argnums=[0, 1]))
