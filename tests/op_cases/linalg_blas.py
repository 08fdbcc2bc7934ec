"""Op-checker cases for MXNet's linalg operators (ops/linalg_blas.py): gemm, syrk, trmm, trsm (both
sides, transposed, upper and lower), potrf (MXNet's symmetric gradient), extractdiag / makediag at offsets, sumlogdiag; references
in plain NumPy, float64."""
import numpy as np

from op_checker import Case
from op_cases.np_linalg import cholesky_grad_rule, spd

f64 = np.float64


def _t(x, on):
    return np.swapaxes(x, -1, -2) if on else x


def ref_gemm(A, B, C, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0, **_):
    return alpha * _t(A, transpose_a).astype(f64) @ _t(B, transpose_b) + beta * C


def ref_syrk(A, transpose=False, alpha=1.0, **_):
    A = A.astype(f64)
    return alpha * (_t(A, True) @ A if transpose else A @ _t(A, True))


def _op(A, transpose, lower):
    return _t(np.tril(A) if lower else np.triu(A), transpose).astype(f64)


def ref_trmm(A, B, transpose=False, rightside=False, lower=True, alpha=1.0, **_):
    T = _op(A, transpose, lower)
    return alpha * (B @ T if rightside else T @ B)


def ref_trsm(A, B, transpose=False, rightside=False, lower=True, alpha=1.0, **_):
    T = _op(A, transpose, lower)
    return alpha * (B @ np.linalg.inv(T) if rightside else np.linalg.inv(T) @ B)


def ref_potrf(A, lower=True, **_):
    L = np.linalg.cholesky(A.astype(f64))
    return L if lower else _t(L, True)


def ref_makediag(d, offset=0, **_):
    n = d.shape[-1] + abs(offset)
    out = np.zeros(d.shape[:-1] + (n, n))
    for i in range(d.shape[-1]):
        r = i + max(-offset, 0)
        out[..., r, r + offset] = d[..., i]
    return out


def ref_sumlogdiag(A, **_):
    out = np.log(np.diagonal(A.astype(f64), axis1=-2, axis2=-1)).sum(-1)
    return out.reshape(out.shape or (1,))


def positive_diagonal(shape):
    def gen(rng):
        return rng.uniform(-0.5, 0.5, shape) + 3 * np.eye(shape[-1])
    return gen


G = dict(grad_rtol=1e-4, grad_atol=1e-5)

CASES = [
    Case("_linalg_gemm", [(2, 3, 4), (2, 4, 5), (2, 3, 5)], ref=ref_gemm, attrs={"alpha": 1.5, "beta": 0.5}),
    Case("_linalg_gemm", [(4, 3), (5, 4), (3, 5)], ref=ref_gemm,
         attrs={"transpose_a": True, "transpose_b": True, "alpha": -1.0, "beta": 2.0}, name="transposed"),
    Case("_linalg_syrk", [(2, 3, 4)], ref=ref_syrk, attrs={"alpha": 0.5}),
    Case("_linalg_syrk", [(3, 4)], ref=ref_syrk, attrs={"transpose": True}, name="transposed"),
    Case("_linalg_trmm", [(2, 3, 3), (2, 3, 4)], ref=ref_trmm, attrs={"alpha": 2.0}),
    Case("_linalg_trmm", [(3, 3), (4, 3)], ref=ref_trmm,
         attrs={"rightside": True, "transpose": True, "lower": False}, name="right_upper_transposed"),
    Case("_linalg_trsm", [positive_diagonal((2, 3, 3)), (2, 3, 4)], ref=ref_trsm, attrs={"alpha": 0.5}, **G),
    Case("_linalg_trsm", [positive_diagonal((3, 3)), (4, 3)], ref=ref_trsm,
         attrs={"rightside": True, "transpose": True, "lower": False}, name="right_upper_transposed", **G),
    Case("_linalg_trsm", [positive_diagonal((3, 3)), (3, 2)], ref=ref_trsm, attrs={"transpose": True},
         name="left_transposed", **G),
    Case("_linalg_potrf", [spd((2, 3, 3))], ref=ref_potrf, rtol=1e-4, grad_rule=cholesky_grad_rule, **G),
    Case("_linalg_potrf", [spd((3, 3))], ref=ref_potrf, attrs={"lower": False}, name="upper", rtol=1e-4,
         grad_rule=cholesky_grad_rule, **G),
    Case("_linalg_extractdiag", [(2, 4, 4)], ref=lambda A, offset=0, **_: np.diagonal(A, offset, -2, -1)),
    Case("_linalg_extractdiag", [(4, 4)], ref=lambda A, offset=0, **_: np.diagonal(A, offset, -2, -1),
         attrs={"offset": -1}, name="below"),
    Case("_linalg_makediag", [(2, 3)], ref=ref_makediag),
    Case("_linalg_makediag", [(3,)], ref=ref_makediag, attrs={"offset": 1}, name="above"),
    Case("_linalg_sumlogdiag", [positive_diagonal((2, 3, 3))], ref=ref_sumlogdiag),
    Case("_linalg_sumlogdiag", [positive_diagonal((3, 3))], ref=ref_sumlogdiag, name="one_matrix"),
]
# inverse is mx.np.linalg.inv under MXNet's linalg name: np_linalg's cases cover it
