"""``mx.np`` differences, elementwise helpers and creation functions composed of registered ops (so
they record gradients); ``bincount`` and ``interp`` run on the host (no gradient). Products:
``products.py``; statistics: ``statistics.py``.

Example::

    >>> import hybridlab as mx
    >>> mx.np.diff(mx.np.array([1.0, 4.0, 9.0])).tolist()
    [3.0, 5.0]
"""
import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, call, slice_axis
from ..deferred.state import tracing as _tracing

__all__ = ["diff", "ediff1d", "trace", "polyval", "float_power", "heaviside", "deg2rad", "rad2deg", "nan_to_num",
           "fabs", "positive", "round_", "modf", "divmod", "logspace", "meshgrid", "indices", "tri", "bincount",
           "interp"]


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis``.

    >>> import hybridlab as mx
    >>> mx.np.diff(mx.np.array([1.0, 2.0, 4.0, 7.0]), n=2).tolist()
    [1.0, 1.0]
    """
    a = as_array(a)
    axis = axis % a.ndim
    parts = []
    for extra, where in ((prepend, 0), (None, 1), (append, 2)):
        if where == 1:
            parts.append(a)
        elif extra is not None:
            e = as_array(extra).astype(a.dtype, copy=False)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                e = _np.broadcast_to(e, tuple(shape))
            parts.append(e)
    if len(parts) > 1:
        a = _np.concatenate(parts, axis=axis)
    for _ in range(n):
        m = a.shape[axis]
        a = slice_axis(a, axis, 1, m) - slice_axis(a, axis, 0, m - 1)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional ends.

    >>> import hybridlab as mx
    >>> mx.np.ediff1d(mx.np.array([1.0, 2.0, 4.0]), to_begin=0.0).tolist()
    [0.0, 1.0, 2.0]
    """
    d = diff(_np.reshape(as_array(ary), (-1,)))
    parts = [_np.reshape(as_array(x).astype(d.dtype, copy=False), (-1,)) for x in (to_begin,) if x is not None]
    parts += [d] + [_np.reshape(as_array(x).astype(d.dtype, copy=False), (-1,)) for x in (to_end,) if x is not None]
    return _np.concatenate(parts, axis=0) if len(parts) > 1 else d


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """Sum along a diagonal.

    >>> import hybridlab as mx
    >>> float(mx.np.trace(mx.np.array([[1.0, 2.0], [3.0, 4.0]])))
    5.0
    """
    return _np.sum(_np.diagonal(as_array(a), offset, axis1, axis2), axis=-1)


def polyval(p, x):
    """Polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's rule.

    >>> import hybridlab as mx
    >>> mx.np.polyval(mx.np.array([1.0, 0.0, -1.0]), mx.np.array([2.0, 3.0])).tolist()
    [3.0, 8.0]
    """
    p, x = as_array(p), as_array(x)
    y = x * 0
    for i in range(p.shape[0]):
        y = y * x + _np.reshape(slice_axis(p, 0, i, i + 1), ())
    return y


def float_power(x1, x2, out=None):
    """``x1 ** x2`` computed in float64.

    >>> import hybridlab as mx
    >>> mx.np.float_power(mx.np.array([2.0]), 3).dtype
    dtype('float64')
    """
    x1 = as_array(x1).astype(_onp.float64, copy=False)
    x2 = as_array(x2).astype(_onp.float64, copy=False) if isinstance(x2, _np.ndarray) else float(x2)
    return x1 ** x2


def heaviside(x1, x2, out=None):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``.

    >>> import hybridlab as mx
    >>> mx.np.heaviside(mx.np.array([-1.0, 0.0, 2.0]), 0.5).tolist()
    [0.0, 0.5, 1.0]
    """
    x1 = as_array(x1)
    x2 = _np.broadcast_to(as_array(x2).astype(x1.dtype, copy=False), x1.shape) if not isinstance(x2, _np.ndarray) \
        else x2
    pos = (x1 > 0).astype(x1.dtype)
    return _np.where(x1 == 0, x2, pos)


def deg2rad(x, out=None):
    """Degrees to radians.

    >>> import hybridlab as mx
    >>> round(float(mx.np.deg2rad(mx.np.array(180.0))), 5)
    3.14159
    """
    return _np.radians(as_array(x), out=out)


def rad2deg(x, out=None):
    """Radians to degrees.

    >>> import hybridlab as mx
    >>> round(float(mx.np.rad2deg(mx.np.array(mx.np.pi))), 3)
    180.0
    """
    return _np.degrees(as_array(x), out=out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """NaN to ``nan``, +inf to ``posinf`` (largest finite by default), -inf to ``neginf``;
    ``copy=False`` writes the result into ``x`` and returns it (as NumPy; while a graph is being
    traced the result is a new array, as MXNet's symbolic nan_to_num).

    >>> import hybridlab as mx
    >>> mx.np.nan_to_num(mx.np.array([mx.np.nan, 1.0]), nan=-1.0).tolist()
    [-1.0, 1.0]
    >>> x = mx.np.array([mx.np.inf, 2.0])
    >>> mx.np.nan_to_num(x, copy=False, posinf=9.0) is x, x.tolist()
    (True, [9.0, 2.0])
    """
    x = as_array(x)
    if x.dtype.kind != "f":
        return x
    info = _onp.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _np.where(_np.isnan(x), _np.full_like(x, nan), x)
    out = _np.where(_np.isposinf(x), _np.full_like(x, posinf), out)
    out = _np.where(_np.isneginf(x), _np.full_like(x, neginf), out)
    if not copy and not _tracing.active:
        x[...] = out
        return x
    return out


def fabs(x, out=None):
    """Absolute value (floats).

    >>> import hybridlab as mx
    >>> mx.np.fabs(mx.np.array([-1.5])).tolist()
    [1.5]
    """
    return _np.abs(as_array(x), out=out)


def positive(x, out=None):
    """``+x`` (a copy).

    >>> import hybridlab as mx
    >>> mx.np.positive(mx.np.array([-1.0])).tolist()
    [-1.0]
    """
    return call("_copy", as_array(x), out=out)


def round_(x, decimals=0, out=None):
    """Round to ``decimals`` decimals (half to even), as ``around``.

    >>> import hybridlab as mx
    >>> mx.np.round_(mx.np.array([2.5, 3.5])).tolist()
    [2.0, 4.0]
    """
    return _np.around(as_array(x), decimals, out=out)


def modf(x, out=None):
    """Fractional and integral parts (both with the sign of ``x``).

    >>> import hybridlab as mx
    >>> [p.tolist() for p in mx.np.modf(mx.np.array([-1.5]))]
    [[-0.5], [-1.0]]
    """
    x = as_array(x)
    whole = _np.trunc(x)
    return x - whole, whole


def divmod(x1, x2, out=None):
    """``(floor(x1 / x2), x1 mod x2)``.

    >>> import hybridlab as mx
    >>> [p.tolist() for p in mx.np.divmod(mx.np.array([7.0]), 2.0)]
    [[3.0], [1.0]]
    """
    x1 = as_array(x1)
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
    xs = [_np.reshape(as_array(x), (-1,)) for x in xi]
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
    device = ctx if device is None else device
    attrs = {"dimensions": tuple(dimensions), "dtype": _onp.int32 if dtype is None else dtype}
    if device is not None:
        attrs["ctx"] = device
    return call("_npi_indices", **attrs)


def tri(N, M=None, k=0, dtype=None, ctx=None, device=None):
    """Ones at and below diagonal ``k`` of an (N, M) matrix, zeros elsewhere.

    >>> import hybridlab as mx
    >>> mx.np.tri(2).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return _np.array(_onp.tri(N, M, k, dtype=dtype or _onp.float32), ctx=ctx, device=device)


def bincount(x, weights=None, minlength=0):
    """Number of occurrences (or summed ``weights``) of each non-negative integer of the 1-d integer
    ``x``, at least ``minlength`` bins; the dtype of ``x`` (of ``weights`` when given), as in MXNet.
    No gradient; the ``_npi_bincount`` op, whose output length depends on the values.

    >>> import hybridlab as mx
    >>> mx.np.bincount(mx.np.array([0, 1, 1, 3], dtype="int64")).tolist()
    [1, 2, 0, 1]
    """
    if not isinstance(x, _np.ndarray):
        raise TypeError("Input data should be NDarray")
    if minlength < 0:
        raise ValueError("Minlength value should greater than 0")
    if weights is None:
        return call("_npi_bincount", x, minlength=minlength, has_weights=False)
    return call("_npi_bincount", x, as_array(weights), minlength=minlength, has_weights=True)


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
