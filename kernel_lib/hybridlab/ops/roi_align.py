"""MXNet 1.9.1's ``_contrib_ROIAlign`` (Mask R-CNN's RoIAlign, with R-FCN's position-sensitive
variant and Detectron2's ``aligned`` half-pixel offset), its internal backward op, and
``_contrib_RROIAlign`` (rotated regions, forward only as in MXNet).

ROIAlign: ``rois`` (R, 5) rows ``[batch_index, x1, y1, x2, y2]`` are scaled by ``spatial_scale``
(minus 0.5 when ``aligned``) without rounding; a region at least 1 x 1 (unless ``aligned``) is cut
into ``pooled_size`` (ph, pw) bins, and each bin averages ``sample_ratio`` x ``sample_ratio`` points
(``ceil(bin size)`` per side when ``sample_ratio`` <= 0) spread evenly inside it, each read by
bilinear interpolation: a point more than one cell outside the map reads 0, one within it is clamped
to the border. With ``position_sensitive`` bin (i, j) of output channel c reads input channel
``c * ph * pw + i * pw + j`` (C / (ph * pw) output channels). A region with a negative batch index
gives zeros, as MXNet documents (its 1.9.1 CPU kernel instead zeroes element ``r`` of the flat output
and leaves the region's own values unset). The gradient w.r.t. ``data`` spreads each output
gradient back over the points' four neighbours; ``rois`` get a zero gradient.

RROIAlign: ``rois`` (R, 6) rows ``[batch_index, center_x, center_y, width, height, angle]`` (the
angle in degrees, counter-clockwise); the sampling points of the upright region centred at 0 are
rotated by the angle and moved to the centre, then read as in ROIAlign.

Both regions' points are separable (ROIAlign) or gathered per region (RROIAlign): one NumPy
expression per region, no loop over channels or bins.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> rois = mx.nd.array([[0, 0, 0, 2, 2]])
    >>> mx.nd.contrib.ROIAlign(x, rois, pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=2)[0, 0].asnumpy().tolist()
    [[2.5, 3.5], [6.5, 7.5]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_ATTRS = {
    "pooled_size": Attr("shape", doc="output grid (h, w) per region"),
    "spatial_scale": Attr("float", doc="feature-map size over image size (1 / the network's total stride)"),
    "sample_ratio": Attr("int", -1, doc="sampling points per bin side; <= 0: ceil(bin size)"),
    "position_sensitive": Attr("bool", False, doc="R-FCN's position-sensitive pooling"),
    "aligned": Attr("bool", False, doc="Detectron2's half-pixel offset of the region corners"),
}
_BOUNDS = {"pooled_size": (1, None), "spatial_scale": (0, 1)}


def _host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def _float_type(dtype):
    """The type MXNet's kernel computes in: the data's own (float16 computed in float32 here)."""
    return np.dtype(np.float64) if np.dtype(dtype) == np.float64 else np.dtype(np.float32)


def _axis_weights(coords, size, T):
    """Bilinear weights of sampling coordinates ``coords`` (..., S) along an axis of ``size`` cells:
    ``(low, high, w_low, w_high)``, weights 0 for points more than one cell outside."""
    valid = (coords >= T.type(-1.0)) & (coords <= T.type(size))
    c = np.maximum(coords, T.type(0))
    low = np.floor(c).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    c = np.where(edge, low.astype(T), c)
    frac = (c - low.astype(T)).astype(T)
    w_high = np.where(valid, frac, T.type(0))
    w_low = np.where(valid, T.type(1) - frac, T.type(0))
    return low, high, w_low.astype(T), w_high.astype(T)


def _grid(start, bin_size, pooled, grid, T):
    """Sampling coordinates (pooled, grid) of one axis, in MXNet's operation order."""
    p = np.arange(pooled, dtype=T)[:, None]
    g = (np.arange(grid, dtype=T) + T.type(0.5))[None, :]
    return (T.type(start) + p * T.type(bin_size) + g * T.type(bin_size) / T.type(grid)).astype(T)


def _region(a, roi, T):
    """``(y1, x1, bin_h, bin_w, grid_h, grid_w)`` of one region: its scaled start, bin sizes and
    sampling points per bin side, in MXNet's float type and operation order."""
    scale = T.type(a["spatial_scale"])
    off = T.type(0.5) if a["aligned"] else T.type(0)
    x1, y1, x2, y2 = (T.type(v) * scale - off for v in roi[1:5])
    rw, rh = T.type(x2 - x1), T.type(y2 - y1)
    if a["aligned"]:
        if not (rw > 0 and rh > 0):
            raise MXNetError(f"ROIAlign: with aligned=True a region expected a positive width and height, got "
                             f"{float(rw)} x {float(rh)}")
    else:
        rw, rh = max(rw, T.type(1)), max(rh, T.type(1))
    return (y1, x1) + _bins(rh, rw, a["pooled_size"], a["sample_ratio"], T)


def _bins(rh, rw, pooled, ratio, T):
    """A region's bin height and width and its sampling grid per bin (``ratio``, or the bins' size
    rounded up when ``ratio <= 0``), as MXNet's ROIAlign kernels compute them in ``T``."""
    ph, pw = pooled
    bh, bw = T.type(rh / T.type(ph)), T.type(rw / T.type(pw))
    gh = ratio if ratio > 0 else int(np.ceil(bh))
    gw = ratio if ratio > 0 else int(np.ceil(bw))
    return bh, bw, gh, gw


def _matrix(coords, size, T):
    """(pooled, size) matrix summing the bilinear weights of each bin's sampling points."""
    pooled = coords.shape[0]
    low, high, wl, wh = _axis_weights(coords, size, T)
    m = np.zeros((pooled, size), dtype=T)
    rows = np.broadcast_to(np.arange(pooled)[:, None], low.shape)
    np.add.at(m, (rows, low), wl)
    np.add.at(m, (rows, high), wh)
    return m


def _roi_matrices(a, roi, H, W, T):
    y1, x1, bh, bw, gh, gw = _region(a, roi, T)
    ph, pw = a["pooled_size"]
    my = _matrix(_grid(y1, bh, ph, gh, T), H, T)
    mx_ = _matrix(_grid(x1, bw, pw, gw, T), W, T)
    return my, mx_, T.type(gh * gw)


def _check(a, data, rois, name):
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise MXNetError(f"{name}: expected data (N, C, H, W) and rois (R, 5), got {data.shape} and {rois.shape}")
    ph, pw = a["pooled_size"]
    if a["position_sensitive"] and data.shape[1] % (ph * pw):
        raise MXNetError(f"{name}: with position_sensitive the input channels expected a multiple of "
                         f"pooled_size[0] * pooled_size[1] = {ph * pw}, got {data.shape[1]}")


def _batch(b, r, n, name):
    b = int(b)
    if b >= n:
        raise MXNetError(f"{name}: roi {r} expected a batch index below {n}, got {b}")
    return b


def _compute(ctx, a, data, rois):
    _check(a, data, rois, "ROIAlign")
    N, C, H, W = data.shape
    ph, pw = a["pooled_size"]
    T = _float_type(data.dtype)
    x = _host(data).astype(T, copy=False)
    boxes = _host(rois).astype(T, copy=False)
    c_out = C // (ph * pw) if a["position_sensitive"] else C
    out = np.zeros((boxes.shape[0], c_out, ph, pw), dtype=T)
    for r, roi in enumerate(boxes):
        if roi[0] < 0:
            continue
        b = _batch(roi[0], r, N, "ROIAlign")
        my, mx_, count = _roi_matrices(a, roi, H, W, T)
        if a["position_sensitive"]:
            out[r] = np.einsum("ph,qw,cpqhw->cpq", my, mx_, x[b].reshape(c_out, ph, pw, H, W)) / count
        else:
            out[r] = np.einsum("ph,chw,qw->cpq", my, x[b], mx_) / count
    return ctx.xp.asarray(out.astype(data.dtype))


def _checked_inputs(op, a, in_shapes, row):
    """(data, rois) shapes checked for ``op``: pooled_size (h, w), data (N, C, H, W), rois
    (R, len(row)) with the columns ``row``."""
    data, rois = in_shapes
    if len(a["pooled_size"]) != 2:
        raise MXNetError(f"{op}: pooled_size expected (h, w), got {tuple(a['pooled_size'])}")
    if data is not None and len(data) != 4:
        raise InferError(0, "(N, C, H, W)", tuple(data))
    if rois is not None and (len(rois) != 2 or rois[1] != len(row)):
        raise InferError(1, f"(R, {len(row)}) rows [{', '.join(row)}]", tuple(rois))
    return data, rois


def _infer(a, in_shapes):
    data, rois = _checked_inputs("ROIAlign", a, in_shapes, ("batch_index", "x1", "y1", "x2", "y2"))
    if data is None or rois is None:
        return [None]
    ph, pw = a["pooled_size"]
    c = data[1]
    if a["position_sensitive"]:
        if c % (ph * pw):
            raise InferError(0, f"channels divisible by pooled_size[0] * pooled_size[1] = {ph * pw} "
                                f"(position_sensitive)", tuple(data))
        c //= ph * pw
    return [(rois[0], c, ph, pw)]


register(OpDef(
    "_contrib_ROIAlign", inputs=("data", "rois"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    bounds=_BOUNDS, family="pool",
    grad=lambda F, a, ins, outs, og: [F._backward_ROIAlign(og[0], ins[1], ins[0], **a), None],
    doc="""Average of bilinearly sampled points in each bin of each region ``rois`` (R, 5) =
[batch_index, x1, y1, x2, y2] of ``data`` (N, C, H, W), no rounding (see ops/roi_align.py)."""))


def _backward_compute(ctx, a, ograd, rois, data):
    _check(a, data, rois, "_backward_ROIAlign")
    N, C, H, W = data.shape
    ph, pw = a["pooled_size"]
    T = _float_type(data.dtype)
    og = _host(ograd).astype(T, copy=False)
    boxes = _host(rois).astype(T, copy=False)
    c_out = og.shape[1]
    grad = np.zeros((N, C, H, W), dtype=T)
    for r, roi in enumerate(boxes):
        if roi[0] < 0:
            continue
        b = _batch(roi[0], r, N, "_backward_ROIAlign")
        my, mx_, count = _roi_matrices(a, roi, H, W, T)
        if a["position_sensitive"]:
            grad[b] += np.einsum("ph,qw,cpq->cpqhw", my, mx_, og[r] / count).reshape(C, H, W)
        else:
            grad[b] += np.einsum("ph,cpq,qw->chw", my, og[r] / count, mx_)
    return ctx.xp.asarray(grad.astype(data.dtype))


register(OpDef(
    "_backward_ROIAlign", inputs=("ograd", "rois", "data"), attrs=_ATTRS, compute=_backward_compute,
    infer_shape=lambda a, s: [None if s[2] is None else tuple(s[2])],
    infer_type=lambda a, d: [d[2] if d[2] is not None else d[0]], family="pool", hidden=True,
    no_grad_reason="ROIAlign's gradient is linear in ograd with fixed sampling points; its own gradient is not needed",
    doc="Gradient of ROIAlign w.r.t. data: each output gradient spread over its sampling points' neighbours."))


# ---- RROIAlign ----------------------------------------------------------------------------------
_R_ATTRS = {
    "pooled_size": Attr("shape", doc="output grid (h, w) per region"),
    "spatial_scale": Attr("float", doc="feature-map size over image size"),
    "sampling_ratio": Attr("int", -1, doc="sampling points per bin side; <= 0: ceil(bin size)"),
}


def _rotated_points(roi, a, T):
    """Sampling points (ph, gh, pw, gw) x and y of one rotated region, and the grid size."""
    scale = T.type(a["spatial_scale"])
    cx, cy, rw, rh = (T.type(T.type(v) * scale) for v in roi[1:5])
    theta = T.type(np.float64(T.type(roi[5])) * np.pi / 180.0)
    rw, rh = max(rw, T.type(1)), max(rh, T.type(1))
    ph, pw = a["pooled_size"]
    bh, bw, gh, gw = _bins(rh, rw, a["pooled_size"], a["sampling_ratio"], T)
    yy = _grid(T.type(-rh / T.type(2)), bh, ph, gh, T)[:, :, None, None]
    xx = _grid(T.type(-rw / T.type(2)), bw, pw, gw, T)[None, None, :, :]
    cos, sin = T.type(np.cos(theta)), T.type(np.sin(theta))
    x = (xx * cos + yy * sin + cx).astype(T)
    y = (yy * cos - xx * sin + cy).astype(T)
    return y, x, T.type(gh * gw)


def _rroi_compute(ctx, a, data, rois):
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 6:
        raise MXNetError(f"RROIAlign: expected data (N, C, H, W) and rois (R, 6), got {data.shape} and {rois.shape}")
    N, C, H, W = data.shape
    ph, pw = a["pooled_size"]
    T = _float_type(data.dtype)
    x = _host(data).astype(T, copy=False).reshape(N, C, H * W)
    boxes = _host(rois).astype(T, copy=False)
    out = np.zeros((boxes.shape[0], C, ph, pw), dtype=T)
    for r, roi in enumerate(boxes):
        b = int(roi[0])
        if not 0 <= b < N:
            raise MXNetError(f"RROIAlign: roi {r} expected a batch index in [0, {N}), got {b}")
        py, px, count = _rotated_points(roi, a, T)
        py, px = np.broadcast_arrays(py, px)
        valid = ~((py < -1.0) | (py > H) | (px < -1.0) | (px > W))
        ylo, yhi, wyl, wyh = _axis_weights(np.where(valid, py, 0).astype(T), H, T)
        xlo, xhi, wxl, wxh = _axis_weights(np.where(valid, px, 0).astype(T), W, T)
        total = np.zeros((C,) + py.shape, dtype=T)
        for yi, wy in ((ylo, wyl), (yhi, wyh)):
            for xi, wx in ((xlo, wxl), (xhi, wxh)):
                total += np.where(valid, wy * wx, T.type(0)) * x[b][:, yi * W + xi]
        out[r] = total.sum(axis=(2, 4)) / count
    return ctx.xp.asarray(out.astype(data.dtype))


def _rroi_infer(a, in_shapes):
    data, rois = _checked_inputs("RROIAlign", a, in_shapes,
                                 ("batch_index", "center_x", "center_y", "width", "height", "angle"))
    if data is None or rois is None:
        return [None]
    return [(rois[0], data[1]) + tuple(a["pooled_size"])]


register(OpDef(
    "_contrib_RROIAlign", inputs=("data", "rois"), attrs=_R_ATTRS, compute=_rroi_compute,
    infer_shape=_rroi_infer, bounds=_BOUNDS, family="pool",
    no_grad_reason="MXNet 1.9.1 registers no gradient for RROIAlign (its backward is not implemented)",
    doc="""ROIAlign over rotated regions ``rois`` (R, 6) = [batch_index, center_x, center_y, width,
height, angle in degrees] of ``data`` (N, C, H, W) (see ops/roi_align.py)."""))
