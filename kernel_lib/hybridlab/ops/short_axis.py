"""Reductions along a short last axis of NumPy data, as elementwise calls on its columns.

NumPy's ``ufunc.reduce(x, axis=-1)`` costs about 1 us, plus its inner-loop overhead once per row
whatever the row's length: about 15 ns a row for ``add`` and 35 ns for ``maximum``/``minimum`` on
this project's machines (a two-class softmax at batch 1024 spent 37 us on its row maxima). One
elementwise call per column after the first (~1.2 us each, whatever the rows) is cheaper when
there are enough rows for the columns, and it is exact: ``maximum`` and ``minimum`` give the same values in any order, and
NumPy adds float32/float64 rows shorter than 8 in order, as the columns are added here (the same
bits; longer rows it sums pairwise).

Example::

    >>> import numpy as np
    >>> x = np.arange(200, dtype=np.float32).reshape(100, 2)
    >>> np.array_equal(reduce_last(np.add, x), x.sum(axis=-1, keepdims=True))
    True
    >>> reduce_last(np.add, np.ones((2, 2), np.float32)) is None      # two rows: NumPy's reduce is cheaper
    True
"""
import numpy as np

__all__ = ["reduce_last"]

_REDUCE_NS = 1000                                        # NumPy's reduce: the call
_ROW_NS = {np.maximum: 35, np.minimum: 35, np.add: 15}   # and each row
_CALL_NS = 1200                                          # one elementwise call on a column
_EXACT_ADD = (np.dtype(np.float32), np.dtype(np.float64))


def reduce_last(ufunc, x):
    """``ufunc.reduce(x, axis=-1, keepdims=True)`` (``ufunc``: ``np.add``, ``np.maximum`` or
    ``np.minimum``) computed column by column, or ``None`` where NumPy's reduce is the cheaper way or
    the only exact one (the caller then calls it)."""
    if type(x) is not np.ndarray or x.ndim == 0:
        return None
    k = x.shape[-1]
    per_row = _ROW_NS.get(ufunc)
    if per_row is None or k < 2 or (ufunc is np.add and (k >= 8 or x.dtype not in _EXACT_ADD)):
        return None
    if _REDUCE_NS + (x.size // k) * per_row <= (k - 1) * _CALL_NS:
        return None
    out = ufunc(x[..., 0:1], x[..., 1:2])
    for j in range(2, k):
        ufunc(out, x[..., j:j + 1], out=out)
    return out
