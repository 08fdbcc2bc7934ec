"""``mx.np.linalg`` decompositions and solvers as ops, batched over leading axes (``xp.linalg`` works on
NumPy and CuPy): inv, det, slogdet, solve, cholesky, eigh, eigvalsh, svd, qr; and ``_npi_tril``
(``np.tril``/``np.triu``), which their gradients use.

Gradients of inv, det, slogdet and solve are written with registered ops (so higher orders work);
cholesky, eigh, svd and qr have internal ``_backward_npi_*`` ops with the closed forms. Like NumPy's,
cholesky and eigh read one triangle of their input only (the lower one; eigh's ``UPLO`` chooses). The
gradient of eigh is zero on the other triangle; cholesky's is MXNet's symmetric one
(``0.5 L^-T copyLTU(L^T dL) L^-1``: the gradient with respect to a symmetric input).

Example::

    >>> import hybridlab as mx
    >>> a = mx.np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> round(float(mx.np.linalg.det(a)), 4)
    5.0
    >>> mx.np.linalg.solve(a, mx.np.array([3.0, 4.0])).tolist()
    [1.0, 1.0]
"""
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register


def _square(s, name, i=0):
    if s is None:
        return None
    if len(s) < 2 or (s[-1] and s[-2] and s[-1] != s[-2]):
        raise InferError(i, "(..., n, n): a stack of square matrices", s, f"{name} needs square matrices")
    return tuple(s)


def _matrix(s, name, i=0):
    if s is not None and len(s) < 2:
        raise InferError(i, "(..., m, n): at least 2 dimensions", s, f"{name} works on matrices")
    return s


def _same2(a, d):
    return [d[0], d[0]]


def _same3(a, d):
    return [d[0]] * 3


def _T(F, x):
    return F.SwapAxis(x, dim1=x.ndim - 2, dim2=x.ndim - 1)


def _xT(xp, x):
    return xp.swapaxes(x, -1, -2)


# ---- tril / triu -----------------------------------------------------------------------------
_TRI_ATTRS = {"k": Attr("int", 0, doc="Diagonal offset: 0 the main diagonal, > 0 above, < 0 below."),
              "lower": Attr("bool", True, doc="Keep the lower triangle (tril); False keeps the upper (triu).")}


def _tri_compute(ctx, a, x):
    xp = ctx.xp
    return xp.tril(x, a["k"]) if a["lower"] else xp.triu(x, a["k"])


def _tri_infer(a, s):
    return [_matrix(s[0], "tril/triu")]


register(OpDef("_npi_tril", family="shape", attrs=_TRI_ATTRS, compute=_tri_compute, infer_shape=_tri_infer,
               grad=lambda F, a, ins, outs, og: [F._npi_tril(og[0], k=a["k"], lower=a["lower"])],
               doc="Lower (``lower=True``, np.tril) or upper (np.triu) triangle of the last two axes, the "
                   "rest zeroed."))


# ---- inv, det, slogdet -------------------------------------------------------------------------
def _inv_grad(F, a, ins, outs, og):
    it = _T(F, outs[0])
    return [F.negative(F._np_matmul(F._np_matmul(it, og[0]), it))]


register(OpDef("_npi_inv", family="linalg", inputs=("A",), aliases=("_linalg_inverse", "linalg_inverse"),
               compute=lambda ctx, a, x: ctx.xp.linalg.inv(x),
               infer_shape=lambda a, s: [_square(s[0], "inv")], grad=_inv_grad,
               doc="Inverse of each square matrix of the last two axes."))


def _det_grad(F, a, ins, outs, og):
    scale = F.expand_dims(F.expand_dims(F.broadcast_mul(og[0], outs[0]), axis=-1), axis=-1)
    return [F.broadcast_mul(scale, _T(F, F._npi_inv(ins[0])))]


register(OpDef("_npi_det", family="linalg", inputs=("A",),
               compute=lambda ctx, a, x: ctx.xp.asarray(ctx.xp.linalg.det(x)),
               infer_shape=lambda a, s: [None if s[0] is None else _square(s[0], "det")[:-2]], grad=_det_grad,
               doc="Determinant of each square matrix of the last two axes."))


def _slogdet_compute(ctx, a, x):
    sign, logdet = ctx.xp.linalg.slogdet(x)
    return ctx.xp.asarray(sign), ctx.xp.asarray(logdet)


def _slogdet_grad(F, a, ins, outs, og):
    scale = F.expand_dims(F.expand_dims(og[1], axis=-1), axis=-1)
    return [F.broadcast_mul(scale, _T(F, F._npi_inv(ins[0])))]


register(OpDef("_npi_slogdet", family="linalg", inputs=("A",), num_outputs=2, output_names=("sign", "logabsdet"), infer_type=_same2,
               compute=_slogdet_compute,
               infer_shape=lambda a, s: [None, None] if s[0] is None else [_square(s[0], "slogdet")[:-2]] * 2,
               grad=_slogdet_grad,
               doc="Sign and log|det| of each square matrix of the last two axes (the sign has no gradient)."))


# ---- solve -----------------------------------------------------------------------------------------
def _solve_compute(ctx, a, A, b):
    xp = ctx.xp
    if b.ndim == A.ndim - 1:   # a stack of vectors (MXNet / NumPy 1.x rule)
        return xp.linalg.solve(A, b[..., None])[..., 0]
    return xp.linalg.solve(A, b)


def _solve_infer(a, s):
    A, b = s
    if A is None or b is None:
        return [None]
    _square(A, "solve")
    vector = len(b) == len(A) - 1
    if len(b) < 1 or (not vector and len(b) < 2):
        raise InferError(1, "(..., n) or (..., n, k)", b, "solve")
    n = b[-1] if vector else b[-2]
    if A[-1] and n and A[-1] != n:
        raise InferError(1, f"(..., {A[-1]}{'' if vector else ', k'})", b, f"solve with A of shape {tuple(A)}")
    batch = tuple(b[:-1] if vector else b[:-2])
    if tuple(A[:-2]) != batch:
        raise InferError(1, f"leading dimensions {tuple(A[:-2])} (those of A)", b, "solve")
    return [tuple(b)]


def _solve_grad(F, a, ins, outs, og):
    A, b = ins
    x = outs[0]
    gb = F._npi_solve(_T(F, A), og[0])
    if b.ndim == A.ndim - 1:
        gA = F.broadcast_mul(F.expand_dims(gb, axis=-1), F.expand_dims(x, axis=-2))
    else:
        gA = F._np_matmul(gb, _T(F, x))
    return [F.negative(gA), gb]


register(OpDef("_npi_solve", family="linalg", inputs=("A", "B"), compute=_solve_compute, infer_shape=_solve_infer,
               grad=_solve_grad,
               doc="Solve ``A x = B`` for each matrix of the stack; ``B`` is a stack of vectors when it has one "
                   "dimension fewer than ``A``."))


# ---- cholesky ------------------------------------------------------------------------------------
def _from_triangle(xp, g, lower=True):
    """The gradient for a function of the symmetric matrix built from one triangle of its input: the
    symmetric gradient ``g`` folded onto that triangle."""
    s = g + _xT(xp, g)
    diag = xp.diagonal(g, axis1=-2, axis2=-1)
    out = xp.tril(s) if lower else xp.triu(s)
    n = g.shape[-1]
    idx = xp.arange(n)
    out[..., idx, idx] = diag
    return out


def _cholesky_backward(ctx, a, og, L):
    xp = ctx.xp
    P = xp.tril(xp.matmul(_xT(xp, L), og))
    n = L.shape[-1]
    idx = xp.arange(n)
    P[..., idx, idx] *= 0.5
    Linv = xp.linalg.inv(L)
    S = xp.matmul(xp.matmul(_xT(xp, Linv), P), Linv)
    return 0.5 * (S + _xT(xp, S))       # MXNet's 0.5 L^-T copyLTU(L^T dL) L^-1: symmetric, not one triangle


register(OpDef("_npi_cholesky", family="linalg", inputs=("A",),
               compute=lambda ctx, a, x: ctx.xp.linalg.cholesky(x),
               infer_shape=lambda a, s: [_square(s[0], "cholesky")],
               grad=lambda F, a, ins, outs, og: [F._backward_npi_cholesky(og[0], outs[0])],
               doc="Lower Cholesky factor ``L`` (``A = L L^T``) of each symmetric positive-definite matrix "
                   "(its lower triangle is read)."))
register(OpDef("_backward_npi_cholesky", family="linalg", inputs=("ograd", "L"), hidden=True,
               compute=_cholesky_backward, infer_shape=lambda a, s: [s[1] or s[0]],
               no_grad_reason="second derivative of cholesky is not implemented",
               doc="Gradient of cholesky with respect to the symmetric A (MXNet's symmetric form)."))


# ---- eigh, eigvalsh -------------------------------------------------------------------------------
_UPLO = {"UPLO": Attr("enum", "L", choices=("L", "U"), doc="Which triangle of A is read.")}


def _eigh_compute(ctx, a, x):
    w, v = ctx.xp.linalg.eigh(x, UPLO=a["UPLO"])
    return w, v


def _eig_infer(a, s):
    if s[0] is None:
        return [None, None]
    s = _square(s[0], "eigh")
    return [s[:-1], s]


def _eigh_backward(ctx, a, gw, gv, w, v):
    xp = ctx.xp
    diff = w[..., None, :] - w[..., :, None]          # w_j - w_i
    n = w.shape[-1]
    eye = xp.eye(n, dtype=bool)
    F = xp.where(eye, 0, 1 / xp.where(eye, 1, diff))
    inner = F * xp.matmul(_xT(xp, v), gv)
    inner[..., xp.arange(n), xp.arange(n)] += gw
    g = xp.matmul(xp.matmul(v, inner), _xT(xp, v))
    return _from_triangle(xp, 0.5 * (g + _xT(xp, g)), lower=a["UPLO"] == "L").astype(gw.dtype, copy=False)


register(OpDef("_npi_eigh", family="linalg", inputs=("A",), attrs=_UPLO, num_outputs=2, infer_type=_same2,
               output_names=("w", "v"), compute=_eigh_compute, infer_shape=_eig_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_npi_eigh(og[0], og[1], outs[0], outs[1],
                                                                       UPLO=a["UPLO"])],
               doc="Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix."))
register(OpDef("_npi_eigvalsh", family="linalg", inputs=("A",), attrs=_UPLO,
               compute=lambda ctx, a, x: ctx.xp.linalg.eigvalsh(x, UPLO=a["UPLO"]),
               infer_shape=lambda a, s: _eig_infer(a, s)[:1],
               grad=lambda F, a, ins, outs, og: [F._backward_npi_eigh(
                   og[0], F.zeros_like(ins[0]), outs[0], F._npi_eigh(ins[0], UPLO=a["UPLO"])[1], UPLO=a["UPLO"])],
               doc="Eigenvalues (ascending) of each symmetric matrix."))
register(OpDef("_backward_npi_eigh", family="linalg", inputs=("gw", "gv", "w", "v"), attrs=_UPLO, hidden=True,
               compute=_eigh_backward, infer_shape=lambda a, s: [s[3] or s[1]],
               no_grad_reason="second derivative of eigh is not implemented",
               doc="Gradient of eigh with respect to the triangle of A it reads."))


# ---- svd ---------------------------------------------------------------------------------------
def _svd_compute(ctx, a, x):
    u, s, vh = ctx.xp.linalg.svd(x, full_matrices=False)
    return u, s, vh


def _svd_infer(a, s):
    s = _matrix(s[0], "svd")
    if s is None:
        return [None] * 3
    m, n = s[-2], s[-1]
    k = min(m, n)
    b = tuple(s[:-2])
    return [b + (m, k), b + (k,), b + (k, n)]


def _svd_backward(ctx, a, gu, gs, gv, u, s, v):
    """A = u diag(s) v (v holds the right singular vectors as rows)."""
    xp = ctx.xp
    k = s.shape[-1]
    eye = xp.eye(k, dtype=bool)
    s2 = s * s
    diff = s2[..., None, :] - s2[..., :, None]          # s_j^2 - s_i^2
    F = xp.where(eye, 0, 1 / xp.where(eye, 1, diff))
    ut, vt = _xT(xp, u), _xT(xp, v)
    gvt = _xT(xp, gv)                                   # gradient for V = v^T
    J = F * (xp.matmul(ut, gu) - xp.matmul(_xT(xp, gu), u))
    K = F * (xp.matmul(v, gvt) - xp.matmul(gv, vt))
    inner = J * s[..., None, :] + s[..., :, None] * K
    inner[..., xp.arange(k), xp.arange(k)] += gs
    g = xp.matmul(xp.matmul(u, inner), v)
    sinv = 1 / s
    m, n = u.shape[-2], v.shape[-1]
    if m > k:   # tall: the part of gu outside the column space of u
        proj = gu - xp.matmul(u, xp.matmul(ut, gu))
        g = g + xp.matmul(proj * sinv[..., None, :], v)
    if n > k:   # wide: the part of gv outside the row space of v
        proj = gv - xp.matmul(xp.matmul(gv, vt), v)
        g = g + xp.matmul(u * sinv[..., None, :], proj)
    return g.astype(gs.dtype, copy=False)


register(OpDef("_npi_svd", family="linalg", inputs=("A",), num_outputs=3, output_names=("ut", "l", "v"), infer_type=_same3,
               compute=_svd_compute, infer_shape=_svd_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_npi_svd(*og, *outs)],
               doc="Reduced SVD ``A = ut @ diag(l) @ v`` of each matrix (singular values descending); the "
                   "gradient needs distinct non-zero singular values."))
register(OpDef("_backward_npi_svd", family="linalg", inputs=("gut", "gl", "gv", "ut", "l", "v"), hidden=True,
               compute=_svd_backward,
               infer_shape=lambda a, s: [None if s[3] is None or s[5] is None else tuple(s[3][:-1]) + (s[5][-1],)],
               no_grad_reason="second derivative of svd is not implemented",
               doc="Gradient of svd with respect to A."))


# ---- qr ------------------------------------------------------------------------------------------
def _qr_infer(a, s):
    s = _matrix(s[0], "qr")
    if s is None:
        return [None, None]
    m, n = s[-2], s[-1]
    k = min(m, n)
    return [tuple(s[:-2]) + (m, k), tuple(s[:-2]) + (k, n)]


def _qr_compute(ctx, a, x):
    q, r = ctx.xp.linalg.qr(x) if x.ndim == 2 else _batched(ctx.xp, ctx.xp.linalg.qr, x, 2)
    return q, r


def _batched(xp, fn, x, n_out):
    """Apply a 2-d-only routine over the leading axes (CuPy's qr is 2-d only)."""
    flat = x.reshape((-1,) + x.shape[-2:])
    outs = [fn(m) for m in flat]
    return tuple(xp.stack([o[i] for o in outs]).reshape(x.shape[:-2] + outs[0][i].shape) for i in range(n_out))


def _qr_backward(ctx, a, gq, gr, q, r):
    xp = ctx.xp
    m, n = q.shape[-2], r.shape[-1]
    if m < n:
        raise ValueError(f"qr gradient: expected a matrix with rows >= columns, got {m}x{n}")
    M = xp.matmul(r, _xT(xp, gr)) - xp.matmul(_xT(xp, gq), q)
    M = xp.tril(M) + _xT(xp, xp.tril(M, -1))
    b = gq + xp.matmul(q, M)
    # solve X r^T = b for X, i.e. r X^T = b^T
    return _xT(xp, xp.linalg.solve(r, _xT(xp, b))).astype(gq.dtype, copy=False)


register(OpDef("_npi_qr", family="linalg", inputs=("A",), num_outputs=2, output_names=("q", "r"), infer_type=_same2,
               compute=_qr_compute, infer_shape=_qr_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_npi_qr(*og, *outs)],
               doc="Reduced QR decomposition of each matrix (gradient for rows >= columns)."))
register(OpDef("_backward_npi_qr", family="linalg", inputs=("gq", "gr", "q", "r"), hidden=True,
               compute=_qr_backward,
               infer_shape=lambda a, s: [None if s[2] is None or s[3] is None else tuple(s[2][:-1]) + (s[3][-1],)],
               no_grad_reason="second derivative of qr is not implemented",
               doc="Gradient of qr with respect to A."))
