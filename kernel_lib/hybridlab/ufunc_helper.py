"""MXNet's ``_ufunc_helper``: a function of two operands, each an array (``mx.nd``) or symbol
(``mx.sym``) or a Python number, that picks the op for each combination. Used by
``ndarray/ufunc.py`` (``mx.nd.add``, ``maximum``...) and ``symbol/functions.py`` (``mx.sym.pow``...).

Example::

    >>> import hybridlab as mx
    >>> mx.nd.minimum(3, mx.nd.array([1, 5])).asnumpy().tolist(), mx.nd.minimum(3, 5)
    ([1.0, 3.0], 3)
"""
import numbers

from .base import MXNetError

__all__ = ["binary_function"]


def binary_function(name, array_cls, call, array_op, scalar_op, rscalar_op, python, summary):
    """A function ``name(lhs, rhs)``: ``call(array_op, lhs, rhs)`` for two ``array_cls`` operands,
    ``call(scalar_op, array, scalar=number)`` for an array and a number (``rscalar_op`` when the number
    comes first; ``None``: the op commutes), ``python(lhs, rhs)`` for two numbers."""
    def fn(lhs, rhs):
        lhs_number, rhs_number = isinstance(lhs, numbers.Number), isinstance(rhs, numbers.Number)
        if lhs_number and rhs_number:
            return python(lhs, rhs)
        if lhs_number and isinstance(rhs, array_cls):
            return call(rscalar_op or scalar_op, rhs, scalar=float(lhs))
        if rhs_number and isinstance(lhs, array_cls):
            return call(scalar_op, lhs, scalar=float(rhs))
        if isinstance(lhs, array_cls) and isinstance(rhs, array_cls):
            return call(array_op, lhs, rhs)
        raise MXNetError(f"{name}: expected {array_cls.__name__}s or numbers, "
                         f"got ({type(lhs).__name__}, {type(rhs).__name__})")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}, element-wise, of two {array_cls.__name__}s (``{array_op}``, broadcasting), "
                  f"an {array_cls.__name__} and a number (``{scalar_op}``), or two numbers.")
    return fn
