"""``_ChannelAffine``: a per-channel affine map ``x * scale + shift`` (one value per channel along
``axis``), optionally followed by a relu: a BatchNorm in predict programs when it cannot be folded
into the convolution before it (``compiler/passes/fold_affine.py``: pre-activation networks such
as ResNet v2 normalise the sum of a residual block). ``scale`` and ``shift`` are graph values
computed from the BatchNorm's parameters on every call (``ChannelAffine.scale_shift``), so new
parameters are always seen.

One pass over the data instead of BatchNorm's three: on the oneDNN path (``ops/conv_path.py``)
a binary primitive with post-ops, else in-place NumPy calls. ``block`` (channel-first data only)
says the data is in a channel-blocked layout (``ops/blocked.py``; the layout plan,
``compiler/passes/layout.py``); the output is in the same layout.

The op declares an ``Epilogue`` with no channel axes (nothing folds into it) and the relu
activation, so ``fuse_activation`` runs a relu that follows it inside the same call.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops.context import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("_ChannelAffine")
    >>> x = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    >>> s, t = np.array([2.0, 1.0], np.float32), np.array([0.5, 0.0], np.float32)
    >>> op.compute(op_context(mx.cpu(), False), op.parse_attrs({"act_type": "relu"}), x, s, t).tolist()
    [[2.5, 0.0], [6.5, 4.0]]
"""
import numpy as np

from ..base import MXNetError
from . import conv_path
from .attrs import Attr
from .blocked import expected, fits, per_channel
from .dnnl import channel_affine as dnnl_affine
from .infer import InferError, merge_shape, normalize_axis
from .op_fields import BlockedLayout, Epilogue, OutKernel
from .registry import OpDef, register

__all__ = []

ACTIVATIONS = ("relu",)


def _apply(ctx, a, out, x, scale, shift):
    xp = ctx.xp
    axis, block, relu = normalize_axis(a["axis"], x.ndim), a["block"], a["act_type"] == "relu"
    if block and (axis != 1 or not fits(x.shape, block)):
        raise MXNetError(f"_ChannelAffine with block {block}: expected axis 1 and {expected(block)}, "
                         f"got axis {a['axis']} and shape {x.shape}")
    scale, shift = scale.astype(x.dtype, copy=False), shift.astype(x.dtype, copy=False)
    if conv_path.onednn_covers(xp, x, out, scale, shift) and x.flags.c_contiguous and out.flags.c_contiguous:
        if dnnl_affine.forward(x, np.ascontiguousarray(scale), np.ascontiguousarray(shift), out, block, relu, axis):
            return out
    if block:
        view, s = per_channel(xp.ascontiguousarray(x), scale, block)
        out_view, t = per_channel(out, shift, block)
    else:
        shape = [1] * x.ndim
        shape[axis] = -1
        view, out_view, s, t = x, out, scale.reshape(shape), shift.reshape(shape)
    xp.multiply(view, s, out=out_view)
    out_view += t
    if relu:
        xp.maximum(out_view, 0, out=out_view)
    return out


def _compute(ctx, a, x, scale, shift):
    return _apply(ctx, a, ctx.xp.empty(x.shape, x.dtype), x, scale, shift)


def _infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if not d:
        raise InferError(0, "a shape with at least one (channel) dimension", d)
    if a["block"] and not fits(d, a["block"]):
        raise InferError(0, expected(a["block"]), d)
    c = d[normalize_axis(a["axis"], len(d))]
    for i, name in ((1, "scale"), (2, "shift")):
        merge_shape(s, i, (c,), f"{name} has one value per channel (axis={a['axis']})")
    return [tuple(d)]


def _infer_type(a, d):
    return [d[0]]


_EPILOGUE = Epilogue(op="_ChannelAffine", channel_axes=lambda a: (), activations=ACTIVATIONS)

register(OpDef(
    "_ChannelAffine", inputs=("data", "scale", "shift"), family="norm", hidden=True,
    attrs={"axis": Attr("int", 1, doc="the channel axis"),
           "act_type": Attr("enum?", None, choices=ACTIVATIONS, doc="an activation run on the output"),
           "block": Attr("int", 0, doc="the channel block of the data's layout (0: plain; channel-first only)")},
    compute=_compute, infer_shape=_infer, infer_type=_infer_type, epilogue=_EPILOGUE,
    blocked_layout=BlockedLayout(applies=lambda a, ndim: normalize_axis(a["axis"], ndim) == 1, in_attr="block",
                                 out_attr=None),
    out_kernel=OutKernel(_apply, inplace=True),
    no_grad_reason="used only in predict programs (a BatchNorm's moving statistics as one affine map); "
                   "training runs the BatchNorm",
    doc="""``x * scale + shift`` with one ``scale`` and ``shift`` value per channel along ``axis``, then the
activation ``act_type``: a BatchNorm of a predict program (the ``fold_affine`` pass); ``block``: the data's channel
-blocked layout (the layout plan)."""))
