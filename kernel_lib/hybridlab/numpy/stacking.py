"""``mx.np`` stacking and splitting composed of registered ops (so they record gradients):
atleast_1d/2d/3d, vstack, hstack, dstack, column_stack, row_stack, array_split, hsplit, vsplit,
dsplit.

Example::

    >>> import hybridlab as mx
    >>> mx.np.vstack([mx.np.ones(2), mx.np.zeros(2)]).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    >>> [p.shape for p in mx.np.array_split(mx.np.arange(5), 2)]
    [(3,), (2,)]
"""
import operator

import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, concat, slice_axis

__all__ = ["vstack", "hstack", "dstack", "column_stack", "row_stack", "array_split", "hsplit", "vsplit",
           "dsplit", "atleast_1d", "atleast_2d", "atleast_3d"]


def atleast_1d(*arys):
    """Each input viewed with at least one dimension (a list when several are given).

    >>> import hybridlab as mx
    >>> mx.np.atleast_1d(mx.np.array(2.0)).shape
    (1,)
    """
    res = [_np.reshape(a, (1,)) if a.ndim == 0 else a for a in map(as_array, arys)]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    """Each input with at least two dimensions (a 1-d array of n becomes (1, n)).

    >>> import hybridlab as mx
    >>> mx.np.atleast_2d(mx.np.ones(3)).shape
    (1, 3)
    """
    res = [_np.reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a for a in map(as_array, arys)]
    return res[0] if len(res) == 1 else res


def atleast_3d(*arys):
    """Each input with at least three dimensions ((n,) -> (1, n, 1), (m, n) -> (m, n, 1)).

    >>> import hybridlab as mx
    >>> mx.np.atleast_3d(mx.np.ones((2, 3))).shape
    (2, 3, 1)
    """
    def up(a):
        shape = {0: (1, 1, 1), 1: (1,) + a.shape + (1,), 2: a.shape + (1,)}.get(a.ndim, a.shape)
        return a if a.ndim >= 3 else _np.reshape(a, shape)
    res = [up(a) for a in map(as_array, arys)]
    return res[0] if len(res) == 1 else res


def vstack(tup):
    """Stack along the first axis (1-d inputs become rows).

    >>> import hybridlab as mx
    >>> mx.np.vstack([mx.np.ones((1, 2)), mx.np.zeros(2)]).shape
    (2, 2)
    """
    return concat([atleast_2d(a) for a in tup], 0)


row_stack = vstack


def hstack(tup):
    """Stack along the second axis (the first for 1-d inputs).

    >>> import hybridlab as mx
    >>> mx.np.hstack([mx.np.ones(2), mx.np.zeros(3)]).shape
    (5,)
    """
    arrs = [atleast_1d(a) for a in tup]
    return concat(arrs, 0 if arrs[0].ndim == 1 else 1)


def dstack(tup):
    """Stack along the third axis.

    >>> import hybridlab as mx
    >>> mx.np.dstack([mx.np.ones((2, 2)), mx.np.zeros((2, 2))]).shape
    (2, 2, 2)
    """
    return concat([atleast_3d(a) for a in tup], 2)


def column_stack(tup):
    """Stack 1-d arrays as columns (2-d arrays as they are).

    >>> import hybridlab as mx
    >>> mx.np.column_stack([mx.np.ones(3), mx.np.zeros(3)]).shape
    (3, 2)
    """
    arrs = [as_array(a) for a in tup]
    return concat([_np.reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrs], 1)


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``, but a count need not divide the axis (the first parts get one more).

    >>> import hybridlab as mx
    >>> [p.shape for p in mx.np.array_split(mx.np.arange(5), 3)]
    [(2,), (2,), (1,)]
    """
    ary = as_array(ary)
    if hasattr(indices_or_sections, "__index__"):
        n_sec = operator.index(indices_or_sections)
        if n_sec <= 0:
            raise MXNetValueError(f"np.array_split: expected a positive number of sections, got {n_sec}")
        n = ary.shape[axis]
        each, extra = divmod(n, n_sec)
        sizes = [each + 1] * extra + [each] * (n_sec - extra)
        points = list(_onp.cumsum(sizes)[:-1])
    else:
        points = [operator.index(i) for i in indices_or_sections]
    n = ary.shape[axis]
    bounds = [0] + [min(max(p + n if p < 0 else p, 0), n) for p in points] + [n]
    return [slice_axis(ary, axis, b, max(b, e)) for b, e in zip(bounds, bounds[1:])]


def _split_exact(ary, ios, axis, name):
    if hasattr(ios, "__index__") and ary.shape[axis] % operator.index(ios):
        raise MXNetValueError(f"np.{name}: expected a section count dividing {ary.shape[axis]}, got {ios}")
    return array_split(ary, ios, axis)


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first for 1-d arrays).

    >>> import hybridlab as mx
    >>> [p.shape for p in mx.np.hsplit(mx.np.ones((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    ary = as_array(ary)
    return _split_exact(ary, indices_or_sections, 1 if ary.ndim > 1 else 0, "hsplit")


def vsplit(ary, indices_or_sections):
    """Split along the first axis.

    >>> import hybridlab as mx
    >>> [p.shape for p in mx.np.vsplit(mx.np.ones((4, 2)), 2)]
    [(2, 2), (2, 2)]
    """
    return _split_exact(as_array(ary), indices_or_sections, 0, "vsplit")


def dsplit(ary, indices_or_sections):
    """Split along the third axis.

    >>> import hybridlab as mx
    >>> [p.shape for p in mx.np.dsplit(mx.np.ones((1, 2, 4)), 2)]
    [(1, 2, 2), (1, 2, 2)]
    """
    return _split_exact(as_array(ary), indices_or_sections, 2, "dsplit")
