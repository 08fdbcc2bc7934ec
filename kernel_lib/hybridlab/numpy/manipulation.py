"""``mx.np`` functions whose NumPy signatures do not map one-to-one onto an op's attributes:
``clip`` (``None`` for an open bound), ``split`` (a count or a list of split points) and
``concatenate`` (``axis=None`` flattens). They replace the generated functions of the same names.

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.array([0.1, 0.6, 0.9])
    >>> mx.np.clip(x, None, 0.5).tolist()
    [0.10000000149011612, 0.5, 0.5]
    >>> [p.shape for p in mx.np.split(mx.np.zeros((2, 5)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 1)]
    >>> mx.np.concatenate([mx.np.ones((2, 2)), mx.np.zeros((1, 2))], axis=None).shape
    (6,)
"""
import operator

import numpy as _onp

from ..base import MXNetError, MXNetValueError
from ..ndarray.dispatch import invoke
from ..ops.registry import get_op

__all__ = ["clip", "split", "concatenate"]


def clip(a, a_min, a_max, out=None):
    """Clip ``a`` to ``[a_min, a_max]``; ``None`` leaves that side open (not both).

    >>> import hybridlab as mx
    >>> mx.np.clip(mx.np.array([-2.0, 0.0, 2.0]), -1, None).tolist()
    [-1.0, 0.0, 2.0]
    """
    if a_min is None and a_max is None:
        raise MXNetValueError("np.clip: expected a_min or a_max (or both), got None for both")
    dtype = getattr(a, "dtype", None)
    if dtype is not None and _onp.dtype(dtype).kind in "iub":
        info = _onp.iinfo(_onp.int64 if _onp.dtype(dtype).kind == "b" else dtype)
        lo, hi = float(info.min), float(info.max)
    else:
        lo, hi = -_onp.inf, _onp.inf
    attrs = {"a_min": lo if a_min is None else float(a_min), "a_max": hi if a_max is None else float(a_max)}
    return invoke(get_op("clip"), [a], attrs, out, np_style=True)


def split(ary, indices_or_sections, axis=0):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal parts (an int), or at the
    given split points (a list: ``[1, 4]`` gives ``ary[:1], ary[1:4], ary[4:]``).

    >>> import hybridlab as mx
    >>> [p.tolist() for p in mx.np.split(mx.np.arange(6), 3)]
    [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    """
    op = get_op("_split_v2")
    if hasattr(indices_or_sections, "__index__"):
        attrs = {"sections": operator.index(indices_or_sections), "axis": axis}
    else:
        points = [operator.index(i) for i in indices_or_sections]
        n = ary.shape[axis]
        bounds = [0] + [min(max(i + n if i < 0 else i, 0), n) for i in points]
        if any(b > e for b, e in zip(bounds, bounds[1:])):
            raise MXNetError(f"np.split: split points expected in increasing order, got {tuple(points)} "
                             f"for an axis of size {n}")
        attrs = {"indices": tuple(bounds), "axis": axis}
    out = invoke(op, [ary], attrs, None, np_style=True)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def concatenate(seq, axis=0, out=None):
    """Join the arrays of ``seq`` along ``axis``; ``axis=None`` flattens them first.

    >>> import hybridlab as mx
    >>> mx.np.concatenate([mx.np.ones((1, 2)), mx.np.zeros((1, 2))]).shape
    (2, 2)
    """
    seq = list(seq)
    if not seq:
        raise MXNetError("np.concatenate: expected at least one array, got none")
    if axis is None:
        reshape = get_op("Reshape")
        seq = [invoke(reshape, [x], {"shape": (-1,)}, None, np_style=True) for x in seq]
        axis = 0
    return invoke(get_op("Concat"), seq, {"dim": axis, "num_args": len(seq)}, out, np_style=True)
