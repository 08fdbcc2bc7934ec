"""MXNet 1.9.1's ``_contrib_DeformableConvolution`` (Deformable ConvNets v1, 2-D) and its internal
backward op, as deformable_convolution-inl.h / nn/deformable_im2col.h compute them.

A convolution whose kernel taps are moved by learned offsets: ``data`` (N, C, H, W), ``offset``
(N, num_deformable_group * 2 * kh * kw, Ho, Wo), ``weight`` (num_filter, C / num_group, kh, kw),
``bias`` (num_filter,) unless ``no_bias``. Tap (i, j) of output position (y, x) reads channel c
(in deformable group g = c // (C / num_deformable_group)) at

    (y * stride_h - pad_h + i * dilate_h + offset[n, g * 2K + 2 (i * kw + j), y, x],
     x * stride_w - pad_w + j * dilate_w + offset[n, g * 2K + 2 (i * kw + j) + 1, y, x])

by bilinear interpolation: 0 when the point lies outside [0, H) x [0, W), the last row / column
repeated for points within the last cell. The taps form im2col columns that the grouped weights
multiply, as in Convolution; Ho and Wo follow Convolution's formula and the offset map must match.
The gradients w.r.t. data, offset (through the interpolation weights) and weight are exact
derivatives of this forward, the same as MXNet's col2im / col2im_coord kernels.

Example (zero offsets give an ordinary convolution)::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> w = mx.nd.ones((1, 1, 3, 3))
    >>> offset = mx.nd.zeros((1, 18, 2, 2))
    >>> y = mx.nd.contrib.DeformableConvolution(x, offset, w, kernel=(3, 3), num_filter=1, no_bias=True)
    >>> y[0, 0].asnumpy().tolist()
    [[45.0, 54.0], [81.0, 90.0]]
    >>> mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=1, no_bias=True)[0, 0].asnumpy().tolist()
    [[45.0, 54.0], [81.0, 90.0]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .dtype_check import uniform_dtypes
from .infer import InferError, merge_shape
from .registry import OpDef, register

__all__ = ["deformable_infer"]

_ATTRS = {
    "kernel": Attr("shape", doc="convolution kernel size (h, w)"),
    "stride": Attr("shape", (), doc="stride (h, w); empty means 1 each"),
    "dilate": Attr("shape", (), doc="dilation (h, w); empty means 1 each"),
    "pad": Attr("shape", (), doc="zero padding (h, w); empty means 0"),
    "num_filter": Attr("int", doc="number of output channels"),
    "num_group": Attr("int", 1, doc="number of convolution groups"),
    "num_deformable_group": Attr("int", 1, doc="number of channel groups sharing one offset map"),
    "workspace": Attr("int", 1024, doc="accepted for compatibility; unused"),
    "no_bias": Attr("bool", False, doc="whether to leave out the bias input"),
    "layout": Attr("enum?", None, choices=("NCW", "NCHW", "NCDHW"), doc="data layout; only NCHW is implemented"),
}
_BOUNDS = {"kernel": (1, None), "stride": (1, None), "dilate": (1, None), "pad": (0, None),
           "num_filter": (1, None), "num_group": (1, None), "num_deformable_group": (1, None),
           "workspace": (0, None)}


def _params(a, name="DeformableConvolution"):
    """(kernel, stride, dilate, pad) as pairs; MXNet implements the 2-D NCHW case only."""
    k = tuple(a["kernel"])
    if len(k) != 2 or a["layout"] not in (None, "NCHW"):
        raise MXNetError(f"{name}: expected a 2-D kernel (h, w) with layout NCHW, got kernel {k} and layout "
                         f"{a['layout']} (MXNet implements only that case)")
    pick = lambda key, default: tuple(a[key]) if len(a[key]) else default  # noqa: E731
    s, d, p = pick("stride", (1, 1)), pick("dilate", (1, 1)), pick("pad", (0, 0))
    for key, v in (("stride", s), ("dilate", d), ("pad", p)):
        if len(v) != 2:
            raise MXNetError(f"{name}: {key} expected 2 values (h, w), got {v}")
    return k, s, d, p


def _out_size(size, k, s, d, p):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _infer(a, in_shapes):
    return deformable_infer(a, in_shapes, "DeformableConvolution", modulated=False)


def deformable_infer(a, in_shapes, name, modulated):
    """Shapes of a deformable convolution's inputs (data, offset, [mask,] weight, [bias]) and output;
    ``modulated`` (ModulatedDeformableConvolution): a mask input, num_filter divisible by
    num_deformable_group too, and a batch of at most ``im2col_step`` or a multiple of it, as MXNet."""
    k, s, d, p = _params(a, name)
    data = in_shapes[0]
    if data is None:
        return [None]
    if len(data) != 4:
        raise InferError(0, "(N, C, H, W)", tuple(data))
    n, c, h, w = data
    g, dg, f = a["num_group"], a["num_deformable_group"], a["num_filter"]
    if c % g or c % dg or f % g or (modulated and f % dg):
        raise InferError(0, f"channels divisible by num_group {g} and num_deformable_group {dg} "
                            f"(and num_filter {f} by {'both' if modulated else 'num_group'})", tuple(data))
    if modulated and n > a["im2col_step"] and n % a["im2col_step"]:
        raise InferError(0, f"a batch size at most im2col_step {a['im2col_step']} or a multiple of it", tuple(data),
                         alone=True)
    for size, kk, pp, axis in ((h, k[0], p[0], "height"), (w, k[1], p[1], "width")):
        if size and kk > size + 2 * pp:
            raise InferError(0, f"a padded {axis} of at least the kernel's {kk}", tuple(data), alone=True)
    ho, wo = _out_size(h, k[0], s[0], d[0], p[0]), _out_size(w, k[1], s[1], d[1], p[1])
    merge_shape(in_shapes, 1, (n, dg * 2 * k[0] * k[1], ho, wo),
                "offset: (N, num_deformable_group * 2 * kh * kw, Ho, Wo), the output's grid")
    if modulated:
        merge_shape(in_shapes, 2, (n, dg * k[0] * k[1], ho, wo),
                    "mask: (N, num_deformable_group * kh * kw, Ho, Wo), the output's grid")
    wi = 3 if modulated else 2
    merge_shape(in_shapes, wi, (f, c // g, k[0], k[1]), "weight: (num_filter, C / num_group, kh, kw)")
    if not a["no_bias"]:
        merge_shape(in_shapes, wi + 1, (f,), "bias: (num_filter,)")
    return [(n, f, ho, wo)]


def _sampling(xp, a, data_shape, offset):
    """Per corner ``(flat position, weight)`` (N, DG, K, Ho * Wo), the fractions and the mask."""
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = _params(a)
    n, _, h, w = data_shape
    dg, ho, wo = a["num_deformable_group"], offset.shape[2], offset.shape[3]
    k = kh * kw
    off = offset.reshape(n, dg, k, 2, ho, wo)
    base_h = (xp.arange(ho) * sh - ph)[None, :, None] + xp.repeat(xp.arange(kh) * dh, kw)[:, None, None]
    base_w = (xp.arange(wo) * sw - pw)[None, None, :] + xp.tile(xp.arange(kw) * dw, kh)[:, None, None]
    py = base_h.astype(off.dtype) + off[:, :, :, 0]                     # (N, DG, K, Ho, Wo)
    px = base_w.astype(off.dtype) + off[:, :, :, 1]
    valid = (py >= 0) & (px >= 0) & (py < h) & (px < w)
    py, px = xp.where(valid, py, 0), xp.where(valid, px, 0)
    y0, x0 = xp.floor(py).astype(np.int64), xp.floor(px).astype(np.int64)
    edge_y, edge_x = y0 >= h - 1, x0 >= w - 1
    y1, x1 = xp.where(edge_y, h - 1, y0 + 1), xp.where(edge_x, w - 1, x0 + 1)
    ly = xp.where(edge_y, 0, py - y0).astype(off.dtype)
    lx = xp.where(edge_x, 0, px - x0).astype(off.dtype)
    m = valid.astype(off.dtype)
    corners = [(y0 * w + x0, (1 - ly) * (1 - lx) * m), (y0 * w + x1, (1 - ly) * lx * m),
               (y1 * w + x0, ly * (1 - lx) * m), (y1 * w + x1, ly * lx * m)]
    flat = lambda v: v.reshape(n, dg, 1, -1)  # noqa: E731
    return [(flat(i), flat(wt)) for i, wt in corners], flat(ly), flat(lx), flat(m)


def _gather(xp, x, idx):
    """``x`` (N, DG, Cg, H*W) at positions ``idx`` (N, DG, 1, S) -> (N, DG, Cg, S)."""
    return xp.take_along_axis(x, xp.broadcast_to(idx, x.shape[:3] + idx.shape[3:]), axis=3)


def _columns(xp, a, data, offset):
    """The deformable im2col columns (N, DG, C / DG, K * Ho * Wo) and the sampling pieces."""
    n, c, h, w = data.shape
    dg = a["num_deformable_group"]
    x = data.reshape(n, dg, c // dg, h * w)
    corners, ly, lx, m = _sampling(xp, a, data.shape, offset)
    values = [_gather(xp, x, idx) for idx, _ in corners]
    cols = sum(v * wt for v, (_, wt) in zip(values, corners))
    return cols, corners, values, ly, lx, m


def _check(a, data, offset, weight, name):
    shapes = [tuple(data.shape), tuple(offset.shape), tuple(weight.shape)] + ([None] if not a["no_bias"] else [])
    want = list(shapes)
    out = _infer(a, want)
    if want[1] != shapes[1] or want[2] != shapes[2]:
        raise MXNetError(f"{name}: expected offset {want[1]} and weight {want[2]}, got {shapes[1]} and {shapes[2]}")
    return out[0]


def _acc(dtype):
    return np.promote_types(dtype, np.float32)


def _compute(ctx, a, data, offset, weight, bias=None):
    xp = ctx.xp
    n, f, ho, wo = _check(a, data, offset, weight, "DeformableConvolution")
    T = _acc(data.dtype)
    g = a["num_group"]
    cols, *_ = _columns(xp, a, data.astype(T), offset.astype(T))
    cols = cols.reshape(n, g, -1, ho * wo)                                # (N, G, C/G * K, L)
    out = xp.matmul(weight.astype(T).reshape(1, g, f // g, -1), cols).reshape(n, f, ho, wo)
    if bias is not None:
        out = out + bias.astype(T).reshape(1, f, 1, 1)
    return out.astype(data.dtype)


def _grad(F, a, inputs, outputs, ograds):
    res = F._backward__contrib_DeformableConvolution(ograds[0], inputs[0], inputs[1], inputs[2], **a)
    grads = [res[0], res[1], res[2]]
    if not a["no_bias"]:
        grads.append(F.sum(ograds[0], axis=(0, 2, 3)))
    return grads


register(OpDef(
    "_contrib_DeformableConvolution",
    inputs=lambda a: ("data", "offset", "weight") if a["no_bias"] else ("data", "offset", "weight", "bias"),
    all_inputs=("data", "offset", "weight", "bias"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    infer_type=uniform_dtypes("DeformableConvolution"), grad=_grad, bounds=_BOUNDS, family="conv",
    doc="""2-D convolution whose kernel taps are displaced per output position by ``offset`` and read
by bilinear interpolation (Deformable ConvNets; see ops/deformable_conv.py)."""))


def _backward_compute(ctx, a, ograd, data, offset, weight):
    xp = ctx.xp
    n, f, ho, wo = _check(a, data, offset, weight, "_backward__contrib_DeformableConvolution")
    T = _acc(data.dtype)
    _, c, h, w = data.shape
    g, dg = a["num_group"], a["num_deformable_group"]
    k = a["kernel"][0] * a["kernel"][1]
    cols, corners, values, ly, lx, m = _columns(xp, a, data.astype(T), offset.astype(T))
    og = ograd.astype(T).reshape(n, g, f // g, ho * wo)
    wt = weight.astype(T).reshape(g, f // g, -1)
    # columns' gradient: W^T @ ograd per group, laid out as the columns (N, DG, C/DG, K * L)
    dcols = xp.matmul(xp.swapaxes(wt, 1, 2)[None], og).reshape(n, dg, c // dg, k * ho * wo)
    dweight = xp.matmul(og, xp.swapaxes(cols.reshape(n, g, -1, ho * wo), 2, 3)).sum(axis=0)
    # data: each column value spread back over its four neighbours
    base = (xp.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, dg, c // dg, 1)
    ddata = xp.zeros(n * c * h * w, dtype=np.float64)
    for idx, cw in corners:
        ddata += xp.bincount((base + idx).ravel(), weights=(dcols * cw).ravel().astype(np.float64),
                             minlength=ddata.size)
    # offset: the derivative of the interpolation weights, summed over the group's channels
    v1, v2, v3, v4 = values
    gy = (dcols * ((v3 - v1) * (1 - lx) + (v4 - v2) * lx)).sum(axis=2) * m[:, :, 0]
    gx = (dcols * ((v2 - v1) * (1 - ly) + (v4 - v3) * ly)).sum(axis=2) * m[:, :, 0]
    doffset = xp.stack([gy.reshape(n, dg, k, ho, wo), gx.reshape(n, dg, k, ho, wo)], axis=3)
    return (ddata.reshape(data.shape).astype(data.dtype), doffset.reshape(offset.shape).astype(offset.dtype),
            dweight.reshape(weight.shape).astype(weight.dtype))


register(OpDef(
    "_backward__contrib_DeformableConvolution", inputs=("ograd", "data", "offset", "weight"), attrs=_ATTRS,
    compute=_backward_compute,
    infer_shape=lambda a, s: [None if v is None else tuple(v) for v in s[1:4]],
    infer_type=lambda a, d: [d[1], d[2], d[3]], family="conv", hidden=True, num_outputs=3,
    output_names=("data_grad", "offset_grad", "weight_grad"),
    no_grad_reason="DeformableConvolution's gradient is first order only (as in MXNet)",
    doc="Gradients of DeformableConvolution w.r.t. data, offset and weight from the output gradient ``ograd``."))
