"""``mx.np`` products, differences, statistics, elementwise helpers and creation functions composed of
registered ops (so they record gradients); ``bincount`` and ``interp`` run on the host (no gradient).

Example::

    >>> import hybridlab as mx
    >>> mx.np.tensordot(mx.np.ones((2, 3)), mx.np.ones((3, 4)), axes=1).shape
    (2, 4)
    >>> mx.np.diff(mx.np.array([1.0, 4.0, 9.0])).tolist()
    [3.0, 5.0]
    >>> float(mx.np.percentile(mx.np.array([1.0, 2.0, 3.0, 4.0]), 50))
    2.5
"""
import operator

import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import call

__all__ = ["einsum", "tensordot", "inner", "outer", "kron", "vdot", "cross", "diff", "ediff1d", "trace", "polyval",
           "average", "quantile", "percentile", "median", "nanmax", "nanmin", "ptp", "float_power", "heaviside",
           "deg2rad", "rad2deg", "nan_to_num", "fabs", "positive", "round_", "modf", "divmod", "logspace",
           "meshgrid", "indices", "tri", "bincount", "interp"]


def _arr(x):
    return x if isinstance(x, _np.ndarray) else _np.array(x)


def _sl(x, axis, begin, end):
    return call("slice_axis", x, axis=axis, begin=begin, end=end)


def einsum(subscripts, *operands, out=None, optimize=False):
    """Einstein summation (NumPy's ``einsum``: explicit or implicit output, ``...``), differentiable
    (see ops/np_einsum.py).

    >>> import hybridlab as mx
    >>> x = mx.np.arange(6.0).reshape(2, 3)
    >>> mx.np.einsum('ij->j', x).tolist(), mx.np.einsum('ij,ij', x, x).tolist()
    ([3.0, 5.0, 7.0], 55.0)
    """
    if not isinstance(subscripts, str):
        raise MXNetValueError(f"np.einsum: expected the subscripts string first, got {type(subscripts).__name__}")
    return call("_npi_einsum", *[_arr(o) for o in operands], out=out, subscripts=subscripts,
                num_args=len(operands), optimize=int(bool(optimize)))


def tensordot(a, b, axes=2):
    """Sum products over the last ``axes`` axes of ``a`` and the first of ``b`` (or the given pair of
    axis lists).

    >>> import hybridlab as mx
    >>> float(mx.np.tensordot(mx.np.ones((2, 3)), mx.np.ones((2, 3))))
    6.0
    """
    a, b = _arr(a), _arr(b)
    if hasattr(axes, "__index__"):
        n = operator.index(axes)
        ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if hasattr(ax_a, "__index__") else list(ax_a)
        ax_b = [ax_b] if hasattr(ax_b, "__index__") else list(ax_b)
    ax_a = [x % a.ndim for x in ax_a]
    ax_b = [x % b.ndim for x in ax_b]
    if [a.shape[i] for i in ax_a] != [b.shape[i] for i in ax_b]:
        raise MXNetValueError(f"np.tensordot: contracted axes expected equal sizes, got {a.shape} axes {ax_a} "
                              f"and {b.shape} axes {ax_b}")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(_onp.prod([a.shape[i] for i in ax_a]))
    at = _np.reshape(_np.transpose(a, tuple(free_a + ax_a)), (-1, k))
    bt = _np.reshape(_np.transpose(b, tuple(ax_b + free_b)), (k, -1))
    return _np.reshape(_np.matmul(at, bt), tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def inner(a, b):
    """Sum of products over the last axes of ``a`` and ``b``.

    >>> import hybridlab as mx
    >>> float(mx.np.inner(mx.np.array([1.0, 2.0]), mx.np.array([3.0, 4.0])))
    11.0
    """
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))


def outer(a, b):
    """Outer product of the flattened inputs.

    >>> import hybridlab as mx
    >>> mx.np.outer(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    """
    return _np.reshape(_arr(a), (-1, 1)) * _np.reshape(_arr(b), (1, -1))


def kron(a, b):
    """Kronecker product.

    >>> import hybridlab as mx
    >>> mx.np.kron(mx.np.array([1.0, 10.0]), mx.np.array([1.0, 2.0])).tolist()
    [1.0, 2.0, 10.0, 20.0]
    """
    a, b = _arr(a), _arr(b)
    nd = max(a.ndim, b.ndim)
    a = _np.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = _np.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ea = _np.reshape(a, tuple(x for s in a.shape for x in (s, 1)))
    eb = _np.reshape(b, tuple(x for s in b.shape for x in (1, s)))
    return _np.reshape(ea * eb, tuple(p * q for p, q in zip(a.shape, b.shape)))


def vdot(a, b):
    """Dot product of the flattened inputs.

    >>> import hybridlab as mx
    >>> float(mx.np.vdot(mx.np.ones((2, 2)), mx.np.ones((2, 2))))
    4.0
    """
    return _np.sum(_np.reshape(_arr(a), (-1,)) * _np.reshape(_arr(b), (-1,)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors give the z component) along the last axis.

    >>> import hybridlab as mx
    >>> mx.np.cross(mx.np.array([1.0, 0.0, 0.0]), mx.np.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a, b = _arr(a), _arr(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _np.moveaxis(a, axisa, -1), _np.moveaxis(b, axisb, -1)

    def c(x, i):
        return _np.reshape(_sl(x, -1, i, i + 1), x.shape[:-1]) if x.shape[-1] > i else None

    a0, a1, a2 = c(a, 0), c(a, 1), c(a, 2)
    b0, b1, b2 = c(b, 0), c(b, 1), c(b, 2)
    z = a0 * b1 - a1 * b0
    if a2 is None and b2 is None:
        return z
    a2 = a2 if a2 is not None else a0 * 0
    b2 = b2 if b2 is not None else b0 * 0
    out = _np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z], axis=-1)
    return _np.moveaxis(out, -1, axisc)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis``.

    >>> import hybridlab as mx
    >>> mx.np.diff(mx.np.array([1.0, 2.0, 4.0, 7.0]), n=2).tolist()
    [1.0, 1.0]
    """
    a = _arr(a)
    axis = axis % a.ndim
    parts = []
    for extra, where in ((prepend, 0), (None, 1), (append, 2)):
        if where == 1:
            parts.append(a)
        elif extra is not None:
            e = _arr(extra).astype(a.dtype, copy=False)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                e = _np.broadcast_to(e, tuple(shape))
            parts.append(e)
    if len(parts) > 1:
        a = _np.concatenate(parts, axis=axis)
    for _ in range(n):
        m = a.shape[axis]
        a = _sl(a, axis, 1, m) - _sl(a, axis, 0, m - 1)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional ends.

    >>> import hybridlab as mx
    >>> mx.np.ediff1d(mx.np.array([1.0, 2.0, 4.0]), to_begin=0.0).tolist()
    [0.0, 1.0, 2.0]
    """
    d = diff(_np.reshape(_arr(ary), (-1,)))
    parts = [_np.reshape(_arr(x).astype(d.dtype, copy=False), (-1,)) for x in (to_begin,) if x is not None]
    parts += [d] + [_np.reshape(_arr(x).astype(d.dtype, copy=False), (-1,)) for x in (to_end,) if x is not None]
    return _np.concatenate(parts, axis=0) if len(parts) > 1 else d


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """Sum along a diagonal.

    >>> import hybridlab as mx
    >>> float(mx.np.trace(mx.np.array([[1.0, 2.0], [3.0, 4.0]])))
    5.0
    """
    return _np.sum(_np.diagonal(_arr(a), offset, axis1, axis2), axis=-1)


def polyval(p, x):
    """Polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's rule.

    >>> import hybridlab as mx
    >>> mx.np.polyval(mx.np.array([1.0, 0.0, -1.0]), mx.np.array([2.0, 3.0])).tolist()
    [3.0, 8.0]
    """
    p, x = _arr(p), _arr(x)
    y = x * 0
    for i in range(p.shape[0]):
        y = y * x + _np.reshape(_sl(p, 0, i, i + 1), ())
    return y


def average(a, axis=None, weights=None, returned=False, out=None):
    """Weighted mean along ``axis`` (``weights`` of ``a``'s shape, or 1-d along ``axis``).

    >>> import hybridlab as mx
    >>> float(mx.np.average(mx.np.array([1.0, 3.0]), weights=mx.np.array([3.0, 1.0])))
    1.5
    """
    a = _arr(a)
    if weights is None:
        avg = _np.mean(a, axis=axis)
        scl = _np.full(avg.shape, a.size / max(avg.size, 1), dtype=avg.dtype, device=a.device)
    else:
        w = _arr(weights)
        if w.shape != a.shape:
            if axis is None or w.ndim != 1:
                raise MXNetValueError(f"np.average: weights expected of shape {a.shape} or 1-d along axis, "
                                      f"got {w.shape}")
            shape = [1] * a.ndim
            shape[axis] = w.shape[0]
            w = _np.reshape(w, tuple(shape))
        scl = _np.sum(_np.broadcast_to(w, a.shape) if w.shape != a.shape else w, axis=axis)
        avg = _np.sum(a * w, axis=axis) / scl
    return (avg, scl) if returned else avg


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th quantiles (``q`` in [0, 1], scalar or 1-d) along ``axis``; interpolation 'linear',
    'lower', 'higher', 'midpoint' or 'nearest', as NumPy.

    >>> import hybridlab as mx
    >>> mx.np.quantile(mx.np.array([[1.0, 2.0], [3.0, 5.0]]), 0.5, axis=1).tolist()
    [1.5, 4.0]
    """
    a = _arr(a)
    qs = _onp.asarray(q.asnumpy() if isinstance(q, _np.ndarray) else q, dtype=_onp.float64)
    if _onp.any((qs < 0) | (qs > 1)):
        raise MXNetValueError(f"np.quantile: q expected in [0, 1], got {qs}")
    if axis is None:
        src, ax = _np.reshape(a, (-1,)), 0
    else:
        src, ax = a, axis % a.ndim
    s = _np.sort(src, axis=ax)
    n = s.shape[ax]
    results = []
    for qq in qs.reshape(-1):
        pos = qq * (n - 1)
        lo, hi = int(_onp.floor(pos)), int(_onp.ceil(pos))
        frac = pos - lo
        if interpolation == "lower" or (interpolation == "nearest" and _onp.around(pos) == lo):
            hi, frac = lo, 0.0
        elif interpolation in ("higher", "nearest"):
            lo, frac = hi, 0.0
        elif interpolation == "midpoint":
            frac = 0.5 if hi != lo else 0.0
        elif interpolation != "linear":
            raise MXNetValueError(f"np.quantile: unknown interpolation {interpolation!r}")
        vlo = _sl(s, ax, lo, lo + 1)
        v = vlo if hi == lo or frac == 0 else vlo + (_sl(s, ax, hi, hi + 1) - vlo) * frac
        if keepdims:
            if axis is None:
                v = _np.reshape(v, (1,) * a.ndim)
        else:
            v = _np.squeeze(v, axis=ax)
        results.append(v)
    return results[0] if qs.ndim == 0 else _np.stack(results, axis=0)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th percentiles (``q`` in [0, 100]) along ``axis``; see ``quantile``.

    >>> import hybridlab as mx
    >>> float(mx.np.percentile(mx.np.array([0.0, 10.0]), 25))
    2.5
    """
    qs = q.asnumpy() if isinstance(q, _np.ndarray) else q
    return quantile(a, _onp.asarray(qs, dtype=_onp.float64) / 100.0, axis, out, overwrite_input, interpolation,
                    keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along ``axis``.

    >>> import hybridlab as mx
    >>> float(mx.np.median(mx.np.array([3.0, 1.0, 2.0])))
    2.0
    """
    return quantile(a, 0.5, axis=axis, keepdims=keepdims)


def nanmax(a, axis=None, out=None, keepdims=False):
    """Maximum ignoring NaNs.

    >>> import hybridlab as mx
    >>> float(mx.np.nanmax(mx.np.array([1.0, mx.np.nan, 3.0])))
    3.0
    """
    a = _arr(a)
    return _np.max(_np.where(_np.isnan(a), _np.full_like(a, -_onp.inf), a), axis=axis, keepdims=keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    """Minimum ignoring NaNs.

    >>> import hybridlab as mx
    >>> float(mx.np.nanmin(mx.np.array([1.0, mx.np.nan, 3.0])))
    1.0
    """
    a = _arr(a)
    return _np.min(_np.where(_np.isnan(a), _np.full_like(a, _onp.inf), a), axis=axis, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum - minimum) along ``axis``.

    >>> import hybridlab as mx
    >>> float(mx.np.ptp(mx.np.array([4.0, 1.0, 9.0])))
    8.0
    """
    a = _arr(a)
    return _np.max(a, axis=axis, keepdims=keepdims) - _np.min(a, axis=axis, keepdims=keepdims)


def float_power(x1, x2, out=None):
    """``x1 ** x2`` computed in float64.

    >>> import hybridlab as mx
    >>> mx.np.float_power(mx.np.array([2.0]), 3).dtype
    dtype('float64')
    """
    x1 = _arr(x1).astype(_onp.float64, copy=False)
    x2 = _arr(x2).astype(_onp.float64, copy=False) if isinstance(x2, _np.ndarray) else float(x2)
    return x1 ** x2


def heaviside(x1, x2, out=None):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``.

    >>> import hybridlab as mx
    >>> mx.np.heaviside(mx.np.array([-1.0, 0.0, 2.0]), 0.5).tolist()
    [0.0, 0.5, 1.0]
    """
    x1 = _arr(x1)
    x2 = _np.broadcast_to(_arr(x2).astype(x1.dtype, copy=False), x1.shape) if not isinstance(x2, _np.ndarray) \
        else x2
    pos = (x1 > 0).astype(x1.dtype)
    return _np.where(x1 == 0, x2, pos)


def deg2rad(x, out=None):
    """Degrees to radians.

    >>> import hybridlab as mx
    >>> round(float(mx.np.deg2rad(mx.np.array(180.0))), 5)
    3.14159
    """
    return _np.radians(_arr(x), out=out)


def rad2deg(x, out=None):
    """Radians to degrees.

    >>> import hybridlab as mx
    >>> round(float(mx.np.rad2deg(mx.np.array(mx.np.pi))), 3)
    180.0
    """
    return _np.degrees(_arr(x), out=out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """NaN to ``nan``, +inf to ``posinf`` (largest finite by default), -inf to ``neginf``.

    >>> import hybridlab as mx
    >>> mx.np.nan_to_num(mx.np.array([mx.np.nan, 1.0]), nan=-1.0).tolist()
    [-1.0, 1.0]
    """
    x = _arr(x)
    if x.dtype.kind != "f":
        return x
    info = _onp.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _np.where(_np.isnan(x), _np.full_like(x, nan), x)
    out = _np.where(_np.isposinf(x), _np.full_like(x, posinf), out)
    return _np.where(_np.isneginf(x), _np.full_like(x, neginf), out)


def fabs(x, out=None):
    """Absolute value (floats).

    >>> import hybridlab as mx
    >>> mx.np.fabs(mx.np.array([-1.5])).tolist()
    [1.5]
    """
    return _np.abs(_arr(x), out=out)


def positive(x, out=None):
    """``+x`` (a copy).

    >>> import hybridlab as mx
    >>> mx.np.positive(mx.np.array([-1.0])).tolist()
    [-1.0]
    """
    return call("_copy", _arr(x), out=out)


def round_(x, decimals=0, out=None):
    """Round to ``decimals`` decimals (half to even), as ``around``.

    >>> import hybridlab as mx
    >>> mx.np.round_(mx.np.array([2.5, 3.5])).tolist()
    [2.0, 4.0]
    """
    return _np.around(_arr(x), decimals, out=out)


def modf(x, out=None):
    """Fractional and integral parts (both with the sign of ``x``).

    >>> import hybridlab as mx
    >>> [p.tolist() for p in mx.np.modf(mx.np.array([-1.5]))]
    [[-0.5], [-1.0]]
    """
    x = _arr(x)
    whole = _np.trunc(x)
    return x - whole, whole


def divmod(x1, x2, out=None):
    """``(floor(x1 / x2), x1 mod x2)``.

    >>> import hybridlab as mx
    >>> [p.tolist() for p in mx.np.divmod(mx.np.array([7.0]), 2.0)]
    [[3.0], [1.0]]
    """
    x1 = _arr(x1)
    r = _np.mod(x1, x2)
    return _np.round((x1 - r) / x2), r


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None, device=None):
    """``base ** linspace(start, stop, num)``.

    >>> import hybridlab as mx
    >>> mx.np.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    y = _np.linspace(start, stop, num, endpoint=endpoint, dtype=_onp.float64, axis=axis, ctx=ctx, device=device)
    out = _np.power(_np.full_like(y, base), y)
    return out.astype(dtype or _onp.float32, copy=False)


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (``indexing='xy'`` or ``'ij'``, ``sparse``).

    >>> import hybridlab as mx
    >>> [g.shape for g in mx.np.meshgrid(mx.np.arange(3), mx.np.arange(2))]
    [(2, 3), (2, 3)]
    """
    indexing = kwargs.get("indexing", "xy")
    sparse = kwargs.get("sparse", False)
    if indexing not in ("xy", "ij"):
        raise MXNetValueError(f"np.meshgrid: indexing expected 'xy' or 'ij', got {indexing!r}")
    xs = [_np.reshape(_arr(x), (-1,)) for x in xi]
    nd = len(xs)
    shapes = []
    for i, x in enumerate(xs):
        shape = [1] * nd
        shape[i] = x.shape[0]
        if indexing == "xy" and nd > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        shapes.append(tuple(shape))
    out = [_np.reshape(x, s) for x, s in zip(xs, shapes)]
    if sparse:
        return out
    full = _onp.broadcast_shapes(*shapes)
    return [_np.broadcast_to(o, full) for o in out]


def indices(dimensions, dtype=_onp.int32, ctx=None, device=None):
    """An array of shape ``(len(dimensions),) + dimensions`` holding each index's coordinates.

    >>> import hybridlab as mx
    >>> mx.np.indices((2, 2))[0].tolist()
    [[0, 0], [1, 1]]
    """
    return _np.array(_onp.indices(tuple(dimensions), dtype=dtype), ctx=ctx, device=device)


def tri(N, M=None, k=0, dtype=None, ctx=None, device=None):
    """Ones at and below diagonal ``k`` of an (N, M) matrix, zeros elsewhere.

    >>> import hybridlab as mx
    >>> mx.np.tri(2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return _np.array(_onp.tri(N, M, k, dtype=dtype or _onp.float32), ctx=ctx, device=device)


def bincount(x, weights=None, minlength=0):
    """Number of occurrences (or summed ``weights``) of each non-negative integer of ``x`` (host
    computation, no gradient).

    >>> import hybridlab as mx
    >>> mx.np.bincount(mx.np.array([0, 1, 1, 3], dtype="int64")).tolist()
    [1, 2, 0, 1]
    """
    x = _arr(x)
    w = weights.asnumpy() if isinstance(weights, _np.ndarray) else weights
    return _np.array(_onp.bincount(x.asnumpy(), w, minlength), device=x.device)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of points (xp, fp) at ``x`` (host computation, no gradient).

    >>> import hybridlab as mx
    >>> mx.np.interp(mx.np.array([0.5]), mx.np.array([0.0, 1.0]), mx.np.array([0.0, 2.0])).tolist()
    [1.0]
    """
    def h(v):
        return v.asnumpy() if isinstance(v, _np.ndarray) else v
    out = _onp.interp(h(x), h(xp), h(fp), left, right, period)
    dtype = fp.dtype if isinstance(fp, _np.ndarray) else _onp.float64
    return _np.array(_onp.asarray(out, dtype=dtype),
                     device=x.device if isinstance(x, _np.ndarray) else None)
