"""``_npx_constraint_check`` (``mx.npx.constraint_check``): raise ``ValueError(msg)`` unless every
element of a boolean array is true, else return ``array(True)`` (a 0-d bool). Being an op, the
check runs where the graph runs, so a hybridized block checks the values of each call; multiply a
value by the result to keep the check in the graph (``scale * constraint_check(scale > 0, msg)``),
as MXNet's docs say. Its input gets a zero gradient (MXNet's ``MakeZeroGradNodes``).

Example::

    >>> import hybridlab as mx
    >>> scale = mx.np.array([1.0, 2.0])
    >>> (scale * mx.npx.constraint_check(scale > 0, "scale must be positive")).tolist()
    [1.0, 2.0]
    >>> try:
    ...     mx.npx.constraint_check(scale > 1, "scale must exceed 1")
    ... except ValueError as err:
    ...     print(err)
    scale must exceed 1
"""
import numpy as onp

from ..base import MXNetError, MXNetValueError
from .attrs import Attr
from .registry import NsName, OpDef, register

__all__ = []


def _compute(ctx, a, x):
    if x.dtype != onp.bool_:
        raise MXNetError(f"_npx_constraint_check: input expected a bool array, got {x.dtype}")
    if not bool(ctx.xp.all(x)):
        raise MXNetValueError(a["msg"])
    return ctx.xp.asarray(True)


def _infer_type(a, in_dtypes):
    if in_dtypes[0] is not None and in_dtypes[0] != onp.bool_:
        raise MXNetError(f"_npx_constraint_check: input expected a bool array, got {in_dtypes[0]}")
    return [onp.dtype(onp.bool_)]


register(OpDef(
    "_npx_constraint_check", inputs=("input",), compute=_compute,
    attrs={"msg": Attr("str", "Constraint violated!", doc="The message of the ValueError raised.")},
    infer_shape=lambda a, s: [()], infer_type=_infer_type, family="reduce",
    npx=NsName("constraint_check", args=("msg",)), zero_grad=True,
    no_grad_reason="a check: its bool output is not a differentiable function of the input",
    doc="array(True) when every element of the bool input is true; otherwise ValueError(msg)."))
