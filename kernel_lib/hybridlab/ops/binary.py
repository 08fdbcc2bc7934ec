"""Binary arithmetic: broadcast_* (NumPy broadcasting) with ``_npi_true_divide`` (NumPy's true
division), and the equal-shape variants elemwise_*, _mod, _power, _maximum, _minimum, _hypot.

The binary family is split by concept: the math written once (``binary_math.py``: dtype rules,
forwards, gradients), the factories that register each variant (``binary_factories.py``), and the
ops: arithmetic here, comparisons and logical ops in ``binary_compare.py``, the ``_*_scalar``
arithmetic and smooth_l1 in ``binary_scalar.py``, ``where`` in ``where.py``, ``add_n`` and the
gradient of broadcasting (``_reduce_sum_like``) in ``add_n.py``.

Example::

    >>> import hybridlab as mx
    >>> (mx.nd.array([1.0, 2.0]) + mx.nd.array([[10.0], [20.0]])).asnumpy().tolist()
    [[11.0, 12.0], [21.0, 22.0]]
    >>> mx.np.divide(mx.np.array([1, 2], dtype="int32"), mx.np.array([2, 2], dtype="int32")).tolist()
    [0.5, 1.0]
"""
import numpy as _np

from .binary_factories import broadcast, elemwise, ufunc_out
from .binary_math import truediv_type
from .registry import InlineRule, Lowering, OutKernel


# ---- what the compiler asks: elemwise_mul and _backward_relu as NumPy calls in generated CPU programs
def _multiply_inline(a, site):
    return f"multiply({site.args[0]}, {site.args[1]}{site.out_arg})"


def _relu_grad_inline(a, site):
    """ograd times the booleans y > 0 (NumPy promotes them to ograd's dtype: the same 1/0 product)."""
    return f"multiply({site.args[0]}, greater({site.args[1]}, 0){site.out_arg})"


# ---- broadcast_* and their NumPy names ---------------------------------------------------------
broadcast("broadcast_add", "add", aliases=("broadcast_plus",), np="add", out_kernel=ufunc_out("add"),
          lowering=Lowering("add", "xy", "({0} + {1})"),
          doc="lhs + rhs with NumPy broadcasting.")
broadcast("broadcast_sub", "sub", aliases=("broadcast_minus",), np="subtract",
          out_kernel=ufunc_out("subtract"), lowering=Lowering("subtract", "xy", "({0} - {1})"),
          doc="lhs - rhs with NumPy broadcasting.")
broadcast("broadcast_mul", "mul", np="multiply", out_kernel=ufunc_out("multiply"),
          lowering=Lowering("multiply", "xy", "({0} * {1})"),
          doc="lhs * rhs with NumPy broadcasting.")
broadcast("broadcast_div", "div", out_kernel=ufunc_out("divide"),
          lowering=Lowering("true_divide", "xy", "({0} / {1})"),
          doc="lhs / rhs with NumPy broadcasting (integer inputs: truncating division).")
broadcast("_npi_true_divide", "true_divide", np=("divide", "true_divide"), out_type=truediv_type, hidden=True,
          doc="lhs / rhs with NumPy broadcasting; integer inputs give float32 (NumPy's true division).")
broadcast("broadcast_mod", "mod", np=("mod", "remainder"),
          doc="lhs mod rhs with broadcasting; the result has the sign of rhs, and is 0 where rhs is 0.")
broadcast("broadcast_power", "power", np="power", lowering=Lowering("power", "xy", "pow({0}, {1})"),
          doc="lhs ** rhs with NumPy broadcasting.")
broadcast("broadcast_maximum", "maximum", np="maximum", out_kernel=ufunc_out("maximum"),
          lowering=Lowering("maximum", "xy", "max({0}, {1})"),
          doc="Elementwise maximum with NumPy broadcasting.")
broadcast("broadcast_minimum", "minimum", np="minimum", out_kernel=ufunc_out("minimum"),
          lowering=Lowering("minimum", "xy", "min({0}, {1})"),
          doc="Elementwise minimum with NumPy broadcasting.")
broadcast("broadcast_hypot", "hypot", np="hypot", doc="sqrt(lhs**2 + rhs**2) with NumPy broadcasting.")

# ---- equal-shape variants ---------------------------------------------------------------------
elemwise("elemwise_add", "add", aliases=("_plus", "_add", "_Plus"), out_kernel=ufunc_out("add"),
         lowering=Lowering("add", "xy", "({0} + {1})"),
         doc="lhs + rhs; both must have the same shape.")
elemwise("elemwise_sub", "sub", aliases=("_minus", "_sub", "_Minus"), out_kernel=ufunc_out("subtract"),
         lowering=Lowering("subtract", "xy", "({0} - {1})"),
         doc="lhs - rhs; both must have the same shape.")
elemwise("elemwise_mul", "mul", aliases=("_mul", "_Mul"), out_kernel=ufunc_out("multiply"),
         lowering=Lowering("multiply", "xy", "({0} * {1})"),
         inline=InlineRule(_multiply_inline, functions=(_np.multiply,), inplace=True),
         doc="lhs * rhs; both must have the same shape.")
elemwise("_backward_relu", "relu_grad", hidden=True,
         out_kernel=OutKernel(lambda ctx, a, out, og, y: ctx.xp.multiply(og, y > 0, out=out), inplace=True),
         inline=InlineRule(_relu_grad_inline, functions=(_np.multiply, _np.greater), inplace=True),
         doc="The gradient of relu from its output: lhs (the head gradient) where rhs (relu's output) "
             "> 0, else 0; both must have the same shape (MXNet's _backward_relu).")
elemwise("elemwise_div", "div", aliases=("_div", "_Div"), out_kernel=ufunc_out("divide"),
         lowering=Lowering("true_divide", "xy", "({0} / {1})"),
         doc="lhs / rhs; both must have the same shape.")
elemwise("_mod", "mod", aliases=("_Mod",), doc="lhs mod rhs (sign of rhs, 0 where rhs is 0); same shapes.")
elemwise("_power", "power", aliases=("_Power",), lowering=Lowering("power", "xy", "pow({0}, {1})"),
         doc="lhs ** rhs; both must have the same shape.")
elemwise("_maximum", "maximum", aliases=("_Maximum",), out_kernel=ufunc_out("maximum"),
         lowering=Lowering("maximum", "xy", "max({0}, {1})"),
         doc="Elementwise maximum; both must have the same shape.")
elemwise("_minimum", "minimum", aliases=("_Minimum",), out_kernel=ufunc_out("minimum"),
         lowering=Lowering("minimum", "xy", "min({0}, {1})"),
         doc="Elementwise minimum; both must have the same shape.")
elemwise("_hypot", "hypot", aliases=("_Hypot",), doc="sqrt(lhs**2 + rhs**2); both must have the same shape.")
