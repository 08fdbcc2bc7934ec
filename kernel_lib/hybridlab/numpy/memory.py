"""``mx.np.shares_memory`` and ``mx.np.may_share_memory``: whether two arrays use the same memory.

An array here holds a NumPy (or CuPy) array, so the answer is NumPy's (CuPy's) about those buffers:
``shares_memory`` is exact, ``may_share_memory`` compares the memory bounds only. Which results are
views follows hybridlab (basic slices along the first axes are views, as in MXNet; reshapes,
transposes and fancy indexing copy). Arrays on different devices never share memory; empty arrays
share none. ``max_work`` is accepted and ignored, as in MXNet.

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.zeros((3, 4))
    >>> mx.np.shares_memory(x, x[1:]), mx.np.shares_memory(x, x.copy())
    (True, False)
    >>> mx.np.may_share_memory(x[:1], x[1:])
    False
"""
from ..base import MXNetTypeError
from ..ndarray.ndarray import NDArray

__all__ = ["shares_memory", "may_share_memory"]


def _buffers(a, b, fn):
    for label, x in (("a", a), ("b", b)):
        if not isinstance(x, NDArray):
            raise MXNetTypeError(f"np.{fn}: argument {label} expected an mx.np.ndarray, got {type(x).__name__}")
    if a.device != b.device:
        return None
    return a._data, b._data


def shares_memory(a, b, max_work=None):
    """Whether the arrays ``a`` and ``b`` share memory.

    >>> import hybridlab as mx
    >>> x = mx.np.arange(6)
    >>> mx.np.shares_memory(x[:3], x[2:]), mx.np.shares_memory(x[:3], x[3:])
    (True, False)
    """
    bufs = _buffers(a, b, "shares_memory")
    return bufs is not None and bool(a.device.xp.shares_memory(*bufs))


def may_share_memory(a, b, max_work=None):
    """Whether the memory bounds of ``a`` and ``b`` overlap (so they might share memory).

    >>> import hybridlab as mx
    >>> x = mx.np.arange(6)
    >>> mx.np.may_share_memory(x, x[4:]), mx.np.may_share_memory(x, mx.np.arange(6))
    (True, False)
    """
    bufs = _buffers(a, b, "may_share_memory")
    return bufs is not None and bool(a.device.xp.may_share_memory(*bufs))
