"""Binary operators: broadcast_* (NumPy broadcasting), elemwise_* (equal shapes) and the
``_*_scalar`` variants (one array and a scalar attribute)."""
from .attrs import Attr
from .infer import InferError, broadcast_shape, same_shape, unary_shape
from .registry import OpDef, register


def _broadcast_infer(a, in_shapes):
    return [broadcast_shape(in_shapes[0], in_shapes[1])]


def _sum_to(F, g, like):
    """Gradient ``g`` of a broadcast result, summed back to the shape of input ``like``."""
    return F._reduce_sum_like(g, like)


def broadcast(name, forward, grad, *, aliases=(), np=(), doc="", no_grad_reason="", infer_type=None):
    def compute(ctx, a, lhs, rhs):
        return forward(ctx.xp, lhs, rhs)

    def gradient(F, a, inputs, outputs, ograds):
        lhs, rhs = inputs
        dl, dr = grad(F, lhs, rhs, outputs[0], ograds[0])
        return [None if dl is None else _sum_to(F, dl, lhs), None if dr is None else _sum_to(F, dr, rhs)]

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=compute, infer_shape=_broadcast_infer,
                          grad=gradient if grad is not None else None, aliases=aliases, np=np, doc=doc,
                          family="broadcast", no_grad_reason=no_grad_reason, infer_type=infer_type))


def elemwise(name, forward, grad, *, aliases=(), doc=""):
    def compute(ctx, a, lhs, rhs):
        return forward(ctx.xp, lhs, rhs)

    def gradient(F, a, inputs, outputs, ograds):
        return list(grad(F, inputs[0], inputs[1], outputs[0], ograds[0]))

    return register(OpDef(name, inputs=("lhs", "rhs"), compute=compute, infer_shape=same_shape,
                          grad=gradient, aliases=aliases, doc=doc, family="elemwise"))


def scalar(name, forward, grad, *, aliases=(), doc="", no_grad_reason=""):
    attrs = {"scalar": Attr("float", 1.0), "is_int": Attr("bool", True)}

    def compute(ctx, a, x):
        return forward(ctx.xp, x, a["scalar"]).astype(x.dtype, copy=False)

    def gradient(F, a, inputs, outputs, ograds):
        return [grad(F, inputs[0], outputs[0], ograds[0], a["scalar"])]

    return register(OpDef(name, compute=compute, infer_shape=unary_shape, attrs=attrs,
                          grad=gradient if grad is not None else None, aliases=aliases, doc=doc,
                          family="elemwise", no_grad_reason=no_grad_reason))


broadcast("broadcast_add", lambda xp, l, r: l + r, lambda F, l, r, y, og: (og, og), aliases=("broadcast_plus",),
          np="add", doc="lhs + rhs with NumPy broadcasting.")
broadcast("broadcast_mul", lambda xp, l, r: l * r,
          lambda F, l, r, y, og: (F.broadcast_mul(og, r), F.broadcast_mul(og, l)), np="multiply",
          doc="lhs * rhs with NumPy broadcasting.")
elemwise("elemwise_add", lambda xp, l, r: l + r, lambda F, l, r, y, og: (og, og), aliases=("_plus", "_add"),
         doc="lhs + rhs; both must have the same shape.")
elemwise("elemwise_mul", lambda xp, l, r: l * r, lambda F, l, r, y, og: (F.elemwise_mul(og, r), F.elemwise_mul(og, l)),
         aliases=("_mul",), doc="lhs * rhs; both must have the same shape.")
scalar("_plus_scalar", lambda xp, x, s: x + s, lambda F, x, y, og, s: og, aliases=("_PlusScalar",),
       doc="x + scalar.")
scalar("_mul_scalar", lambda xp, x, s: x * s, lambda F, x, y, og, s: F._mul_scalar(og, scalar=s),
       aliases=("_MulScalar",), doc="x * scalar.")
scalar("_greater_scalar", lambda xp, x, s: x > s, None, no_grad_reason="comparison: piecewise constant",
       doc="1 where x > scalar, else 0 (in x's dtype).")


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
               grad=lambda F, a, ins, outs, og: [F.broadcast_like(og[0], ins[0]), None],
               doc="Sum ``data`` down to the shape of ``like`` (the gradient of broadcasting)."))
