"""``mx.np`` checks and logic, composed of registered ops: isnan, isinf, isposinf, isneginf, isfinite,
all, any, allclose, isclose, array_equal, array_equiv, nonzero, flatnonzero, argwhere, count_nonzero,
and the NumPy signatures of where (one argument: nonzero), unique (return_index/inverse/counts,
axis), sort and argsort (``kind`` accepted).

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.array([1.0, mx.np.nan, mx.np.inf])
    >>> mx.np.isnan(x).tolist(), mx.np.isfinite(x).tolist()
    ([False, True, False], [True, False, False])
    >>> [i.tolist() for i in mx.np.nonzero(mx.np.array([[0, 1], [2, 0]]))]
    [[0, 1], [1, 0]]
"""
import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, call
from ._ufunc_args import bool_unary

__all__ = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "all", "any", "alltrue", "sometrue", "allclose",
           "isclose", "array_equal", "array_equiv", "nonzero", "flatnonzero", "argwhere", "count_nonzero", "where",
           "unique", "sort", "argsort", "signbit"]

_generated_where = _np.where


@bool_unary
def isnan(x, out=None):
    """True where ``x`` is NaN.

    >>> import hybridlab as mx
    >>> mx.np.isnan(mx.np.array([0.0, mx.np.nan])).tolist()
    [False, True]
    """
    x = as_array(x)
    return call("_npi_not_equal", x, x, out=out)


@bool_unary
def isinf(x, out=None):
    """True where ``x`` is +inf or -inf.

    >>> import hybridlab as mx
    >>> mx.np.isinf(mx.np.array([1.0, -mx.np.inf])).tolist()
    [False, True]
    """
    return call("_npi_equal", _np.abs(as_array(x)), _onp.inf, out=out)


@bool_unary
def isposinf(x, out=None):
    """True where ``x`` is +inf.

    >>> import hybridlab as mx
    >>> mx.np.isposinf(mx.np.array([mx.np.inf, -mx.np.inf])).tolist()
    [True, False]
    """
    return call("_npi_equal", as_array(x), _onp.inf, out=out)


@bool_unary
def isneginf(x, out=None):
    """True where ``x`` is -inf.

    >>> import hybridlab as mx
    >>> mx.np.isneginf(mx.np.array([mx.np.inf, -mx.np.inf])).tolist()
    [False, True]
    """
    return call("_npi_equal", as_array(x), -_onp.inf, out=out)


@bool_unary
def isfinite(x, out=None):
    """True where ``x`` is neither NaN nor infinite.

    >>> import hybridlab as mx
    >>> mx.np.isfinite(mx.np.array([1.0, mx.np.nan, mx.np.inf])).tolist()
    [True, False, False]
    """
    x = as_array(x)
    if x.dtype.kind in "iub":
        return call("_npi_equal", x, x, out=out)
    return call("_npi_logical_not", _np.logical_or(isnan(x), isinf(x)), out=out)


def signbit(x, out=None):
    """True where the sign bit of ``x`` is set (negative numbers, -0.0).

    >>> import hybridlab as mx
    >>> mx.np.signbit(mx.np.array([-1.0, 2.0])).tolist()
    [True, False]
    """
    x = as_array(x)
    return call("_npi_less", _np.copysign(_np.ones_like(x), x), 0.0, out=out)


def _nonzero_count(a, axis, keepdims):
    a = as_array(a)
    return _np.sum((a != 0).astype(_onp.int64), axis=axis, keepdims=keepdims)


def all(a, axis=None, out=None, keepdims=False):
    """Whether every element (along ``axis``) is non-zero.

    >>> import hybridlab as mx
    >>> bool(mx.np.all(mx.np.array([1, 0]))), mx.np.all(mx.np.array([[1, 0], [1, 1]]), axis=1).tolist()
    (False, [False, True])
    """
    a = as_array(a)
    return call("_npi_equal", _np.sum((a == 0).astype(_onp.int64), axis=axis, keepdims=keepdims), 0, out=out)


def any(a, axis=None, out=None, keepdims=False):
    """Whether some element (along ``axis``) is non-zero.

    >>> import hybridlab as mx
    >>> bool(mx.np.any(mx.np.array([0, 0]))), mx.np.any(mx.np.array([[1, 0], [0, 0]]), axis=1).tolist()
    (False, [True, False])
    """
    return call("_npi_greater", _nonzero_count(a, axis, keepdims), 0, out=out)


alltrue, sometrue = all, any


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (NaNs equal when ``equal_nan``).

    >>> import hybridlab as mx
    >>> mx.np.isclose(mx.np.array([1.0, 2.0]), mx.np.array([1.0 + 1e-9, 2.1])).tolist()
    [True, False]
    """
    a, b = as_array(a), as_array(b)
    close = _np.abs(a - b) <= atol + rtol * _np.abs(b)
    eq = a == b  # infinities of one sign
    close = _np.logical_or(close, eq)
    if equal_nan:
        close = _np.logical_or(close, _np.logical_and(isnan(a), isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close (``isclose``); a Python bool, as MXNet.

    >>> import hybridlab as mx
    >>> mx.np.allclose(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 2.0]))
    True
    """
    return bool(all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """Whether both have the same shape and elements (a Python bool).

    >>> import hybridlab as mx
    >>> mx.np.array_equal(mx.np.array([1, 2]), mx.np.array([1, 2])), mx.np.array_equal(mx.np.ones(2), mx.np.ones(3))
    (True, False)
    """
    a1, a2 = as_array(a1), as_array(a2)
    if a1.shape != a2.shape:
        return False
    eq = a1 == a2
    if equal_nan:
        eq = _np.logical_or(eq, _np.logical_and(isnan(a1), isnan(a2)))
    return bool(all(eq))


def array_equiv(a1, a2):
    """Whether both are equal after broadcasting (a Python bool).

    >>> import hybridlab as mx
    >>> mx.np.array_equiv(mx.np.array([1, 2]), mx.np.array([[1, 2], [1, 2]]))
    True
    """
    a1, a2 = as_array(a1), as_array(a2)
    try:
        _onp.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(all(a1 == a2))


def argwhere(a):
    """Indices of the non-zero elements, one row per element: shape (N, a.ndim), int64.

    >>> import hybridlab as mx
    >>> mx.np.argwhere(mx.np.array([[0, 1], [2, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    return call("nonzero", as_array(a))


def nonzero(a):
    """Indices of the non-zero elements, one int64 array per dimension (as NumPy).

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.nonzero(mx.np.array([0, 3, 0, 4]))]
    [[1, 3]]
    """
    a = as_array(a)
    if a.ndim == 0:
        a = _np.reshape(a, (1,))
    idx = argwhere(a)
    return tuple(_np.reshape(call("slice_axis", idx, axis=1, begin=i, end=i + 1), (-1,)) for i in range(a.ndim))


def flatnonzero(a):
    """Indices of the non-zero elements of ``ravel(a)``.

    >>> import hybridlab as mx
    >>> mx.np.flatnonzero(mx.np.array([[0, 1], [2, 0]])).tolist()
    [1, 2]
    """
    return nonzero(_np.reshape(as_array(a), (-1,)))[0]


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero elements (along ``axis``); a Python int for ``axis=None``, as MXNet.

    >>> import hybridlab as mx
    >>> mx.np.count_nonzero(mx.np.array([[0, 1], [2, 3]])), mx.np.count_nonzero(mx.np.array([[0, 1], [2, 3]]), axis=0).tolist()
    (3, [1, 2])
    """
    out = _nonzero_count(a, axis, keepdims)
    return int(out) if axis is None and not keepdims else out


def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y``; with ``condition`` alone, ``nonzero(condition)``.

    >>> import hybridlab as mx
    >>> mx.np.where(mx.np.array([True, False]), mx.np.ones(2), mx.np.zeros(2)).tolist()
    [1.0, 0.0]
    >>> [i.tolist() for i in mx.np.where(mx.np.array([0.0, 2.0]))]
    [[1]]
    """
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise MXNetValueError("np.where: expected both x and y, or neither, got only one")
    return _generated_where(condition, x, y)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """Sorted unique elements (of ``ar`` flattened, or sub-arrays along ``axis``), optionally with the
    first indices, the inverse indices and the counts (int64), as ``numpy.unique``.

    >>> import hybridlab as mx
    >>> u, idx, inv, cnt = mx.np.unique(mx.np.array([3, 1, 3]), True, True, True)
    >>> u.tolist(), idx.tolist(), inv.tolist(), cnt.tolist()
    ([1.0, 3.0], [1, 0], [1, 0, 1], [1, 2])
    """
    res = call("unique", as_array(ar), return_index=bool(return_index), return_inverse=bool(return_inverse),
               return_counts=bool(return_counts), axis=axis)    # the op: traceable under hybridize
    return tuple(res) if isinstance(res, (list, tuple)) else res


def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy of ``a`` along ``axis`` (``axis=None``: flattened); ``kind`` is accepted (the
    sort is stable), ``order`` is not supported.

    >>> import hybridlab as mx
    >>> mx.np.sort(mx.np.array([[3, 1], [0, 2]]), None, "quicksort").tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    if order is not None:
        raise MXNetValueError(f"np.sort: order= is not supported (expected None, got {order!r})")
    return call("sort", as_array(a), axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None):
    """Indices (int64) that sort ``a`` along ``axis`` (``axis=None``: flattened); ``kind`` is accepted
    (the sort is stable).

    >>> import hybridlab as mx
    >>> mx.np.argsort(mx.np.array([3.0, 1.0, 2.0]), kind="stable").tolist()
    [1, 2, 0]
    """
    if order is not None:
        raise MXNetValueError(f"np.argsort: order= is not supported (expected None, got {order!r})")
    a = as_array(a)
    if axis is None:
        a, axis = _np.reshape(a, (-1,)), -1
    return call("argsort", a, axis=axis, is_ascend=True, dtype=_onp.int64)
