"""MXNet's LAPACK-style ``linalg`` operators (``mx.nd.linalg.*``, ``mx.sym.linalg.*``, batched over the
leading axes of the last two): potri, gelqf, syevd, extracttrian, maketrian, det, slogdet. The
BLAS-style ones are in ``ops/linalg_blas.py``.

* ``potri(A)``: the inverse ``(L L^T)^-1`` of a matrix from its Cholesky factor ``L`` (the output of
  ``potrf``; ``lower=False``: ``(U^T U)^-1`` from ``U``); like LAPACK, one triangle of ``A`` is read.
* ``gelqf(A)``: the LQ factorization ``A = L Q`` of matrices with rows <= columns; outputs ``Q`` (rows
  orthonormal) and ``L`` (lower triangular), with LAPACK's signs (those of the QR factorization of
  ``A^T``, which it is: ``Q = q^T``, ``L = r^T``; the same routine as ``mx.np.linalg.qr``).
* ``syevd(A)``: the eigendecomposition of symmetric matrices (their lower triangle is read), float32
  and float64 only: ``U`` with the eigenvectors as ROWS (``U A = diag(L) U``, ``U U^T = I``) and the
  eigenvalues ``L`` in ascending order. As in MXNet each row's sign makes its entry of largest
  magnitude positive (the first one on a tie). The gradient (MXNet's) assumes distinct eigenvalues:
  ``dA = U^T (sym((dU U^T) / (2 (L_i - L_j))) + diag(dL)) U``, the gaps floored at 1e-30 (1e-100 in
  float64); it is symmetric, the derivative along symmetric perturbations of ``A``.
* ``extracttrian(A)`` / ``maketrian(v)``: a triangle of square matrices as vectors and back. The lower
  triangle (``offset < 0``, or ``offset == 0`` and ``lower``) is stored row by row, the upper one column
  by column (MXNet's order: the upper triangle of ``A`` is the lower one of ``A^T``).
* ``det`` / ``slogdet``: the determinant, and its sign and log of the absolute value. They are
  ``mx.np.linalg.det`` / ``slogdet`` (``ops/np_linalg.py``: the same computation and gradient) with
  MXNet 1.x's output shape: one value per matrix of the leading axes, ``(1,)`` for a single matrix
  (where NumPy gives a scalar), so they are ops of their own.

Gradients are written with registered ops.

Example::

    >>> import hybridlab as mx
    >>> a = mx.nd.array([[4.0, 2.0], [2.0, 3.0]])
    >>> mx.nd.linalg.potri(mx.nd.linalg.potrf(a)).asnumpy().round(4).tolist()   # inverse of a
    [[0.375, -0.25], [-0.25, 0.5]]
    >>> q, l = mx.nd.linalg.gelqf(mx.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    >>> l.asnumpy().astype("float64").round(4).tolist(), q.shape
    ([[-3.7417, 0.0], [-8.5524, 1.964]], (2, 3))
    >>> u, l = mx.nd.linalg.syevd(mx.nd.array([[1.0, 2.0], [2.0, 4.0]]))
    >>> u.asnumpy().astype("float64").round(4).tolist(), l.asnumpy().astype("float64").round(4).tolist()
    ([[0.8944, -0.4472], [0.4472, 0.8944]], [0.0, 5.0])
    >>> mx.nd.linalg.extracttrian(a).asnumpy().tolist(), mx.nd.linalg.det(a).asnumpy().tolist()
    ([4.0, 2.0, 3.0], [8.0])
    >>> mx.nd.linalg.maketrian(mx.nd.array([1.0, 2.0, 3.0]), offset=1).asnumpy().tolist()
    [[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .linalg_blas import _per_matrix
from .np_linalg import _T, _det_grad, _matrix, _qr_compute, _same2, _slogdet_compute, _slogdet_grad, _square, _xT
from .registry import OpDef, register

__all__ = []


def _F_tri(F, x, lower, k=0):
    return F._npi_tril(x, k=k, lower=lower)


# ---- potri: inverse from the Cholesky factor -------------------------------------------------------
def _potri_compute(ctx, a, A):
    xp = ctx.xp
    T = xp.tril(A) if a["lower"] else xp.triu(A)
    Tinv = xp.linalg.inv(T)
    # lower: (L L^T)^-1 = L^-T L^-1; upper: (U^T U)^-1 = U^-1 U^-T
    out = xp.matmul(_xT(xp, Tinv), Tinv) if a["lower"] else xp.matmul(Tinv, _xT(xp, Tinv))
    return out.astype(A.dtype, copy=False)


def _potri_grad(F, a, ins, outs, og):
    # Y = (L L^T)^-1: dL = -tril(Y (g + g^T) Y L); Y = (U^T U)^-1: dU = -triu(U Y (g + g^T) Y)
    T, Y, g = _F_tri(F, ins[0], a["lower"]), outs[0], og[0]
    P = F._linalg_gemm2(Y, F._linalg_gemm2(g + _T(F, g), Y))
    prod = F._linalg_gemm2(P, T) if a["lower"] else F._linalg_gemm2(T, P)
    return [F.negative(_F_tri(F, prod, a["lower"]))]


register(OpDef(
    "_linalg_potri", aliases=("linalg_potri",), family="linalg", inputs=("A",),
    attrs={"lower": Attr("bool", True, doc="A is the lower factor L (A = L L^T); else the upper U (U^T U).")},
    compute=_potri_compute, infer_shape=lambda a, s: [_square(s[0], "potri")], grad=_potri_grad,
    doc="Inverse of the matrix whose Cholesky factor each matrix is (its lower triangle is read; upper "
        "when lower=False): the inverse of A from potrf(A)."))


# ---- gelqf: LQ factorization ---------------------------------------------------------------------
def _gelqf_compute(ctx, a, A):
    xp = ctx.xp
    q, r = _qr_compute(ctx, {}, _xT(xp, A))     # A^T = q r  <=>  A = r^T q^T
    return _xT(xp, q).astype(A.dtype, copy=False), _xT(xp, r).astype(A.dtype, copy=False)


def _gelqf_infer(a, s):
    x = _matrix(s[0], "gelqf")
    if x is None:
        return [None, None]
    m, n = x[-2], x[-1]
    if m and n and m > n:
        raise InferError(0, "(..., m, n) with m <= n (rows <= columns)", tuple(x), "gelqf")
    return [tuple(x), tuple(x[:-1]) + (m,)]


def _gelqf_grad(F, a, ins, outs, og):
    # A = L Q: M = L^T gL - gQ Q^T; dA = L^-T (gQ + copyltu(M) Q), copyltu(M) the symmetric matrix
    # with M's lower triangle
    Q, L = outs
    gQ, gL = og
    M = F._linalg_gemm2(L, gL, transpose_a=True) - F._linalg_gemm2(gQ, Q, transpose_b=True)
    sym = _F_tri(F, M, True) + _T(F, _F_tri(F, M, True, k=-1))
    return [F._linalg_trsm(L, gQ + F._linalg_gemm2(sym, Q), transpose=True, lower=True)]


register(OpDef(
    "_linalg_gelqf", aliases=("linalg_gelqf",), family="linalg", inputs=("A",), num_outputs=2,
    infer_type=_same2, compute=_gelqf_compute, infer_shape=_gelqf_infer, grad=_gelqf_grad,
    doc="LQ factorization A = L Q of each matrix with rows <= columns (full rank): outputs Q (orthonormal "
        "rows, the shape of A) and L (lower triangular, rows x rows)."))


# ---- syevd: symmetric eigendecomposition ----------------------------------------------------------
def _syevd_compute(ctx, a, A):
    xp = ctx.xp
    if A.dtype not in (np.float32, np.float64):
        raise MXNetError(f"_linalg_syevd: A expected dtype float32 or float64, got {A.dtype.name}")
    L, V = xp.linalg.eigh(A, UPLO="L")           # ascending; eigenvectors as columns
    U = _xT(xp, V)
    largest = xp.take_along_axis(U, xp.argmax(xp.abs(U), axis=-1)[..., None], axis=-1)
    U = xp.where(largest < 0, -U, U)
    return xp.ascontiguousarray(U).astype(A.dtype, copy=False), L.astype(A.dtype, copy=False)


def _syevd_infer(a, s):
    x = _square(s[0], "syevd")
    return [None, None] if x is None else [tuple(x), tuple(x[:-1])]


def _syevd_grad(F, a, ins, outs, og):
    # dA = U^T Y U with Y = (X - X^T) * G + diag(dL), X = dU U^T, G_ij = 1 / (2 (L_i - L_j)) below the
    # diagonal (gaps floored at eps) and -G_ji above it
    U, L = outs
    gU, gL = og
    eps = 1e-100 if ins[0].dtype == np.float64 else 1e-30
    X = F._linalg_gemm2(gU, U, transpose_b=True)
    gaps = F.broadcast_sub(F.expand_dims(L, axis=-1), F.expand_dims(L, axis=-2))
    below = _F_tri(F, F._rdiv_scalar(F._maximum_scalar(gaps, scalar=eps), scalar=0.5), True, k=-1)
    Y = (X - _T(F, X)) * (below - _T(F, below)) + F._linalg_makediag(gL)
    return [F._linalg_gemm2(U, F._linalg_gemm2(Y, U), transpose_a=True)]


register(OpDef(
    "_linalg_syevd", aliases=("linalg_syevd",), family="linalg", inputs=("A",), num_outputs=2,
    infer_type=_same2, compute=_syevd_compute, infer_shape=_syevd_infer, grad=_syevd_grad,
    doc="Eigendecomposition of each symmetric matrix (float32/float64; the lower triangle is read): U "
        "(eigenvectors as rows, each with its largest-magnitude entry positive) and L (eigenvalues, "
        "ascending), U A = diag(L) U."))


# ---- extracttrian / maketrian ----------------------------------------------------------------------
_TRIAN_ATTRS = {"offset": Attr("int", 0, doc="Diagonal that bounds the triangle: 0 the main one, < 0 below, "
                                              "> 0 above."),
                "lower": Attr("bool", True, doc="The lower triangle (else the upper); for offset 0 only.")}


def _trian_index(xp, n, a):
    """Row and column indices of the triangle of an ``n x n`` matrix, in MXNet's storage order."""
    k = a["offset"]
    r, c = xp.tril_indices(n - abs(k))         # row by row
    if k < 0 or (k == 0 and a["lower"]):
        return r + abs(k), c
    return c, r + k                           # upper: the lower triangle of A^T


def _extracttrian_infer(a, s):
    x = _square(s[0], "extracttrian")
    if x is None or not x[-1]:
        return [None]
    m = x[-1] - abs(a["offset"])
    if m <= 0:
        raise InferError(0, f"square matrices larger than |offset| = {abs(a['offset'])}", x, "extracttrian")
    return [tuple(x[:-2]) + (m * (m + 1) // 2,)]


def _extracttrian_compute(ctx, a, A):
    rows, cols = _trian_index(ctx.xp, A.shape[-1], a)
    return A[..., rows, cols]


register(OpDef(
    "_linalg_extracttrian", aliases=("linalg_extracttrian",), family="linalg", inputs=("A",),
    attrs=dict(_TRIAN_ATTRS), compute=_extracttrian_compute, infer_shape=_extracttrian_infer,
    grad=lambda F, a, ins, outs, og: [F._linalg_maketrian(og[0], offset=a["offset"], lower=a["lower"])],
    doc="The triangle of each square matrix as a vector: the lower one row by row, the upper one column "
        "by column, bounded by the diagonal at ``offset``."))


def _maketrian_size(a, v):
    """The size of the square matrices built from triangles of ``v`` entries (None when unknown)."""
    if not v:
        return None
    m = int((8 * v + 1) ** 0.5 + 0.5) // 2
    while m * (m + 1) // 2 > v:
        m -= 1
    if m * (m + 1) // 2 != v:
        raise InferError(0, "(..., m * (m + 1) / 2): vectors holding a triangle", (v,), "maketrian")
    return m + abs(a["offset"])


def _maketrian_infer(a, s):
    x = s[0]
    if x is None:
        return [None]
    if len(x) < 1:
        raise InferError(0, "(..., m * (m + 1) / 2): a stack of vectors", x, "maketrian")
    n = _maketrian_size(a, x[-1])
    return [None if n is None else tuple(x[:-1]) + (n, n)]


def _maketrian_compute(ctx, a, v):
    xp = ctx.xp
    n = _maketrian_size(a, v.shape[-1])
    out = xp.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    rows, cols = _trian_index(xp, n, a)
    out[..., rows, cols] = v
    return out


register(OpDef(
    "_linalg_maketrian", aliases=("linalg_maketrian",), family="linalg", inputs=("A",),
    attrs=dict(_TRIAN_ATTRS), compute=_maketrian_compute, infer_shape=_maketrian_infer,
    grad=lambda F, a, ins, outs, og: [F._linalg_extracttrian(og[0], offset=a["offset"], lower=a["lower"])],
    doc="Square matrices with the vectors of the last axis as a triangle (extracttrian's order), zeros "
        "elsewhere."))


# ---- det / slogdet: np.linalg's with one value per matrix, (1,) for a single one ---------------------
def _det_compute(ctx, a, A):
    return ctx.xp.asarray(ctx.xp.linalg.det(A)).reshape(_per_matrix(A.shape, "det"))


register(OpDef(
    "_linalg_det", aliases=("linalg_det",), family="linalg", inputs=("A",),
    compute=_det_compute, infer_shape=lambda a, s: [_per_matrix(s[0], "det")],
    grad=lambda F, a, ins, outs, og: [F.reshape_like(_det_grad(F, a, ins, outs, og), ins[0])],
    doc="Determinant of each square matrix (np.linalg.det; shape (1,) for a single matrix)."))


def _linalg_slogdet_compute(ctx, a, A):
    shape = _per_matrix(A.shape, "slogdet")
    return tuple(x.reshape(shape) for x in _slogdet_compute(ctx, a, A))


register(OpDef(
    "_linalg_slogdet", aliases=("linalg_slogdet",), family="linalg", inputs=("A",), num_outputs=2,
    infer_type=_same2, compute=_linalg_slogdet_compute,
    infer_shape=lambda a, s: [_per_matrix(s[0], "slogdet")] * 2,
    grad=lambda F, a, ins, outs, og: [F.reshape_like(_slogdet_grad(F, a, ins, outs, og), ins[0])],
    doc="Sign and log|det| of each square matrix (np.linalg.slogdet; shape (1,) each for a single matrix; "
        "the sign has no gradient)."))
