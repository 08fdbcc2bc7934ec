"""Internal helper for the hand-written ``mx.np`` functions: call a registered op by name with NumPy
semantics (so autograd, hybridize and tracing see registered ops only)."""
from ..ndarray.dispatch import invoke
from ..ops.registry import get_op

__all__ = ["call"]


def call(name, *inputs, out=None, **attrs):
    """``call("_np_sum", x, axis=0)``: run op ``name`` on ``inputs`` with ``attrs``, NumPy-style."""
    return invoke(get_op(name), list(inputs), attrs, out, np_style=True)
