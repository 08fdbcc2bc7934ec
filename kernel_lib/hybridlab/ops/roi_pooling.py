"""``ROIPooling`` (Fast R-CNN): max pooling of each region of interest of a feature map into a fixed
``pooled_size`` grid, as MXNet 1.9.1's roi_pooling.cc computes it.

``data`` (N, C, H, W); ``rois`` (R, 5) rows ``[batch_index, x1, y1, x2, y2]`` in image coordinates,
scaled by ``spatial_scale`` and rounded (half away from zero) to feature-map cells, both corners
included. The region's height and width (at least 1) are split into ``pooled_size`` bins of
fractional size; bin ``p`` covers ``[floor(p * size), ceil((p + 1) * size))`` clipped to the map, so
neighbouring bins may share a row or column. Each output is the bin's maximum (its first one in
row-major order receives the gradient), 0 for an empty bin. The output is (R, C, ph, pw); a hidden
second output holds the flat position ``h * W + w`` of each maximum (-1 for empty bins), which the
gradient ``_backward_ROIPooling`` scatters to.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(48).reshape((1, 1, 8, 6))
    >>> mx.nd.ROIPooling(x, mx.nd.array([[0, 0, 0, 4, 4]]), pooled_size=(2, 2), spatial_scale=1.0)[0, 0].asnumpy()
    array([[14., 16.],
           [26., 28.]], dtype=float32)
"""
import math

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_ATTRS = {"pooled_size": Attr("shape", doc="output grid (h, w) per region"),
          "spatial_scale": Attr("float", doc="feature-map size over image size (1 / the network's total stride)")}


def _round(v):
    """C's round: halves away from zero."""
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def _bins(start, size, pooled, limit):
    """``[(begin, end)]`` of the ``pooled`` bins of a region of ``size`` cells from ``start``."""
    step = np.float32(size) / np.float32(pooled)
    out = []
    for p in range(pooled):
        b = int(math.floor(np.float32(p) * step)) + start
        e = int(math.ceil(np.float32(p + 1) * step)) + start
        out.append((min(max(b, 0), limit), min(max(e, 0), limit)))
    return out


def _compute(ctx, a, data, rois):
    xp = ctx.xp
    N, C, H, W = data.shape
    ph, pw = a["pooled_size"]
    scale = np.float32(a["spatial_scale"])
    host = np.asarray(rois.get() if hasattr(rois, "get") else rois, dtype=np.float32)
    out = xp.zeros((host.shape[0], C, ph, pw), dtype=data.dtype)
    where = xp.full((host.shape[0], C, ph, pw), -1, dtype=data.dtype)
    for r, (b, x1, y1, x2, y2) in enumerate(host):
        b = int(b)
        if not 0 <= b < N:
            raise MXNetError(f"ROIPooling: roi {r} expected a batch index in [0, {N}), got {b}")
        sw, sh, ew, eh = (_round(float(v * scale)) for v in (x1, y1, x2, y2))
        rows = _bins(sh, max(eh - sh + 1, 1), ph, H)
        cols = _bins(sw, max(ew - sw + 1, 1), pw, W)
        for i, (h0, h1) in enumerate(rows):
            for j, (w0, w1) in enumerate(cols):
                if h1 <= h0 or w1 <= w0:
                    continue
                block = data[b, :, h0:h1, w0:w1].reshape(C, -1)
                k = xp.argmax(block, axis=1)                      # first maximum, row-major
                out[r, :, i, j] = block[xp.arange(C), k]
                where[r, :, i, j] = (h0 + k // (w1 - w0)) * W + w0 + k % (w1 - w0)
    return out, where


def _infer(a, in_shapes):
    data, rois = in_shapes
    ph_pw = a["pooled_size"]
    if len(ph_pw) != 2:
        raise MXNetError(f"ROIPooling: pooled_size expected (h, w), got {tuple(ph_pw)}")
    if data is not None and len(data) != 4:
        raise InferError(0, "(N, C, H, W)", tuple(data))
    if rois is not None and (len(rois) != 2 or rois[1] != 5):
        raise InferError(1, "(R, 5) rows [batch_index, x1, y1, x2, y2]", tuple(rois))
    if data is None or rois is None:
        return [None, None]
    shape = (rois[0], data[1]) + tuple(ph_pw)
    return [shape, shape]


def _grad(F, a, inputs, outputs, ograds):
    return [F._backward_ROIPooling(ograds[0], outputs[1], inputs[1], inputs[0], **a), None]


register(OpDef(
    "ROIPooling", inputs=("data", "rois"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    bounds={"pooled_size": (1, None), "spatial_scale": (0, 1)},   # MXNet: nonzero size, scale in [0, 1]
    infer_type=lambda a, d: [d[0], d[0]], grad=_grad, family="pool", num_outputs=2, num_visible=1,
    output_names=("output",),
    doc="""Max pooling of each region of interest ``rois`` (R, 5) = [batch_index, x1, y1, x2, y2] of
``data`` (N, C, H, W) into a ``pooled_size`` grid; coordinates are scaled by ``spatial_scale``
(see ops/roi_pooling.py)."""))


def _backward_compute(ctx, a, ograd, where, rois, data):
    """Each output gradient added at its region's maximum (``where``); empty bins (-1) add nothing."""
    xp = ctx.xp
    N, C, H, W = data.shape
    R = ograd.shape[0]
    grad = xp.zeros((N, C, H * W), dtype=ograd.dtype)
    pos = where.reshape(R, C, -1).astype(np.int64)
    image = xp.broadcast_to(rois[:, 0].astype(np.int64)[:, None, None], pos.shape)
    channel = xp.broadcast_to(xp.arange(C)[None, :, None], pos.shape)
    found = pos >= 0
    values = ograd.reshape(R, C, -1)
    if xp is np:
        np.add.at(grad, (image[found], channel[found], pos[found]), values[found])
    else:
        xp.add.at(grad, (image[found], channel[found], pos[found]), values[found])
    return grad.reshape(N, C, H, W)


def _backward_infer(a, in_shapes):
    og, where, rois, data = in_shapes
    if data is None:
        return [None]
    if og is not None and where is not None and tuple(og) != tuple(where):
        raise InferError(1, f"{tuple(og)} (the output gradient's shape)", tuple(where))
    return [tuple(data)]


register(OpDef(
    "_backward_ROIPooling", inputs=("ograd", "maxidx", "rois", "data"), attrs=_ATTRS,
    compute=_backward_compute, infer_shape=_backward_infer, family="pool", hidden=True,
    no_grad_reason="ROIPooling's gradient routes values to fixed positions; its own gradient is not needed",
    doc="""Gradient of ROIPooling w.r.t. its data: ``ograd`` added at the positions ``maxidx`` (the
hidden output of ROIPooling) of the images ``rois[:, 0]``; ``data`` gives the shape."""))
