"""``where(condition, x, y)``: MXNet's ``where`` (x and y of one shape; the condition of that shape,
or 1-D picking whole rows along the first axis) and ``_npi_where``, NumPy's ``where`` (all three
broadcast). The output dtype is the common dtype of x and y (``binary_math.promote``).

Example::

    >>> import hybridlab as mx
    >>> c = mx.nd.array([1, 0])
    >>> mx.nd.where(c, mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([[5, 6], [7, 8]])).asnumpy().tolist()
    [[1.0, 2.0], [7.0, 8.0]]
    >>> mx.np.where(mx.np.array([True, False]), mx.np.array([1.0, 2.0]), mx.np.array([[0.0], [9.0]])).tolist()
    [[1.0, 0.0], [1.0, 9.0]]
"""
from .binary_factories import sum_to
from .binary_math import as_array, promote
from .infer import InferError, broadcast_shape, known, merge_shape
from .registry import OpDef, register
from .select_cpu import select


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


def _where_partial(a, in_shapes, outs):
    """Partial symbolic inference (MXNet's WhereOpShape): nothing until the condition's shape is
    known; then x and y also get the output's shape."""
    if not known(in_shapes[0]):
        return False
    if outs[0] is not None:
        for i in (1, 2):
            if in_shapes[i] is None or len(in_shapes[i]) == len(outs[0]):
                merge_shape(in_shapes, i, outs[0], "x and y have the output's shape")
    return True


def _where_compute(ctx, a, cond, x, y):
    dt = promote(x.dtype, y.dtype)
    c = cond != 0
    if c.ndim == 1 and x.ndim > 1:
        c = c.reshape((c.shape[0],) + (1,) * (x.ndim - 1))
    return as_array(ctx.xp, select(ctx.xp, c, x, y).astype(dt, copy=False))


def _where_grad(F, a, inputs, outputs, ograds):
    cond, og = inputs[0], ograds[0]
    zeros = F.zeros_like(og)
    return [None, F.where(cond, og, zeros), F.where(cond, zeros, og)]


register(OpDef("where", inputs=("condition", "x", "y"), compute=_where_compute, infer_shape=_where_infer,
               infer_partial=_where_partial,
               infer_type=lambda a, d: [promote(d[1], d[2])], grad=_where_grad,
               doc="Elements of x where condition is nonzero, else of y. x and y have one shape; condition "
                   "has that shape too, or is 1-D and picks whole rows along the first axis."))


def _npi_where_infer(a, in_shapes):
    return [broadcast_shape(broadcast_shape(in_shapes[0], in_shapes[1], arg=1), in_shapes[2], arg=2)]


def _npi_where_compute(ctx, a, cond, x, y):
    return as_array(ctx.xp, select(ctx.xp, cond != 0, x, y).astype(promote(x.dtype, y.dtype), copy=False))


def _npi_where_grad(F, a, inputs, outputs, ograds):
    cond, x, y = inputs
    og = ograds[0]
    zeros = F.zeros_like(og)
    return [None, sum_to(F, F._npi_where(cond, og, zeros), x), sum_to(F, F._npi_where(cond, zeros, og), y)]


register(OpDef("_npi_where", inputs=("condition", "x", "y"), compute=_npi_where_compute,
               infer_shape=_npi_where_infer, infer_type=lambda a, d: [promote(d[1], d[2])],
               grad=_npi_where_grad, np="where", family="broadcast", hidden=True,
               doc="Elements of x where condition is true, else of y; all three broadcast (NumPy's where)."))
