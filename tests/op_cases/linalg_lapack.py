"""Op-checker cases for MXNet's LAPACK-style linalg operators (ops/linalg_lapack.py): potri (lower and
upper factors), gelqf (batched, and a square matrix), syevd (its gradient along symmetric
perturbations, by central differences of an eigensolver reference), extracttrian / maketrian at
offsets and for both triangles, det and slogdet (a single matrix: shape (1,); batches); references in
plain NumPy, float64."""
import numpy as np

from op_checker import Case
from op_cases.linalg_blas import positive_diagonal
from op_cases.np_linalg import well_conditioned

f64 = np.float64


def ref_potri(A, lower=True, **_):
    T = np.tril(A) if lower else np.triu(A)
    T = T.astype(f64)
    M = T @ np.swapaxes(T, -1, -2) if lower else np.swapaxes(T, -1, -2) @ T
    return np.linalg.inv(M)


def ref_gelqf(A, **_):
    """A = L Q from the Householder QR of A^T (LAPACK's signs: those of numpy.linalg.qr)."""
    A = A.astype(f64)
    flat = A.reshape((-1,) + A.shape[-2:])
    qs, ls = [], []
    for m in flat:
        q, r = np.linalg.qr(m.T)
        qs.append(q.T)
        ls.append(r.T)
    return (np.stack(qs).reshape(A.shape), np.stack(ls).reshape(A.shape[:-1] + (A.shape[-2],)))


def _index(n, offset, lower):
    """(row, column) pairs of the triangle, in MXNet's order: lower row by row, upper column by column."""
    k = abs(offset)
    pairs = [(r, c) for r in range(n - k) for c in range(r + 1)]
    if offset < 0 or (offset == 0 and lower):
        return [(r + k, c) for r, c in pairs]
    return [(c, r + k) for r, c in pairs]


def ref_extracttrian(A, offset=0, lower=True, **_):
    return np.stack([A[..., r, c] for r, c in _index(A.shape[-1], offset, lower)], axis=-1).astype(f64)


def ref_maketrian(v, offset=0, lower=True, **_):
    m = int(round((np.sqrt(8 * v.shape[-1] + 1) - 1) / 2))
    n = m + abs(offset)
    out = np.zeros(v.shape[:-1] + (n, n))
    for i, (r, c) in enumerate(_index(n, offset, lower)):
        out[..., r, c] = v[..., i]
    return out


def ref_syevd(A, **_):
    """Eigenvectors as rows (largest-magnitude entry positive) and ascending eigenvalues of the
    symmetric matrices whose lower triangle A holds, from NumPy's general eigensolver."""
    A = A.astype(f64)
    us, ls = [], []
    for m in A.reshape((-1,) + A.shape[-2:]):
        w, v = np.linalg.eig(np.tril(m) + np.tril(m, -1).T)
        order = np.argsort(w.real)
        u = v.real[:, order].T
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        u *= np.where(u[np.arange(len(u)), np.abs(u).argmax(axis=1)] < 0, -1.0, 1.0)[:, None]
        us.append(u)
        ls.append(w.real[order])
    return np.stack(us).reshape(A.shape), np.stack(ls).reshape(A.shape[:-1])


def syevd_grad_rule(A, heads, eps=1e-6, **_):
    """MXNet's syevd gradient is the derivative along symmetric perturbations (a symmetric matrix):
    central differences of ref_syevd perturbing A[i, j] and A[j, i] together (halved off the diagonal)."""
    def objective(M):
        u, l = ref_syevd(M)
        return (u * heads[0]).sum() + (l * heads[1]).sum()
    grad = np.zeros(A.shape)
    n = A.shape[-1]
    for b in np.ndindex(*A.shape[:-2]):
        for i in range(n):
            for j in range(i + 1):
                E = np.zeros(A.shape)
                E[b + (i, j)] = E[b + (j, i)] = eps
                d = (objective(A + E) - objective(A - E)) / (2 * eps)
                grad[b + (i, j)] = grad[b + (j, i)] = d if i == j else d / 2
    return [grad]


def symmetric_spread(shape):
    """Symmetric matrices with well separated eigenvalues."""
    def gen(rng):
        a = rng.standard_normal(shape)
        return (a + np.swapaxes(a, -1, -2)) / 2 + np.diag(3.0 * np.arange(shape[-1]))
    return gen


def _per_matrix(x):
    return x.reshape(x.shape or (1,))


def ref_det(A, **_):
    return _per_matrix(np.linalg.det(A.astype(f64)))


def ref_slogdet(A, **_):
    return tuple(_per_matrix(x) for x in np.linalg.slogdet(A.astype(f64)))


def full_rank_wide(shape):
    def gen(rng):
        a = rng.standard_normal(shape)
        a[..., :, :shape[-2]] += 3 * np.eye(shape[-2])
        return a
    return gen


def mixed_signs(shape):
    """Well-conditioned matrices, the first with two rows swapped (a negative determinant)."""
    def gen(rng):
        a = well_conditioned(shape)(rng)
        first = a.reshape((-1,) + shape[-2:])[0]
        first[[0, 1]] = first[[1, 0]]
        return a
    return gen


G = dict(grad_rtol=1e-4, grad_atol=1e-5)

CASES = [
    Case("_linalg_potri", [positive_diagonal((2, 3, 3))], ref=ref_potri, rtol=1e-4, **G),
    Case("_linalg_potri", [positive_diagonal((3, 3))], ref=ref_potri, attrs={"lower": False}, name="upper",
         rtol=1e-4, **G),
    Case("_linalg_gelqf", [full_rank_wide((2, 2, 3))], ref=ref_gelqf, rtol=1e-4, atol=1e-5, **G),
    Case("_linalg_gelqf", [well_conditioned((3, 3))], ref=ref_gelqf, name="square", rtol=1e-4, atol=1e-5, **G),
    Case("_linalg_syevd", [symmetric_spread((3, 3))], ref=ref_syevd, grad_rule=syevd_grad_rule, rtol=1e-4,
         atol=1e-5, **G),
    Case("_linalg_syevd", [symmetric_spread((2, 1, 4, 4))], ref=ref_syevd, grad_rule=syevd_grad_rule,
         name="batched", rtol=1e-4, atol=1e-5, **G),
    Case("_linalg_syevd", [np.array([[1.0, 2.0], [2.0, 4.0]])], ref=ref_syevd, grad_rule=syevd_grad_rule,
         name="mxnet_example", atol=1e-6, **G),
    Case("_linalg_extracttrian", [(2, 3, 3)], ref=ref_extracttrian),
    Case("_linalg_extracttrian", [(4, 4)], ref=ref_extracttrian, attrs={"lower": False}, name="upper"),
    Case("_linalg_extracttrian", [(4, 4)], ref=ref_extracttrian, attrs={"offset": 1}, name="above"),
    Case("_linalg_extracttrian", [(4, 4)], ref=ref_extracttrian, attrs={"offset": -2}, name="below"),
    Case("_linalg_maketrian", [(2, 6)], ref=ref_maketrian),
    Case("_linalg_maketrian", [(6,)], ref=ref_maketrian, attrs={"lower": False}, name="upper"),
    Case("_linalg_maketrian", [(3,)], ref=ref_maketrian, attrs={"offset": 1}, name="above"),
    Case("_linalg_maketrian", [(2, 3)], ref=ref_maketrian, attrs={"offset": -1}, name="below"),
    Case("_linalg_det", [well_conditioned((3, 3))], ref=ref_det, rtol=1e-4, **G),
    Case("_linalg_det", [mixed_signs((2, 1, 2, 2))], ref=ref_det, name="batched", rtol=1e-4, **G),
    Case("_linalg_slogdet", [well_conditioned((3, 3))], ref=ref_slogdet, rtol=1e-4, **G),
    Case("_linalg_slogdet", [mixed_signs((2, 3, 3))], ref=ref_slogdet, name="batched", rtol=1e-4, **G),
]
