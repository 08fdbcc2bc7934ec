"""Elementwise unary operators: math, rounding, activations written as unary ops, casts and copies.

Each op is one ``unary(...)`` line: its forward as an xp expression and its gradient written with
registered ops (``F``), so gradients can be recorded again for higher order. Outputs keep the
input's dtype (MXNet 1.x: ``sqrt`` of an int32 array is int32) unless ``out_dtype`` says otherwise.
Rounding and sign ops are differentiable with gradient 0, as in MXNet.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.rint(mx.nd.array([-1.5, 0.4, 1.5, 2.6])).asnumpy().tolist()   # MXNet: halves go down
    [-2.0, 0.0, 1.0, 3.0]
    >>> mx.nd.round(mx.nd.array([-1.5, 0.5, 2.5])).asnumpy().tolist()       # halves away from zero
    [-2.0, 1.0, 3.0]
"""
import math

import numpy as _np

from ..base import is_bfloat16
from .attrs import Attr
from .bf16 import cast as bf16_cast
from .infer import same_shape, unary_shape
from .registry import InlineRule, Lowering, OpDef, OutKernel, register
from .relu_cpu import RELU_INLINE, relu
from .select_cpu import select

_LN10, _LN2 = math.log(10.0), math.log(2.0)


def unary(name, forward, grad=None, *, aliases=(), np=(), npx=(), doc="", no_grad_reason="",
          attrs=None, out_dtype=None, family="elemwise", hidden=False, **opdef):
    """Register a one-input op. ``forward(xp, x, a)`` computes; ``grad(F, x, y, og, a)`` returns dx;
    ``out_dtype(a, input_dtype)`` gives the output dtype when it is not the input's (``infer_type``,
    when given, is the graph-level rule instead: an output dtype known without the input's)."""
    def compute(ctx, a, x):
        out = forward(ctx.xp, x, a)
        out = out.astype(x.dtype if out_dtype is None else out_dtype(a, x.dtype), copy=False)
        if out is x:
            return out.copy()   # never hand out the input's buffer
        return out if isinstance(out, ctx.xp.ndarray) else ctx.xp.asarray(out)   # NumPy 0-d scalars

    def gradient(F, a, inputs, outputs, ograds):
        return [grad(F, inputs[0], outputs[0], ograds[0], a)]

    infer_type = opdef.pop("infer_type", None) or (None if out_dtype is None else (
        lambda a, dtypes: [None if dtypes[0] is None else _np.dtype(out_dtype(a, _np.dtype(dtypes[0])))]))
    return register(OpDef(name, compute=compute, infer_shape=unary_shape, infer_type=infer_type,
                          grad=gradient if grad is not None else None, aliases=aliases, np=np, npx=npx,
                          doc=doc, no_grad_reason=no_grad_reason, attrs=attrs, family=family, hidden=hidden,
                          **opdef))


def _ufunc_out(fn):
    """The out kernel of an elementwise op computed by ``fn(xp, x, out)``: ``out`` may be ``x``."""
    return OutKernel(lambda ctx, a, out, x: fn(ctx.xp, x, out), inplace=True)


# ---- gradient helpers (registered ops only) ------------------------------------------------------
def _mul(F, a, b):
    return F.elemwise_mul(a, b)


def _div(F, a, b):
    return F.elemwise_div(a, b)


def _scale(F, a, s):
    return F._mul_scalar(a, scalar=s)


def _zero(F, x, y, og, a):
    """Gradient of piecewise-constant ops (rounding, sign): zeros, as MXNet gives."""
    return F.zeros_like(og)


def _one_minus_sq(F, t):
    return F._rminus_scalar(F.square(t), scalar=1.0)


# ---- forwards that need more than one xp call ----------------------------------------------------
def _round_away(xp, x, a):
    """C's round: halves away from zero."""
    t = xp.trunc(x)
    return t + xp.sign(x) * (xp.abs(x - t) >= 0.5)


def _mx_rint(xp, x, a):
    """MXNet's rint: the nearer of floor and ceil, floor on ties (rint(1.5) = 1, rint(-1.5) = -2)."""
    f, c = xp.floor(x), xp.ceil(x)
    return xp.where(x - f <= c - x, f, c)


def sigmoid(xp, x):
    """MXNet's formula ``1 / (1 + exp(-x))``: exp overflows to inf for very negative x, which gives
    exactly 0 (as MXNet). Branch-free: picking a stable form per sign with ``where`` costs a
    mispredicted branch per element on random signs (measured 18x slower, NumPy 2.4)."""
    with _np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x))


def softplus(xp, x):
    """log(1 + exp(x)) without overflow (MXNet's softrelu switches to x above 20)."""
    return select(xp, x > 20, x, xp.log1p(xp.exp(xp.minimum(x, 20))))


def _log_sigmoid(xp, x, a):
    return -(xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0))


def _mish(xp, x, a):
    return x * xp.tanh(softplus(xp, x))


def _g_mish(F, x, y, og, a):
    t = F.tanh(F.log1p(F.exp(x)))
    return _mul(F, og, F.elemwise_add(t, _mul(F, _mul(F, x, F.sigmoid(x)), _one_minus_sq(F, t))))


def _hard_sigmoid(xp, x, a):
    return xp.clip(x * a["alpha"] + a["beta"], 0.0, 1.0)


def _g_hard_sigmoid(F, x, y, og, a):
    inside = _mul(F, F._greater_scalar(y, scalar=0.0), F._lesser_scalar(y, scalar=1.0))
    return _scale(F, _mul(F, og, inside), a["alpha"])


def _g_clip(F, x, y, og, a):
    inside = _mul(F, F._greater_equal_scalar(x, scalar=a["a_min"]), F._lesser_equal_scalar(x, scalar=a["a_max"]))
    return _mul(F, og, inside)


# ---- math ----------------------------------------------------------------------------------------
unary("negative", lambda xp, x, a: xp.negative(x), lambda F, x, y, og, a: F.negative(og), np="negative",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.negative(x, out=out)), lowering=Lowering("negative", "x", "(-{0})"),
      # (an operator, not the function: a program whose negative runs its kernel keeps the kernel's name)
      inline=InlineRule(lambda a, site: None if site.out is not None else f"(-{site.args[0]})"),
      doc="Numerical negative, elementwise.")
unary("abs", lambda xp, x, a: xp.abs(x), lambda F, x, y, og, a: _mul(F, og, F.sign(x)), np=("absolute", "abs"),
      out_kernel=_ufunc_out(lambda xp, x, out: xp.absolute(x, out=out)), lowering=Lowering("abs", "x", "abs({0})"),
      doc="Absolute value, elementwise.")
def _sign(xp, x, a):
    """MXNet's sign: (x > 0) - (x < 0), so NaN gives 0 (NumPy's sign gives NaN)."""
    if x.dtype.kind != "f":
        return xp.sign(x)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


unary("sign", _sign, _zero, np="sign", doc="Sign (-1, 0 or 1; 0 for NaN as in MXNet), elementwise; gradient 0.")
unary("round", _round_away, _zero, doc="Round to the nearest integer, halves away from zero; gradient 0.")
unary("rint", _mx_rint, _zero, np="rint",
      doc="Round to the nearest integer; a half goes to the lower integer (MXNet's rint); gradient 0.")
unary("_npi_around", lambda xp, x, a: xp.around(x, a["decimals"]), _zero, np=("around", "round"), hidden=True,
      attrs={"decimals": Attr("int", 0, doc="number of decimals")},
      doc="Round to ``decimals`` decimals, halves to even (NumPy's around); gradient 0.")
unary("ceil", lambda xp, x, a: xp.ceil(x), _zero, np="ceil", doc="Ceiling, elementwise; gradient 0.")
unary("floor", lambda xp, x, a: xp.floor(x), _zero, np="floor", doc="Floor, elementwise; gradient 0.")
unary("trunc", lambda xp, x, a: xp.trunc(x), _zero, np="trunc", doc="Round towards zero; gradient 0.")
unary("fix", lambda xp, x, a: xp.trunc(x), _zero, np="fix", doc="Round towards zero; gradient 0.")
unary("square", lambda xp, x, a: x * x, lambda F, x, y, og, a: _scale(F, _mul(F, og, x), 2.0), np="square",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.multiply(x, x, out=out)),
      lowering=Lowering("square", "x", "({0} * {0})"),
      doc="x ** 2, elementwise.")
unary("sqrt", lambda xp, x, a: xp.sqrt(x), lambda F, x, y, og, a: _div(F, _scale(F, og, 0.5), y), np="sqrt",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.sqrt(x, out=out)), lowering=Lowering("sqrt", "x", "sqrt({0})"),
      doc="Square root, elementwise.")
unary("rsqrt", lambda xp, x, a: 1.0 / xp.sqrt(x),
      lambda F, x, y, og, a: _mul(F, og, _scale(F, _mul(F, y, F.square(y)), -0.5)),
      doc="1 / sqrt(x), elementwise.")
unary("cbrt", lambda xp, x, a: xp.cbrt(x), lambda F, x, y, og, a: _div(F, og, _scale(F, F.square(y), 3.0)),
      np="cbrt", doc="Cube root, elementwise.")
unary("rcbrt", lambda xp, x, a: 1.0 / xp.cbrt(x),
      lambda F, x, y, og, a: _mul(F, og, _scale(F, F.square(F.square(y)), -1.0 / 3.0)),
      doc="1 / cbrt(x), elementwise.")
unary("exp", lambda xp, x, a: xp.exp(x), lambda F, x, y, og, a: _mul(F, og, y), np="exp",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.exp(x, out=out)), lowering=Lowering("exp", "x", "exp({0})"),
      doc="Exponential, elementwise.")
unary("expm1", lambda xp, x, a: xp.expm1(x), lambda F, x, y, og, a: _mul(F, og, F._plus_scalar(y, scalar=1.0)),
      np="expm1", lowering=Lowering("expm1", "x", "expm1({0})"),
      doc="exp(x) - 1, accurate near 0.")
unary("log", lambda xp, x, a: xp.log(x), lambda F, x, y, og, a: _div(F, og, x), np="log",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.log(x, out=out)), lowering=Lowering("log", "x", "log({0})"),
      doc="Natural logarithm, elementwise.")
unary("log10", lambda xp, x, a: xp.log10(x), lambda F, x, y, og, a: _div(F, og, _scale(F, x, _LN10)),
      np="log10", doc="Base-10 logarithm, elementwise.")
unary("log2", lambda xp, x, a: xp.log2(x), lambda F, x, y, og, a: _div(F, og, _scale(F, x, _LN2)),
      np="log2", doc="Base-2 logarithm, elementwise.")
unary("log1p", lambda xp, x, a: xp.log1p(x), lambda F, x, y, og, a: _div(F, og, F._plus_scalar(x, scalar=1.0)),
      np="log1p", lowering=Lowering("log1p", "x", "log1p({0})"),
      doc="log(1 + x), accurate near 0.")
unary("sin", lambda xp, x, a: xp.sin(x), lambda F, x, y, og, a: _mul(F, og, F.cos(x)), np="sin",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.sin(x, out=out)), lowering=Lowering("sin", "x", "sin({0})"),
      doc="Sine (radians), elementwise.")
unary("cos", lambda xp, x, a: xp.cos(x), lambda F, x, y, og, a: F.negative(_mul(F, og, F.sin(x))), np="cos",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.cos(x, out=out)), lowering=Lowering("cos", "x", "cos({0})"),
      doc="Cosine (radians), elementwise.")
unary("tan", lambda xp, x, a: xp.tan(x),
      lambda F, x, y, og, a: _mul(F, og, F._plus_scalar(F.square(y), scalar=1.0)), np="tan",
      doc="Tangent (radians), elementwise.")
unary("arcsin", lambda xp, x, a: xp.arcsin(x), lambda F, x, y, og, a: _mul(F, og, F.rsqrt(_one_minus_sq(F, x))),
      np="arcsin", doc="Inverse sine, elementwise.")
unary("arccos", lambda xp, x, a: xp.arccos(x),
      lambda F, x, y, og, a: F.negative(_mul(F, og, F.rsqrt(_one_minus_sq(F, x)))), np="arccos",
      doc="Inverse cosine, elementwise.")
unary("arctan", lambda xp, x, a: xp.arctan(x),
      lambda F, x, y, og, a: _div(F, og, F._plus_scalar(F.square(x), scalar=1.0)), np="arctan",
      doc="Inverse tangent, elementwise.")
unary("sinh", lambda xp, x, a: xp.sinh(x), lambda F, x, y, og, a: _mul(F, og, F.cosh(x)), np="sinh",
      doc="Hyperbolic sine, elementwise.")
unary("cosh", lambda xp, x, a: xp.cosh(x), lambda F, x, y, og, a: _mul(F, og, F.sinh(x)), np="cosh",
      doc="Hyperbolic cosine, elementwise.")
unary("tanh", lambda xp, x, a: xp.tanh(x), lambda F, x, y, og, a: _mul(F, og, _one_minus_sq(F, y)), np="tanh",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.tanh(x, out=out)), lowering=Lowering("tanh", "x", "tanh({0})"),
      doc="Hyperbolic tangent, elementwise.")
unary("arcsinh", lambda xp, x, a: xp.arcsinh(x),
      lambda F, x, y, og, a: _mul(F, og, F.rsqrt(F._plus_scalar(F.square(x), scalar=1.0))), np="arcsinh",
      doc="Inverse hyperbolic sine, elementwise.")
unary("arccosh", lambda xp, x, a: xp.arccosh(x),
      lambda F, x, y, og, a: _mul(F, og, F.rsqrt(F._minus_scalar(F.square(x), scalar=1.0))), np="arccosh",
      doc="Inverse hyperbolic cosine, elementwise.")
unary("arctanh", lambda xp, x, a: xp.arctanh(x), lambda F, x, y, og, a: _div(F, og, _one_minus_sq(F, x)),
      np="arctanh", doc="Inverse hyperbolic tangent, elementwise.")
unary("degrees", lambda xp, x, a: x * (180.0 / math.pi), lambda F, x, y, og, a: _scale(F, og, 180.0 / math.pi),
      np="degrees", doc="Radians to degrees.")
unary("radians", lambda xp, x, a: x * (math.pi / 180.0), lambda F, x, y, og, a: _scale(F, og, math.pi / 180.0),
      np="radians", doc="Degrees to radians.")
unary("reciprocal", lambda xp, x, a: 1.0 / x, lambda F, x, y, og, a: F.negative(_mul(F, og, F.square(y))),
      np="reciprocal", lowering=Lowering("reciprocal", "x", "((T)1 / {0})"),
      doc="1 / x, elementwise.")
unary("logical_not", lambda xp, x, a: x == 0, None, no_grad_reason="logical op: piecewise constant", zero_grad=True,
      doc="1 where x is 0, else 0, in x's dtype.")
unary("_npi_logical_not", lambda xp, x, a: x == 0, None, np="logical_not", hidden=True,
      out_dtype=lambda a, d: _np.dtype(bool), no_grad_reason="logical op: piecewise constant", zero_grad=True,
      doc="True where x is 0 (NumPy's logical_not: a bool array).")

# ---- activations as unary ops -----------------------------------------------------------------
unary("relu", lambda xp, x, a: relu(xp, x),
      lambda F, x, y, og, a: F._backward_relu(og, y), npx="relu", monotone=True,
      out_kernel=_ufunc_out(lambda xp, x, out: relu(xp, x, out=out)),
      lowering=Lowering("maximum", "x0", "max({0}, (T)0)"), inline=RELU_INLINE, elementwise_activation="relu",
      doc="Rectified linear unit: max(x, 0).")
unary("sigmoid", lambda xp, x, a: sigmoid(xp, x),
      lambda F, x, y, og, a: _mul(F, og, _mul(F, y, F._rminus_scalar(y, scalar=1.0))), npx="sigmoid",
      doc="Logistic sigmoid: 1 / (1 + exp(-x)).")
unary("softsign", lambda xp, x, a: x / (1.0 + xp.abs(x)),
      lambda F, x, y, og, a: _div(F, og, F.square(F._plus_scalar(F.abs(x), scalar=1.0))),
      doc="x / (1 + |x|).")
unary("log_sigmoid", _log_sigmoid, lambda F, x, y, og, a: _mul(F, og, F._rminus_scalar(F.exp(y), scalar=1.0)),
      npx="log_sigmoid", doc="log(sigmoid(x)), computed without overflow.")
unary("mish", _mish, _g_mish, npx="mish", doc="Mish activation: x * tanh(softplus(x)).")
unary("hard_sigmoid", _hard_sigmoid, _g_hard_sigmoid,
      attrs={"alpha": Attr("float", 0.2, doc="slope"), "beta": Attr("float", 0.5, doc="offset")},
      doc="Hard sigmoid: max(0, min(1, alpha * x + beta)).")
unary("clip", lambda xp, x, a: xp.clip(x, a["a_min"], a["a_max"]), _g_clip, np="clip",
      attrs={"a_min": Attr("float", doc="minimum value"), "a_max": Attr("float", doc="maximum value")},
      doc="Clip values to [a_min, a_max]; the gradient passes where a_min <= x <= a_max.")

# ---- casts, copies, gradient blocking, constants -----------------------------------------------
unary("Cast", lambda xp, x, a: bf16_cast(x, a["dtype"]),
      lambda F, x, y, og, a: F.Cast(og, dtype=x.dtype), aliases=("cast",),
      attrs={"dtype": Attr("dtype", doc="output dtype")}, out_dtype=lambda a, d: a["dtype"],
      infer_type=lambda a, dtypes: [_np.dtype(a["dtype"])],     # known before the input's (MXNet's CastType)
      doc="Cast to ``dtype`` (the gradient is cast back to the input's dtype); to bfloat16 it truncates, as MXNet's "
          "Cast does on the CPU.")


def _amp_dtype(a, dtype):
    """amp_cast's output dtype: ``dtype`` for a float16, bfloat16 or float32 input; other inputs (float64,
    integers, bool) stay as they are (MXNet's amp_cast casts only between the low-precision floats and float32)."""
    return a["dtype"] if dtype in (_np.float16, _np.float32) or is_bfloat16(dtype) else dtype


unary("amp_cast", lambda xp, x, a: x.astype(_amp_dtype(a, x.dtype)),
      lambda F, x, y, og, a: F.Cast(og, dtype=x.dtype),
      attrs={"dtype": Attr("dtype", doc="output dtype for floating-point inputs")}, out_dtype=_amp_dtype,
      doc="Mixed-precision cast: a float16, bfloat16 or float32 input is cast to ``dtype``; any other input (float64, "
          "integer, bool) is left unchanged (MXNet's amp_cast); the gradient is cast back to the input's dtype.")
unary("_copy", lambda xp, x, a: x.copy(), lambda F, x, y, og, a: og, aliases=("identity",), np="copy",
      out_kernel=_ufunc_out(lambda xp, x, out: xp.copyto(out, x) or out),
      doc="A copy of the input.")
unary("BlockGrad", lambda xp, x, a: x.copy(), None, aliases=("stop_gradient",), npx="stop_gradient",
      no_grad_reason="blocks gradients: its input gets a zero gradient", zero_grad=True,
      doc="The input unchanged in the forward pass; no gradient flows back through it.")
unary("zeros_like", lambda xp, x, a: xp.zeros_like(x), None, np="zeros_like",
      no_grad_reason="constant output", zero_grad=True, doc="Zeros with the input's shape and dtype.")
unary("ones_like", lambda xp, x, a: xp.ones_like(x), None, np="ones_like",
      no_grad_reason="constant output", zero_grad=True, doc="Ones with the input's shape and dtype.")


def _copyto_compute(ctx, a, x):
    """``x`` (a NumPy or CuPy array on any device) copied onto ``ctx.device``."""
    device, xp = ctx.device, ctx.xp
    if device.is_gpu:
        with xp.cuda.Device(device.device_id):
            return x.copy() if isinstance(x, xp.ndarray) else xp.asarray(x)
    return x.copy() if isinstance(x, _np.ndarray) else x.get()


register(OpDef("_copyto", compute=_copyto_compute, infer_shape=unary_shape, device_attr="device",
               attrs={"device": Attr("device", doc="the device to copy to")},
               grad=lambda F, a, ins, outs, og: [F._copyto(og[0], device=ins[0].device)],
               doc="A copy of the input on ``device``; the gradient is copied back to the input's device."))

register(OpDef("_identity_with_attr_like_rhs", inputs=("lhs", "rhs"), hidden=True,
               compute=lambda ctx, a, lhs, rhs: lhs.copy(), infer_shape=same_shape,
               grad=lambda F, a, ins, outs, og: [og[0], F.zeros_like(ins[1])],
               doc="``lhs`` unchanged, as a constraint for symbolic inference: the output, ``lhs`` and "
                   "``rhs`` share one shape and dtype, so a shape known for ``rhs`` flows back to ``lhs`` "
                   "(MXNet's internal op); ``rhs`` gets a zero gradient."))

from . import elemwise_special  # noqa: E402,F401  (erf, erfinv, gamma, gammaln)
