"""MXNet's ``linalg`` operators (``mx.nd.linalg.*``, ``mx.sym.linalg.*``: BLAS and LAPACK-style,
batched over the leading axes of the last two): gemm, syrk, trmm, trsm, potrf, sumlogdiag,
extractdiag, makediag; ``gemm2`` is in ``ops/linalg.py``, ``inverse`` is an alias of
``mx.np.linalg.inv`` (``ops/np_linalg.py``). Triangular ops read one triangle of ``A`` only
(``lower``), so their gradient is zero on the other one. Gradients are written with registered ops.

Example::

    >>> import hybridlab as mx
    >>> a = mx.nd.array([[4.0, 2.0], [2.0, 3.0]])
    >>> l = mx.nd.linalg.potrf(a)
    >>> mx.nd.linalg.gemm2(l, l, transpose_b=True).asnumpy().tolist()
    [[4.0, 2.0], [2.0, 3.0]]
    >>> round(float(mx.nd.linalg.sumlogdiag(l).asscalar()), 4)   # log det(a) / 2
    1.0397
"""
from .attrs import Attr
from .infer import InferError, normalize_axis
from .linalg import _gemm2_grad, _gemm2_infer
from .np_linalg import _T, _square, _xT
from .registry import OpDef, register

__all__ = []


def _mT(xp, x, on):
    return _xT(xp, x) if on else x


def _tri(xp, x, lower):
    return xp.tril(x) if lower else xp.triu(x)


def _F_tri(F, x, lower):
    return F._npi_tril(x, k=0, lower=lower)


# ---- gemm: alpha * op(A) op(B) + beta * C ----------------------------------------------------------
def _gemm_compute(ctx, a, A, B, C):
    xp = ctx.xp
    ax = normalize_axis(a["axis"], A.ndim)
    A, B, C = (xp.moveaxis(x, ax, -2) for x in (A, B, C))
    out = a["alpha"] * xp.matmul(_mT(xp, A, a["transpose_a"]), _mT(xp, B, a["transpose_b"])) + a["beta"] * C
    return xp.moveaxis(out, -2, ax).astype(A.dtype, copy=False)


def _gemm_infer(a, s):
    out = _gemm2_infer(a, s[:2])
    if out[0] is not None and s[2] is not None and tuple(s[2]) != tuple(out[0]):
        raise InferError(2, tuple(out[0]), tuple(s[2]), "C has the shape of op(A) op(B)")
    if out[0] is not None and s[2] is None:
        s[2] = tuple(out[0])
    return out


def _gemm_grad(F, a, ins, outs, og):
    ga, gb = _gemm2_grad(F, a, ins[:2], outs, og)
    return [ga, gb, og[0] * a["beta"]]


_GEMM_ATTRS = {"transpose_a": Attr("bool", False), "transpose_b": Attr("bool", False),
               "alpha": Attr("float", 1.0, doc="Factor of the product."),
               "beta": Attr("float", 1.0, doc="Factor of C."),
               "axis": Attr("int", -2, doc="Axis of the matrix rows (columns are the last axis).")}

register(OpDef(
    "_linalg_gemm", aliases=("linalg_gemm",), family="linalg", inputs=("A", "B", "C"), attrs=_GEMM_ATTRS,
    compute=_gemm_compute, infer_shape=_gemm_infer, grad=_gemm_grad,
    doc="alpha * op(A) @ op(B) + beta * C for batches of matrices (op transposes with transpose_a/b)."))


# ---- syrk: alpha * A A^T (or A^T A) ---------------------------------------------------------------
def _syrk_compute(ctx, a, A):
    xp = ctx.xp
    At = _xT(xp, A)
    return (a["alpha"] * (xp.matmul(At, A) if a["transpose"] else xp.matmul(A, At))).astype(A.dtype, copy=False)


def _syrk_infer(a, s):
    x = s[0]
    if x is None:
        return [None]
    if len(x) < 2:
        raise InferError(0, "(..., m, n): a stack of matrices", x)
    n = x[-1] if a["transpose"] else x[-2]
    return [tuple(x[:-2]) + (n, n)]


def _syrk_grad(F, a, ins, outs, og):
    sym = og[0] + _T(F, og[0])
    if a["transpose"]:      # d(A^T A) = A (g + g^T)
        return [F._linalg_gemm2(ins[0], sym, alpha=a["alpha"])]
    return [F._linalg_gemm2(sym, ins[0], alpha=a["alpha"])]


register(OpDef(
    "_linalg_syrk", aliases=("linalg_syrk",), family="linalg", inputs=("A",),
    attrs={"transpose": Attr("bool", False, doc="A^T A instead of A A^T."), "alpha": Attr("float", 1.0)},
    compute=_syrk_compute, infer_shape=_syrk_infer, grad=_syrk_grad,
    doc="alpha * A @ A^T (transpose: alpha * A^T @ A) for batches of matrices."))


# ---- trmm / trsm: triangular products and solves ----------------------------------------------------
_TRI_ATTRS = {"transpose": Attr("bool", False, doc="Use the transpose of the triangular A."),
              "rightside": Attr("bool", False, doc="B op(A) instead of op(A) B."),
              "lower": Attr("bool", True, doc="A is lower triangular (else upper)."),
              "alpha": Attr("float", 1.0)}


def _tri_shape(a, s, name):
    A, B = s
    if A is None or B is None:
        return [B]
    _square(A, name)
    n = B[-1] if a["rightside"] else B[-2]
    if len(B) != len(A) or (n and A[-1] and n != A[-1]):
        raise InferError(1, f"a stack of matrices with {'columns' if a['rightside'] else 'rows'} = {A[-1]}", B,
                         f"the size of the triangular A {tuple(A)}")
    return [tuple(B)]


def _trmm_compute(ctx, a, A, B):
    xp = ctx.xp
    T = _mT(xp, _tri(xp, A, a["lower"]), a["transpose"])
    return (a["alpha"] * (xp.matmul(B, T) if a["rightside"] else xp.matmul(T, B))).astype(B.dtype, copy=False)


def _trmm_grad(F, a, ins, outs, og):
    A, B, g, alpha, t = ins[0], ins[1], og[0], a["alpha"], a["transpose"]
    T = _F_tri(F, A, a["lower"])
    if a["rightside"]:       # Y = alpha B op(T): dB = alpha g op(T)^T, d op(T) = alpha B^T g
        dB = F._linalg_gemm2(g, T, transpose_b=not t, alpha=alpha)
        dop = F._linalg_gemm2(B, g, transpose_a=True, alpha=alpha)
    else:                    # Y = alpha op(T) B: dB = alpha op(T)^T g, d op(T) = alpha g B^T
        dB = F._linalg_gemm2(T, g, transpose_a=not t, alpha=alpha)
        dop = F._linalg_gemm2(g, B, transpose_b=True, alpha=alpha)
    return [_F_tri(F, _T(F, dop) if t else dop, a["lower"]), dB]


register(OpDef(
    "_linalg_trmm", aliases=("linalg_trmm",), family="linalg", inputs=("A", "B"), attrs=dict(_TRI_ATTRS),
    compute=_trmm_compute, infer_shape=lambda a, s: _tri_shape(a, s, "trmm"), grad=_trmm_grad,
    doc="alpha * op(A) @ B (rightside: alpha * B @ op(A)) with A triangular (its lower triangle when lower)."))


def _trsm_compute(ctx, a, A, B):
    xp = ctx.xp
    T = _mT(xp, _tri(xp, A, a["lower"]), a["transpose"])
    if a["rightside"]:       # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
        out = _xT(xp, xp.linalg.solve(_xT(xp, T), _xT(xp, B)))
    else:
        out = xp.linalg.solve(T, B)
    return (a["alpha"] * out).astype(B.dtype, copy=False)


def _trsm_grad(F, a, ins, outs, og):
    A, Y, g, t = ins[0], outs[0], og[0], a["transpose"]
    kw = dict(rightside=a["rightside"], lower=a["lower"])
    if a["rightside"]:       # Y = alpha B op(A)^-1: dB = alpha g op(A)^-T, d op(A) = -Y^T g op(A)^-T
        h = F._linalg_trsm(A, g, transpose=not t, alpha=1.0, **kw)
        dop = F.negative(F._linalg_gemm2(Y, h, transpose_a=True))
    else:                    # Y = alpha op(A)^-1 B: dB = alpha op(A)^-T g, d op(A) = -op(A)^-T g Y^T
        h = F._linalg_trsm(A, g, transpose=not t, alpha=1.0, **kw)
        dop = F.negative(F._linalg_gemm2(h, Y, transpose_b=True))
    return [_F_tri(F, _T(F, dop) if t else dop, a["lower"]), h * a["alpha"]]


register(OpDef(
    "_linalg_trsm", aliases=("linalg_trsm",), family="linalg", inputs=("A", "B"), attrs=dict(_TRI_ATTRS),
    compute=_trsm_compute, infer_shape=lambda a, s: _tri_shape(a, s, "trsm"), grad=_trsm_grad,
    doc="Solve op(A) X = alpha * B (rightside: X op(A) = alpha * B) with A triangular."))


# ---- potrf: Cholesky factor ----------------------------------------------------------------------
def _potrf_compute(ctx, a, A):
    L = ctx.xp.linalg.cholesky(A)
    return L if a["lower"] else _xT(ctx.xp, L)


def _potrf_grad(F, a, ins, outs, og):
    L, g = (outs[0], og[0]) if a["lower"] else (_T(F, outs[0]), _T(F, og[0]))
    return [F._backward_npi_cholesky(g, L)]


register(OpDef(
    "_linalg_potrf", aliases=("linalg_potrf",), family="linalg", inputs=("A",),
    attrs={"lower": Attr("bool", True, doc="Return L (A = L L^T); else U (A = U^T U).")},
    compute=_potrf_compute, infer_shape=lambda a, s: [_square(s[0], "potrf")], grad=_potrf_grad,
    doc="Cholesky factor of each symmetric positive-definite matrix (its lower triangle is read)."))


# ---- diagonals ----------------------------------------------------------------------------------
_OFFSET = {"offset": Attr("int", 0, doc="Diagonal above (> 0) or below (< 0) the main one.")}


def _extractdiag_infer(a, s):
    x = _square(s[0], "extractdiag")
    if x is None:
        return [None]
    k = a["offset"]
    n = x[-1] - abs(k)
    if n <= 0:
        raise InferError(0, f"matrices with a diagonal at offset {k}", x)
    return [tuple(x[:-2]) + (n,)]


register(OpDef(
    "_linalg_extractdiag", aliases=("linalg_extractdiag",), family="linalg", inputs=("A",), attrs=dict(_OFFSET),
    compute=lambda ctx, a, A: ctx.xp.diagonal(A, offset=a["offset"], axis1=-2, axis2=-1).copy(),
    infer_shape=_extractdiag_infer,
    grad=lambda F, a, ins, outs, og: [F._linalg_makediag(og[0], offset=a["offset"])],
    doc="The diagonal at ``offset`` of each matrix of the last two axes."))


def _makediag_compute(ctx, a, d):
    xp, k = ctx.xp, a["offset"]
    n = d.shape[-1] + abs(k)
    out = xp.zeros(d.shape[:-1] + (n, n), dtype=d.dtype)
    rows = xp.arange(d.shape[-1]) + max(-k, 0)
    out[..., rows, rows + k] = d
    return out


def _makediag_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) < 1:
        raise InferError(0, "(..., n): a stack of vectors", d)
    n = d[-1] + abs(a["offset"])
    return [tuple(d[:-1]) + (n, n)]


register(OpDef(
    "_linalg_makediag", aliases=("linalg_makediag",), family="linalg", inputs=("A",), attrs=dict(_OFFSET),
    compute=_makediag_compute, infer_shape=_makediag_infer,
    grad=lambda F, a, ins, outs, og: [F._linalg_extractdiag(og[0], offset=a["offset"])],
    doc="Square matrices with the vectors of the last axis on the diagonal at ``offset`` (zeros elsewhere)."))


def _per_matrix(s, name):
    """The shape of one value per square matrix: the leading axes, or (1,) for a single matrix (MXNet)."""
    x = _square(s, name)
    return None if x is None else (tuple(x[:-2]) or (1,))


def _sumlogdiag_compute(ctx, a, A):
    out = ctx.xp.log(ctx.xp.diagonal(A, axis1=-2, axis2=-1)).sum(axis=-1).astype(A.dtype)
    return out.reshape(_per_matrix(A.shape, "sumlogdiag"))


def _sumlogdiag_grad(F, a, ins, outs, og):
    diag = F._linalg_extractdiag(ins[0])
    per_entry = F.broadcast_div(F.expand_dims(og[0], axis=-1), diag)
    return [F._linalg_makediag(F.reshape_like(per_entry, diag))]      # a single matrix's (1, n) is (n,)


register(OpDef(
    "_linalg_sumlogdiag", aliases=("linalg_sumlogdiag",), family="linalg", inputs=("A",),
    compute=_sumlogdiag_compute, infer_shape=lambda a, s: [_per_matrix(s[0], "sumlogdiag")],
    grad=_sumlogdiag_grad,
    doc="Sum of the logarithms of the diagonal of each square matrix (log det of a triangular factor)."))
