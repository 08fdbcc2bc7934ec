"""The math of the binary family, written once: output dtype rules, each math function's forward
(an xp expression) and its gradient (registered ops through ``F``). The factories in
``binary_factories.py`` turn one entry into every variant; the ops are registered in ``binary.py``
(arithmetic), ``binary_compare.py`` (comparisons, logical ops) and ``binary_scalar.py``.

Output dtypes:

* legacy array ops: the common dtype of the inputs (a float input wins over an integer one);
  comparisons and logical ops give 1/0 in that dtype,
* ``_npi_*`` comparisons and logical ops: bool; ``_npi_true_divide``: float32 for integer inputs,
* scalar ops (MXNet 1.9's rule): the input dtype, except an integer input with ``is_int=False``
  (float64) and a bool input (int64, or float64 with ``is_int=False``).

Example::

    >>> import numpy as np
    >>> from hybridlab.ops.binary_math import promote, mxnet_mod
    >>> str(promote("int32", "float16")), mxnet_mod(np, np.array([-3, 3]), np.array([2, 0])).tolist()
    ('float16', [1, 0])
"""
import numpy as _np

from .select_cpu import select

__all__ = ["promote", "arith_type", "bool_type", "truediv_type", "scalar_type", "as_array", "mxnet_mod",
           "mxnet_power", "FORWARD", "GRAD", "NO_GRAD_REASON"]

_BOOL, _F32, _F64, _I64 = _np.dtype(bool), _np.dtype(_np.float32), _np.dtype(_np.float64), _np.dtype(_np.int64)


# ---- dtype rules ----------------------------------------------------------------------------
def promote(dl, dr):
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


def arith_type(a, dtypes):
    _fill_unknown(dtypes)
    return [promote(dtypes[0], dtypes[1])]


def bool_type(a, dtypes):
    _fill_unknown(dtypes)
    return [_BOOL]


def truediv_type(a, dtypes):
    _fill_unknown(dtypes)
    dt = promote(dtypes[0], dtypes[1])
    return [_F32 if dt is not None and dt.kind in "biu" else dt]


def scalar_type(a, dtypes):
    d = dtypes[0]
    if d is None:
        return [None]
    d = _np.dtype(d)
    if d.kind in "iu" and not a["is_int"]:
        return [_F64]
    if d.kind == "b":
        return [_I64 if a["is_int"] else _F64]
    return [d]


def as_array(xp, out):
    """NumPy turns 0-d results into scalars: hand back arrays."""
    return out if isinstance(out, xp.ndarray) else xp.asarray(out)


# ---- forwards shared by the variants ---------------------------------------------------------
def _safe(xp, r):
    """``r`` with zeros replaced by ones (for ops defined as 0 where the divisor is 0)."""
    return select(xp, r == 0, xp.ones_like(r), r)


def mxnet_mod(xp, l, r):
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


def mxnet_power(xp, l, r):
    """``l ** r``; integers follow MXNet's integer power (see ``_int_power``)."""
    if _is_integral(l) and _is_integral(r):
        return _int_power(xp, l, r)
    return xp.power(l, r)


def _logic(fn):
    return lambda xp, l, r: fn(l != 0, r != 0)


FORWARD = {
    "add": lambda xp, l, r: l + r, "sub": lambda xp, l, r: l - r, "mul": lambda xp, l, r: l * r,
    "div": _div, "true_divide": lambda xp, l, r: xp.true_divide(l, r), "mod": mxnet_mod, "power": mxnet_power,
    "maximum": lambda xp, l, r: xp.maximum(l, r), "minimum": lambda xp, l, r: xp.minimum(l, r),
    "hypot": lambda xp, l, r: xp.hypot(l, r),
    "equal": lambda xp, l, r: l == r, "not_equal": lambda xp, l, r: l != r,
    "greater": lambda xp, l, r: l > r, "greater_equal": lambda xp, l, r: l >= r,
    "lesser": lambda xp, l, r: l < r, "lesser_equal": lambda xp, l, r: l <= r,
    "logical_and": _logic(lambda l, r: l & r), "logical_or": _logic(lambda l, r: l | r),
    "logical_xor": _logic(lambda l, r: l ^ r),
    "relu_grad": lambda xp, og, y: og * (y > 0),     # relu's gradient from its output y: og where y > 0
}


# ---- gradients (lhs, rhs, output, output gradient) -> (d lhs, d rhs), unreduced -------------
def _g_div(F, l, r, y, og):
    return F.broadcast_div(og, r), F.negative(F.broadcast_div(F.broadcast_mul(og, y), r))


def _g_power(F, l, r, y, og):
    dl = F.broadcast_mul(og, F.broadcast_mul(r, F.broadcast_power(l, F._minus_scalar(r, scalar=1.0))))
    if l.dtype != y.dtype:     # an integer base under a float exponent: log(l) in the output's float type
        l = F.Cast(l, dtype=y.dtype)
    return dl, F.broadcast_mul(og, F.broadcast_mul(y, F.log(l)))


def _g_mod(F, l, r, y, og):
    # MXNet's mod_grad / mod_rgrad are 1 and -floor(l / r) for floating types and 0 for integer ones;
    # ``ones * 0.5 * 2`` is that 1-or-0 (an integer array scales by the scalar cast to its type: 0)
    is_float = F._mul_scalar(F._mul_scalar(F.ones_like(og), scalar=0.5), scalar=2.0)
    og = F.broadcast_mul(og, is_float)
    return og, F.negative(F.broadcast_mul(og, F.floor(F.broadcast_div(l, r))))


GRAD = {
    "add": lambda F, l, r, y, og: (og, og),
    "sub": lambda F, l, r, y, og: (og, F.negative(og)),
    "mul": lambda F, l, r, y, og: (F.broadcast_mul(og, r), F.broadcast_mul(og, l)),
    "div": _g_div, "true_divide": _g_div,
    "mod": _g_mod,
    "power": _g_power,
    "maximum": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_greater_equal(l, r)),
                                       F.broadcast_mul(og, F.broadcast_lesser(l, r))),
    "minimum": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_lesser_equal(l, r)),
                                       F.broadcast_mul(og, F.broadcast_greater(l, r))),
    "hypot": lambda F, l, r, y, og: (F.broadcast_mul(og, F.broadcast_div(l, y)),
                                     F.broadcast_mul(og, F.broadcast_div(r, y))),
    # linear in the head gradient, piecewise constant in y (MXNet: the mask again, zeros for y)
    "relu_grad": lambda F, og, y, out, g: (F._backward_relu(g, y), None),
}
NO_GRAD_REASON = "comparison/logical op: piecewise constant (MXNet gives zero gradients)"
