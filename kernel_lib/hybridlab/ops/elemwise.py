"""Elementwise unary operators: math, activations written as unary ops, casts and copies.

Each op is one ``unary(...)`` line: its forward as an xp expression and its gradient written with
registered ops (``F``), so gradients can be recorded again for higher order.
"""
from .attrs import Attr
from .infer import unary_shape
from .registry import OpDef, register


def unary(name, forward, grad=None, *, aliases=(), np=(), npx=(), doc="", no_grad_reason="",
          attrs=None, infer_type=None, family="elemwise"):
    """Register a one-input op. ``forward(xp, x, a)`` computes; ``grad(F, x, y, og, a)`` returns dx."""
    def compute(ctx, a, x):
        return forward(ctx.xp, x, a)

    def gradient(F, a, inputs, outputs, ograds):
        return [grad(F, inputs[0], outputs[0], ograds[0], a)]

    return register(OpDef(name, compute=compute, infer_shape=unary_shape, infer_type=infer_type,
                          grad=gradient if grad is not None else None, aliases=aliases, np=np, npx=npx,
                          doc=doc, no_grad_reason=no_grad_reason, attrs=attrs, family=family))


unary("negative", lambda xp, x, a: xp.negative(x), lambda F, x, y, og, a: F.negative(og), np="negative",
      doc="Numerical negative, elementwise.")
unary("exp", lambda xp, x, a: xp.exp(x), lambda F, x, y, og, a: F.elemwise_mul(og, y), np="exp",
      doc="Exponential, elementwise.")
unary("relu", lambda xp, x, a: xp.maximum(x, 0).astype(x.dtype, copy=False),
      lambda F, x, y, og, a: F.elemwise_mul(og, F._greater_scalar(x, scalar=0)), npx="relu",
      doc="Rectified linear unit: max(x, 0).")
unary("_copy", lambda xp, x, a: x.copy(), lambda F, x, y, og, a: og, aliases=("identity",), np="copy",
      doc="A copy of the input.")
unary("zeros_like", lambda xp, x, a: xp.zeros_like(x), None, np="zeros_like",
      no_grad_reason="constant output", doc="Zeros with the input's shape and dtype.")
unary("ones_like", lambda xp, x, a: xp.ones_like(x), None, np="ones_like",
      no_grad_reason="constant output", doc="Ones with the input's shape and dtype.")
