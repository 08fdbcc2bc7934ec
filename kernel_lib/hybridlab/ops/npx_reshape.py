"""``mx.npx.reshape`` (``_npx_reshape``, alias ``_npi_reshape``): reshape with MXNet's special codes.

``newshape`` entries, read left to right against the input's dimensions (right to left with
``reverse=True``: both shapes are reversed, inferred, and the result reversed back):

* ``d > 0``: an output dimension of size d (consumes one input dimension),
* ``-1``: inferred from the remaining size (consumes one input dimension; at most one -1 in all),
* ``-2``: copy this input dimension,
* ``-3``: skip this input dimension, which must be 1,
* ``-4``: copy all the remaining input dimensions,
* ``-5``: the product of the next two input dimensions,
* ``-6, d1, d2``: split this input dimension into d1 x d2 (one of them may be -1).

A ``newshape`` without negative entries is taken as is. This is MXNet's ``NumpyXReshapeInferShape``,
with one extension: alongside negative codes, ``0`` copies the input dimension (as legacy
``Reshape``; MXNet 1.9.1 raises there, so ``npx.reshape(x, (0, -1))`` flattens all but the batch axis).

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.ones((8, 3, 3, 3, 4, 4))
    >>> mx.npx.reshape(x, (-6, 2, -1, -4)).shape
    (2, 4, 3, 3, 3, 4, 4)
    >>> mx.npx.reshape(mx.np.ones((8, 3, 2, 4, 8)), (-4, -1, 2, -6), reverse=True).shape
    (8, 3, 2, 4, 4, 2)
"""
from .attrs import Attr
from .infer import InferError, prod
from .registry import NsName, OpDef, register

__all__ = ["npx_reshape_shape"]


def _fail(src, newshape, reverse, why):
    raise InferError(0, f"a shape that newshape {tuple(newshape)} (reverse={reverse}) applies to", tuple(src),
                     why)


def _infer_forward(src, target, original, reverse):
    """MXNet's NumpyXReshapeInferShape on (possibly reversed) ``src`` and ``target``."""
    def fail(why):
        _fail(src[::-1] if reverse else src, original, reverse, why)

    size = prod(src)
    if all(t >= 0 for t in target):
        if prod(target) != size:
            fail(f"{size} elements cannot fill shape {tuple(target)}")
        return list(target)
    out, unknown, known, j, i = [], -1, 1, 0, 0
    while i < len(target):
        t = target[i]
        if t == -1:
            unknown = len(out)
            out.append(-1)
            j += 1
        elif t == -2 or t == 0:
            if j >= len(src):
                fail(f"{t} at position {i} has no input dimension left to copy")
            known *= src[j]
            out.append(src[j])
            j += 1
        elif t == -3:
            if j >= len(src) or src[j] != 1:
                fail(f"-3 at position {i} skips an input dimension of size 1, got "
                     f"{src[j] if j < len(src) else 'none left'}")
            j += 1
        elif t == -4:
            while j < len(src):
                known *= src[j]
                out.append(src[j])
                j += 1
        elif t == -5:
            if j + 1 >= len(src):
                fail(f"-5 at position {i} needs two input dimensions left to merge")
            known *= src[j] * src[j + 1]
            out.append(src[j] * src[j + 1])
            j += 2
        elif t == -6:
            if i + 2 >= len(target) or j >= len(src):
                fail(f"-6 at position {i} needs two sizes after it and an input dimension to split")
            d0, d1, d2 = src[j], target[i + 1], target[i + 2]
            j += 1
            i += 2
            if d1 == -1 and d2 == -1:
                fail("the two sizes after -6 cannot both be -1")
            if d1 == -1:
                d1 = d0 // d2 if d2 else 0
            if d2 == -1:
                d2 = d0 // d1 if d1 else 0
            if d1 * d2 != d0:
                fail(f"split sizes {d1} x {d2} do not multiply to the input dimension {d0}")
            known *= d0
            out += [d1, d2]
        else:
            known *= t
            out.append(t)
            j += 1
        i += 1
    if unknown >= 0:
        if known == 0 or size % known:
            fail(f"{size} elements cannot be split with the known sizes (product {known})")
        out[unknown] = size // known
    if prod(out) != size:
        fail(f"the resulting shape {tuple(out)} holds {prod(out)} elements, the input {size}")
    return out


def npx_reshape_shape(src, newshape, reverse=False):
    """The output shape of ``npx.reshape(x, newshape, reverse)`` for an input of shape ``src``."""
    src, newshape = tuple(src), tuple(newshape)
    for t in newshape:
        if t < -6:
            _fail(src, newshape, reverse, f"codes are >= -6, got {t}")
    if sum(t == -1 for t in newshape) > 1:
        _fail(src, newshape, reverse, "only one dimension can be -1 (inferred)")
    if reverse:
        return tuple(_infer_forward(src[::-1], newshape[::-1], newshape, True)[::-1])
    return tuple(_infer_forward(src, newshape, newshape, False))


def _infer(a, s):
    if s[0] is None:
        return [None]
    return [npx_reshape_shape(s[0], a["newshape"], a["reverse"])]


register(OpDef(
    "_npx_reshape", family="shape", aliases=("_npi_reshape",), inputs=("a",),
    npx=NsName("reshape", args=("newshape", "reverse", "order")),
    attrs={"newshape": Attr("shape", doc="The new shape, with the special codes -1..-6 (and 0: copy)."),
           "reverse": Attr("bool", False, doc="Infer the special values from right to left."),
           "order": Attr("enum", "C", choices=("C",), doc="Element order (only 'C').")},
    compute=lambda ctx, a, x: ctx.xp.reshape(x, npx_reshape_shape(x.shape, a["newshape"], a["reverse"])).copy(),
    infer_shape=_infer,
    grad=lambda F, a, ins, outs, og: [F.reshape_like(og[0], ins[0])],
    doc="Reshape with MXNet's codes: -1 infer, -2 copy, -3 skip a size-1 dimension, -4 copy the rest, "
        "-5 merge two, -6 split one into the two sizes that follow; reverse infers right to left."))
