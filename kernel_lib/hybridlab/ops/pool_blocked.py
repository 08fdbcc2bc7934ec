"""``_BlockedPooling``: Pooling (same attributes) of a value in a channel-blocked layout
(``block``; ``ops/blocked.py``), the output in the same layout, as the layout plan of predict
programs keeps pooled values blocked between convolutions (``compiler/passes/layout.py``; Pooling
declares a ``BlockedLayout`` naming this op). Max pooling and average pooling of the ``valid``
convention (and global pooling) run oneDNN's pooling primitive on the oneDNN path; everything else
pools the blocked array as a channel-last one, ``(N * C/b, *spatial, b)``, with Pooling's NumPy
kernel: the same windows, the same values. ``block=0`` is plain Pooling.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops import blocked
    >>> from hybridlab.ops.context import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("_BlockedPooling")
    >>> x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    >>> a = op.parse_attrs({"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "max", "block": "2"})
    >>> y = op.compute(op_context(mx.cpu(), False), a, blocked.to_block(np, x, 2))
    >>> blocked.from_block(np, y, 2)[0, 1].tolist()
    [[21.0, 23.0], [29.0, 31.0]]
"""
import numpy as np

from . import conv_path
from .attrs import Attr
from .blocked import expected, fits
from .dnnl import pooling as dnnl_pooling
from .infer import InferError
from .op_fields import OutKernel
from .pool import POOL_BLOCKED, POOL_BOUNDS, _POOL_ATTRS, _first_dtype, _kind, _pool_compute, _pool_infer, pool_geometry
from .registry import OpDef, register

__all__ = []

_CHANNEL_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}
_ATTRS = dict(_POOL_ATTRS, block=Attr("int", 0, doc="the channel block of the data's (and the output's) layout "
                                                    "(0: plain; channel-first only)"))


def _onednn_kind(a):
    """The oneDNN pooling that computes MXNet's windows for ``a``, or ``None``."""
    kind, _ = _kind(a)
    if kind == "max":
        return "max"
    if kind == "avg" and (a["global_pool"] or a["pooling_convention"] == "valid"):
        return "avg_exclude_pad" if a["count_include_pad"] is False else "avg"
    return None


def _compute_out(ctx, a, out, data):
    """The out kernel (static memory plans): oneDNN writes into ``out``; NumPy computes and copies."""
    if not (a["block"] and _onednn(ctx, a, data, out)):
        out[...] = _compute(ctx, a, data)
    return out


def _onednn(ctx, a, data, out):
    """Whether oneDNN's pooling wrote the call's result into ``out``."""
    kind = _onednn_kind(a)
    if kind is None or not conv_path.onednn_covers(ctx.xp, data, out) or not out.flags.c_contiguous:
        return False
    _, kernel, stride, pad_l, pad_r, _ = pool_geometry(a, data.shape)
    return dnnl_pooling.forward(np.ascontiguousarray(data), out, kind, kernel, stride, pad_l, pad_r, a["block"])


def _compute(ctx, a, data):
    block = a["block"]
    if not block:
        return _pool_compute(ctx, a, data)
    xp = ctx.xp
    out_shape = tuple(data.shape[:2]) + tuple(pool_geometry(a, data.shape)[5])
    if conv_path.onednn_covers(xp, data):
        out = np.empty(out_shape, np.float32)
        if _onednn(ctx, a, data, out):
            return out
    n, c, sp = data.shape[0], data.shape[1], tuple(data.shape[2:])
    view = xp.ascontiguousarray(data).reshape((n * c // block,) + sp + (block,))
    pooled = _pool_compute(ctx, dict(a, layout=_CHANNEL_LAST[len(sp)]), view)
    return xp.ascontiguousarray(pooled).reshape(out_shape)


def _infer(a, s):
    if s[0] is not None and a["block"] and (not POOL_BLOCKED.applies(a, len(s[0])) or not fits(s[0], a["block"])):
        raise InferError(0, f"{expected(a['block'])} (channel-first data in the layout blocked by {a['block']})", s[0])
    return _pool_infer(a, s)


register(OpDef(
    "_BlockedPooling", attrs=_ATTRS, bounds=POOL_BOUNDS, compute=_compute, infer_shape=_infer,
    infer_type=_first_dtype, family="pool", hidden=True, out_kernel=OutKernel(_compute_out),
    blocked_layout=POOL_BLOCKED,
    no_grad_reason="used only in predict programs (the layout plan); training runs Pooling",
    doc="""Pooling (same attributes) of data in the channel-blocked layout ``block``, the output in the same
layout; made by the layout plan of predict programs."""))
