"""MXNet 1.9.1's ``_contrib_PSROIPooling`` (position-sensitive ROI pooling, R-FCN) and its internal
backward op.

``data`` (N, output_dim * group_size**2, H, W), ``rois`` (R, 5) = [batch_index, x1, y1, x2, y2] ->
(R, output_dim, pooled_size, pooled_size). A region runs from ``round(x1) * spatial_scale`` to
``(round(x2) + 1) * spatial_scale`` (at least 0.1 wide), cut into ``pooled_size`` bins per side; bin
(i, j) of output channel ``c`` averages the cells ``floor(i * bin_h + start)`` .. ``ceil((i + 1) *
bin_h + start)`` (clipped to the map) of input channel ``(c * group_size + gi) * group_size + gj``
with ``gi = floor(i * group_size / pooled_size)``; an empty bin gives 0. ``group_size`` 0 means
``pooled_size``. The gradient spreads each output gradient evenly over its bin.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(64).reshape((1, 4, 4, 4))
    >>> y = mx.nd.contrib.PSROIPooling(x, mx.nd.array([[0, 0, 0, 3, 3]]), spatial_scale=1.0, output_dim=1, pooled_size=2)
    >>> y.asnumpy().tolist()
    [[[[2.5, 20.5], [42.5, 60.5]]]]
"""
import math

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_ATTRS = {"spatial_scale": Attr("float", doc="feature-map size over image size"),
          "output_dim": Attr("int", doc="output channels"),
          "pooled_size": Attr("int", doc="bins per side"),
          "group_size": Attr("int", 0, doc="position-sensitive groups per side (0: pooled_size)")}


def _group(a):
    return a["group_size"] if a["group_size"] > 0 else a["pooled_size"]


def _bins(a, rois, H, W):
    """Per roi: (batch, [(h0, h1, gi)] rows, [(w0, w1, gj)] columns)."""
    p, g = a["pooled_size"], _group(a)
    scale = np.float32(a["spatial_scale"])
    out = []
    for b, x1, y1, x2, y2 in np.asarray(rois, dtype=np.float32):
        sw, sh = np.float32(round(float(x1))) * scale, np.float32(round(float(y1))) * scale
        ew, eh = np.float32(round(float(x2)) + 1) * scale, np.float32(round(float(y2)) + 1) * scale
        bw, bh = max(ew - sw, np.float32(0.1)) / np.float32(p), max(eh - sh, np.float32(0.1)) / np.float32(p)

        def axis(start, step, limit):
            return [(min(max(int(math.floor(np.float32(i) * step + start)), 0), limit),
                     min(max(int(math.ceil(np.float32(i + 1) * step + start)), 0), limit),
                     min(max(int(math.floor(np.float32(i) * g / p)), 0), g - 1)) for i in range(p)]
        out.append((int(b), axis(sh, bh, H), axis(sw, bw, W)))
    return out


def _host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def _compute(ctx, a, data, rois):
    N, C, H, W = data.shape
    D, g = a["output_dim"], _group(a)
    x = _host(data)
    acc = np.promote_types(data.dtype, np.float32)   # float16 sums in float32
    out = np.zeros((rois.shape[0], D, a["pooled_size"], a["pooled_size"]), dtype=data.dtype)
    chans = np.arange(D) * g
    for r, (b, rows, cols) in enumerate(_bins(a, _host(rois), H, W)):
        if not 0 <= b < N:
            raise MXNetError(f"PSROIPooling: roi {r} expected a batch index in [0, {N}), got {b}")
        for i, (h0, h1, gi) in enumerate(rows):
            for j, (w0, w1, gj) in enumerate(cols):
                if h1 > h0 and w1 > w0:
                    cell = x[b, (chans + gi) * g + gj, h0:h1, w0:w1].astype(acc)
                    out[r, :, i, j] = cell.sum(axis=(1, 2)) / acc.type((h1 - h0) * (w1 - w0))
    return ctx.xp.asarray(out)


def _infer(a, in_shapes):
    data, rois = in_shapes
    g = _group(a)
    if data is not None:
        if len(data) != 4:
            raise InferError(0, "(N, C, H, W)", tuple(data))
        if data[1] != a["output_dim"] * g * g:
            raise InferError(0, f"{a['output_dim'] * g * g} channels (output_dim * group_size**2)", tuple(data))
    if rois is not None and (len(rois) != 2 or rois[1] != 5):
        raise InferError(1, "(R, 5) rows [batch_index, x1, y1, x2, y2]", tuple(rois))
    if rois is None:
        return [None]
    return [(rois[0], a["output_dim"], a["pooled_size"], a["pooled_size"])]


register(OpDef(
    "_contrib_PSROIPooling", inputs=("data", "rois"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    bounds={"pooled_size": (1, None), "output_dim": (1, None), "group_size": (0, None)},
    infer_type=lambda a, d: [d[0]], family="pool",
    grad=lambda F, a, ins, outs, og: [F._backward_contrib_PSROIPooling(og[0], ins[1], ins[0], **a), None],
    doc="Position-sensitive average pooling of the regions rois (R, 5) of data (see ops/psroi_pooling.py)."))


def _backward_compute(ctx, a, ograd, rois, data):
    N, C, H, W = data.shape
    D, g = a["output_dim"], _group(a)
    og = _host(ograd)
    acc = np.promote_types(data.dtype, np.float32)
    grad = np.zeros(data.shape, dtype=acc)
    chans = np.arange(D) * g
    for r, (b, rows, cols) in enumerate(_bins(a, _host(rois), H, W)):
        for i, (h0, h1, gi) in enumerate(rows):
            for j, (w0, w1, gj) in enumerate(cols):
                if h1 > h0 and w1 > w0:
                    share = og[r, :, i, j].astype(acc) / acc.type((h1 - h0) * (w1 - w0))
                    grad[b, (chans + gi) * g + gj, h0:h1, w0:w1] += share[:, None, None]
    return ctx.xp.asarray(grad.astype(data.dtype))


register(OpDef(
    "_backward_contrib_PSROIPooling", inputs=("ograd", "rois", "data"), attrs=_ATTRS,
    compute=_backward_compute, infer_shape=lambda a, s: [None if s[2] is None else tuple(s[2])],
    infer_type=lambda a, d: [d[2] if d[2] is not None else d[0]], family="pool", hidden=True,
    no_grad_reason="PSROIPooling's gradient is linear in ograd with fixed bins; its own gradient is not needed",
    doc="Gradient of PSROIPooling w.r.t. data: each output gradient spread evenly over its bin."))
