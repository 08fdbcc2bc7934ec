"""Comparisons and logical ops, four variants of each: broadcast_X (1/0 in the inputs' dtype, with
NumPy broadcasting), _npi_X (a bool array under the NumPy name: ``mx.np.less``), _X (inputs of one
shape) and _X_scalar (one array and a ``scalar`` attribute). None has a gradient: they are piecewise
constant, and autograd gives their inputs zeros (``zero_grad``), as MXNet does.

Example::

    >>> import hybridlab as mx
    >>> mx.np.equal(mx.np.array([1.0, 2.0]), mx.np.array([1.0, 0.0])).tolist()
    [True, False]
    >>> (mx.nd.array([1, 5]) > 2).asnumpy().tolist()
    [0.0, 1.0]
"""
import numpy as _np

from .binary_factories import broadcast, elemwise, scalar
from .binary_math import NO_GRAD_REASON, bool_type
from .registry import InlineRule


# ---- what the compiler asks: _greater_scalar (a 0/1 mask) as a NumPy expression ---------------
def _greater_inline(a, site):
    """1.0 / 0.0 in the input's dtype (NaN compares false, as in the kernel); a planned float buffer
    takes the booleans as they are."""
    x, s = site.args[0], site.literal(a["scalar"])
    if site.out is not None:
        return f"greater({x}, {s}{site.out_arg})"
    return f"greater({x}, {s}).astype({x}.dtype)"


# ---- broadcast_X, _npi_X, _X and _X_scalar of each comparison and logical op ----------------------
_SCALAR_FN = {
    "equal": lambda xp, x, s: x == s, "not_equal": lambda xp, x, s: x != s, "greater": lambda xp, x, s: x > s,
    "greater_equal": lambda xp, x, s: x >= s, "lesser": lambda xp, x, s: x < s,
    "lesser_equal": lambda xp, x, s: x <= s,
    "logical_and": lambda xp, x, s: (x != 0) & bool(s), "logical_or": lambda xp, x, s: (x != 0) | bool(s),
    "logical_xor": lambda xp, x, s: (x != 0) ^ bool(s),
}
_SCALAR_INLINE = {"greater": InlineRule(_greater_inline, functions=(_np.greater,), inplace=True)}
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
    broadcast(f"_npi_{_np_name}", _fn, np=_np_name, out_type=bool_type, logic=True, hidden=True,
              doc=f"{_text} with NumPy broadcasting, as a bool array (NumPy semantics).")
    elemwise(f"_{_fn}", _fn, aliases=(_elem_alias,), logic=True,
             doc=f"1 where {_text}, else 0, in the inputs' dtype; both must have the same shape.")
    scalar(f"_{_fn}_scalar", _SCALAR_FN[_fn], None, aliases=(_scalar_alias,), no_grad_reason=NO_GRAD_REASON,
           zero_grad=True, inline=_SCALAR_INLINE.get(_fn),
           doc=f"1 where {_text.replace('rhs', 'scalar').replace('lhs', 'x')}, else 0, in x's dtype.")
