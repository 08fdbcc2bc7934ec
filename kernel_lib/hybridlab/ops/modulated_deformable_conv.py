"""MXNet 1.9.1's ``_contrib_ModulatedDeformableConvolution`` (Deformable ConvNets v2, 2-D) and its
internal backward op, as modulated_deformable_convolution-inl.h / nn/modulated_deformable_im2col.h
compute them.

DeformableConvolution (``ops/deformable_conv.py``) with each tap's sample scaled by a learned
``mask`` (N, num_deformable_group * kh * kw, Ho, Wo) and a different bilinear read: the point
(py, px) counts when it lies strictly inside (-1, H) x (-1, W), and each of its four neighbouring
pixels outside the image reads 0 (zero padding), so samples fade out across the border. Tap
(i, j) of output (y, x) in deformable group g reads

    mask[n, g * K + i * kw + j, y, x] * bilinear(data[n, c], y * stride_h - pad_h + i * dilate_h + dy,
                                                 x * stride_w - pad_w + j * dilate_w + dx)

with (dy, dx) = offset[n, g * 2K + 2 (i * kw + j) : + 2, y, x]; the columns then meet the grouped
weights as in Convolution. The gradients w.r.t. data, offset, mask and weight are the exact
derivatives of this forward (MXNet computes them on GPU only; its CUDA kernels give the same).

Example (zero offsets and a mask of ones give an ordinary convolution)::

    >>> import hybridlab as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> w = mx.nd.ones((1, 1, 3, 3))
    >>> offset, mask = mx.nd.zeros((1, 18, 2, 2)), mx.nd.ones((1, 9, 2, 2))
    >>> y = mx.nd.contrib.ModulatedDeformableConvolution(x, offset, mask, w, kernel=(3, 3), num_filter=1,
    ...                                                  no_bias=True)
    >>> y[0, 0].asnumpy().tolist()
    [[45.0, 54.0], [81.0, 90.0]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .dtype_check import uniform_dtypes
from .deformable_conv import _ATTRS as _V1_ATTRS, _BOUNDS as _V1_BOUNDS, _acc, _gather, _params, deformable_infer
from .registry import OpDef, register

__all__ = []

_NAME = "ModulatedDeformableConvolution"
_ATTRS = dict(_V1_ATTRS, im2col_step=Attr("int", 64, doc="images per im2col pass in MXNet; accepted for "
                                                              "compatibility (all images are done at once)"))
_BOUNDS = dict(_V1_BOUNDS, im2col_step=(1, None))


def _infer(a, in_shapes):
    return deformable_infer(a, in_shapes, _NAME, modulated=True)


def _sampling(xp, a, data_shape, offset):
    """Per corner ``(flat position, weight)`` (N, DG, 1, K * Ho * Wo) with zero weight for corners
    outside the image, the fractions ``ly``, ``lx``, and each corner's in-image flag."""
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = _params(a, _NAME)
    n, _, h, w = data_shape
    dg, ho, wo = a["num_deformable_group"], offset.shape[2], offset.shape[3]
    off = offset.reshape(n, dg, kh * kw, 2, ho, wo)
    base_h = (xp.arange(ho) * sh - ph)[None, :, None] + xp.repeat(xp.arange(kh) * dh, kw)[:, None, None]
    base_w = (xp.arange(wo) * sw - pw)[None, None, :] + xp.tile(xp.arange(kw) * dw, kh)[:, None, None]
    py = base_h.astype(off.dtype) + off[:, :, :, 0]                     # (N, DG, K, Ho, Wo)
    px = base_w.astype(off.dtype) + off[:, :, :, 1]
    valid = (py > -1) & (px > -1) & (py < h) & (px < w)
    py, px = xp.where(valid, py, 0), xp.where(valid, px, 0)
    y0, x0 = xp.floor(py).astype(np.int64), xp.floor(px).astype(np.int64)
    ly, lx = (py - y0).astype(off.dtype), (px - x0).astype(off.dtype)
    flat = lambda v: v.reshape(n, dg, 1, -1)  # noqa: E731
    corners = []
    for yy, xx, wy, wx in ((y0, x0, 1 - ly, 1 - lx), (y0, x0 + 1, 1 - ly, lx),
                           (y0 + 1, x0, ly, 1 - lx), (y0 + 1, x0 + 1, ly, lx)):
        inside = valid & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        pos = xp.clip(yy, 0, h - 1) * w + xp.clip(xx, 0, w - 1)
        m = inside.astype(off.dtype)
        corners.append((flat(pos), flat(wy * wx * m), flat(m)))
    return corners, flat(ly), flat(lx)


def _columns(xp, a, data, offset):
    """The unmasked samples (N, DG, C / DG, K * Ho * Wo), the corners and their read values."""
    n, c, h, w = data.shape
    dg = a["num_deformable_group"]
    x = data.reshape(n, dg, c // dg, h * w)
    corners, ly, lx = _sampling(xp, a, data.shape, offset)
    values = [_gather(xp, x, pos) * m for pos, _, m in corners]        # 0 outside the image
    samples = sum(v * wt for v, (_, wt, _) in zip(values, corners))
    return samples, corners, values, ly, lx


def _check(a, data, offset, mask, weight, name):
    shapes = [tuple(v.shape) for v in (data, offset, mask, weight)] + ([None] if not a["no_bias"] else [])
    want = list(shapes)
    out = _infer(a, want)
    if want[1:4] != shapes[1:4]:
        raise MXNetError(f"{name}: expected offset {want[1]}, mask {want[2]} and weight {want[3]}, got "
                         f"{shapes[1]}, {shapes[2]} and {shapes[3]}")
    return out[0]


def _flat_mask(mask, dg):
    n, _, ho, wo = mask.shape
    return mask.reshape(n, dg, 1, -1)                                  # (N, DG, 1, K * Ho * Wo)


def _compute(ctx, a, data, offset, mask, weight, bias=None):
    xp = ctx.xp
    n, f, ho, wo = _check(a, data, offset, mask, weight, _NAME)
    T = _acc(data.dtype)
    g = a["num_group"]
    samples, *_ = _columns(xp, a, data.astype(T), offset.astype(T))
    cols = (samples * _flat_mask(mask.astype(T), a["num_deformable_group"])).reshape(n, g, -1, ho * wo)
    out = xp.matmul(weight.astype(T).reshape(1, g, f // g, -1), cols).reshape(n, f, ho, wo)
    if bias is not None:
        out = out + bias.astype(T).reshape(1, f, 1, 1)
    return out.astype(data.dtype)


def _grad(F, a, inputs, outputs, ograds):
    res = F._backward__contrib_ModulatedDeformableConvolution(ograds[0], *inputs[:4], **a)
    grads = [res[0], res[1], res[2], res[3]]
    if not a["no_bias"]:
        grads.append(F.sum(ograds[0], axis=(0, 2, 3)))
    return grads


register(OpDef(
    "_contrib_ModulatedDeformableConvolution",
    inputs=lambda a: ("data", "offset", "mask", "weight") if a["no_bias"] else
    ("data", "offset", "mask", "weight", "bias"),
    all_inputs=("data", "offset", "mask", "weight", "bias"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    infer_type=uniform_dtypes(_NAME), grad=_grad, bounds=_BOUNDS, family="conv",
    doc="""2-D deformable convolution v2: kernel taps displaced by ``offset``, read by zero-padded
bilinear interpolation and scaled by ``mask`` (see ops/modulated_deformable_conv.py)."""))


def _backward_compute(ctx, a, ograd, data, offset, mask, weight):
    xp = ctx.xp
    n, f, ho, wo = _check(a, data, offset, mask, weight, "_backward__contrib_" + _NAME)
    T = _acc(data.dtype)
    _, c, h, w = data.shape
    g, dg = a["num_group"], a["num_deformable_group"]
    k = a["kernel"][0] * a["kernel"][1]
    samples, corners, values, ly, lx = _columns(xp, a, data.astype(T), offset.astype(T))
    fmask = _flat_mask(mask.astype(T), dg)
    og = ograd.astype(T).reshape(n, g, f // g, ho * wo)
    wt = weight.astype(T).reshape(g, f // g, -1)
    cols = (samples * fmask).reshape(n, g, -1, ho * wo)
    dweight = xp.matmul(og, xp.swapaxes(cols, 2, 3)).sum(axis=0)
    # the masked columns' gradient, laid out as the columns (N, DG, C/DG, K * L)
    dcols = xp.matmul(xp.swapaxes(wt, 1, 2)[None], og).reshape(n, dg, c // dg, k * ho * wo)
    dmask = (dcols * samples).sum(axis=2)
    dsamples = dcols * fmask
    base = (xp.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, dg, c // dg, 1)
    ddata = xp.zeros(n * c * h * w, dtype=np.float64)
    for pos, cw, _ in corners:
        ddata += xp.bincount((base + pos).ravel(), weights=(dsamples * cw).ravel().astype(np.float64),
                             minlength=ddata.size)
    v1, v2, v3, v4 = values            # 0 outside the image: the offsets' gradient needs no other case
    gy = (dsamples * ((v3 - v1) * (1 - lx) + (v4 - v2) * lx)).sum(axis=2)
    gx = (dsamples * ((v2 - v1) * (1 - ly) + (v4 - v3) * ly)).sum(axis=2)
    doffset = xp.stack([gy.reshape(n, dg, k, ho, wo), gx.reshape(n, dg, k, ho, wo)], axis=3)
    return (ddata.reshape(data.shape).astype(data.dtype), doffset.reshape(offset.shape).astype(offset.dtype),
            dmask.reshape(mask.shape).astype(mask.dtype), dweight.reshape(weight.shape).astype(weight.dtype))


register(OpDef(
    "_backward__contrib_ModulatedDeformableConvolution", inputs=("ograd", "data", "offset", "mask", "weight"),
    attrs=_ATTRS, compute=_backward_compute,
    infer_shape=lambda a, s: [None if v is None else tuple(v) for v in s[1:5]],
    infer_type=lambda a, d: [d[1], d[2], d[3], d[4]], family="conv", hidden=True, num_outputs=4,
    output_names=("data_grad", "offset_grad", "mask_grad", "weight_grad"),
    no_grad_reason="ModulatedDeformableConvolution's gradient is first order only (as in MXNet)",
    doc="Gradients of ModulatedDeformableConvolution w.r.t. data, offset, mask and weight from ``ograd``."))
