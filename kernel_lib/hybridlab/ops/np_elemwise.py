"""NumPy elementwise functions MXNet's ``mx.np`` has and no other op covers: ``arctan2``,
``copysign``, ``ldexp`` (differentiable, broadcasting), the integer functions ``lcm``, ``gcd``,
``bitwise_and/or/xor`` and ``bitwise_not`` (``invert``), ``i0`` and ``frexp``.

Gradients are written with registered ops; a broadcast input's gradient is summed back to its shape.

Example::

    >>> import hybridlab as mx
    >>> round(float(mx.np.arctan2(mx.np.array(1.0), mx.np.array(-1.0))), 4)
    2.3562
    >>> mx.np.bitwise_and(mx.np.array([6, 5], dtype="int32"), mx.np.array([3, 3], dtype="int32")).tolist()
    [2, 1]
"""
import math

import numpy as _onp

from .infer import broadcast_shape, same_shape
from .registry import NsName, OpDef, register


def _bcast_infer(a, s):
    return [broadcast_shape(s[0], s[1])]


def _float_type(a, d):
    known = [x for x in d if x is not None]
    if not known:
        return [None]
    dt = _onp.result_type(*known)
    return [dt if dt.kind == "f" else _onp.dtype(_onp.float32)]


def _int_type(a, d):
    known = [x for x in d if x is not None]
    return [_onp.result_type(*known) if known else None]


def _sum_to(F, g, like):
    return g if g.shape == like.shape else F._reduce_sum_like(g, like)


def _binary(name, fn, grad=None, out_type=_float_type, doc="", np_names=None, reason=""):
    def compute(ctx, a, x, y):
        dt = out_type(a, [x.dtype, y.dtype])[0]
        return ctx.xp.asarray(fn(ctx.xp, x, y)).astype(dt, copy=False)

    def grad_fn(F, a, ins, outs, og):
        x, y = ins
        gx, gy = grad(F, x, y, outs[0], og[0])
        return [None if gx is None else _sum_to(F, gx, x), None if gy is None else _sum_to(F, gy, y)]

    register(OpDef(f"_npi_{name}", family="broadcast", inputs=("x1", "x2"), compute=compute,
                   infer_shape=_bcast_infer, infer_type=out_type, grad=grad_fn if grad else None,
                   np=np_names or name, no_grad_reason=reason, zero_grad=grad is None, doc=doc))


def _arctan2_grad(F, y, x, out, g):
    den = F.broadcast_add(F.square(x), F.square(y))
    return (F.broadcast_mul(g, F.broadcast_div(x, den)),
            F.negative(F.broadcast_mul(g, F.broadcast_div(y, den))))


def _copysign_grad(F, x, y, out, g):
    return F.broadcast_mul(g, F.broadcast_mul(F.sign(x), F.sign(out))), F.zeros_like(F.broadcast_add(y, g))


def _ldexp_grad(F, x, e, out, g):
    return (F.broadcast_mul(g, F._rpower_scalar(e, scalar=2.0, is_int=False)),
            F.broadcast_mul(g, F._mul_scalar(out, scalar=math.log(2.0), is_int=False)))


_binary("arctan2", lambda xp, y, x: xp.arctan2(y, x), _arctan2_grad,
        doc="Angle of the point (x2, x1) in radians, in [-pi, pi].")
_binary("copysign", lambda xp, x, y: xp.copysign(x, y), _copysign_grad,
        doc="Magnitude of x1 with the sign of x2 (no gradient for x2).")
_binary("ldexp", lambda xp, x, e: x * xp.power(2.0, e.astype(_onp.float64)), _ldexp_grad,
        doc="x1 * 2**x2.")
_INT_REASON = "integer function"
_binary("lcm", lambda xp, x, y: xp.lcm(x, y), out_type=_int_type, reason=_INT_REASON,
        doc="Least common multiple of integers.")
_binary("gcd", lambda xp, x, y: xp.gcd(x, y), out_type=_int_type, reason=_INT_REASON,
        doc="Greatest common divisor of integers.")
for _n in ("and", "or", "xor"):
    _binary(f"bitwise_{_n}", lambda xp, x, y, _f=f"bitwise_{_n}": getattr(xp, _f)(x, y), out_type=_int_type,
        reason=_INT_REASON, doc=f"Bitwise {_n.upper()} of integers or booleans.")


def _unary(name, fn, out_type=None, np_names=None, reason="", doc="", grad=None):
    def compute(ctx, a, x):
        out = ctx.xp.asarray(fn(ctx.xp, x))
        return out if out_type is None else out.astype(out_type([x.dtype])[0], copy=False)

    register(OpDef(f"_npi_{name}", family="elemwise", inputs=("x",), compute=compute, infer_shape=same_shape,
                   infer_type=(lambda a, d: out_type(d)) if out_type else None, np=np_names or name,
                   grad=grad, no_grad_reason=reason, zero_grad=grad is None, doc=doc))


_unary("bitwise_not", lambda xp, x: xp.invert(x), np_names=("bitwise_not", "invert"), reason=_INT_REASON,
       doc="Bitwise NOT of integers (logical NOT of booleans).")
_unary("i0", lambda xp, x: xp.i0(x.astype(_onp.float64)).astype(x.dtype),
       reason="the derivative (Bessel I1) is not implemented", doc="Modified Bessel function of order 0.")


def _frexp_compute(ctx, a, x):
    m, e = ctx.xp.frexp(x)
    return m, e.astype(_onp.int32)


register(OpDef("_npi_frexp", family="elemwise", inputs=("x",), num_outputs=2, compute=_frexp_compute,
               infer_shape=lambda a, s: [s[0], s[0]], infer_type=lambda a, d: [d[0], _onp.dtype(_onp.int32)],
               np=NsName("frexp"), no_grad_reason="piecewise constant exponent", zero_grad=True,
               doc="Mantissa in [0.5, 1) and integer exponent: x = m * 2**e."))
