"""Pooling family: ``Pooling`` (max, avg, sum, lp; valid/full/same conventions; global; 1-D, 2-D,
3-D; channel-first and channel-last layouts) and its internal backward ops.

Windows follow MXNet's pool.h: window ``o`` starts at ``o * stride - pad`` and ends at
``min(start + kernel, size + pad)``; max ignores padding (MXNet's lowest value fills it), avg divides
by that clipped window size, or by the number of real elements when ``count_include_pad=False``;
lp computes ``(sum x**p) ** (1/p)`` for p in 1, 2, 3 (cube root keeps the sign). The forward pass
and backward run one vectorised op per kernel position over strided slices of the padded input.

Gradients are registered ops: ``Pooling``'s is ``_backward_Pooling(ograd, data, output)``, whose
gradient is ``Pooling`` again for the linear types (avg, sum, lp with p=1),
``_backward_Pooling_gather`` for max, and a composition of registered ops for lp with p=2, 3.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[[[1, 2], [3, 4]]]])
    >>> mx.nd.Pooling(x, kernel=(2, 2), pool_type="avg").asnumpy().ravel().tolist()
    [2.5]
"""
import functools

import numpy as np

from ..base import MXNetError
from . import conv_path
from .attrs import Attr
from .blocked import fits
from .bf16 import via_float32
from .conv import (from_cf, join_shape, kernel_slices, layout_pattern, pad_spatial, shape_pattern, split_shape,
                   to_cf)
from .dnnl import layout as dnnl_layout, pooling as dnnl_pooling
from .infer import InferError, merge_shape, prod
from .registry import BlockedLayout, NsName, OpDef, register

_DEFAULT_LAYOUT = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _p_value(a, name="Pooling"):
    if a["pool_type"] != "lp":
        return None
    p = a["p_value"]
    if p not in (1, 2, 3):
        raise MXNetError(f"{name}: pool_type 'lp' expected p_value 1, 2 or 3, got {p}")
    return p


def _kind(a, name="Pooling"):
    """The pool type to compute: lp with p=1 is sum pooling."""
    p = _p_value(a, name)
    return "sum" if p == 1 else a["pool_type"], p


def pool_geometry(a, shape, name="Pooling"):
    """``(cl, kernel, stride, pad_before, pad_after, out_spatial)`` for data ``shape``. ``pad_after``
    includes the extra room the full/same conventions need for their last window."""
    nd_data = len(shape) - 2
    if not 1 <= nd_data <= 3:
        raise InferError(0, "(N, C, W), (N, C, H, W) or (N, C, D, H, W)", tuple(shape))
    kernel = a["kernel"]
    if a["global_pool"]:
        nd = nd_data
    else:
        nd = len(kernel)
        if nd == 0:
            raise MXNetError(f"{name}: kernel is required unless global_pool=True")
        if nd > 3:
            raise MXNetError(f"{name}: kernel expected 1, 2 or 3 dimensions, got {kernel}")
        if nd != nd_data:
            layout = a["layout"] or _DEFAULT_LAYOUT[nd]
            raise InferError(0, f"{layout_pattern(nd, layout[-1] == 'C')} for the {nd}-D kernel {kernel}",
                             tuple(shape))
    layout = a["layout"] or _DEFAULT_LAYOUT[nd]
    if len(layout) != nd + 2:
        raise MXNetError(f"{name}: layout expected a {nd + 2}-D layout such as {_DEFAULT_LAYOUT[nd]!r}, "
                         f"got {layout!r}")
    cl = layout[-1] == "C"
    _, _, sp = split_shape(shape, cl)
    if a["global_pool"]:
        zeros = (0,) * nd
        return cl, sp, (1,) * nd, zeros, zeros, (1,) * nd
    if any(k <= 0 for k in kernel):
        raise MXNetError(f"{name}: kernel expected positive sizes, got {kernel}")
    stride = a["stride"] or (1,) * nd
    pad = a["pad"] or (0,) * nd
    for key, value in (("stride", stride), ("pad", pad)):
        if len(value) < nd:
            raise MXNetError(f"{name}: {key} expected {nd} values (like kernel {kernel}), got {value}")
    stride, pad = stride[:nd], pad[:nd]     # MXNet reads the first nd values and ignores the rest
    if any(s <= 0 for s in stride):
        raise MXNetError(f"{name}: stride expected positive values, got {stride}")
    convention = a["pooling_convention"]
    if convention == "same":
        if nd != 1:
            raise InferError(0, layout_pattern(1, cl), tuple(shape),
                             "pooling_convention 'same' supports 1-D pooling only")
        if any(a["pad"] or ()):       # every value given, as MXNet checks pad[0..2]
            raise MXNetError(f"{name}: pooling_convention 'same' expected no pad, got pad={a['pad']}")
    need = {i: kernel[i] - 2 * pad[i] for i in range(nd) if sp[i] and kernel[i] > sp[i] + 2 * pad[i]}
    if need:
        raise InferError(0, shape_pattern(shape, cl, need), tuple(shape),
                         f"the kernel {tuple(kernel)} exceeds the input padded by {tuple(pad)}", alone=True)
    out, after = [], []
    for i in range(nd):
        size, k, s, p = sp[i], kernel[i], stride[i], pad[i]
        if size == 0:                      # unknown dimension
            out.append(0)
            after.append(p)
            continue
        if convention == "valid":
            o = 1 + (size + 2 * p - k) // s
        elif convention == "full":
            o = 1 + -(-(size + 2 * p - k) // s)
        else:
            o = -(-(size + 2 * p) // s)
        out.append(o)
        after.append(p + max(0, (o - 1) * s + k - (size + 2 * p)))
    return cl, tuple(kernel), tuple(stride), tuple(pad), tuple(after), tuple(out)


def _pool_infer(a, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None]
    _kind(a)
    cl, _, _, _, _, out_sp = pool_geometry(a, data)
    n, c, _ = split_shape(data, cl)
    return [join_shape(n, c, out_sp, cl)]


@functools.lru_cache(maxsize=256)
def _avg_count(kernel, stride, pad, spatial, out_spatial, include_pad):
    """Divisor of every avg window (MXNet's pool_size), as a float64 NumPy array of out_spatial."""
    count = np.ones(())
    for k, s, p, size, o in zip(kernel, stride, pad, spatial, out_spatial):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        n = end - start if include_pad else np.minimum(end, size) - np.maximum(start, 0)
        count = np.multiply.outer(count, np.maximum(n, 1))
    return count


def _count(xp, a, geom, spatial, dtype):
    _, k, s, pb, _, out_sp = geom
    include = a["count_include_pad"] is not False
    return xp.asarray(_avg_count(k, s, pb, tuple(spatial), out_sp, include).astype(dtype))


def _lowest(dtype):
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _padded(xp, x, geom, fill):
    _, _, _, pb, pa, _ = geom
    return pad_spatial(xp, x, pb, pa, fill)


def _positions(geom):
    """The strided slice of the padded input every kernel position reads, row-major."""
    _, k, s, _, _, out_sp = geom
    return [sl for _, sl in kernel_slices(k, s, (1,) * len(k), out_sp)]


def _reduce_windows(xp, xpad, geom, kind, p):
    """Max or sum (of x, x**2 or x**3) over every window. Both are separable over a box, so the
    windows are reduced one spatial dimension at a time: k1 + k2 vectorised ops instead of k1 * k2,
    the later ones on already reduced (smaller) arrays."""
    _, k, s, _, _, out_sp = geom
    v = xpad
    if kind == "lp":
        v = v * v if p == 2 else v * v * v
    combine = xp.maximum if kind == "max" else xp.add
    for axis, (ka, sa, oa) in enumerate(zip(k, s, out_sp)):
        if ka == 1 and sa == 1 and v.shape[2 + axis] == oa:
            continue
        head = (slice(None),) * (2 + axis)
        pieces = [v[head + (slice(i, i + sa * (oa - 1) + 1, sa),)] for i in range(ka)]
        if len(pieces) == 1:
            v = pieces[0]
            continue
        acc = combine(pieces[0], pieces[1])
        for piece in pieces[2:]:
            combine(acc, piece, out=acc)
        v = acc
    return v.copy() if v is xpad or v.base is not None else v


def _pool_compute(ctx, a, data):
    xp = ctx.xp
    geom = pool_geometry(a, data.shape)
    cl = geom[0]
    kind, p = _kind(a)
    x = to_cf(xp, data, cl)
    if a["global_pool"]:
        axes = tuple(range(2, x.ndim))
        if kind == "max":
            out = x.max(axis=axes, keepdims=True)
        elif kind in ("sum", "avg"):
            out = x.sum(axis=axes, keepdims=True)
            out = out / prod(x.shape[2:]) if kind == "avg" else out
        else:
            out = (x * x if p == 2 else x * x * x).sum(axis=axes, keepdims=True)
    else:
        fill = _lowest(x.dtype) if kind == "max" else 0
        out = _reduce_windows(xp, _padded(xp, x, geom, fill), geom, kind, p)
        if kind == "avg":
            out = out / _count(xp, a, geom, x.shape[2:], x.dtype)
    if kind == "lp":
        out = xp.sqrt(out) if p == 2 else xp.cbrt(out)
    return from_cf(xp, out.astype(x.dtype, copy=False), cl)


def _max_selections(xp, x, geom):
    """``(padded x, [(slice, mask)])``: for each kernel position, the windows whose first maximum
    (row-major, as MXNet's backward finds it) sits there. Padding never wins."""
    xpad = _padded(xp, x, geom, _lowest(x.dtype))
    best = _reduce_windows(xp, xpad, geom, "max", None)
    selections, taken = [], None
    for sl in _positions(geom):
        sel = xpad[sl] == best
        if taken is None:
            taken = sel.copy()
        else:
            xp.greater(sel, taken, out=sel)      # a maximum not taken by an earlier position
            taken |= sel
        selections.append((sl, sel))
    return xpad, selections


def _disjoint(geom):
    """Whether no two windows overlap (stride >= kernel in every dimension)."""
    _, k, s, _, _, _ = geom
    return all(sa >= ka for ka, sa in zip(k, s))


def _scatter(xp, pieces, x, geom, disjoint=False):
    """Sum ``pieces`` ((slice, out-shaped value) pairs) into a padded zero gradient; crop to ``x``.
    With ``disjoint`` windows every element is written at most once: plain assignment."""
    _, _, _, pb, pa, _ = geom
    sp = x.shape[2:]
    grad = xp.zeros(tuple(x.shape[:2]) + tuple(n + b + e for n, b, e in zip(sp, pb, pa)), dtype=x.dtype)
    for sl, value in pieces:
        if disjoint:
            grad[sl] = value
        else:
            grad[sl] += value
    if any(pb) or any(pa):
        grad = grad[(slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in zip(pb, sp))]
    return grad


def tiles_2x2(geom, shape):
    """Whether the windows are 2x2 with stride 2, unpadded, tiling the channel-first ``shape``
    exactly (the common CNN pooling, which has the kernels below)."""
    _, k, s, pb, pa, out_sp = geom
    return (k == (2, 2) and s == (2, 2) and not any(pb) and not any(pa)
            and tuple(shape[2:]) == (2 * out_sp[0], 2 * out_sp[1]))


def first_max_2x2(xp, x):
    """``(maximum, code)`` of max pooling ``x`` (N, C, 2H, 2W) with 2x2 windows tiling it; ``code``
    (uint8, N, C, H, W) is the position of each window's first maximum in row-major order (0 top-left,
    1 top-right, 2 bottom-left, 3 bottom-right), >= 4 for a window whose maximum is NaN (no position
    gets its gradient, as in MXNet). One copy splits the four window positions into contiguous
    arrays, so every comparison runs on contiguous data: the bottom row holds the first maximum only
    when its maximum is strictly larger than the top row's, the right element only when strictly
    larger than the left one. ``maximum`` equals Pooling's output (a zero maximum may differ in sign
    when +0 and -0 tie: rows are reduced first)."""
    n, c, h2, w2 = x.shape
    q = xp.ascontiguousarray(x.reshape(n, c, h2 // 2, 2, w2 // 2, 2).transpose(3, 5, 0, 1, 2, 4))
    tl, tr, bl, br = q[0, 0], q[0, 1], q[1, 0], q[1, 1]
    top, bottom = xp.maximum(tl, tr), xp.maximum(bl, br)
    maximum = xp.maximum(top, bottom)
    lower = bottom > top
    right = (lower & (br > bl)) | (~lower & (tr > tl))
    code = (lower.view(np.uint8) << 1) | right.view(np.uint8)
    code |= (maximum != maximum).view(np.uint8) << 2                 # NaN windows
    return maximum, code


def _onednn_block(xp, x, *more):
    """The channel block oneDNN's pooling kernels use for channel-first ``x`` when the oneDNN path
    covers the call on ``x`` and ``more`` (float32 NumPy arrays) and ``x``'s channels fit it, else 0."""
    block = dnnl_layout.preferred_block() if conv_path.onednn_covers(xp, x, *more) else 0
    return block if block and fits(x.shape, block) else 0


FIRST_MAX_ONEDNN_MIN = 16384     # smaller data: NumPy's kernel is as fast (measured at (16, 16, 8, 8))


def first_max(xp, x):
    """``first_max_2x2(xp, x)``, from oneDNN's jit pooling (``dnnl/pooling.first_max_forward``, the
    blocked layout and its reorders) on the oneDNN path when the channels fit its block, the data
    holds at least ``FIRST_MAX_ONEDNN_MIN`` values and no NaN (oneDNN skips NaN; the NumPy kernel
    propagates it, as MXNet's reference): LeNet's pooling of (64, 16, 8, 8) 173 -> 90 us."""
    block = _onednn_block(xp, x)
    if block and x.size >= FIRST_MAX_ONEDNN_MIN and not np.isnan(x.max()):
        n, c, h, w = x.shape
        out, code = np.empty((n, c, h // 2, w // 2), np.float32), np.empty((n, c, h // 2, w // 2), np.uint8)
        if dnnl_pooling.first_max_forward(np.ascontiguousarray(x), out, code, block):
            return out, code
    return first_max_2x2(xp, x)


def first_max_applies(a, in_shapes, device=None):
    """Whether ``_Pooling_first_max`` (ops/pool_first_max.py), Pooling's training variant, covers
    attributes ``a`` on ``in_shapes[0]``: max pooling, not global, channel-first 4-D data, 2x2 windows
    with stride 2 tiling it (on any ``device``)."""
    shape = in_shapes[0]
    if a["pool_type"] != "max" or a["global_pool"] or shape is None or len(shape) != 4:
        return False
    geom = pool_geometry(a, shape)
    return not geom[0] and tiles_2x2(geom, shape)


def grad_from_first_max(xp, og, code):
    """The max-pooling gradient (N, C, 2H, 2W) from ``first_max_2x2``'s ``code``: each window's
    ``og`` at its first maximum and +0 elsewhere, NaN windows none (MXNet's unpooling: a zeroed
    gradient, each window's ograd added at its maximum), bit for bit the general path's. One scatter
    of every ograd to its position (NumPy's loops over a 2x2 pattern of small images run once per
    row of 2 to 8 values: 4 strided passes took 113 us at LeNet's (64, 16, 4, 4), this 64 us)."""
    n, c, h, w = og.shape
    size = og.size
    grad = xp.zeros(4 * size + 1, dtype=og.dtype)          # the last element: where NaN windows go
    pos = _window_offsets(xp, w, size)[code.reshape(-1)]
    pos += _window_starts(xp, n * c * h, w)
    xp.minimum(pos, 4 * size, out=pos)
    grad[pos] = og.reshape(-1)
    return grad[:-1].reshape(n, c, 2 * h, 2 * w)


def _window_offsets(xp, w, size):
    """Per ``first_max_2x2`` code, the offset of that window position in the output from the window's
    top-left corner, in an output row of ``2 * w``; NaN windows' codes (4-7): past the end."""
    return xp.asarray([0, 1, 2 * w, 2 * w + 1] + [4 * size] * 4, dtype=np.intp)


def _window_starts(xp, rows, w, keep=True):
    """The output index of each window's top-left corner, windows in ``code``'s order (``rows``
    rows of ``w`` windows; each row of windows spans two output rows of ``2 * w``). Kept for small
    NumPy shapes (at most 64K windows: 512 KiB each), made per call otherwise."""
    if keep and xp is np and rows * w <= 1 << 16:
        return _kept_window_starts(rows, w)
    return (xp.arange(rows, dtype=np.intp).reshape(-1, 1) * (4 * w) + 2 * xp.arange(w, dtype=np.intp)).reshape(-1)


@functools.lru_cache(maxsize=8)
def _kept_window_starts(rows, w):
    starts = _window_starts(np, rows, w, keep=False)
    starts.flags.writeable = False
    return starts


def _max_grad_onednn(xp, geom, x, og):
    """Max pooling's data gradient from oneDNN (``dnnl/pooling.py``: its jit kernels in the blocked
    layout) on the oneDNN path, for channel-first data, or ``None``. 2x2 windows tiling the data keep
    the NumPy kernel below (as fast, and shared with the training variant's workspace)."""
    cl, kernel, stride, pad_l, pad_r, _ = geom
    block = _onednn_block(xp, x, og)
    if cl or not block or tiles_2x2(geom, x.shape):
        return None
    grad = np.empty(x.shape, np.float32)
    ok = dnnl_pooling.max_backward(np.ascontiguousarray(x), np.ascontiguousarray(og), grad, kernel, stride, pad_l,
                                   pad_r, block)
    return grad if ok else None


def _pool_backward_compute(ctx, a, ograd, data, output):
    xp = ctx.xp
    geom = pool_geometry(a, data.shape, "_backward_Pooling")
    cl = geom[0]
    kind, p = _kind(a, "_backward_Pooling")
    x, og = to_cf(xp, data, cl), to_cf(xp, ograd, cl)
    if kind == "max":      # the maximum is recomputed from data, so an inexact ``output`` cannot drop gradients
        grad = _max_grad_onednn(xp, geom, x, og)
        if grad is not None:
            return grad
        if tiles_2x2(geom, x.shape):
            grad = grad_from_first_max(xp, og.astype(xp.result_type(og, x), copy=False), first_max_2x2(xp, x)[1])
        else:
            _, selections = _max_selections(xp, x, geom)
            grad = _scatter(xp, ((sl, xp.where(sel, og, 0)) for sl, sel in selections), x, geom, _disjoint(geom))
    else:
        if kind == "sum":
            t = og
        elif kind == "avg":
            t = og / _count(xp, a, geom, x.shape[2:], x.dtype)
        else:  # lp, p = 2 or 3: d out / d x = (x / out) ** (p - 1); 0 where out is 0 (as MXNet)
            y = to_cf(xp, output, cl)
            yp = y if p == 2 else y * y
            zero = yp == 0
            t = xp.where(zero, 0, og / xp.where(zero, 1, yp))
        grad = _scatter(xp, ((sl, t) for sl in _positions(geom)), x, geom)
        if kind == "lp":
            grad = grad * (x if p == 2 else x * x)
    return from_cf(xp, grad.astype(x.dtype, copy=False), cl)


def _gather_compute(ctx, a, grad, data):
    xp = ctx.xp
    geom = pool_geometry(a, data.shape, "_backward_Pooling_gather")
    if _kind(a, "_backward_Pooling_gather")[0] != "max":
        raise MXNetError(f"_backward_Pooling_gather: pool_type expected 'max', got {a['pool_type']!r}")
    cl = geom[0]
    x, g = to_cf(xp, data, cl), to_cf(xp, grad, cl)
    _, selections = _max_selections(xp, x, geom)
    gpad = _padded(xp, g, geom, 0)
    out = None
    for sl, sel in selections:
        v = xp.where(sel, gpad[sl], 0)          # (not a product: an inf gradient elsewhere must not give NaN)
        out = v if out is None else out + v
    return from_cf(xp, out.astype(x.dtype, copy=False), cl)


def _pool_grad(F, a, inputs, outputs, ograds):
    return [F._backward_Pooling(ograds[0], inputs[0], outputs[0], **a)]


def _pool_backward_grad(F, a, inputs, outputs, ograds):
    og, x, y = inputs
    g = ograds[0]
    kind, p = _kind(a, "_backward_Pooling")
    if kind == "max":        # linear in og with a selection fixed by x: its adjoint gathers
        return [F._backward_Pooling_gather(g, x, **a), None, None]
    if kind in ("sum", "avg"):  # linear in og: the adjoint of the adjoint is the forward
        return [F.Pooling(g, **a), None, None]
    # lp, p = 2, 3: b = x**(p-1) * U(og / y**(p-1)) with U the sum-pooling scatter (S its forward)
    sum_a = dict(a, pool_type="sum")
    xp1 = x if p == 2 else F.square(x)
    yp1 = y if p == 2 else F.square(y)
    s_gx = F.Pooling(F.elemwise_mul(g, xp1), **sum_a)
    u = F._backward_Pooling(F.elemwise_div(og, yp1), x, y, **sum_a)
    d_og = F.elemwise_div(s_gx, yp1)
    d_x = F.elemwise_mul(g, u) if p == 2 else F.elemwise_mul(g, F.elemwise_mul(F._mul_scalar(x, scalar=2.0), u))
    d_y = F._mul_scalar(F.elemwise_div(F.elemwise_mul(s_gx, og), F.elemwise_mul(yp1, y)), scalar=1.0 - p)
    return [d_og, d_x, d_y]


def _gather_grad(F, a, inputs, outputs, ograds):
    grad, data = inputs
    return [F._backward_Pooling(ograds[0], data, F.Pooling(data, **a), **a), None]


def _backward_infer(a, in_shapes):
    og, data, out = in_shapes
    if data is None:
        return [None]
    _kind(a, "_backward_Pooling")
    cl, _, _, _, _, out_sp = pool_geometry(a, data, "_backward_Pooling")
    n, c, _ = split_shape(data, cl)
    expected = join_shape(n, c, out_sp, cl)
    merge_shape(in_shapes, 0, expected, "ograd has the Pooling output's shape")
    merge_shape(in_shapes, 2, expected, "output is the Pooling output")
    return [tuple(data)]


def _gather_infer(a, in_shapes):
    grad, data = in_shapes
    if data is None:
        return [None]
    cl, _, _, _, _, out_sp = pool_geometry(a, data, "_backward_Pooling_gather")
    merge_shape(in_shapes, 0, tuple(data), "grad has the data's shape")
    n, c, _ = split_shape(data, cl)
    return [join_shape(n, c, out_sp, cl)]


_POOL_ATTRS = {
    "kernel": Attr("shape", (), doc="pooling window: (w,), (h, w) or (d, h, w); ignored with global_pool"),
    "pool_type": Attr("enum", "max", choices=("max", "avg", "sum", "lp"), doc="pooling function"),
    "global_pool": Attr("bool", False, doc="pool over the whole spatial extent (kernel ignored)"),
    "cudnn_off": Attr("bool", False, doc="accepted for compatibility; unused"),
    "pooling_convention": Attr("enum", "valid", choices=("full", "valid", "same"),
                               doc="output size: floor (valid), ceil (full), or ceil(x / stride) "
                                   "(same; 1-D only, no pad)"),
    "stride": Attr("shape", (), doc="stride per spatial dimension; empty means 1 each"),
    "pad": Attr("shape", (), doc="padding per spatial dimension (both sides); empty means 0"),
    "p_value": Attr("int?", None, doc="p for lp pooling: 1, 2 or 3 (required for lp)"),
    "count_include_pad": Attr("bool?", None, doc="avg: whether padding counts in the divisor "
                                                  "(None means True)"),
    "layout": Attr("enum?", None, choices=("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"),
                   doc="data layout; None means NCW, NCHW or NCDHW by the data's rank"),
}

# MXNet enforces nonzero kernel and stride entries; a negative pad has no meaning (and crashes)
POOL_BOUNDS = {"kernel": (1, None), "stride": (1, None), "pad": (0, None)}


# predict programs may pool channel-first values in oneDNN's blocked layout (the layout plan) through
# ``_BlockedPooling`` (ops/pool_blocked.py), which takes the block as an attribute
POOL_BLOCKED = BlockedLayout(op="_BlockedPooling", in_attr="block", out_attr=None,
                             applies=lambda a, ndim: a["layout"] is None or a["layout"][-1] != "C")


def _first_dtype(a, dtypes):
    """The output dtype of the pooling ops: their first input's (for bfloat16 computes, ``ops/bf16.py``)."""
    return [dtypes[0]]

register(OpDef(
    "Pooling", attrs=_POOL_ATTRS, bounds=POOL_BOUNDS, compute=via_float32(_pool_compute, _first_dtype),
    infer_shape=_pool_infer, grad=_pool_grad,
    family="pool", aliases=("_npx_pooling",), npx=NsName("pooling"), window_max=lambda a: a["pool_type"] == "max",
    train_variant=("_Pooling_first_max", "data", first_max_applies),
    blocked_layout=POOL_BLOCKED,
    doc="""Pooling of ``data`` (N, C, *spatial) over windows of size ``kernel``: max, avg, sum or
lp (``p_value`` 1, 2, 3). Output size per dimension: ``floor((x + 2 * pad - kernel) / stride) + 1``
(valid), with ceil instead of floor (full), or ``ceil(x / stride)`` (same, 1-D only).
``global_pool`` pools each channel to one value. Max pooling ignores padding; avg divides by the
window size clipped to the padded input, or by the number of real elements when
``count_include_pad=False``."""))

register(OpDef(
    "_backward_Pooling", inputs=("ograd", "data", "output"), attrs=_POOL_ATTRS, bounds=POOL_BOUNDS,
    compute=via_float32(_pool_backward_compute, _first_dtype), infer_shape=_backward_infer,
    grad=_pool_backward_grad,
    family="pool", hidden=True,
    doc="""Gradient of Pooling w.r.t. its data, from the output gradient ``ograd``, the ``data`` and
the Pooling ``output``: max routes each window's gradient to its first maximum, avg/sum spread it
over the window, lp scales by ``(data / output) ** (p - 1)``."""))

register(OpDef(
    "_backward_Pooling_gather", inputs=("grad", "data"), attrs=_POOL_ATTRS, bounds=POOL_BOUNDS,
    compute=via_float32(_gather_compute, _first_dtype),
    infer_shape=_gather_infer, grad=_gather_grad, family="pool", hidden=True,
    doc="""For max pooling: ``grad`` (the data's shape) read at each window's first maximum of
``data`` (the adjoint of max-pooling's backward; used for second-order gradients)."""))
