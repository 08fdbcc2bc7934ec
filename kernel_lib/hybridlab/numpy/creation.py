"""``mx.np`` creation functions with NumPy signatures (plus ``ctx``/``device``): ``zeros``, ``ones``,
``full``, ``empty``, ``arange``, ``linspace``, ``eye``, ``identity``, ``*_like``, ``array``,
``asarray``. Like MXNet's ``mx.np`` the default dtype is float32 (``arange`` with integer
arguments included, unlike NumPy). Results are NumPy-style arrays.

Example::

    >>> import hybridlab as mx
    >>> z = mx.np.zeros((2, 2))
    >>> z.dtype, z.tolist()
    (dtype('float32'), [[0.0, 0.0], [0.0, 0.0]])
    >>> a = mx.np.arange(4)
    >>> a.dtype, a.tolist()
    (dtype('float32'), [0.0, 1.0, 2.0, 3.0])
    >>> mx.np.linspace(0, 1, 3).tolist()
    [0.0, 0.5, 1.0]
"""
import math

import numpy as _onp

from ..base import MXNetError, MXNetNotImplementedError, normalize_dtype
from ..ndarray.dispatch import invoke
from ..ndarray.ndarray import NDArray, array as _nd_array
from ..ops.registry import get_op

__all__ = ["zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity", "zeros_like",
           "ones_like", "full_like", "empty_like", "array", "asarray"]


def _shape(shape):
    if hasattr(shape, "__index__"):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _device(ctx, device):
    return device if device is not None else ctx


def _check_order(order, fn):
    if order not in ("C", None):
        raise MXNetNotImplementedError(f"np.{fn}: order expected 'C' (row-major only), got {order!r}")


def _create(op, attrs, device, dtype, out=None):
    attrs = dict(attrs)
    if device is not None:
        attrs["ctx"] = device
    attrs["dtype"] = _onp.float32 if dtype is None else dtype
    return invoke(get_op(op), [], attrs, out, np_style=True)


def zeros(shape, dtype=None, order="C", ctx=None, device=None, out=None):
    """A new array of zeros (float32 unless ``dtype`` says otherwise)."""
    _check_order(order, "zeros")
    return _create("_zeros", {"shape": _shape(shape)}, _device(ctx, device), dtype, out)


def ones(shape, dtype=None, order="C", ctx=None, device=None, out=None):
    """A new array of ones (float32 unless ``dtype`` says otherwise)."""
    _check_order(order, "ones")
    return _create("_ones", {"shape": _shape(shape)}, _device(ctx, device), dtype, out)


def empty(shape, dtype=None, order="C", ctx=None, device=None):
    """A new array (uninitialised in MXNet; zeros here)."""
    _check_order(order, "empty")
    return _create("_zeros", {"shape": _shape(shape)}, _device(ctx, device), dtype)


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    """A new array filled with ``fill_value`` (float32 unless ``dtype`` says otherwise; bool for a
    bool value; an array value is broadcast to ``shape``).

    >>> import hybridlab as mx
    >>> f = mx.np.full((2,), 3, dtype='int32')
    >>> f.dtype, f.tolist()
    (dtype('int32'), [3, 3])
    """
    _check_order(order, "full")
    if isinstance(fill_value, NDArray):
        ret = invoke(get_op("_npi_broadcast_to"), [fill_value], {"shape": _shape(shape)}, None, np_style=True)
        return ret if dtype is None else ret.astype(dtype)
    if isinstance(fill_value, (bool, _onp.bool_)):
        fill_value = int(fill_value)
        dtype = _onp.bool_ if dtype is None else dtype
    return _create("_full", {"shape": _shape(shape), "value": float(fill_value)}, _device(ctx, device),
                   dtype, out)


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    """Evenly spaced values in [start, stop) (``arange(n)``: [0, n)); float32 (MXNet's default, also
    for integer arguments) unless ``dtype`` says otherwise. An empty range gives a (0,) array.

    >>> import hybridlab as mx
    >>> a = mx.np.arange(1.0, 2.0, 0.25)
    >>> a.dtype, a.tolist()
    (dtype('float32'), [1.0, 1.25, 1.5, 1.75])
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise MXNetError("np.arange: step expected a non-zero value, got 0")
    n = max(int(math.ceil((stop - start) / step)), 0)
    device = _device(ctx, device)
    if n == 0:
        return _create("_zeros", {"shape": (0,)}, device, dtype)
    return _create("_arange", {"start": float(start), "stop": float(stop), "step": float(step)}, device, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None, device=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (float32 unless ``dtype`` says
    otherwise); ``retstep=True`` also returns the spacing."""
    if axis not in (0, -1):
        raise MXNetError(f"np.linspace: axis expected 0 for scalar start/stop, got {axis}")
    if num < 0:
        raise MXNetError(f"np.linspace: num expected a non-negative count, got {num}")
    ret = _create("_linspace", {"start": float(start), "stop": float(stop), "num": int(num),
                                "endpoint": bool(endpoint)}, _device(ctx, device), dtype)
    if retstep:
        div = (num - 1) if endpoint else num
        return ret, ((stop - start) / div if div > 0 else float("nan"))
    return ret


def eye(N, M=None, k=0, dtype=None, ctx=None, device=None):
    """A 2-D array with ones on the k-th diagonal (float32 unless ``dtype`` says otherwise).

    >>> import hybridlab as mx
    >>> mx.np.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    device = _device(ctx, device)
    if M == 0 or N == 0:
        return _create("_zeros", {"shape": (int(N), 0 if M is None else int(M))}, device, dtype)
    return _create("_eye", {"N": int(N), "M": 0 if M is None else int(M), "k": int(k)}, device, dtype)


def identity(n, dtype=None, ctx=None, device=None):
    """The n x n identity matrix (float32 unless ``dtype`` says otherwise)."""
    return eye(n, dtype=dtype, ctx=ctx, device=device)


def _like(a, op, attrs, dtype, ctx, device, out=None):
    if not isinstance(a, NDArray):
        a = array(a)
    device = _device(ctx, device) or a.device
    return _create(op, {"shape": a.shape, **attrs}, device, a.dtype if dtype is None else dtype, out)


def zeros_like(a, dtype=None, order="C", ctx=None, device=None, out=None):
    """Zeros with ``a``'s shape, dtype and device (each can be overridden)."""
    _check_order(order, "zeros_like")
    return _like(a, "_zeros", {}, dtype, ctx, device, out)


def ones_like(a, dtype=None, order="C", ctx=None, device=None, out=None):
    """Ones with ``a``'s shape, dtype and device."""
    _check_order(order, "ones_like")
    return _like(a, "_ones", {}, dtype, ctx, device, out)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    """``fill_value`` with ``a``'s shape, dtype and device."""
    _check_order(order, "full_like")
    return _like(a, "_full", {"value": float(fill_value)}, dtype, ctx, device, out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None, ctx=None, device=None):
    """A new array with ``prototype``'s shape and dtype (zeros here)."""
    _check_order(order, "empty_like")
    if subok:
        raise MXNetError("np.empty_like: subok expected False, got True")
    if shape is not None:
        return empty(shape, dtype=prototype.dtype if dtype is None else dtype,
                     ctx=_device(ctx, device) or prototype.device)
    return _like(prototype, "_zeros", {}, dtype, ctx, device)


def array(object, dtype=None, ctx=None, device=None, copy=True):
    """An array from a nested list, a NumPy/CuPy array or an NDArray. Arrays keep their dtype;
    other objects become float32 (MXNet's default), unless ``dtype`` says otherwise.

    >>> import hybridlab as mx
    >>> a = mx.np.array([[1, 2], [3, 4]])
    >>> a.dtype, a.tolist()
    (dtype('float32'), [[1.0, 2.0], [3.0, 4.0]])
    """
    device = _device(ctx, device)
    if dtype is None and not isinstance(object, NDArray) and not isinstance(object, _onp.ndarray) \
            and not hasattr(object, "__cuda_array_interface__"):
        dtype = object.dtype if hasattr(object, "dtype") else _onp.float32
    return _nd_array(object, dtype=dtype, device=device, np_style=True)


def asarray(a, dtype=None, ctx=None, device=None):
    """``a`` as an ``mx.np`` array, without a copy when it already is one with that dtype and device."""
    device = _device(ctx, device)
    if isinstance(a, NDArray) and a._np and (dtype is None or normalize_dtype(dtype) == a.dtype) \
            and (device is None or device == a.device):
        return a
    if isinstance(a, NDArray) and (dtype is None or normalize_dtype(dtype) == a.dtype) \
            and (device is None or device == a.device):
        return a.as_np_ndarray()
    return array(a, dtype=dtype, device=device)
