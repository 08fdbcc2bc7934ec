"""MXNet 1.x's element-wise functions of two operands: ``mx.nd.add``, ``maximum``, ``power``,
``equal``, ``logical_and``, ... (and, through ``binary_function``, ``mx.sym.pow``, ``maximum``,
``minimum``, ``hypot``). Each takes arrays or Python numbers and, as MXNet's ``_ufunc_helper``,
calls the broadcast op for two arrays, the ``_*_scalar`` op (or its reflected ``_r*_scalar``) for an
array and a number, and plain Python for two numbers.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1, 5, 3])
    >>> mx.nd.maximum(x, 2.5).asnumpy().tolist(), mx.nd.subtract(10, x).asnumpy().tolist()
    ([2.5, 5.0, 3.0], [9.0, 5.0, 7.0])
    >>> mx.nd.equal(x, mx.nd.array([[1], [3]])).asnumpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
"""
import operator

from ..ufunc_helper import binary_function
from . import dispatch
from .ndarray import NDArray

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "modulo", "power", "maximum", "minimum",
           "equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal", "logical_and",
           "logical_or", "logical_xor"]


def _call(op_name, *inputs, **attrs):
    return dispatch.invoke_name(op_name, inputs, attrs)


def _nd(name, op, scalar_op, rscalar_op, python, summary):
    return binary_function(name, NDArray, _call, op, scalar_op, rscalar_op, python, summary)


def _flag(test):
    return lambda x, y: 1 if test(x, y) else 0


add = _nd("add", "broadcast_add", "_plus_scalar", None, operator.add, "Sum")
subtract = _nd("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar", operator.sub, "Difference")
multiply = _nd("multiply", "broadcast_mul", "_mul_scalar", None, operator.mul, "Product")
divide = _nd("divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv, "Quotient")
true_divide = _nd("true_divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv,
                  "Quotient (the same as ``divide``)")
modulo = _nd("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar", operator.mod, "Remainder")
power = _nd("power", "broadcast_power", "_power_scalar", "_rpower_scalar", operator.pow, "Power")
maximum = _nd("maximum", "broadcast_maximum", "_maximum_scalar", None, max, "Maximum")
minimum = _nd("minimum", "broadcast_minimum", "_minimum_scalar", None, min, "Minimum")
equal = _nd("equal", "broadcast_equal", "_equal_scalar", None, _flag(operator.eq), "1 where equal, else 0")
not_equal = _nd("not_equal", "broadcast_not_equal", "_not_equal_scalar", None, _flag(operator.ne),
                "1 where different, else 0")
greater = _nd("greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar", _flag(operator.gt),
              "1 where lhs > rhs, else 0")
greater_equal = _nd("greater_equal", "broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar",
                    _flag(operator.ge), "1 where lhs >= rhs, else 0")
lesser = _nd("lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar", _flag(operator.lt),
             "1 where lhs < rhs, else 0")
lesser_equal = _nd("lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                   _flag(operator.le), "1 where lhs <= rhs, else 0")
logical_and = _nd("logical_and", "broadcast_logical_and", "_logical_and_scalar", None,
                  _flag(lambda x, y: x and y), "1 where both are nonzero, else 0")
logical_or = _nd("logical_or", "broadcast_logical_or", "_logical_or_scalar", None,
                 _flag(lambda x, y: x or y), "1 where either is nonzero, else 0")
logical_xor = _nd("logical_xor", "broadcast_logical_xor", "_logical_xor_scalar", None,
                  _flag(lambda x, y: bool(x) != bool(y)), "1 where exactly one is nonzero, else 0")
