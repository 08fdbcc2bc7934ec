"""``_npi_einsum`` (``mx.np.einsum``): Einstein summation over any number of operands, as NumPy's
``einsum`` (explicit ``->`` or implicit output, ``...`` broadcasting), with gradients.

The subscripts are first made explicit (``...`` replaced by letters, the implicit output spelled
out), so the gradient of operand ``k`` is itself an einsum: the output gradient and the other
operands contracted to operand ``k``'s letters (``_backward_npi_einsum``). A letter that only
operand ``k`` has is broadcast back and an axis the operand broadcast from size 1 is summed back. A
letter repeated within one operand (a diagonal or trace, ``'ii->i'``) gets its gradient on that
diagonal.

Example::

    >>> import hybridlab as mx
    >>> a, b = mx.np.ones((2, 3)), mx.np.ones((3, 4))
    >>> mx.np.einsum('ij,jk->ik', a, b).tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
    >>> mx.np.einsum('ii', mx.np.eye(3)).tolist()
    3.0
"""
import string

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .registry import OpDef, register

__all__ = ["explicit_subscripts"]

_ATTRS = {"subscripts": Attr("str", doc="NumPy einsum subscripts, e.g. 'ij,jk->ik'"),
          "optimize": Attr("int", 0, doc="accepted for compatibility (NumPy's contraction order is used)")}


def explicit_subscripts(subscripts, ndims):
    """``(input letter strings, output letters)`` with ``...`` replaced by letters (right-aligned
    over each operand's extra axes) and an implicit output spelled out as NumPy does (the letters
    that appear once, sorted, after the broadcast ones)."""
    text = subscripts.replace(" ", "")
    lhs, arrow, out = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise MXNetError(f"einsum: subscripts {subscripts!r} expected {len(terms)} operands, got {len(ndims)}")
    used = set(text) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    n_ell = max((nd - len(t.replace("...", "")) for t, nd in zip(terms, ndims) if "..." in t), default=0)
    ell = "".join(spare[:n_ell])
    inputs = []
    for term, nd in zip(terms, ndims):
        if "..." in term:
            k = nd - len(term.replace("...", ""))
            term = term.replace("...", ell[n_ell - k:] if k else "")
        if len(term) != nd:
            raise MXNetError(f"einsum: operand subscripts {term!r} expected {nd} letters (the operand has {nd} "
                             f"dimensions), got {len(term)}")
        inputs.append(term)
    if arrow:
        out = out.replace("...", ell)
    else:
        letters = "".join(inputs)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell))
    return inputs, out


def _spelled(a, shapes):
    inputs, out = explicit_subscripts(a["subscripts"], [len(s) for s in shapes])
    return ",".join(inputs) + "->" + out, inputs, out


def _compute(ctx, a, *operands):
    expr, _, _ = _spelled(a, [x.shape for x in operands])
    return ctx.xp.asarray(ctx.xp.einsum(expr, *operands))


def _infer(a, in_shapes):
    if any(s is None for s in in_shapes):
        return [None]
    _, inputs, out = _spelled(a, in_shapes)
    sizes = {}
    for term, shape in zip(inputs, in_shapes):
        for c, d in zip(term, shape):
            if d != 1 and sizes.get(c, 1) not in (1, d):
                raise MXNetError(f"einsum: letter {c!r} expected one size (or 1), got {sizes[c]} and {d} "
                                 f"in {a['subscripts']!r}")
            if d != 1 or c not in sizes:
                sizes[c] = d
    return [tuple(sizes[c] for c in out)]


def _type(a, dtypes):
    known = [d for d in dtypes if d is not None]
    return [np.result_type(*known) if known else None]


def _grad(F, a, inputs, outputs, ograds):
    grads = F._backward_npi_einsum(ograds[0], *inputs, subscripts=a["subscripts"], num_args=len(inputs) + 1)
    return list(grads) if isinstance(grads, (list, tuple)) else [grads]


register(OpDef(
    "_npi_einsum", inputs=(), variadic=True, attrs=_ATTRS, compute=_compute, infer_shape=_infer, infer_type=_type,
    grad=_grad, family="linalg",
    doc="""Einstein summation of the operands by NumPy's ``subscripts`` (``'ij,jk->ik'``, implicit output,
``...`` broadcasting); mx.np.einsum(subscripts, *operands)."""))


def _operand_grad(xp, k, og, operands, inputs, out):
    """The gradient of operand ``k``: ``og`` and the other operands contracted to its letters. A
    letter repeated in the operand (a diagonal, ``'ii'``) gets the gradient on that diagonal, zeros
    elsewhere."""
    term, x = inputs[k], operands[k]
    unique = "".join(dict.fromkeys(term))
    size = dict(zip(term, x.shape))
    others = [(t, o) for i, (t, o) in enumerate(zip(inputs, operands)) if i != k]
    present = set(out).union(*[set(t) for t, _ in others])
    kept = "".join(c for c in unique if c in present)
    g = xp.einsum(",".join([out] + [t for t, _ in others]) + "->" + kept, og, *[o for _, o in others])
    got = dict(zip(kept, g.shape))
    g = g.reshape(tuple(got.get(c, 1) for c in unique))
    g = xp.broadcast_to(g, tuple(max(d, size[c]) for d, c in zip(g.shape, unique)))   # letters only k has
    axes = tuple(i for i, c in enumerate(unique) if size[c] == 1 and g.shape[i] != 1)
    if axes:                                                 # broadcast from size 1: sum back
        g = g.sum(axis=axes, keepdims=True)
    if len(unique) == len(term):
        return xp.array(g, dtype=x.dtype, order="C")        # (ascontiguousarray would make a 0-d array 1-d)
    full = xp.zeros(x.shape, dtype=x.dtype)
    grid = {c: xp.arange(size[c]).reshape([-1 if j == i else 1 for j in range(len(unique))])
            for i, c in enumerate(unique)}
    full[tuple(grid[c] for c in term)] = g
    return full


def _backward_compute(ctx, a, og, *operands):
    xp = ctx.xp
    _, inputs, out = _spelled(a, [x.shape for x in operands])
    grads = [_operand_grad(xp, k, og, operands, inputs, out) for k in range(len(operands))]
    return tuple(grads) if len(grads) > 1 else grads[0]


register(OpDef(
    "_backward_npi_einsum", inputs=(), variadic=True, attrs=_ATTRS, compute=_backward_compute,
    infer_shape=lambda a, s: [tuple(x) if x is not None else None for x in s[1:]],
    infer_type=lambda a, d: list(d[1:]), family="linalg", hidden=True,
    num_outputs=lambda a: a["num_args"] - 1,
    no_grad_reason="einsum's gradient is an einsum; its own gradient is not needed (first order only)",
    doc="""Gradients of ``_npi_einsum`` w.r.t. each operand from the output gradient (the first input)
and the operands."""))
