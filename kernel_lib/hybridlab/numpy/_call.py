"""Internal helpers for the hand-written ``mx.np`` functions: call a registered op by name with NumPy
semantics (so autograd, hybridize and tracing see registered ops only), and the few compositions
they all use (an array from any input, a slice along one axis, a concatenation)."""
from ..ndarray.dispatch import invoke
from ..ops.registry import get_op

__all__ = ["call", "as_array", "slice_axis", "concat"]


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
