"""Scalar arithmetic: ``x (op) scalar`` and the reversed ``scalar (op) x`` (``_plus_scalar``,
``_rminus_scalar``, ``_rdiv_scalar``, ``_power_scalar``, ...), what ``x + 1`` and ``2 ** x`` call, and
``smooth_l1`` (its sigma is the ``scalar`` attribute). Output dtype: MXNet 1.9's rule (see
``binary_math.scalar_type``). Scalar comparisons are in ``binary_compare.py``.

Example::

    >>> import hybridlab as mx
    >>> (2 ** mx.nd.array([1.0, 3.0])).asnumpy().tolist()
    [2.0, 8.0]
    >>> x = mx.nd.array([5, 7], dtype="int32")
    >>> (x - 1).dtype, mx.nd._minus_scalar(x, scalar=0.5, is_int=False).asnumpy()
    (dtype('int32'), array([4.5, 6.5]))
"""
import math

from .binary_factories import scalar, scalar_out
from .binary_math import mxnet_mod, mxnet_power
from .registry import Lowering
from .select_cpu import select


# ---- gradients of the reversed and power variants: dx from x, output y, output gradient og, scalar s
def _g_rdiv(F, x, y, og, s):
    return F.negative(F.elemwise_div(F.elemwise_mul(og, y), x))


def _g_rmod(F, x, y, og, s):
    return F.negative(F.elemwise_mul(og, F.floor(F._rdiv_scalar(x, scalar=s))))


def _g_power_scalar(F, x, y, og, s):
    return F.elemwise_mul(og, F._mul_scalar(F._power_scalar(x, scalar=s - 1.0), scalar=s))


def _g_rpower(F, x, y, og, s):
    return F._mul_scalar(F.elemwise_mul(og, y), scalar=math.log(s) if s > 0 else math.nan)


# ---- x (op) scalar and scalar (op) x --------------------------------------------------------------
scalar("_plus_scalar", lambda xp, x, s: x + s, lambda F, x, y, og, s: og, aliases=("_PlusScalar",),
       out_kernel=scalar_out("add"), lowering=Lowering("add", "xs", "({0} + {s})"),
       doc="x + scalar.")
scalar("_minus_scalar", lambda xp, x, s: x - s, lambda F, x, y, og, s: og, aliases=("_MinusScalar",),
       out_kernel=scalar_out("subtract"), lowering=Lowering("subtract", "xs", "({0} - {s})"),
       doc="x - scalar.")
scalar("_rminus_scalar", lambda xp, x, s: s - x, lambda F, x, y, og, s: F.negative(og), aliases=("_RMinusScalar",),
       out_kernel=scalar_out("subtract", reverse=True), lowering=Lowering("subtract", "sx", "({s} - {0})"),
       doc="scalar - x.")
scalar("_mul_scalar", lambda xp, x, s: x * s, lambda F, x, y, og, s: F._mul_scalar(og, scalar=s),
       aliases=("_MulScalar",), out_kernel=scalar_out("multiply"), lowering=Lowering("multiply", "xs", "({0} * {s})"),
       doc="x * scalar.")
scalar("_div_scalar", lambda xp, x, s: x / s, lambda F, x, y, og, s: F._div_scalar(og, scalar=s),
       aliases=("_DivScalar",), out_kernel=scalar_out("divide"), lowering=Lowering("true_divide", "xs", "({0} / {s})"),
       doc="x / scalar.")
scalar("_rdiv_scalar", lambda xp, x, s: s / x, _g_rdiv, aliases=("_RDivScalar",),
       out_kernel=scalar_out("divide", reverse=True), lowering=Lowering("true_divide", "sx", "({s} / {0})"),
       doc="scalar / x.")
scalar("_mod_scalar", lambda xp, x, s: mxnet_mod(xp, x, xp.full_like(x, s)), lambda F, x, y, og, s: og,
       aliases=("_ModScalar",), doc="x mod scalar (the sign of scalar; 0 where scalar is 0).")
scalar("_rmod_scalar", lambda xp, x, s: mxnet_mod(xp, xp.full_like(x, s), x), _g_rmod, aliases=("_RModScalar",),
       doc="scalar mod x (the sign of x; 0 where x is 0).")
scalar("_power_scalar", lambda xp, x, s: mxnet_power(xp, x, s), _g_power_scalar, aliases=("_PowerScalar",),
       lowering=Lowering("power", "xs", "pow({0}, {s})"),
       doc="x ** scalar.")
scalar("_rpower_scalar", lambda xp, x, s: mxnet_power(xp, s, x), _g_rpower, aliases=("_RPowerScalar",),
       lowering=Lowering("power", "sx", "pow({s}, {0})"),
       doc="scalar ** x.")
scalar("_maximum_scalar", lambda xp, x, s: xp.maximum(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F._greater_equal_scalar(x, scalar=s)),
       aliases=("_MaximumScalar",), out_kernel=scalar_out("maximum"),
       lowering=Lowering("maximum", "xs", "max({0}, {s})"),
       doc="max(x, scalar), elementwise.")
scalar("_minimum_scalar", lambda xp, x, s: xp.minimum(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F._lesser_equal_scalar(x, scalar=s)),
       aliases=("_MinimumScalar",), out_kernel=scalar_out("minimum"),
       lowering=Lowering("minimum", "xs", "min({0}, {s})"),
       doc="min(x, scalar), elementwise.")
scalar("_hypot_scalar", lambda xp, x, s: xp.hypot(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F.elemwise_div(x, y)), aliases=("_HypotScalar",),
       doc="sqrt(x**2 + scalar**2), elementwise.")


# ---- smooth_l1 ----------------------------------------------------------------------------------
def _smooth_l1(xp, x, s):
    s2 = s * s
    ax = xp.abs(x)
    return select(xp, ax < 1.0 / s2, 0.5 * s2 * x * x, ax - 0.5 / s2)


def _g_smooth_l1(F, x, y, og, s):
    inside = F._lesser_scalar(F.abs(x), scalar=1.0 / (s * s))
    slope = F.elemwise_add(F.elemwise_mul(inside, F._mul_scalar(x, scalar=s * s)),
                           F.elemwise_mul(F._rminus_scalar(inside, scalar=1.0), F.sign(x)))
    return F.elemwise_mul(og, slope)


scalar("smooth_l1", _smooth_l1, _g_smooth_l1,
       doc="Smooth L1 loss with sigma = scalar: 0.5 * (sigma * x)**2 where |x| < 1 / sigma**2, "
           "else |x| - 0.5 / sigma**2.")
