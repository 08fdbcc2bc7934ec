"""Op-checker cases for ``mx.np.linalg`` (ops/np_linalg.py). Forward references are ``numpy.linalg``
in float64; the internal backward ops are checked against finite-difference vector-Jacobian products
of ``numpy.linalg`` (independent of the closed forms they implement)."""
import numpy as np

from op_checker import Case

f64 = np.float64


def well_conditioned(shape):
    def gen(rng):
        return rng.standard_normal(shape) + 3 * np.eye(shape[-1])
    return gen


def spd(shape):
    def gen(rng):
        a = rng.standard_normal(shape)
        return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return gen


def fd_vjp(fn, A, heads, eps=1e-6):
    """sum_k <heads[k], d fn(A)[k] / dA> by central differences, in float64."""
    A = A.astype(f64)
    g = np.zeros_like(A)
    flat = A.reshape(-1)
    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + eps
        plus = fn(A)
        flat[j] = orig - eps
        minus = fn(A)
        flat[j] = orig
        g.reshape(-1)[j] = sum(float(((p - m) * h).sum()) for p, m, h in zip(plus, minus, heads)) / (2 * eps)
    return g


def _svd(A):
    return np.linalg.svd(A, full_matrices=False)


def _qr(A):
    return np.linalg.qr(A)


A_SVD = np.array([[1.0, 0.3, -0.5, 0.2], [0.1, -2.0, 0.4, 0.7], [0.6, 0.2, 3.0, -0.1]])
A_QR = np.array([[2.0, 0.3, -0.5], [0.1, -1.5, 0.4], [0.6, 0.2, 3.0], [0.3, -0.4, 0.5]])
A_SYM = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.3], [0.5, -0.3, 1.0]])
UT, L, V = _svd(A_SVD)
Q, R = _qr(A_QR)
W, EV = np.linalg.eigh(A_SYM)
CH = np.linalg.cholesky(A_SYM)


def ref_tril(x, k=0, lower=True):
    return np.tril(x, k) if lower else np.triu(x, k)


def ref_solve(A, b):
    A, b = A.astype(f64), b.astype(f64)
    return np.linalg.solve(A, b[..., None])[..., 0] if b.ndim == A.ndim - 1 else np.linalg.solve(A, b)


def ref_backward_svd(gu, gs, gv, u, s, v):
    A = (u.astype(f64) * s) @ v
    return fd_vjp(_svd, A, (gu, gs, gv))


def ref_backward_qr(gq, gr, q, r):
    return fd_vjp(_qr, q.astype(f64) @ r, (gq, gr))


def ref_backward_eigh(gw, gv, w, v, UPLO="L"):
    A = (v.astype(f64) * w) @ v.T
    A = np.tril(A) if UPLO == "L" else np.triu(A)   # perturbing the read triangle only
    return fd_vjp(lambda M: np.linalg.eigh(M, UPLO=UPLO), A, (gw, gv))


def _sym(M):
    return 0.5 * (M + np.swapaxes(M, -1, -2))


def ref_backward_cholesky(g, L):
    """MXNet's cholesky gradient is the one with respect to a symmetric input: d cholesky(sym(M))."""
    A = L.astype(f64) @ L.T.astype(f64)
    return fd_vjp(lambda M: (np.linalg.cholesky(_sym(M)),), A, (g,))


def cholesky_grad_rule(A, heads, lower=True, **_):
    """The input gradient of cholesky / potrf as MXNet gives it (symmetric): finite differences of the
    factor of the symmetrized input, which equals the input where the op is evaluated."""
    def factor(M):
        L = np.linalg.cholesky(_sym(M))
        return (L if lower else np.swapaxes(L, -1, -2),)
    return [fd_vjp(factor, A, heads)]


def _gpu_recon_svd(got, a):
    u, s, v = got
    np.testing.assert_allclose((u * s[..., None, :]) @ v, a, rtol=1e-4, atol=1e-4)


def _gpu_recon_qr(got, a):
    np.testing.assert_allclose(got[0] @ got[1], a, rtol=1e-4, atol=1e-4)


def _gpu_recon_eigh(got, a):
    w, v = got
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, rtol=1e-4, atol=1e-4)


G = dict(grad_rtol=1e-4, grad_atol=1e-5)

CASES = [
    Case("_npi_tril", [(3, 4)], ref=ref_tril),
    Case("_npi_tril", [(2, 3, 3)], attrs={"k": -1}, ref=ref_tril, name="batched_below"),
    Case("_npi_tril", [(3, 4)], attrs={"k": 1, "lower": False}, ref=ref_tril, name="triu"),
    Case("_npi_inv", [well_conditioned((2, 3, 3))], ref=lambda a: np.linalg.inv(a.astype(f64)), rtol=1e-4, **G),
    Case("_npi_det", [well_conditioned((2, 3, 3))], ref=lambda a: np.linalg.det(a.astype(f64)), rtol=1e-4, **G),
    Case("_npi_det", [well_conditioned((3, 3))], ref=lambda a: np.linalg.det(a.astype(f64)), rtol=1e-4,
         name="single", **G),
    Case("_npi_slogdet", [(2, 3, 3)], ref=lambda a: tuple(np.linalg.slogdet(a.astype(f64))), rtol=1e-4, **G),
    Case("_npi_solve", [well_conditioned((2, 3, 3)), (2, 3)], ref=ref_solve, rtol=1e-4, name="vectors", **G),
    Case("_npi_solve", [well_conditioned((2, 3, 3)), (2, 3, 2)], ref=ref_solve, rtol=1e-4, name="matrices", **G),
    Case("_npi_cholesky", [spd((2, 3, 3))], ref=lambda a: np.linalg.cholesky(a.astype(f64)), rtol=1e-4,
         grad_rule=cholesky_grad_rule, **G),
    Case("_backward_npi_cholesky", [(3, 3), CH], ref=ref_backward_cholesky, grad=(), rtol=1e-4, atol=1e-4),
    Case("_npi_eigh", [spd((2, 3, 3))], ref=lambda a: tuple(np.linalg.eigh(a.astype(f64))), rtol=1e-4,
         atol=1e-5, gpu_check=_gpu_recon_eigh, **G),
    Case("_npi_eigh", [spd((3, 3))], attrs={"UPLO": "U"}, ref=lambda a, UPLO: tuple(np.linalg.eigh(a, UPLO)),
         rtol=1e-4, atol=1e-5, gpu_check=_gpu_recon_eigh, name="upper", **G),
    Case("_npi_eigvalsh", [spd((2, 3, 3))], ref=lambda a: np.linalg.eigvalsh(a.astype(f64)), rtol=1e-4, **G),
    Case("_backward_npi_eigh", [(3,), (3, 3), W, EV], ref=ref_backward_eigh, grad=(), rtol=1e-3, atol=1e-4),
    Case("_backward_npi_eigh", [(3,), (3, 3), W, EV], attrs={"UPLO": "U"}, ref=ref_backward_eigh, grad=(),
         rtol=1e-3, atol=1e-4, name="upper"),
    Case("_npi_svd", [(2, 3, 4)], ref=lambda a: tuple(_svd(a.astype(f64))), rtol=1e-4, atol=1e-5,
         gpu_check=_gpu_recon_svd, name="wide", **G),
    Case("_npi_svd", [(4, 3)], ref=lambda a: tuple(_svd(a.astype(f64))), rtol=1e-4, atol=1e-5,
         gpu_check=_gpu_recon_svd, name="tall", **G),
    Case("_backward_npi_svd", [(3, 3), (3,), (3, 4), UT, L, V], ref=ref_backward_svd, grad=(), rtol=1e-3,
         atol=1e-4),
    Case("_npi_qr", [(4, 3)], ref=lambda a: tuple(_qr(a.astype(f64))), rtol=1e-4, atol=1e-5,
         gpu_check=_gpu_recon_qr, **G),
    Case("_npi_qr", [(2, 3, 3)], ref=lambda a: tuple(_qr(a.astype(f64))), rtol=1e-4, atol=1e-5,
         gpu_check=_gpu_recon_qr, name="batched", **G),
    Case("_backward_npi_qr", [(4, 3), (3, 3), Q, R], ref=ref_backward_qr, grad=(), rtol=1e-3, atol=1e-4),
]
