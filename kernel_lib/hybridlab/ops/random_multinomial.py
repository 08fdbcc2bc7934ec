"""``_sample_multinomial`` (``mx.nd.random.multinomial``, ``mx.nd.sample_multinomial``): category
indices drawn from the distributions in the last axis of ``data``.

For data of shape (..., K) the samples have shape ``data.shape[:-1] + shape`` ((1,) when that is
empty, as MXNet), dtype ``dtype`` (int32 by default). Each draw takes a uniform u (float64, from the
device generator, see ops/random.py) and picks the first category whose cumulative probability
exceeds u (the last category if none does), as MXNet's sampler. With ``get_prob=True`` a second
output holds log(p[sample]) in data's dtype; its gradient flows to data:
``d log p[s] / d p[s] = 1 / p[s]`` (MXNet's ``_backward_sample_multinomial``), for REINFORCE-style
training. The samples themselves have a zero gradient.

Example::

    >>> import hybridlab as mx
    >>> p = mx.nd.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> mx.nd.random.multinomial(p, shape=3).asnumpy().tolist()
    [[1, 1, 1], [2, 2, 2]]
    >>> s, logp = mx.nd.random.multinomial(p, get_prob=True)
    >>> s.dtype, logp.asnumpy().tolist()
    (dtype('int32'), [0.0, 0.0])
"""
import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .random import random01
from .registry import NsName, OpDef, register

__all__ = []


def _out_shape(a, d):
    shape = tuple(d[:-1]) + tuple(a["shape"] or ())
    return shape or (1,)


def _infer(a, s):
    d = s[0]
    if d is None:
        return [None] * (2 if a["get_prob"] else 1)
    if not d:
        raise MXNetError("_sample_multinomial: data expected at least 1 dimension (the categories), "
                         f"got shape {tuple(d)}")
    out = _out_shape(a, d)
    return [out, out] if a["get_prob"] else [out]


def _types(a, d):
    out = onp.dtype(a["dtype"])
    return [out, d[0]] if a["get_prob"] else [out]


def _compute(ctx, a, p):
    xp = ctx.xp
    if p.ndim == 0 or p.shape[-1] == 0:
        raise MXNetError(f"_sample_multinomial: data expected shape (..., K) with K >= 1, got {p.shape}")
    k = p.shape[-1]
    batch = p.shape[:-1]
    extra = tuple(a["shape"] or ())
    u = random01(ctx.rng, batch + extra)                                  # float64
    cdf = xp.cumsum(p.astype(onp.float64), axis=-1).reshape(batch + (1,) * len(extra) + (k,))
    idx = xp.minimum((cdf <= u[..., None]).sum(axis=-1), k - 1)
    shape = _out_shape(a, p.shape)
    samples = idx.reshape(shape).astype(a["dtype"])
    if not a["get_prob"]:
        return samples
    flat_p = p.reshape(-1, k)
    rows = xp.arange(flat_p.shape[0]).reshape((-1,) + (1,) * len(extra))
    picked = flat_p[rows, idx.reshape((flat_p.shape[0],) + extra)]
    return samples, xp.log(picked).reshape(shape).astype(p.dtype)


def _grad(F, a, ins, outs, og):
    p = ins[0]
    if not a["get_prob"]:
        return [F.zeros_like(p)]
    k = p.shape[-1]
    nb, extra = p.ndim - 1, tuple(a["shape"] or ())
    batch_shape = p.shape[:-1] + (extra if (nb or extra) else (1,))
    samples = F.Reshape(outs[0], shape=batch_shape)
    g = F.Reshape(og[1], shape=batch_shape)
    counts = F.broadcast_mul(F.one_hot(samples, depth=k, dtype=p.dtype), F.expand_dims(g, axis=-1))
    sample_axes = tuple(range(nb, len(batch_shape)))
    if sample_axes:
        counts = F.sum(counts, axis=sample_axes)
    return [F.broadcast_div(F.Reshape(counts, shape=p.shape), p)]


register(OpDef(
    "_sample_multinomial", family="random", aliases=("sample_multinomial",), needs_rng=True,
    random=NsName("multinomial", args=("shape", "get_prob", "dtype")),
    num_outputs=lambda a: 2 if a["get_prob"] else 1,
    attrs={"shape": Attr("shape", (), doc="Samples drawn per distribution."),
           "get_prob": Attr("bool", False, doc="Also output log(p) of each sample (differentiable)."),
           "dtype": Attr("dtype", "int32", choices=("float16", "float32", "float64", "int32", "uint8"),
                         doc="Dtype of the samples.")},
    compute=_compute, infer_shape=_infer, infer_type=_types, grad=_grad,
    doc="Samples category indices from the distributions in the last axis of data (probabilities summing "
        "to one): shape data.shape[:-1] + shape; with get_prob, also their log-probabilities."))
