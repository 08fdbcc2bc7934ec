"""MXNet 1.9.1's fused multi-head attention matmuls on interleaved projections
(``_contrib_interleaved_matmul_selfatt_qk``, ``..._selfatt_valatt``, ``..._encdec_qk``,
``..._encdec_valatt``) and ``_contrib_div_sqrt_dim`` (``mx.nd.contrib.div_sqrt_dim``).

Layouts (``S`` sequence length, ``B`` batch, ``H = heads``, ``D`` head size): the projections are
sequence-major, with each head's parts interleaved along the last axis:

* selfatt_qk(queries_keys_values (S, B, H*3*D)) -> (B*H, S, S): per head ``[q | k | v]``;
  ``q / sqrt(D) @ k^T``.
* selfatt_valatt(queries_keys_values, attention (B*H, S, S)) -> (S, B, H*D): ``attention @ v``.
* encdec_qk(queries (Sq, B, H*D), keys_values (Sk, B, H*2*D)) -> (B*H, Sq, Sk): per head ``[k | v]``.
* encdec_valatt(keys_values (Sk, B, H*2*D), attention (B*H, Sq, Sk)) -> (Sq, B, H*D).

The batch index of the (B*H, ...) matrices is ``b * H + h``. Gradients are written with registered
ops (reshape, slice_axis, transpose, batch_dot, stack, div_sqrt_dim), so they are differentiable
and traceable themselves.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> qkv = mx.nd.array(np.arange(12).reshape(1, 1, 12) / 10)    # S=1, B=1, 2 heads of D=2
    >>> mx.nd.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2).asnumpy().astype('float64').round(4).tolist()
    [[[0.0212]], [[0.7849]]]
    >>> mx.nd.contrib.div_sqrt_dim(mx.nd.ones((1, 4))).asnumpy().tolist()
    [[0.5, 0.5, 0.5, 0.5]]
"""
import numpy as np

from .attrs import Attr
from .infer import InferError, same_shape
from .registry import OpDef, register

__all__ = []

_HEADS = {"heads": Attr("int", doc="number of attention heads")}


# ---- array helpers (forward) ------------------------------------------------------------------
def _split_x(x, heads, parts, part):
    """(S, B, H*parts*D) -> part ``part`` of every head as (B*H, S, D)."""
    S, B, _ = x.shape
    t = x.reshape(S, B, heads, parts, -1)[:, :, :, part, :]
    return t.transpose(1, 2, 0, 3).reshape(B * heads, S, -1)


def _merge_x(y, heads):
    """(B*H, S, D) -> (S, B, H*D)."""
    BH, S, D = y.shape
    return y.reshape(BH // heads, heads, S, D).transpose(2, 0, 1, 3).reshape(S, BH // heads, heads * D)


def _scaled(q):
    return q * (q.dtype.type(1) / np.sqrt(q.dtype.type(q.shape[-1])))


# ---- the same with registered ops (gradients) -------------------------------------------------
def _split_f(F, x, heads, parts, part):
    t = F.reshape(x, shape=(0, 0, heads, parts, -1))
    t = F.reshape(F.slice_axis(t, axis=3, begin=part, end=part + 1), shape=(0, 0, 0, -1))
    return F.reshape(F.transpose(t, axes=(1, 2, 0, 3)), shape=(-1, 0, 0), reverse=True)


def _merge_f(F, y, heads):
    """(B*H, S, D) -> (S, B, H, D)."""
    return F.transpose(F.reshape(y, shape=(-1, heads, 0, 0), reverse=True), axes=(2, 0, 1, 3))


def _interleave_f(F, parts):
    """(S, B, H, D) parts, ``None`` for zeros -> (S, B, H*len(parts)*D)."""
    zero = next(F.zeros_like(p) for p in parts if p is not None)
    parts = [zero if p is None else p for p in parts]
    return F.reshape(F.stack(*parts, axis=3, num_args=len(parts)), shape=(0, 0, -1))


# ---- shapes -----------------------------------------------------------------------------------
def _check3(i, s, what):
    if s is not None and len(s) != 3:
        raise InferError(i, what, tuple(s))


def _proj_dims(i, s, heads, parts):
    _check3(i, s, f"(seq_len, batch, heads * {parts} * head_dim)")
    if s is not None and s[2] % (heads * parts):
        raise InferError(i, f"a last axis divisible by heads * {parts} = {heads * parts}", tuple(s))


def _selfatt_qk_infer(a, in_shapes):
    s, h = in_shapes[0], a["heads"]
    _proj_dims(0, s, h, 3)
    return [None if s is None else (s[1] * h, s[0], s[0])]


def _selfatt_valatt_infer(a, in_shapes):
    s, att = in_shapes
    h = a["heads"]
    _proj_dims(0, s, h, 3)
    _check3(1, att, "(batch * heads, seq_len, seq_len)")
    if s is None:
        return [None]
    want = (s[1] * h, s[0], s[0])
    if att is not None and tuple(att) != want:
        raise InferError(1, str(want), tuple(att))
    return [(s[0], s[1], s[2] // 3)]


def _encdec_qk_infer(a, in_shapes):
    q, kv = in_shapes
    h = a["heads"]
    _proj_dims(0, q, h, 1)
    _proj_dims(1, kv, h, 2)
    if q is None or kv is None:
        return [None]
    if q[1] != kv[1] or q[2] * 2 != kv[2]:
        raise InferError(1, f"(seq_len, {q[1]}, {q[2] * 2})", tuple(kv))
    return [(q[1] * h, q[0], kv[0])]


def _encdec_valatt_infer(a, in_shapes):
    kv, att = in_shapes
    h = a["heads"]
    _proj_dims(0, kv, h, 2)
    _check3(1, att, "(batch * heads, query_len, key_len)")
    if kv is None or att is None:
        return [None]
    if att[0] != kv[1] * h or att[2] != kv[0]:
        raise InferError(1, f"({kv[1] * h}, query_len, {kv[0]})", tuple(att))
    return [(att[1], kv[1], kv[2] // 2)]


# ---- computes and gradients ------------------------------------------------------------------
def _selfatt_qk(ctx, a, qkv):
    h = a["heads"]
    q, k = _split_x(qkv, h, 3, 0), _split_x(qkv, h, 3, 1)
    return ctx.xp.matmul(_scaled(q), k.transpose(0, 2, 1))


def _selfatt_qk_grad(F, a, inputs, outputs, ograds):
    h, og = a["heads"], ograds[0]
    q, k = (_split_f(F, inputs[0], h, 3, i) for i in (0, 1))
    dq = F.batch_dot(og, F.contrib.div_sqrt_dim(k))
    dk = F.batch_dot(og, F.contrib.div_sqrt_dim(q), transpose_a=True)
    return [_interleave_f(F, [_merge_f(F, dq, h), _merge_f(F, dk, h), None])]


def _selfatt_valatt(ctx, a, qkv, att):
    h = a["heads"]
    return _merge_x(ctx.xp.matmul(att, _split_x(qkv, h, 3, 2)), h)


def _selfatt_valatt_grad(F, a, inputs, outputs, ograds):
    h = a["heads"]
    qkv, att = inputs
    v = _split_f(F, qkv, h, 3, 2)
    og = _split_f(F, ograds[0], h, 1, 0)
    datt = F.batch_dot(og, v, transpose_b=True)
    dv = F.batch_dot(att, og, transpose_a=True)
    return [_interleave_f(F, [None, None, _merge_f(F, dv, h)]), datt]


def _encdec_qk(ctx, a, queries, kv):
    h = a["heads"]
    q, k = _split_x(queries, h, 1, 0), _split_x(kv, h, 2, 0)
    return ctx.xp.matmul(_scaled(q), k.transpose(0, 2, 1))


def _encdec_qk_grad(F, a, inputs, outputs, ograds):
    h, og = a["heads"], ograds[0]
    q, k = _split_f(F, inputs[0], h, 1, 0), _split_f(F, inputs[1], h, 2, 0)
    dq = F.batch_dot(og, F.contrib.div_sqrt_dim(k))
    dk = F.batch_dot(og, F.contrib.div_sqrt_dim(q), transpose_a=True)
    return [_interleave_f(F, [_merge_f(F, dq, h)]), _interleave_f(F, [_merge_f(F, dk, h), None])]


def _encdec_valatt(ctx, a, kv, att):
    h = a["heads"]
    return _merge_x(ctx.xp.matmul(att, _split_x(kv, h, 2, 1)), h)


def _encdec_valatt_grad(F, a, inputs, outputs, ograds):
    h = a["heads"]
    kv, att = inputs
    v = _split_f(F, kv, h, 2, 1)
    og = _split_f(F, ograds[0], h, 1, 0)
    datt = F.batch_dot(og, v, transpose_b=True)
    dv = F.batch_dot(att, og, transpose_a=True)
    return [_interleave_f(F, [None, _merge_f(F, dv, h)]), datt]


_BOUNDS = {"heads": (1, None)}
for _name, _inputs, _compute, _infer, _grad, _doc in (
        ("_contrib_interleaved_matmul_selfatt_qk", ("queries_keys_values",), _selfatt_qk, _selfatt_qk_infer,
         _selfatt_qk_grad, "Attention scores q / sqrt(D) @ k^T (B*H, S, S) of interleaved projections (S, B, H*3*D)."),
        ("_contrib_interleaved_matmul_selfatt_valatt", ("queries_keys_values", "attention"), _selfatt_valatt,
         _selfatt_valatt_infer, _selfatt_valatt_grad,
         "attention (B*H, S, S) @ the values of interleaved projections (S, B, H*3*D), as (S, B, H*D)."),
        ("_contrib_interleaved_matmul_encdec_qk", ("queries", "keys_values"), _encdec_qk, _encdec_qk_infer,
         _encdec_qk_grad, "Attention scores (B*H, Sq, Sk) of queries (Sq, B, H*D) and interleaved keys/values (Sk, B, H*2*D)."),
        ("_contrib_interleaved_matmul_encdec_valatt", ("keys_values", "attention"), _encdec_valatt,
         _encdec_valatt_infer, _encdec_valatt_grad,
         "attention (B*H, Sq, Sk) @ the values of interleaved keys/values (Sk, B, H*2*D), as (Sq, B, H*D)."),
):
    register(OpDef(_name, inputs=_inputs, attrs=_HEADS, bounds=_BOUNDS, compute=_compute, infer_shape=_infer,
                   grad=_grad, family="linalg", doc=_doc))


def _div_sqrt_dim(ctx, a, x):
    return x / ctx.xp.sqrt(x.dtype.type(x.shape[-1]))


register(OpDef(
    "_contrib_div_sqrt_dim", compute=_div_sqrt_dim, infer_shape=same_shape, family="elemwise",
    grad=lambda F, a, ins, outs, og: [F.contrib.div_sqrt_dim(og[0])],
    doc="data divided by the square root of its last axis' length."))
