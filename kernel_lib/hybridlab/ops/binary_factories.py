"""The factories of the binary family: ``broadcast`` (NumPy broadcasting), ``elemwise`` (inputs of
one shape) and ``scalar`` (one array and a ``scalar`` attribute) register one op each from a math
function of ``binary_math.py``, and the ``out=`` kernels static memory plans call.

Every variant is one factory line (``binary.py``, ``binary_compare.py``, ``binary_scalar.py``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("broadcast_sub")
    >>> op.family, op.aliases, op.out_kernel.inplace
    ('broadcast', ('broadcast_minus',), True)
"""
import math

from .attrs import Attr
from .binary_math import FORWARD, GRAD, NO_GRAD_REASON, arith_type, as_array, scalar_type
from .infer import broadcast_shape, same_shape, unary_shape
from .registry import OpDef, OutKernel, register

__all__ = ["broadcast", "elemwise", "scalar", "sum_to", "ufunc_out", "scalar_out"]


def _binary_compute(forward, out_type):
    def compute(ctx, a, lhs, rhs):
        dt = out_type(a, [lhs.dtype, rhs.dtype])[0]
        return as_array(ctx.xp, forward(ctx.xp, lhs, rhs).astype(dt, copy=False))
    return compute


def _broadcast_infer(a, in_shapes):
    return [broadcast_shape(in_shapes[0], in_shapes[1])]


def sum_to(F, g, like):
    """Gradient ``g`` of a broadcast result, summed back to the shape of input ``like``."""
    return F._reduce_sum_like(g, like)


def broadcast(name, fn, *, aliases=(), np=(), doc="", out_type=arith_type, logic=False, hidden=False, **opdef):
    """Register ``lhs (fn) rhs`` with NumPy broadcasting; ``fn`` names a forward and a gradient;
    ``opdef``: further ``OpDef`` fields (``out_kernel``, ``lowering``)."""
    grad = None if logic else GRAD[fn]

    def gradient(F, a, inputs, outputs, ograds):
        lhs, rhs = inputs
        dl, dr = grad(F, lhs, rhs, outputs[0], ograds[0])
        return [sum_to(F, dl, lhs), sum_to(F, dr, rhs)]

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=_binary_compute(FORWARD[fn], out_type),
                          infer_shape=_broadcast_infer, infer_type=out_type,
                          grad=None if logic else gradient, aliases=aliases, np=np, doc=doc,
                          family="broadcast", no_grad_reason=NO_GRAD_REASON if logic else "", hidden=hidden,
                          zero_grad=logic, **opdef))


def elemwise(name, fn, *, aliases=(), doc="", logic=False, **opdef):
    """Register ``lhs (fn) rhs`` for inputs of one shape (MXNet's elemwise_* / _maximum / _equal ...);
    ``opdef``: further ``OpDef`` fields."""
    grad = None if logic else GRAD[fn]

    def gradient(F, a, inputs, outputs, ograds):
        return list(grad(F, inputs[0], inputs[1], outputs[0], ograds[0]))

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=_binary_compute(FORWARD[fn], arith_type),
                          infer_shape=same_shape, infer_type=arith_type,
                          grad=None if logic else gradient, aliases=aliases, doc=doc, family="elemwise",
                          no_grad_reason=NO_GRAD_REASON if logic else "", zero_grad=logic, **opdef))


def _wrap_int(value, dtype):
    """``value`` as a scalar of the integer ``dtype``, wrapped around as a C cast does (NumPy 2 refuses
    Python integers out of the dtype's range: uint8 array + (-1) would raise)."""
    bits = 8 * dtype.itemsize
    value %= 1 << bits
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return dtype.type(value)


def scalar(name, forward, grad, *, aliases=(), doc="", no_grad_reason="", zero_grad=False, **opdef):
    """Register ``forward(xp, x, scalar)`` (attributes ``scalar``, ``is_int`` as MXNet's);
    ``grad(F, x, y, og, scalar)`` returns dx; ``opdef``: further ``OpDef`` fields."""
    attrs = {"scalar": Attr("float", 1.0, doc="scalar input value"),
             "is_int": Attr("bool", True, doc="whether the scalar is an integer")}

    def compute(ctx, a, x):
        dt = scalar_type(a, [x.dtype])[0]
        s = a["scalar"]
        if dt.kind in "iu":
            # MXNet casts the scalar to the integer dtype as C does: wrapping around, and inf / nan
            # becoming the x86 'integer indefinite' (the dtype's minimum): int32 (1 == inf) is 0
            s = _wrap_int(int(s), dt) if math.isfinite(s) else _wrap_int(-(1 << (8 * dt.itemsize - 1)) if dt.kind == "i" else 0, dt)
        out = forward(ctx.xp, x.astype(dt, copy=False), s).astype(dt, copy=False)
        return out.copy() if out is x else as_array(ctx.xp, out)

    def gradient(F, a, inputs, outputs, ograds):
        return [grad(F, inputs[0], outputs[0], ograds[0], a["scalar"])]

    return register(OpDef(name, compute=compute, infer_shape=unary_shape, attrs=attrs, infer_type=scalar_type,
                          grad=gradient if grad is not None else None, aliases=aliases, doc=doc,
                          family="elemwise", no_grad_reason=no_grad_reason, zero_grad=zero_grad, **opdef))


# ---- what static memory plans call: out= kernels ---------------------------------------------------
def ufunc_out(ufunc):
    """The out kernel of ``ufunc(lhs, rhs)``, a NumPy/CuPy ufunc: elementwise, so ``out`` may be an input."""
    return OutKernel(lambda ctx, a, out, lhs, rhs: getattr(ctx.xp, ufunc)(lhs, rhs, out=out), inplace=True)


def scalar_out(ufunc, reverse=False):
    """The out kernel of ``ufunc(x, scalar)`` (``ufunc(scalar, x)`` when ``reverse``)."""
    if reverse:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(a["scalar"], x, out=out)
    else:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(x, a["scalar"], out=out)
    return OutKernel(kernel, applies=lambda a: isinstance(a["scalar"], (int, float)), inplace=True)
