"""Internal helpers for the hand-written ``mx.np`` functions: call a registered op by name with NumPy
semantics (so autograd, hybridize and tracing see registered ops only), and the few compositions
they all use (an array from any input, a slice along one axis, a concatenation, a gather by host
indices), and MXNet's check of NumPy's ufunc keywords (``where=``, ``casting=``, ``order=``,
``dtype=``, ``subok=``) on the ufuncs of ``mx.np``.
"""
import functools

import numpy as _onp

from ..ndarray.dispatch import invoke
from ..ops.registry import get_op

__all__ = ["call", "as_array", "slice_axis", "concat", "take_host", "UFUNCS", "wrap_ufunc"]


def call(name, *inputs, out=None, **attrs):
    """``call("_np_sum", x, axis=0)``: run op ``name`` on ``inputs`` with ``attrs``, NumPy-style."""
    return invoke(get_op(name), list(inputs), attrs, out, np_style=True)


def as_array(x):
    """``x`` if it is an ``mx.np.ndarray``, else ``mx.np.array(x)``."""
    from .. import numpy as _np
    return x if isinstance(x, _np.ndarray) else _np.array(x)


def slice_axis(x, axis, begin, end):
    """``x[..., begin:end, ...]`` along ``axis`` (the ``slice_axis`` op, so gradients flow)."""
    return call("slice_axis", x, axis=axis, begin=begin, end=end)


def concat(seq, axis):
    """The arrays of ``seq`` concatenated along ``axis`` (a single array is returned as is)."""
    from .. import numpy as _np
    seq = list(seq)
    return seq[0] if len(seq) == 1 else _np.concatenate(seq, axis=axis)


def take_host(x, indices, axis):
    """``take(x, indices, axis)`` for host integer ``indices`` known before the call (pad patterns,
    insert/delete orders). While a graph is traced it is made of slices and flips of ``x`` (one per
    run of consecutive indices), so the graph holds no array from outside; otherwise one ``take``.

    >>> import hybridlab as mx
    >>> take_host(mx.np.array([1.0, 2.0, 3.0]), [2, 1, 0, 1, 2], 0).tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0]
    """
    from .. import numpy as _np
    from ..deferred.state import tracing
    idx = [int(i) for i in _onp.asarray(indices, dtype=_onp.int64).reshape(-1)]
    if not tracing.active:
        return _np.take(x, _np.array(idx, dtype=_onp.int64, device=x.device), axis=axis)
    if not idx:
        return slice_axis(x, axis, 0, 0)
    parts, start = [], 0
    for i in range(1, len(idx) + 1):      # runs of step +1 or -1
        step = idx[start + 1] - idx[start] if start + 1 < len(idx) else 0
        if i < len(idx) and step in (1, -1) and idx[i] - idx[i - 1] == step:
            continue
        lo, hi = idx[start], idx[i - 1]
        if lo <= hi:
            parts.append(slice_axis(x, axis, lo, hi + 1))
        else:
            parts.append(call("_np_flip", slice_axis(x, axis, hi, lo + 1), axis=(axis,)))
        start = i
    return concat(parts, axis)


# mx.np's ufuncs (MXNet 1.9.1's wrap_np_unary_func / wrap_np_binary_func): NumPy's ufunc keywords
# are accepted at their defaults only
UFUNCS = """add subtract multiply divide mod matmul remainder power lcm sin cos sinh cosh tanh log10 sqrt
cbrt abs fabs absolute exp expm1 arcsin arccos arctan sign log rint log2 log1p degrees rad2deg radians
deg2rad reciprocal square negative fix tan ceil floor invert bitwise_not trunc logical_not arcsinh arccosh
arctanh maximum minimum copysign arctan2 hypot bitwise_and bitwise_xor bitwise_or ldexp isnan isinf
isposinf isneginf isfinite""".split()
_UFUNC_KEYWORDS = ("where", "casting", "order", "dtype", "subok")


def wrap_ufunc(fn, name):
    """``fn`` accepting NumPy's ufunc keywords at their defaults, as MXNet's mx.np ufuncs do: another
    legal value raises NotImplementedError, an unknown one TypeError.

    >>> import hybridlab as mx
    >>> mx.np.sqrt(mx.np.array([4.0]), where=True).tolist()
    [2.0]
    >>> try:
    ...     mx.np.sqrt(mx.np.array([4.0]), casting="safe")
    ... except NotImplementedError as err:
    ...     print(err)
    sqrt: casting='safe' is not implemented (only the default 'same_kind' is)
    """
    from ._ufunc_args import check_ufunc_kwargs

    @functools.wraps(fn)
    def ufunc(*args, **kwargs):
        if kwargs:
            check_ufunc_kwargs(name, {k: kwargs.pop(k) for k in _UFUNC_KEYWORDS if k in kwargs})
        return fn(*args, **kwargs)
    return ufunc
