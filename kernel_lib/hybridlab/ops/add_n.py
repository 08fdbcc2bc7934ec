"""Summing ops: ``add_n`` (the elementwise sum of any number of same-shaped inputs; MXNet's
``ElementWiseSum``) and ``_reduce_sum_like``, a broadcast result's
gradient summed back to the shape of the input (what every broadcast_* gradient ends with).

Example::

    >>> import hybridlab as mx
    >>> mx.nd.add_n(mx.nd.array([1.0, 2.0]), mx.nd.array([10.0, 20.0]), mx.nd.array([100.0, 200.0])).asnumpy()
    array([111., 222.], dtype=float32)
    >>> mx.nd._reduce_sum_like(mx.nd.ones((2, 3)), mx.nd.zeros((1, 3))).asnumpy().tolist()
    [[2.0, 2.0, 2.0]]
"""
from .infer import InferError, broadcast_shape, same_shape
from .registry import OpDef, register


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
