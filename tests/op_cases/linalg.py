"""Op-checker cases for the matrix products (ops/linalg.py): dot, batch_dot, _np_matmul, _np_dot,
_linalg_gemm2. References are written with explicit index sums (einsum/tensordot on float64)."""
import numpy as np

from op_checker import Case

f64 = np.float64


def ref_dot(lhs, rhs, transpose_a=False, transpose_b=False, **a):
    """MXNet dot: 1-d x 1-d -> (1,); otherwise contract lhs's last (first, transposed) axis with
    rhs's first (last, transposed) axis."""
    lhs, rhs = lhs.astype(f64), rhs.astype(f64)
    if lhs.ndim == 1 and rhs.ndim == 1:
        return np.array([np.sum(lhs * rhs)])
    la = 0 if transpose_a or lhs.ndim == 1 else lhs.ndim - 1
    ra = rhs.ndim - 1 if transpose_b and rhs.ndim > 1 else 0
    return np.tensordot(lhs, rhs, axes=([la], [ra]))


def ref_batch_dot(lhs, rhs, transpose_a=False, transpose_b=False, **a):
    l = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    r = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    return np.einsum("...ij,...jk->...ik", l.astype(f64), r.astype(f64))


def ref_gemm2(A, B, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2):
    A, B = np.swapaxes(A, axis, -2), np.swapaxes(B, axis, -2)
    out = alpha * ref_batch_dot(A, B, transpose_a, transpose_b)
    return np.swapaxes(out, axis, -2)


def ref_np_dot(a, b):
    a, b = a.astype(f64), b.astype(f64)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return np.tensordot(a, b, axes=([-1], [max(b.ndim - 2, 0)]))


def ref_matmul(a, b):
    a, b = a.astype(f64), b.astype(f64)
    a2 = a if a.ndim > 1 else a[None, :]
    b2 = b if b.ndim > 1 else b[:, None]
    out = np.einsum("...ij,...jk->...ik", a2, b2)
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


CASES = [
    Case("dot", [(2, 3), (3, 4)], ref=ref_dot),
    Case("dot", [(2, 3), (4, 3)], attrs={"transpose_b": True}, ref=ref_dot, name="transpose_b"),
    Case("dot", [(3, 2), (3, 4)], attrs={"transpose_a": True}, ref=ref_dot, name="transpose_a"),
    Case("dot", [(3, 2), (4, 3)], attrs={"transpose_a": True, "transpose_b": True}, ref=ref_dot, name="transpose_ab"),
    Case("dot", [(2, 2, 3), (3, 2, 2)], ref=ref_dot, name="nd"),
    Case("dot", [(3, 2, 2), (3, 2)], attrs={"transpose_a": True}, ref=ref_dot, name="nd_transpose_a"),
    Case("dot", [(2, 3), (2, 2, 3)], attrs={"transpose_b": True}, ref=ref_dot, name="nd_transpose_b"),
    Case("dot", [(4,), (4,)], ref=ref_dot, name="vectors"),
    Case("dot", [(3,), (3, 2)], ref=ref_dot, name="vector_matrix"),
    Case("dot", [(2, 3), (3,)], ref=ref_dot, name="matrix_vector"),
    Case("batch_dot", [(2, 2, 3), (2, 3, 2)], ref=ref_batch_dot),
    Case("batch_dot", [(2, 3, 2), (2, 2, 3)], attrs={"transpose_a": True, "transpose_b": True}, ref=ref_batch_dot,
         name="transpose_ab"),
    Case("batch_dot", [(2, 2, 3), (2, 4, 3)], attrs={"transpose_b": True}, ref=ref_batch_dot, name="transpose_b"),
    Case("batch_dot", [(2, 1, 3, 2), (2, 1, 3, 2)], attrs={"transpose_a": True}, ref=ref_batch_dot, name="4d"),
    Case("_np_matmul", [(2, 3), (3, 2)], ref=ref_matmul),
    Case("_np_matmul", [(2, 2, 3), (3, 2)], ref=ref_matmul, name="broadcast"),
    Case("_np_matmul", [(2, 1, 2, 3), (3, 3, 2)], ref=ref_matmul, name="broadcast_both"),
    Case("_np_matmul", [(3,), (2, 3, 2)], ref=ref_matmul, name="vector_batch"),
    Case("_np_matmul", [(2, 3), (3,)], ref=ref_matmul, name="matrix_vector"),
    Case("_np_matmul", [(4,), (4,)], ref=ref_matmul, name="vectors"),
    Case("_np_dot", [(2, 3), (3, 2)], ref=ref_np_dot),
    Case("_np_dot", [(4,), (4,)], ref=ref_np_dot, name="vectors"),
    Case("_np_dot", [(2, 3), (3,)], ref=ref_np_dot, name="matrix_vector"),
    Case("_np_dot", [(2, 3), (2, 3, 2)], ref=ref_np_dot, name="nd"),
    Case("_np_dot", [(2, 2, 3), (3, 2)], ref=ref_np_dot, name="nd_matrix"),
    Case("_np_dot", [lambda rng: np.array(1.5), (2, 3)], ref=ref_np_dot, name="scalar"),
    Case("_linalg_gemm2", [(2, 3), (3, 2)], attrs={"alpha": 0.5}, ref=ref_gemm2),
    Case("_linalg_gemm2", [(2, 3, 2), (2, 4, 3)], attrs={"transpose_a": True, "transpose_b": True},
         ref=ref_gemm2, name="batched_transposed"),
    Case("_linalg_gemm2", [(3, 2, 2), (2, 2, 2)], attrs={"axis": 0, "alpha": 2.0}, ref=ref_gemm2, name="axis0"),
]
