"""Binary operators: broadcast_* (NumPy broadcasting), elemwise_* and _maximum/_power/_equal/...
(equal shapes), the ``_*_scalar`` variants (one array and a ``scalar`` attribute), the ``_npi_*``
variants where NumPy semantics differ (comparisons give bool, ``divide`` of integers gives floats),
``where``, ``add_n`` and ``smooth_l1``.

Each math function is written once (its forward as an xp expression, its gradient with registered
ops through ``F``) and every variant is one factory line. Output dtypes:

* legacy array ops: the common dtype of the inputs (a float input wins over an integer one);
  comparisons and logical ops give 1/0 in that dtype,
* ``_npi_*`` comparisons and logical ops: bool; ``_npi_true_divide``: float32 for integer inputs,
* scalar ops (MXNet 1.9's rule): the input dtype, except an integer input with ``is_int=False``
  (float64) and a bool input (int64, or float64 with ``is_int=False``).

Example::

    >>> import hybridlab as mx
    >>> (mx.nd.array([1.0, 2.0]) + mx.nd.array([[10.0], [20.0]])).asnumpy().tolist()
    [[11.0, 12.0], [21.0, 22.0]]
    >>> mx.np.equal(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 0.0])).tolist()
    [True, False]
"""
import math

import numpy as _np

from .attrs import Attr
from .infer import InferError, broadcast_shape, merge_shape, same_shape, unary_shape
from .registry import InlineRule, Lowering, OpDef, OutKernel, register
from .select_cpu import select

_BOOL, _F32, _F64, _I64 = _np.dtype(bool), _np.dtype(_np.float32), _np.dtype(_np.float64), _np.dtype(_np.int64)


# ---- dtype rules ----------------------------------------------------------------------------
def _promote(dl, dr):
    """Common dtype of two inputs: equal dtypes stay, a float beats an integer, else NumPy's rule."""
    if dl is None or dr is None:
        return dl if dr is None else dr
    dl, dr = _np.dtype(dl), _np.dtype(dr)
    if dl == dr:
        return dl
    if dl.kind == "f" and dr.kind != "f":
        return dl
    if dr.kind == "f" and dl.kind != "f":
        return dr
    return _np.result_type(dl, dr)


def _fill_unknown(dtypes):
    """An input of unknown dtype takes the other's, as MXNet's type inference of binary ops fills it
    (``(a + b).infer_type(a='float32')`` knows b)."""
    if dtypes[0] is None or dtypes[1] is None:
        dtypes[0] = dtypes[1] = dtypes[1] if dtypes[0] is None else dtypes[0]


def _arith_type(a, dtypes):
    _fill_unknown(dtypes)
    return [_promote(dtypes[0], dtypes[1])]


def _bool_type(a, dtypes):
    _fill_unknown(dtypes)
    return [_BOOL]


def _truediv_type(a, dtypes):
    _fill_unknown(dtypes)
    dt = _promote(dtypes[0], dtypes[1])
    return [_F32 if dt is not None and dt.kind in "biu" else dt]


def _scalar_type(a, dtypes):
    d = dtypes[0]
    if d is None:
        return [None]
    d = _np.dtype(d)
    if d.kind in "iu" and not a["is_int"]:
        return [_F64]
    if d.kind == "b":
        return [_I64 if a["is_int"] else _F64]
    return [d]


def _arr(xp, out):
    """NumPy turns 0-d results into scalars: hand back arrays."""
    return out if isinstance(out, xp.ndarray) else xp.asarray(out)


# ---- forwards shared by the variants ---------------------------------------------------------
def _safe(xp, r):
    """``r`` with zeros replaced by ones (for ops defined as 0 where the divisor is 0)."""
    return select(xp, r == 0, xp.ones_like(r), r)


def _mod(xp, l, r):
    """MXNet's mod: the sign of the divisor (like Python), and 0 where the divisor is 0."""
    out = xp.mod(l, _safe(xp, r))
    return select(xp, r == 0, xp.zeros_like(out), out)


def _div(xp, l, r):
    out = l / r
    if out.dtype.kind == "f" and l.dtype.kind in "biu" and r.dtype.kind in "biu":
        out = xp.trunc(out)  # legacy integer division truncates (C semantics)
    return out


def _int_power(xp, l, r):
    """MXNet's power of integers: ``powf`` in float32, then C's float-to-int conversion (on x86 an
    out-of-range, infinite or NaN value gives the most negative int32/int64), which the caller's
    cast wraps into the output dtype. So ``2 ** -1`` is 0 and ``0 ** -1`` is -2147483648."""
    size = max(getattr(v, "dtype", _np.dtype(_np.int32)).itemsize for v in (l, r))
    wide = _np.int64 if size == 8 else _np.int32
    limit = float(2 ** (8 * _np.dtype(wide).itemsize - 1))
    with _np.errstate(all="ignore"):
        v = xp.power(xp.asarray(l, dtype=_np.float32), xp.asarray(r, dtype=_np.float32))
        v = xp.where(xp.abs(v) < limit, v, -limit)   # NaN fails the test too
    return v.astype(wide)


def _is_integral(v):
    kind = v.dtype.kind if hasattr(v, "dtype") else ("i" if isinstance(v, int) else "f")
    return kind in "biu"


def _power(xp, l, r):
    if _is_integral(l) and _is_integral(r):
        return _int_power(xp, l, r)
    return xp.power(l, r)


def _logic(fn):
    return lambda xp, l, r: fn(l != 0, r != 0)


_FORWARD = {
    "add": lambda xp, l, r: l + r, "sub": lambda xp, l, r: l - r, "mul": lambda xp, l, r: l * r,
    "div": _div, "true_divide": lambda xp, l, r: xp.true_divide(l, r), "mod": _mod, "power": _power,
    "maximum": lambda xp, l, r: xp.maximum(l, r), "minimum": lambda xp, l, r: xp.minimum(l, r),
    "hypot": lambda xp, l, r: xp.hypot(l, r),
    "equal": lambda xp, l, r: l == r, "not_equal": lambda xp, l, r: l != r,
    "greater": lambda xp, l, r: l > r, "greater_equal": lambda xp, l, r: l >= r,
    "lesser": lambda xp, l, r: l < r, "lesser_equal": lambda xp, l, r: l <= r,
    "logical_and": _logic(lambda l, r: l & r), "logical_or": _logic(lambda l, r: l | r),
    "logical_xor": _logic(lambda l, r: l ^ r),
}


# ---- gradients (lhs, rhs, output, output gradient) -> (d lhs, d rhs), unreduced -------------
def _g_div(F, l, r, y, og):
    return F.broadcast_div(og, r), F.negative(F.broadcast_div(F.broadcast_mul(og, y), r))


def _g_power(F, l, r, y, og):
    dl = F.broadcast_mul(og, F.broadcast_mul(r, F.broadcast_power(l, F._minus_scalar(r, scalar=1.0))))
    return dl, F.broadcast_mul(og, F.broadcast_mul(y, F.log(l)))


_GRAD = {
    "add": lambda F, l, r, y, og: (og, og),
    "sub": lambda F, l, r, y, og: (og, F.negative(og)),
    "mul": lambda F, l, r, y, og: (F.broadcast_mul(og, r), F.broadcast_mul(og, l)),
    "div": _g_div, "true_divide": _g_div,
    "mod": lambda F, l, r, y, og: (og, F.negative(F.broadcast_mul(og, F.floor(F.broadcast_div(l, r))))),
    "power": _g_power,
    "maximum": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_greater_equal(l, r)),
                                       F.broadcast_mul(og, F.broadcast_lesser(l, r))),
    "minimum": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_lesser_equal(l, r)),
                                       F.broadcast_mul(og, F.broadcast_greater(l, r))),
    "hypot": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_div(l, y)),
                                     F.broadcast_mul(og, F.broadcast_div(r, y))),
}
_NO_GRAD = "comparison/logical op: piecewise constant (MXNet gives zero gradients)"


# ---- factories ----------------------------------------------------------------------------------
def _binary_compute(forward, out_type):
    def compute(ctx, a, lhs, rhs):
        dt = out_type(a, [lhs.dtype, rhs.dtype])[0]
        return _arr(ctx.xp, forward(ctx.xp, lhs, rhs).astype(dt, copy=False))
    return compute


def _broadcast_infer(a, in_shapes):
    return [broadcast_shape(in_shapes[0], in_shapes[1])]


def _sum_to(F, g, like):
    """Gradient ``g`` of a broadcast result, summed back to the shape of input ``like``."""
    return F._reduce_sum_like(g, like)


def broadcast(name, fn, *, aliases=(), np=(), doc="", out_type=_arith_type, logic=False, hidden=False, **opdef):
    """Register ``lhs (fn) rhs`` with NumPy broadcasting; ``fn`` names a forward and a gradient;
    ``opdef``: further ``OpDef`` fields (``out_kernel``, ``lowering``)."""
    grad = None if logic else _GRAD[fn]

    def gradient(F, a, inputs, outputs, ograds):
        lhs, rhs = inputs
        dl, dr = grad(F, lhs, rhs, outputs[0], ograds[0])
        return [_sum_to(F, dl, lhs), _sum_to(F, dr, rhs)]

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=_binary_compute(_FORWARD[fn], out_type),
                          infer_shape=_broadcast_infer, infer_type=out_type,
                          grad=None if logic else gradient, aliases=aliases, np=np, doc=doc,
                          family="broadcast", no_grad_reason=_NO_GRAD if logic else "", hidden=hidden,
                          zero_grad=logic, **opdef))


def elemwise(name, fn, *, aliases=(), doc="", logic=False, **opdef):
    """Register ``lhs (fn) rhs`` for inputs of one shape (MXNet's elemwise_* / _maximum / _equal ...);
    ``opdef``: further ``OpDef`` fields."""
    grad = None if logic else _GRAD[fn]

    def gradient(F, a, inputs, outputs, ograds):
        return list(grad(F, inputs[0], inputs[1], outputs[0], ograds[0]))

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=_binary_compute(_FORWARD[fn], _arith_type),
                          infer_shape=same_shape, infer_type=_arith_type,
                          grad=None if logic else gradient, aliases=aliases, doc=doc, family="elemwise",
                          no_grad_reason=_NO_GRAD if logic else "", zero_grad=logic, **opdef))


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
        dt = _scalar_type(a, [x.dtype])[0]
        s = a["scalar"]
        if dt.kind in "iu":
            s = _wrap_int(int(s), dt)  # MXNet casts the scalar to the integer dtype (wrapping around)
        out = forward(ctx.xp, x.astype(dt, copy=False), s).astype(dt, copy=False)
        return out.copy() if out is x else _arr(ctx.xp, out)

    def gradient(F, a, inputs, outputs, ograds):
        return [grad(F, inputs[0], outputs[0], ograds[0], a["scalar"])]

    return register(OpDef(name, compute=compute, infer_shape=unary_shape, attrs=attrs, infer_type=_scalar_type,
                          grad=gradient if grad is not None else None, aliases=aliases, doc=doc,
                          family="elemwise", no_grad_reason=no_grad_reason, zero_grad=zero_grad, **opdef))


# ---- what the compiler asks: out= kernels (static memory plans), fused-kernel steps, inline rules ----
def _ufunc_out(ufunc):
    """The out kernel of ``ufunc(lhs, rhs)``, a NumPy/CuPy ufunc: elementwise, so ``out`` may be an input."""
    return OutKernel(lambda ctx, a, out, lhs, rhs: getattr(ctx.xp, ufunc)(lhs, rhs, out=out), inplace=True)


def _scalar_out(ufunc, reverse=False):
    """The out kernel of ``ufunc(x, scalar)`` (``ufunc(scalar, x)`` when ``reverse``)."""
    if reverse:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(a["scalar"], x, out=out)
    else:
        def kernel(ctx, a, out, x):
            return getattr(ctx.xp, ufunc)(x, a["scalar"], out=out)
    return OutKernel(kernel, applies=lambda a: isinstance(a["scalar"], (int, float)), inplace=True)


def _multiply_inline(a, site):
    return f"multiply({site.args[0]}, {site.args[1]}{site.out_arg})"


def _greater_inline(a, site):
    """1.0 / 0.0 in the input's dtype (NaN compares false, as in the kernel); a planned float buffer
    takes the booleans as they are."""
    x, s = site.args[0], site.literal(a["scalar"])
    if site.out is not None:
        return f"greater({x}, {s}{site.out_arg})"
    return f"greater({x}, {s}).astype({x}.dtype)"


# ---- broadcast_* and their NumPy names ---------------------------------------------------------
broadcast("broadcast_add", "add", aliases=("broadcast_plus",), np="add", out_kernel=_ufunc_out("add"),
          lowering=Lowering("add", "xy", "({0} + {1})"),
          doc="lhs + rhs with NumPy broadcasting.")
broadcast("broadcast_sub", "sub", aliases=("broadcast_minus",), np="subtract",
          out_kernel=_ufunc_out("subtract"), lowering=Lowering("subtract", "xy", "({0} - {1})"),
          doc="lhs - rhs with NumPy broadcasting.")
broadcast("broadcast_mul", "mul", np="multiply", out_kernel=_ufunc_out("multiply"),
          lowering=Lowering("multiply", "xy", "({0} * {1})"),
          doc="lhs * rhs with NumPy broadcasting.")
broadcast("broadcast_div", "div", out_kernel=_ufunc_out("divide"),
          lowering=Lowering("true_divide", "xy", "({0} / {1})"),
          doc="lhs / rhs with NumPy broadcasting (integer inputs: truncating division).")
broadcast("_npi_true_divide", "true_divide", np=("divide", "true_divide"), out_type=_truediv_type, hidden=True,
          doc="lhs / rhs with NumPy broadcasting; integer inputs give float32 (NumPy's true division).")
broadcast("broadcast_mod", "mod", np=("mod", "remainder"),
          doc="lhs mod rhs with broadcasting; the result has the sign of rhs, and is 0 where rhs is 0.")
broadcast("broadcast_power", "power", np="power", lowering=Lowering("power", "xy", "pow({0}, {1})"),
          doc="lhs ** rhs with NumPy broadcasting.")
broadcast("broadcast_maximum", "maximum", np="maximum", out_kernel=_ufunc_out("maximum"),
          lowering=Lowering("maximum", "xy", "max({0}, {1})"),
          doc="Elementwise maximum with NumPy broadcasting.")
broadcast("broadcast_minimum", "minimum", np="minimum", out_kernel=_ufunc_out("minimum"),
          lowering=Lowering("minimum", "xy", "min({0}, {1})"),
          doc="Elementwise minimum with NumPy broadcasting.")
broadcast("broadcast_hypot", "hypot", np="hypot", doc="sqrt(lhs**2 + rhs**2) with NumPy broadcasting.")

# ---- equal-shape variants ---------------------------------------------------------------------
elemwise("elemwise_add", "add", aliases=("_plus", "_add", "_Plus"), out_kernel=_ufunc_out("add"),
         lowering=Lowering("add", "xy", "({0} + {1})"),
         doc="lhs + rhs; both must have the same shape.")
elemwise("elemwise_sub", "sub", aliases=("_minus", "_sub", "_Minus"), out_kernel=_ufunc_out("subtract"),
         lowering=Lowering("subtract", "xy", "({0} - {1})"),
         doc="lhs - rhs; both must have the same shape.")
elemwise("elemwise_mul", "mul", aliases=("_mul", "_Mul"), out_kernel=_ufunc_out("multiply"),
         lowering=Lowering("multiply", "xy", "({0} * {1})"),
         inline=InlineRule(_multiply_inline, functions=(_np.multiply,)),
         doc="lhs * rhs; both must have the same shape.")
elemwise("elemwise_div", "div", aliases=("_div", "_Div"), out_kernel=_ufunc_out("divide"),
         lowering=Lowering("true_divide", "xy", "({0} / {1})"),
         doc="lhs / rhs; both must have the same shape.")
elemwise("_mod", "mod", aliases=("_Mod",), doc="lhs mod rhs (sign of rhs, 0 where rhs is 0); same shapes.")
elemwise("_power", "power", aliases=("_Power",), lowering=Lowering("power", "xy", "pow({0}, {1})"),
         doc="lhs ** rhs; both must have the same shape.")
elemwise("_maximum", "maximum", aliases=("_Maximum",), out_kernel=_ufunc_out("maximum"),
         lowering=Lowering("maximum", "xy", "max({0}, {1})"),
         doc="Elementwise maximum; both must have the same shape.")
elemwise("_minimum", "minimum", aliases=("_Minimum",), out_kernel=_ufunc_out("minimum"),
         lowering=Lowering("minimum", "xy", "min({0}, {1})"),
         doc="Elementwise minimum; both must have the same shape.")
elemwise("_hypot", "hypot", aliases=("_Hypot",), doc="sqrt(lhs**2 + rhs**2); both must have the same shape.")

# ---- comparisons and logical ops: broadcast_X (1/0 in the input dtype), _npi_X (bool, NumPy
# name), _X (same shapes), _X_scalar ---------------------------------------------------------------
_SCALAR_FN = {
    "equal": lambda xp, x, s: x == s, "not_equal": lambda xp, x, s: x != s, "greater": lambda xp, x, s: x > s,
    "greater_equal": lambda xp, x, s: x >= s, "lesser": lambda xp, x, s: x < s,
    "lesser_equal": lambda xp, x, s: x <= s,
    "logical_and": lambda xp, x, s: (x != 0) & bool(s), "logical_or": lambda xp, x, s: (x != 0) | bool(s),
    "logical_xor": lambda xp, x, s: (x != 0) ^ bool(s),
}
_SCALAR_INLINE = {"greater": InlineRule(_greater_inline, functions=(_np.greater,))}   # the relu gradient's mask
for _fn, _np_name, _elem_alias, _scalar_alias, _text in [
        ("equal", "equal", "_Equal", "_EqualScalar", "lhs == rhs"),
        ("not_equal", "not_equal", "_Not_Equal", "_NotEqualScalar", "lhs != rhs"),
        ("greater", "greater", "_Greater", "_GreaterScalar", "lhs > rhs"),
        ("greater_equal", "greater_equal", "_Greater_Equal", "_GreaterEqualScalar", "lhs >= rhs"),
        ("lesser", "less", "_Lesser", "_LesserScalar", "lhs < rhs"),
        ("lesser_equal", "less_equal", "_Lesser_Equal", "_LesserEqualScalar", "lhs <= rhs"),
        ("logical_and", "logical_and", "_Logical_And", "_LogicalAndScalar", "lhs and rhs (nonzero is true)"),
        ("logical_or", "logical_or", "_Logical_Or", "_LogicalOrScalar", "lhs or rhs (nonzero is true)"),
        ("logical_xor", "logical_xor", "_Logical_Xor", "_LogicalXorScalar", "lhs xor rhs (nonzero is true)")]:
    broadcast(f"broadcast_{_fn}", _fn, logic=True,
              doc=f"1 where {_text}, else 0, in the inputs' dtype, with NumPy broadcasting.")
    broadcast(f"_npi_{_np_name}", _fn, np=_np_name, out_type=_bool_type, logic=True, hidden=True,
              doc=f"{_text} with NumPy broadcasting, as a bool array (NumPy semantics).")
    elemwise(f"_{_fn}", _fn, aliases=(_elem_alias,), logic=True,
             doc=f"1 where {_text}, else 0, in the inputs' dtype; both must have the same shape.")
    scalar(f"_{_fn}_scalar", _SCALAR_FN[_fn], None, aliases=(_scalar_alias,), no_grad_reason=_NO_GRAD, zero_grad=True,
           inline=_SCALAR_INLINE.get(_fn),
           doc=f"1 where {_text.replace('rhs', 'scalar').replace('lhs', 'x')}, else 0, in x's dtype.")


# ---- scalar arithmetic ------------------------------------------------------------------------
def _g_rdiv(F, x, y, og, s):
    return F.negative(F.elemwise_div(F.elemwise_mul(og, y), x))


def _g_rmod(F, x, y, og, s):
    return F.negative(F.elemwise_mul(og, F.floor(F._rdiv_scalar(x, scalar=s))))


def _g_power_scalar(F, x, y, og, s):
    return F.elemwise_mul(og, F._mul_scalar(F._power_scalar(x, scalar=s - 1.0), scalar=s))


def _g_rpower(F, x, y, og, s):
    return F._mul_scalar(F.elemwise_mul(og, y), scalar=math.log(s) if s > 0 else math.nan)




scalar("_plus_scalar", lambda xp, x, s: x + s, lambda F, x, y, og, s: og, aliases=("_PlusScalar",),
       out_kernel=_scalar_out("add"), lowering=Lowering("add", "xs", "({0} + {s})"),
       doc="x + scalar.")
scalar("_minus_scalar", lambda xp, x, s: x - s, lambda F, x, y, og, s: og, aliases=("_MinusScalar",),
       out_kernel=_scalar_out("subtract"), lowering=Lowering("subtract", "xs", "({0} - {s})"),
       doc="x - scalar.")
scalar("_rminus_scalar", lambda xp, x, s: s - x, lambda F, x, y, og, s: F.negative(og), aliases=("_RMinusScalar",),
       out_kernel=_scalar_out("subtract", reverse=True), lowering=Lowering("subtract", "sx", "({s} - {0})"),
       doc="scalar - x.")
scalar("_mul_scalar", lambda xp, x, s: x * s, lambda F, x, y, og, s: F._mul_scalar(og, scalar=s),
       aliases=("_MulScalar",), out_kernel=_scalar_out("multiply"), lowering=Lowering("multiply", "xs", "({0} * {s})"),
       doc="x * scalar.")
scalar("_div_scalar", lambda xp, x, s: x / s, lambda F, x, y, og, s: F._div_scalar(og, scalar=s),
       aliases=("_DivScalar",), out_kernel=_scalar_out("divide"), lowering=Lowering("true_divide", "xs", "({0} / {s})"),
       doc="x / scalar.")
scalar("_rdiv_scalar", lambda xp, x, s: s / x, _g_rdiv, aliases=("_RDivScalar",),
       out_kernel=_scalar_out("divide", reverse=True), lowering=Lowering("true_divide", "sx", "({s} / {0})"),
       doc="scalar / x.")
scalar("_mod_scalar", lambda xp, x, s: _mod(xp, x, xp.full_like(x, s)), lambda F, x, y, og, s: og,
       aliases=("_ModScalar",), doc="x mod scalar (the sign of scalar; 0 where scalar is 0).")
scalar("_rmod_scalar", lambda xp, x, s: _mod(xp, xp.full_like(x, s), x), _g_rmod, aliases=("_RModScalar",),
       doc="scalar mod x (the sign of x; 0 where x is 0).")
scalar("_power_scalar", lambda xp, x, s: _power(xp, x, s), _g_power_scalar, aliases=("_PowerScalar",),
       lowering=Lowering("power", "xs", "pow({0}, {s})"),
       doc="x ** scalar.")
scalar("_rpower_scalar", lambda xp, x, s: _power(xp, s, x), _g_rpower, aliases=("_RPowerScalar",),
       lowering=Lowering("power", "sx", "pow({s}, {0})"),
       doc="scalar ** x.")
scalar("_maximum_scalar", lambda xp, x, s: xp.maximum(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F._greater_equal_scalar(x, scalar=s)),
       aliases=("_MaximumScalar",), out_kernel=_scalar_out("maximum"),
       lowering=Lowering("maximum", "xs", "max({0}, {s})"),
       doc="max(x, scalar), elementwise.")
scalar("_minimum_scalar", lambda xp, x, s: xp.minimum(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F._lesser_equal_scalar(x, scalar=s)),
       aliases=("_MinimumScalar",), out_kernel=_scalar_out("minimum"),
       lowering=Lowering("minimum", "xs", "min({0}, {s})"),
       doc="min(x, scalar), elementwise.")
scalar("_hypot_scalar", lambda xp, x, s: xp.hypot(x, s),
       lambda F, x, y, og, s: F.elemwise_mul(og, F.elemwise_div(x, y)), aliases=("_HypotScalar",),
       doc="sqrt(x**2 + scalar**2), elementwise.")


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


# ---- where --------------------------------------------------------------------------------------
def _where_infer(a, in_shapes):
    cond, x, y = in_shapes
    ref = x if x is not None else y
    if ref is None:
        return [None]
    for i in (1, 2, 1):
        ref = merge_shape(in_shapes, i, ref, "x and y must have the same shape")
    if cond is not None and tuple(cond) != ref and not (len(cond) == 1 and ref and cond[0] in (0, ref[0])):
        raise InferError(0, f"{ref} or ({ref[0]},)" if ref else ref, tuple(cond),
                         "condition must have the shape of x, or be 1-D with x's first dimension")
    return [ref]


def _where_compute(ctx, a, cond, x, y):
    dt = _promote(x.dtype, y.dtype)
    c = cond != 0
    if c.ndim == 1 and x.ndim > 1:
        c = c.reshape((c.shape[0],) + (1,) * (x.ndim - 1))
    return _arr(ctx.xp, select(ctx.xp, c, x, y).astype(dt, copy=False))


def _where_grad(F, a, inputs, outputs, ograds):
    cond, og = inputs[0], ograds[0]
    zeros = F.zeros_like(og)
    return [None, F.where(cond, og, zeros), F.where(cond, zeros, og)]


register(OpDef("where", inputs=("condition", "x", "y"), compute=_where_compute, infer_shape=_where_infer,
               infer_type=lambda a, d: [_promote(d[1], d[2])], grad=_where_grad,
               doc="Elements of x where condition is nonzero, else of y. x and y have one shape; condition "
                   "has that shape too, or is 1-D and picks whole rows along the first axis."))


def _npi_where_infer(a, in_shapes):
    return [broadcast_shape(broadcast_shape(in_shapes[0], in_shapes[1], arg=1), in_shapes[2], arg=2)]


def _npi_where_compute(ctx, a, cond, x, y):
    return _arr(ctx.xp, select(ctx.xp, cond != 0, x, y).astype(_promote(x.dtype, y.dtype), copy=False))


def _npi_where_grad(F, a, inputs, outputs, ograds):
    cond, x, y = inputs
    og = ograds[0]
    zeros = F.zeros_like(og)
    return [None, _sum_to(F, F._npi_where(cond, og, zeros), x), _sum_to(F, F._npi_where(cond, zeros, og), y)]


register(OpDef("_npi_where", inputs=("condition", "x", "y"), compute=_npi_where_compute,
               infer_shape=_npi_where_infer, infer_type=lambda a, d: [_promote(d[1], d[2])],
               grad=_npi_where_grad, np="where", family="broadcast", hidden=True,
               doc="Elements of x where condition is true, else of y; all three broadcast (NumPy's where)."))


# ---- add_n --------------------------------------------------------------------------------------
def _add_n_compute(ctx, a, *arrays):
    out = arrays[0].copy()
    for x in arrays[1:]:
        out += x
    return out


register(OpDef("add_n", inputs=(), variadic=True, compute=_add_n_compute, infer_shape=same_shape,
               bounds={"num_args": (1, None)},
               aliases=("ElementWiseSum",), grad=lambda F, a, ins, outs, og: [og[0]] * len(ins),
               doc="Sum of all inputs, elementwise; all inputs have one shape."))


# ---- _reduce_sum_like (the gradient of broadcasting) ---------------------------------------------
def _reduce_sum_like_compute(ctx, a, g, like):
    """Sum ``g`` over the axes along which ``like`` was broadcast to ``g``'s shape."""
    if g.shape == like.shape:
        return g
    lead = g.ndim - like.ndim
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(like.shape) if d == 1 and g.shape[i + lead] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(like.shape) if axes else g.reshape(like.shape)


def _reduce_sum_like_infer(a, in_shapes):
    g, like = in_shapes
    if g is not None and like is not None and broadcast_shape(like, g, arg=0) != tuple(g):
        raise InferError(0, f"a shape that {tuple(like)} broadcasts to", tuple(g))
    return [like]


register(OpDef("_reduce_sum_like", inputs=("data", "like"), compute=_reduce_sum_like_compute,
               infer_shape=_reduce_sum_like_infer, family="reduce", hidden=True,
               grad=lambda F, a, ins, outs, og: [F.broadcast_add(F.zeros_like(ins[0]), og[0]), None],
               doc="Sum ``data`` down to the shape of ``like`` (the gradient of broadcasting)."))
