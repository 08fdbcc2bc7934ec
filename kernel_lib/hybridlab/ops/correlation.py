"""``Correlation`` (FlowNet's correlation layer) and its internal backward op, as MXNet 1.9.1's CPU
kernel (correlation.cc) computes them.

``data1`` and ``data2`` (N, C, H, W) are zero-padded by ``pad_size`` on each side. Output position
(i, j) compares the ``kernel_size`` x ``kernel_size`` patch of padded ``data1`` whose top-left corner
is (y1, x1) = (i * stride1 + max_displacement, j * stride1 + max_displacement) with the patch of
padded ``data2`` displaced by (dy, dx) = ((q // D - r) * stride2, (q % D - r) * stride2) for each
output channel q, with r = max_displacement // stride2 and D = 2r + 1 (D * D output channels)::

    out[n, q, i, j] = sum_{c, h, w} f(data1[n, c, y1 + h, x1 + w], data2[n, c, y1 + dy + h, x1 + dx + w])
                      / (kernel_size**2 * C)

with f = product (``is_multiply``) or absolute difference. The output is (N, D * D, Ho, Wo) with
Ho = ceil((H + 2 pad_size - 2 (max_displacement + (kernel_size - 1) // 2)) / stride1) (Wo alike);
``kernel_size`` must be odd and Ho, Wo at least 1. The gradient of the absolute difference takes
+1 for ``data1`` where the two values are equal (MXNet's choice).

Example::

    >>> import hybridlab as mx
    >>> a = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> mx.nd.Correlation(a, a, max_displacement=1, pad_size=1)[0, :, 1, 1].asnumpy().tolist()
    [0.0, 5.0, 10.0, 20.0, 25.0, 30.0, 40.0, 45.0, 50.0]
"""
import math

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_ATTRS = {
    "kernel_size": Attr("int", 1, doc="patch size (odd)"),
    "max_displacement": Attr("int", 1, doc="largest displacement compared, in pixels"),
    "stride1": Attr("int", 1, doc="stride of the positions of data1"),
    "stride2": Attr("int", 1, doc="stride of the displacements within the neighbourhood"),
    "pad_size": Attr("int", 0, doc="zero padding of both inputs on each side"),
    "is_multiply": Attr("bool", True, doc="product (True) or absolute difference (False)"),
}
_BOUNDS = {"kernel_size": (1, None), "max_displacement": (0, None), "stride1": (1, None),
           "stride2": (1, None), "pad_size": (0, None)}


def _geometry(a, shape, name="Correlation"):
    """(top_channels, Ho, Wo, grid radius, grid width) for data of ``shape``; MXNet's errors."""
    if len(shape) != 4:
        raise InferError(0, "(N, C, H, W)", tuple(shape))
    kr = (a["kernel_size"] - 1) // 2
    border = a["max_displacement"] + kr
    ph, pw = shape[2] + 2 * a["pad_size"], shape[3] + 2 * a["pad_size"]
    ho = math.ceil((ph - 2 * border) / a["stride1"])
    wo = math.ceil((pw - 2 * border) / a["stride1"])
    if ho < 1 or wo < 1:
        raise MXNetError(f"{name}: cannot be done with these settings: the neighbourhood and kernel "
                         f"(max_displacement {a['max_displacement']}, kernel_size {a['kernel_size']}) "
                         f"expected to fit in the padded input {ph}x{pw}, got an output of {ho}x{wo}")
    radius = a["max_displacement"] // a["stride2"]
    width = 2 * radius + 1
    return width * width, ho, wo, radius, width


def _infer(a, in_shapes):
    d1, d2 = in_shapes
    if d1 is not None and d2 is not None and tuple(d1) != tuple(d2):
        raise InferError(1, tuple(d1), tuple(d2), "data1 and data2 must have the same shape")
    d = d1 if d1 is not None else d2
    if d is None:
        return [None]
    tc, ho, wo, _, _ = _geometry(a, d)
    return [(d[0], tc, ho, wo)]


def _prepare(xp, a, data1, data2, name):
    """float32 (or float64) padded copies of both inputs and the geometry."""
    if data1.shape != data2.shape:
        raise MXNetError(f"{name}: data1 and data2 expected the same shape, got {data1.shape} and {data2.shape}")
    if a["kernel_size"] % 2 == 0:
        raise MXNetError(f"{name}: kernel_size expected an odd number, got {a['kernel_size']}")
    geo = _geometry(a, data1.shape, name)
    acc = np.promote_types(data1.dtype, np.float32)
    p = a["pad_size"]
    pads = ((0, 0), (0, 0), (p, p), (p, p))
    return xp.pad(data1.astype(acc), pads), xp.pad(data2.astype(acc), pads), geo


def _windows(a, geo):
    """For each output channel and kernel cell: the slices of padded data1 and data2 it reads."""
    tc, ho, wo, radius, width = geo
    s1, s2, md, k = a["stride1"], a["stride2"], a["max_displacement"], a["kernel_size"]
    for q in range(tc):
        dy, dx = (q // width - radius) * s2, (q % width - radius) * s2
        for h in range(k):
            for w in range(k):
                y, x = md + h, md + w
                one = (slice(y, y + s1 * (ho - 1) + 1, s1), slice(x, x + s1 * (wo - 1) + 1, s1))
                two = (slice(y + dy, y + dy + s1 * (ho - 1) + 1, s1), slice(x + dx, x + dx + s1 * (wo - 1) + 1, s1))
                yield q, one, two


def _compute(ctx, a, data1, data2):
    xp = ctx.xp
    p1, p2, geo = _prepare(xp, a, data1, data2, "Correlation")
    n, c = data1.shape[:2]
    out = xp.zeros((n, geo[0], geo[1], geo[2]), dtype=p1.dtype)
    for q, one, two in _windows(a, geo):
        v1, v2 = p1[(slice(None), slice(None)) + one], p2[(slice(None), slice(None)) + two]
        out[:, q] += (v1 * v2 if a["is_multiply"] else xp.abs(v1 - v2)).sum(axis=1)
    out /= a["kernel_size"] ** 2 * c
    return out.astype(data1.dtype)


register(OpDef(
    "Correlation", inputs=("data1", "data2"), attrs=_ATTRS, compute=_compute, infer_shape=_infer,
    bounds=_BOUNDS, family="nn",
    grad=lambda F, a, ins, outs, og: list(F._backward_Correlation(og[0], ins[0], ins[1], **a)),
    doc="""Patch-wise correlation of two feature maps (FlowNet): for every position of ``data1`` and
every displacement within ``max_displacement``, the mean product (or absolute difference) of the
``kernel_size`` patches (see ops/correlation.py)."""))


def _backward_compute(ctx, a, ograd, data1, data2):
    xp = ctx.xp
    p1, p2, geo = _prepare(xp, a, data1, data2, "_backward_Correlation")
    n, c, h, w = data1.shape
    if tuple(ograd.shape) != (n,) + tuple(geo[:3]):
        raise MXNetError(f"_backward_Correlation: ograd expected the output's shape {(n,) + tuple(geo[:3])}, "
                         f"got {tuple(ograd.shape)}")
    g1, g2 = xp.zeros_like(p1), xp.zeros_like(p2)
    og = ograd.astype(p1.dtype) / (a["kernel_size"] ** 2 * c)
    for q, one, two in _windows(a, geo):
        at1, at2 = (slice(None), slice(None)) + one, (slice(None), slice(None)) + two
        g = og[:, q:q + 1]
        if a["is_multiply"]:
            g1[at1] += g * p2[at2]
            g2[at2] += g * p1[at1]
        else:
            sign = xp.where(p1[at1] >= p2[at2], 1.0, -1.0).astype(p1.dtype)
            g1[at1] += g * sign
            g2[at2] -= g * sign
    p = a["pad_size"]
    crop = (slice(None), slice(None), slice(p, p + h), slice(p, p + w))
    return g1[crop].astype(data1.dtype), g2[crop].astype(data2.dtype)


register(OpDef(
    "_backward_Correlation", inputs=("ograd", "data1", "data2"), attrs=_ATTRS, compute=_backward_compute,
    infer_shape=lambda a, s: [None if s[1] is None else tuple(s[1]), None if s[2] is None else tuple(s[2])],
    infer_type=lambda a, d: [d[1], d[2]], family="nn", hidden=True, num_outputs=2,
    output_names=("data1_grad", "data2_grad"),
    no_grad_reason="Correlation's gradient is first order only (as in MXNet)",
    doc="Gradients of Correlation w.r.t. data1 and data2 from the output gradient ``ograd``."))
