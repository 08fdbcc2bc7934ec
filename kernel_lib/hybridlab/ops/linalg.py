"""Matrix products: MXNet's ``dot`` (N-d: last axis of lhs with the first axis of rhs) and
``batch_dot``, NumPy's ``matmul`` (``_np_matmul``, also behind ``a @ b``) and ``dot`` (``_np_dot``),
and ``linalg_gemm2`` (``_linalg_gemm2``).

Gradients are products again (written with these ops through ``F``), so they can be recorded for
higher order.

Example::

    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 3))
    >>> mx.nd.dot(a, b, transpose_b=True).shape
    (2, 4)
    >>> mx.nd.batch_dot(mx.nd.ones((5, 2, 3)), mx.nd.ones((5, 3, 4))).shape
    (5, 2, 4)
"""
import numpy as _np

from .attrs import Attr
from .infer import InferError, broadcast_shape, normalize_axis, prod
from .registry import InlineRule, OpDef, register

_T_ATTRS = {"transpose_a": Attr("bool", False, doc="Transpose the first input before the product."),
            "transpose_b": Attr("bool", False, doc="Transpose the second input before the product.")}
_STYPE = {"forward_stype": Attr("enum?", None, choices=("csr", "default", "row_sparse"),
                                doc="Output storage type (dense arrays only here).")}


# ---- dot ----------------------------------------------------------------------------------------
def _dot_views(lshape, rshape, ta, tb):
    """2-d views (before transposition) of lhs and rhs, and the output shape, as MXNet's DotShape."""
    if ta:
        lv = (lshape[0], prod(lshape[1:]))
        lpart = tuple(lshape[1:])
    else:
        lv = (prod(lshape[:-1]), lshape[-1])
        lpart = tuple(lshape[:-1])
    if tb:
        rv = (prod(rshape[:-1]), rshape[-1])
        rpart = tuple(rshape[:-1])
    else:
        rv = (rshape[0], prod(rshape[1:]))
        rpart = tuple(rshape[1:])
    if len(lshape) == 1:
        lv, lpart = (1, lshape[0]) if not ta else (lshape[0], 1), ()
    if len(rshape) == 1:
        rv, rpart = (rshape[0], 1) if not tb else (1, rshape[0]), ()
    return lv, rv, lpart + rpart


def _dot_compute(ctx, a, lhs, rhs):
    ta, tb = a["transpose_a"], a["transpose_b"]
    if lhs.ndim == 1 and rhs.ndim == 1:
        return (lhs * rhs).sum().reshape(1)
    lv, rv, out_shape = _dot_views(lhs.shape, rhs.shape, ta, tb)
    l2, r2 = lhs.reshape(lv), rhs.reshape(rv)
    return ((l2.T if ta else l2) @ (r2.T if tb else r2)).reshape(out_shape)


def _dot_infer(a, s):
    l, r = s
    if l is None or r is None:
        return [None]
    if not l or not r:
        raise InferError(0 if not l else 1, "a shape with at least one dimension", l if not l else r)
    ta, tb = a["transpose_a"], a["transpose_b"]
    if len(l) == 1 and len(r) == 1:
        if l[0] and r[0] and l[0] != r[0]:
            raise InferError(1, (l[0],), r, "dot of two vectors needs equal lengths")
        return [(1,)]
    lv, rv, out = _dot_views(l, r, ta, tb)
    lk, rk = lv[0] if ta else lv[1], rv[1] if tb else rv[0]
    if lk and rk and lk != rk:
        raise InferError(1, f"(..., {lk})" if tb else f"({lk}, ...)", r,
                         f"dot contracts the {'first' if ta else 'last'} axis of lhs {tuple(l)} with the "
                         f"{'last' if tb else 'first'} axis of rhs")
    return [out]


def _matmul_grads(prod_op, a2, b2, g2, ta, tb):
    """Gradients of prod_op(a2, b2, transpose_a=ta, transpose_b=tb) (2-d or batched) w.r.t. a2, b2."""
    def mm(x, y, tx=False, ty=False):
        return prod_op(x, y, transpose_a=tx, transpose_b=ty)
    if not ta:
        da = mm(g2, b2, False, not tb)
    else:
        da = mm(b2, g2, tb, True)
    if not tb:
        db = mm(a2, g2, not ta, False)
    else:
        db = mm(g2, a2, True, ta)
    return da, db


def dot_grads(F, lhs, rhs, og, ta=False, tb=False):
    """(d lhs, d rhs) of MXNet's ``dot(lhs, rhs, transpose_a=ta, transpose_b=tb)`` given ``og``."""
    if lhs.ndim == 1 and rhs.ndim == 1:
        return F.broadcast_mul(og, rhs), F.broadcast_mul(og, lhs)
    lv, rv, _ = _dot_views(lhs.shape, rhs.shape, ta, tb)
    l2 = lhs if lhs.shape == lv else F.Reshape(lhs, shape=lv)
    r2 = rhs if rhs.shape == rv else F.Reshape(rhs, shape=rv)
    ov = (lv[1] if ta else lv[0], rv[0] if tb else rv[1])
    g2 = og if og.shape == ov else F.Reshape(og, shape=ov)
    dl, dr = _matmul_grads(F.dot, l2, r2, g2, ta, tb)
    if lhs.shape != lv:
        dl = F.Reshape(dl, shape=lhs.shape)
    if rhs.shape != rv:
        dr = F.Reshape(dr, shape=rhs.shape)
    return dl, dr


def _dot_inline(a, site):
    """``matmul`` of 2-d operands (a backward's weight and data gradients)."""
    if any(s is None or len(s) != 2 for s in site.shapes):
        return None
    lhs = f"{site.args[0]}.T" if a["transpose_a"] else site.args[0]
    rhs = f"{site.args[1]}.T" if a["transpose_b"] else site.args[1]
    return f"matmul({lhs}, {rhs}{site.out_arg})"


register(OpDef(
    "dot", family="linalg", inputs=("lhs", "rhs"), attrs={**_T_ATTRS, **_STYPE},
    inline=InlineRule(_dot_inline, functions=(_np.matmul,)),
    compute=_dot_compute, infer_shape=_dot_infer,
    grad=lambda F, a, ins, outs, og: list(dot_grads(F, ins[0], ins[1], og[0], a["transpose_a"], a["transpose_b"])),
    doc="Dot product. 1-d x 1-d: inner product, shape (1,). Otherwise the sum product over the last "
        "axis of lhs and the first axis of rhs: (n, m, k) x (k, r, s) -> (n, m, r, s). transpose_a treats "
        "lhs as (shape[0], rest) transposed, transpose_b treats rhs as (rest, shape[-1]) transposed."))


# ---- batch_dot ----------------------------------------------------------------------------------
def _swap_last(xp, x):
    return xp.swapaxes(x, -1, -2)


def _batch_dot_compute(ctx, a, lhs, rhs):
    xp = ctx.xp
    l = _swap_last(xp, lhs) if a["transpose_a"] else lhs
    r = _swap_last(xp, rhs) if a["transpose_b"] else rhs
    return xp.matmul(l, r)


def _batch_dot_infer(a, s):
    l, r = s
    if l is None or r is None:
        return [None]
    if len(l) < 3:
        raise InferError(0, "(batch..., rows, columns) with at least 3 dimensions", l)
    if len(r) != len(l):
        raise InferError(1, f"a {len(l)}-d shape like lhs {tuple(l)}", r)
    if any(x and y and x != y for x, y in zip(l[:-2], r[:-2])):
        raise InferError(1, str(tuple(l[:-2]))[:-1].rstrip(",") + ", ...)", r, "the batch dimensions of lhs")
    m, lk = (l[-1], l[-2]) if a["transpose_a"] else (l[-2], l[-1])
    rk, n = (r[-1], r[-2]) if a["transpose_b"] else (r[-2], r[-1])
    if lk and rk and lk != rk:
        raise InferError(1, f"(..., n, {lk})" if a["transpose_b"] else f"(..., {lk}, n)", r,
                         f"the contracted dimension of lhs {tuple(l)}")
    return [tuple(x or y for x, y in zip(l[:-2], r[:-2])) + (m, n)]


def _batch_dot_partial(a, s, outs):
    """Partial symbolic inference (MXNet's BatchDotShape): nothing while lhs's last or rhs's
    second-to-last dimension is unknown."""
    l, r = s
    if l is not None and r is not None and len(l) == len(r) >= 3 and not (l[-1] and r[-2]):
        return False
    return True


register(OpDef(
    "batch_dot", family="linalg", npx="batch_dot", inputs=("lhs", "rhs"), attrs={**_T_ATTRS, **_STYPE},
    compute=_batch_dot_compute, infer_shape=_batch_dot_infer, infer_partial=_batch_dot_partial,
    grad=lambda F, a, ins, outs, og: list(_matmul_grads(F.batch_dot, ins[0], ins[1], og[0],
                                                        a["transpose_a"], a["transpose_b"])),
    doc="Batched matrix product: (B..., M, K) x (B..., K, N) -> (B..., M, N); transpose_a/transpose_b "
        "transpose the last two axes of the inputs first. The batch dimensions must be equal."))


# ---- NumPy matmul / dot -------------------------------------------------------------------------
def _np_matmul_infer(a, s):
    l, r = s
    if l is None or r is None:
        return [None]
    if not l or not r:
        raise InferError(0 if not l else 1, "a shape with at least one dimension (matmul)", l if not l else r)
    l2 = l if len(l) > 1 else (1,) + tuple(l)
    r2 = r if len(r) > 1 else tuple(r) + (1,)
    if l2[-1] and r2[-2] and l2[-1] != r2[-2]:
        raise InferError(1, f"(..., {l2[-1]}, n)" if len(r) > 1 else f"({l2[-1]},)", r,
                         f"matmul contracts the last axis of {tuple(l)}")
    batch = broadcast_shape(tuple(l2[:-2]), tuple(r2[:-2]))
    return [tuple(batch) + ((l2[-2],) if len(l) > 1 else ()) + ((r2[-1],) if len(r) > 1 else ())]


def _np_matmul_grad(F, a, ins, outs, og):
    x, y = ins
    x2 = x if x.ndim > 1 else F.Reshape(x, shape=(1, x.shape[0]))
    y2 = y if y.ndim > 1 else F.Reshape(y, shape=(y.shape[0], 1))
    full = tuple(broadcast_shape(x2.shape[:-2], y2.shape[:-2])) + (x2.shape[-2], y2.shape[-1])
    g = og[0] if og[0].shape == full else F.Reshape(og[0], shape=full)
    dx = F._np_matmul(g, F.SwapAxis(y2, dim1=y2.ndim - 2, dim2=y2.ndim - 1))
    dy = F._np_matmul(F.SwapAxis(x2, dim1=x2.ndim - 2, dim2=x2.ndim - 1), g)
    dx = dx if dx.shape == x2.shape else F._reduce_sum_like(dx, x2)
    dy = dy if dy.shape == y2.shape else F._reduce_sum_like(dy, y2)
    return [dx if x.ndim > 1 else F.Reshape(dx, shape=x.shape), dy if y.ndim > 1 else F.Reshape(dy, shape=y.shape)]


register(OpDef(
    "_np_matmul", family="linalg", np="matmul", inputs=("a", "b"),
    compute=lambda ctx, a, x, y: ctx.xp.matmul(x, y), infer_shape=_np_matmul_infer, grad=_np_matmul_grad,
    doc="NumPy matmul (also ``a @ b``): matrix products over the last two axes with broadcast batch "
        "axes; a 1-d operand is a row (first) or column (second) vector, its axis removed from the result."))


def _np_dot_infer(a, s):
    l, r = s
    if l is None or r is None:
        return [None]
    if not l or not r:
        return [broadcast_shape(l, r)]
    k_axis = len(r) - 2 if len(r) > 1 else 0
    if l[-1] and r[k_axis] and l[-1] != r[k_axis]:
        raise InferError(1, f"(..., {l[-1]}, n)" if len(r) > 1 else f"({l[-1]},)", r,
                         f"np.dot contracts the last axis of {tuple(l)}")
    k = l[-1] or r[k_axis]       # the contracted length fills an unknown (0) one: deferred parameter shapes
    l = s[0] = tuple(l[:-1]) + (k,)
    r = s[1] = tuple(r[:k_axis]) + (k,) + tuple(r[k_axis + 1:])
    return [tuple(l[:-1]) + tuple(r[:-2]) + (tuple(r[-1:]) if len(r) > 1 else ())]


def _np_dot_grad(F, a, ins, outs, og):
    x, y = ins
    g = og[0]
    if x.ndim == 0 or y.ndim == 0:
        return [F._reduce_sum_like(F.broadcast_mul(g, y), x), F._reduce_sum_like(F.broadcast_mul(g, x), y)]
    if y.ndim <= 2:
        return list(dot_grads(F, x, y, g))
    perm = (y.ndim - 2,) + tuple(range(y.ndim - 2)) + (y.ndim - 1,)   # numpy's rows axis first: MXNet dot
    inv = tuple(perm.index(i) for i in range(y.ndim))
    dx, dyt = dot_grads(F, x, F.transpose(y, axes=perm), g)
    return [dx, F.transpose(dyt, axes=inv)]


register(OpDef(
    "_np_dot", family="linalg", np="dot", inputs=("a", "b"),
    compute=lambda ctx, a, x, y: ctx.xp.asarray(ctx.xp.dot(x, y)), infer_shape=_np_dot_infer,
    grad=_np_dot_grad,
    doc="NumPy dot: 0-d operands multiply; 1-d x 1-d is the inner product (a 0-d result); otherwise "
        "the sum product over the last axis of a and the second-to-last axis of b."))


# ---- linalg_gemm2 -------------------------------------------------------------------------------
def _gemm2_compute(ctx, a, x, y):
    xp = ctx.xp
    ax = normalize_axis(a["axis"], x.ndim)
    if ax != x.ndim - 2:
        x, y = xp.swapaxes(x, ax, -2), xp.swapaxes(y, ax, -2)
    x = xp.swapaxes(x, -1, -2) if a["transpose_a"] else x
    y = xp.swapaxes(y, -1, -2) if a["transpose_b"] else y
    out = xp.matmul(x, y) * x.dtype.type(a["alpha"])
    return xp.swapaxes(out, ax, -2) if ax != out.ndim - 2 else out


def _gemm2_infer(a, s):
    l, r = s
    if l is None or r is None:
        return [None]
    if len(l) < 2 or len(r) != len(l):
        raise InferError(1 if len(l) >= 2 else 0, f"arrays of equal rank >= 2 ({tuple(l)})", r if len(l) >= 2 else l)
    ax = normalize_axis(a["axis"], len(l))
    perm = list(range(len(l)))
    perm[ax], perm[-2] = perm[-2], perm[ax]
    lp, rp = tuple(l[i] for i in perm), tuple(r[i] for i in perm)
    out = _batch_dot_infer(a, [lp, rp])[0] if len(l) > 2 else None
    if len(l) == 2:
        m, lk = (lp[1], lp[0]) if a["transpose_a"] else lp
        rk, n = (rp[1], rp[0]) if a["transpose_b"] else rp
        if lk and rk and lk != rk:
            raise InferError(1, f"(n, {lk})" if a["transpose_b"] else f"({lk}, n)", r,
                             f"the contracted dimension of A {tuple(l)}")
        out = (m, n)
    return [tuple(out[i] for i in perm)]


def _gemm2_grad(F, a, ins, outs, og):
    def prod_op(x, y, transpose_a, transpose_b):
        return F._linalg_gemm2(x, y, transpose_a=transpose_a, transpose_b=transpose_b, alpha=a["alpha"],
                               axis=a["axis"])
    return list(_matmul_grads(prod_op, ins[0], ins[1], og[0], a["transpose_a"], a["transpose_b"]))


register(OpDef(
    "_linalg_gemm2", aliases=("linalg_gemm2",), family="linalg", inputs=("A", "B"),
    attrs={**_T_ATTRS, "alpha": Attr("float", 1.0, doc="Scalar factor of the product."),
           "axis": Attr("int", -2, doc="Axis of the matrix rows (columns are the last axis).")},
    compute=_gemm2_compute, infer_shape=_gemm2_infer, grad=_gemm2_grad,
    doc="alpha * op(A) @ op(B) for batches of matrices (equal leading dimensions); op transposes when "
        "transpose_a/transpose_b is set; rows along ``axis`` (default -2), columns along the last axis."))
