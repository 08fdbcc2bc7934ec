"""``L2Normalization`` and ``LRN`` (local response normalisation across channels), MXNet 1.9.1.

* ``L2Normalization(data, eps, mode)``: ``x / sqrt(sum(x**2) + eps)`` with the sum over every axis but
  the first (``instance``), over axis 1 (``channel``) or over axes 2.. (``spatial``; channel and spatial
  need at least 3 dimensions). Hidden second output ``norm``: the divisor, shaped (N,), (N, d2, ...) or
  (N, C) as in MXNet.
* ``LRN(data, alpha, beta, knorm, nsize)`` on (N, C, H, W) data:
  ``tmp_norm = knorm + alpha / nsize * chsum(x**2)``, ``out = x * tmp_norm ** -beta``, ``chsum`` the sum
  over the ``nsize`` channels centred on each channel (zero padded; nsize odd, as MXNet requires).
  ``tmp_norm`` is a hidden second output. The gradient is MXNet's
  ``g * n**-beta - 2 * beta * alpha / nsize * x * chsum(g * x * n**(-beta - 1))`` (exact, chsum being
  symmetric), written with ``_lrn_channel_sum``, the channel-window sum as an op of its own.

Example::

    >>> import hybridlab as mx
    >>> [[round(v, 4) for v in row] for row in mx.nd.L2Normalization(mx.nd.array([[3.0, 4.0]])).asnumpy().tolist()]
    [[0.6, 0.8]]
    >>> y = mx.nd.LRN(mx.nd.ones((1, 3, 1, 1)), nsize=3, alpha=3.0, beta=1.0, knorm=1.0)
    >>> [round(v, 4) for v in y.asnumpy().ravel().tolist()]
    [0.3333, 0.25, 0.3333]
"""
from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []


# ---- L2Normalization ----------------------------------------------------------------------------
def _l2_axes(mode, ndim):
    if mode == "instance":
        return tuple(range(1, ndim))
    if mode == "channel":
        return (1,)
    return tuple(range(2, ndim))


def _l2_norm_shape(mode, d):
    if mode == "instance":
        return (d[0],)
    if mode == "channel":
        return (d[0],) + tuple(d[2:])
    return tuple(d[:2])


def _l2_infer(a, s):
    d = s[0]
    if d is None:
        return [None, None]
    if a["mode"] != "instance" and len(d) < 3:
        raise InferError(0, f"at least 3 dimensions in {a['mode']} mode", tuple(d))
    if not d:
        raise InferError(0, "at least 1 dimension", tuple(d))
    return [tuple(d), _l2_norm_shape(a["mode"], d)]


def _l2_compute(ctx, a, x):
    xp = ctx.xp
    axes = _l2_axes(a["mode"], x.ndim)
    sq = x * x
    ssum = sq.sum(axis=axes, keepdims=True) if axes else sq
    norm = xp.sqrt(ssum + x.dtype.type(a["eps"]))
    return (x / norm).astype(x.dtype, copy=False), norm.reshape(_l2_norm_shape(a["mode"], x.shape))


def _l2_grad(F, a, ins, outs, og):
    """dx = (g - y * sum(g * y)) / norm over the normalised axes (norm recomputed from x)."""
    x, g = ins[0], og[0]
    axes = _l2_axes(a["mode"], x.ndim)
    sq = F.square(x)
    ssum = F.sum(sq, axis=axes, keepdims=True) if axes else sq
    norm = F.sqrt(F._plus_scalar(ssum, scalar=a["eps"]))
    y = F.broadcast_div(x, norm)
    gy = F.elemwise_mul(g, y)
    proj = F.sum(gy, axis=axes, keepdims=True) if axes else gy
    return [F.broadcast_div(F.elemwise_sub(g, F.broadcast_mul(y, proj)), norm)]


register(OpDef(
    "L2Normalization", family="norm", num_outputs=2, num_visible=1,
    attrs={"eps": Attr("float", 1e-10, doc="Added to the sum of squares before the square root."),
           "mode": Attr("enum", "instance", choices=("channel", "instance", "spatial"),
                        doc="instance: all axes but the first; channel: axis 1; spatial: axes 2...")},
    compute=_l2_compute, infer_shape=_l2_infer, infer_type=lambda a, d: [d[0], d[0]], grad=_l2_grad,
    doc="L2-normalises data: x / sqrt(sum(x**2) + eps), the sum over every axis but the first "
        "(instance), over the channels (channel) or over the spatial axes (spatial). Hidden output: norm."))


# ---- the channel-window sum ---------------------------------------------------------------------
def _check_nsize(n, name):
    if n < 1 or n % 2 == 0:
        raise MXNetError(f"{name}: attribute 'nsize' expected an odd positive window width, got {n}")


def _chsum(xp, x, n):
    """Sum over the n channels (axis 1) centred on each channel, zero padded."""
    half, c = n // 2, x.shape[1]
    out = xp.zeros_like(x)
    for off in range(-half, half + 1):
        lo, hi = max(0, -off), min(c, c - off)
        if lo < hi:
            out[:, lo:hi] += x[:, lo + off:hi + off]
    return out


def _chsum_compute(ctx, a, x):
    _check_nsize(a["nsize"], "_lrn_channel_sum")
    return _chsum(ctx.xp, x, a["nsize"])


def _chsum_infer(a, s):
    if s[0] is not None and len(s[0]) < 2:
        raise InferError(0, "(N, C, ...): at least 2 dimensions", tuple(s[0]))
    return [s[0]]


register(OpDef(
    "_lrn_channel_sum", family="norm", hidden=True,
    attrs={"nsize": Attr("int", doc="Window width in channels (odd).")},
    compute=_chsum_compute, infer_shape=_chsum_infer,
    grad=lambda F, a, ins, outs, og: [F._lrn_channel_sum(og[0], nsize=a["nsize"])],  # symmetric window
    doc="LRN's helper: the sum over the nsize channels (axis 1) centred on each channel, zero padded. "
        "Its own adjoint, so it is its gradient."))


# ---- LRN ----------------------------------------------------------------------------------------
def _lrn_infer(a, s):
    _check_nsize(a["nsize"], "LRN")
    d = s[0]
    if d is None:
        return [None, None]
    if len(d) != 4:
        raise InferError(0, "4-D data (batch, channel, y, x)", tuple(d))
    return [tuple(d), tuple(d)]


def _lrn_compute(ctx, a, x):
    _check_nsize(a["nsize"], "LRN")
    t = x.dtype.type
    norm = _chsum(ctx.xp, x * x, a["nsize"]) * t(a["alpha"] / a["nsize"]) + t(a["knorm"])
    return (x * norm ** t(-a["beta"])).astype(x.dtype, copy=False), norm


def _lrn_grad(F, a, ins, outs, og):
    x, g = ins[0], og[0]
    salpha, beta = a["alpha"] / a["nsize"], a["beta"]
    norm = F._plus_scalar(F._mul_scalar(F._lrn_channel_sum(F.square(x), nsize=a["nsize"]), scalar=salpha),
                          scalar=a["knorm"])
    direct = F.elemwise_mul(g, F._power_scalar(norm, scalar=-beta))
    inner = F.elemwise_mul(F.elemwise_mul(g, x), F._power_scalar(norm, scalar=-beta - 1.0))
    cross = F.elemwise_mul(F._lrn_channel_sum(inner, nsize=a["nsize"]), x)
    return [F.elemwise_add(direct, F._mul_scalar(cross, scalar=-2.0 * beta * salpha))]


register(OpDef(
    "LRN", family="norm", num_outputs=2, num_visible=1,
    output_names=("output",),
    attrs={"alpha": Attr("float", 1e-4, doc="The variance scaling parameter alpha."),
           "beta": Attr("float", 0.75, doc="The power parameter beta."),
           "knorm": Attr("float", 2.0, doc="The parameter k."),
           "nsize": Attr("int", doc="Normalisation window width in channels (odd).")},
    compute=_lrn_compute, infer_shape=_lrn_infer, infer_type=lambda a, d: [d[0], d[0]], grad=_lrn_grad,
    doc="Local response normalisation across channels of (N, C, H, W) data: "
        "x * (knorm + alpha/nsize * sum of x**2 over the nsize neighbouring channels) ** -beta. "
        "Hidden output: tmp_norm (the bracket)."))
