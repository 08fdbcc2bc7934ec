"""``mx.np.linalg``: MXNet's NumPy-style linear algebra, batched over leading axes. Decompositions and
solvers are ops (ops/np_linalg.py); norm, pinv, matrix_rank, cond, lstsq, matrix_power, multi_dot,
tensorinv and tensorsolve are composed of them, so all of them record gradients.

Example::

    >>> import hybridlab as mx
    >>> a = mx.np.array([[3.0, 4.0], [0.0, 0.0]])
    >>> float(mx.np.linalg.norm(a))
    5.0
    >>> mx.np.linalg.inv(mx.np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
"""
import math
import operator

import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, call

__all__ = ["norm", "inv", "det", "slogdet", "solve", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "svd", "qr", "pinv",
           "matrix_rank", "cond", "lstsq", "matrix_power", "multi_dot", "tensorinv", "tensorsolve"]


def inv(a):
    """Inverse of each square matrix of the last two axes.

    >>> import hybridlab as mx
    >>> mx.np.linalg.inv(mx.np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    return call("_npi_inv", a)


def det(a):
    """Determinant of each square matrix of the last two axes.

    >>> import hybridlab as mx
    >>> float(mx.np.linalg.det(mx.np.array([[1.0, 2.0], [3.0, 4.0]])))
    -2.0
    """
    return call("_npi_det", a)


def slogdet(a):
    """``(sign, logabsdet)`` of the determinant of each square matrix.

    >>> import hybridlab as mx
    >>> sign, logdet = mx.np.linalg.slogdet(mx.np.array([[2.0, 0.0], [0.0, -3.0]]))
    >>> float(sign), round(float(logdet), 4)
    (-1.0, 1.7918)
    """
    return tuple(call("_npi_slogdet", a))


def solve(a, b):
    """Solve ``a x = b``; ``b`` holds vectors when it has one dimension fewer than ``a``.

    >>> import hybridlab as mx
    >>> mx.np.linalg.solve(mx.np.array([[2.0, 0.0], [0.0, 4.0]]), mx.np.array([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    return call("_npi_solve", a, b)


def cholesky(a):
    """Lower Cholesky factor ``L`` (``a = L @ L.T``) of each symmetric positive-definite matrix.

    >>> import hybridlab as mx
    >>> mx.np.linalg.cholesky(mx.np.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    return call("_npi_cholesky", a)


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix; ``UPLO`` names
    the triangle that is read.

    >>> import hybridlab as mx
    >>> w, v = mx.np.linalg.eigh(mx.np.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w.tolist()
    [1.0, 2.0]
    """
    return tuple(call("_npi_eigh", a, UPLO=UPLO))


def eigvalsh(a, UPLO="L"):
    """Eigenvalues (ascending) of each symmetric matrix.

    >>> import hybridlab as mx
    >>> mx.np.linalg.eigvalsh(mx.np.array([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return call("_npi_eigvalsh", a, UPLO=UPLO)


def eig(a):
    """Eigenvalues and right eigenvectors (columns) of each real square matrix; MXNet supports real
    eigenvalues only (complex ones raise).

    >>> import hybridlab as mx
    >>> w, v = mx.np.linalg.eig(mx.np.array([[2.0, 0.0], [0.0, 3.0]]))
    >>> w.tolist(), v.tolist()
    ([2.0, 3.0], [[1.0, 0.0], [0.0, 1.0]])
    """
    return tuple(call("_npi_eig", a))


def eigvals(a):
    """Eigenvalues of each real square matrix (real eigenvalues only, as in MXNet).

    >>> import hybridlab as mx
    >>> mx.np.linalg.eigvals(mx.np.array([[2.0, 1.0], [0.0, 3.0]])).tolist()
    [2.0, 3.0]
    """
    return call("_npi_eigvals", a)


def svd(a):
    """MXNet's SVD: ``(ut, l, v)`` with ``a = ut @ diag(l) @ v`` (``l`` descending; for ``a`` of shape
    (..., M, N), K = min(M, N): ut (..., M, K), l (..., K), v (..., K, N)).

    >>> import hybridlab as mx
    >>> ut, l, v = mx.np.linalg.svd(mx.np.array([[3.0, 0.0, 0.0], [0.0, 4.0, 0.0]]))
    >>> l.tolist(), v.shape
    ([4.0, 3.0], (2, 3))
    """
    return tuple(call("_npi_svd", a))


def qr(a, mode="reduced"):
    """QR decomposition of each matrix: ``(q, r)`` (``mode='reduced'``) or ``r`` alone (``mode='r'``).

    >>> import hybridlab as mx
    >>> q, r = mx.np.linalg.qr(mx.np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]))
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    """
    if mode not in ("reduced", "r"):
        raise MXNetValueError(f"np.linalg.qr: expected mode 'reduced' or 'r', got {mode!r}")
    q, r = call("_npi_qr", a)
    return r if mode == "r" else (q, r)


def _mT(x):
    return _np.swapaxes(x, -1, -2)


def pinv(a, rcond=1e-15, hermitian=False):
    """Moore-Penrose pseudo-inverse from the SVD; singular values at most ``rcond`` times the largest
    are treated as zero (``rcond`` may be an array broadcast over the stack).

    >>> import hybridlab as mx
    >>> mx.np.linalg.pinv(mx.np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    ut, s, v = svd(a)
    smax = _np.max(s, axis=-1, keepdims=True)
    if isinstance(rcond, _np.ndarray):
        rcond = _np.expand_dims(rcond, -1)
    keep = s > smax * rcond
    keepf = keep.astype(s.dtype)
    sinv = keepf / _np.where(keep, s, _np.ones_like(s))
    return _np.matmul(_mT(v) * _np.expand_dims(sinv, -2), _mT(ut))


def matrix_rank(M, tol=None, hermitian=False):
    """Number of singular values above ``tol`` (default ``S.max() * max(M, N) * eps``) per matrix.

    >>> import hybridlab as mx
    >>> int(mx.np.linalg.matrix_rank(mx.np.array([[1.0, 2.0], [2.0, 4.0]])))
    1
    """
    M = as_array(M)
    if M.ndim < 2:
        return (_np.abs(M) > 0).astype(_onp.int64).max()
    s = svd(M)[1]
    if tol is None:
        tol = _np.max(s, axis=-1, keepdims=True) * (max(M.shape[-2:]) * _onp.finfo(M.dtype).eps)
    elif isinstance(tol, _np.ndarray):
        tol = _np.expand_dims(tol, -1)
    return _np.sum((s > tol).astype(_onp.int64), axis=-1)


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return _np.sqrt(_np.sum(x * x, axis=axis, keepdims=keepdims))
    if ord == _onp.inf:
        return _np.max(_np.abs(x), axis=axis, keepdims=keepdims)
    if ord == -_onp.inf:
        return _np.min(_np.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return _np.sum((x != 0).astype(x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _np.sum(_np.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise MXNetValueError(f"np.linalg.norm: invalid norm order {ord!r} for vectors")
    return _np.sum(_np.abs(x) ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _matrix_norm(x, ord, row, col, keepdims):
    if ord is None or ord == "fro":
        return _np.sqrt(_np.sum(x * x, axis=(row, col), keepdims=keepdims))
    if ord in (1, -1, _onp.inf, -_onp.inf):
        sum_axis, red_axis = (row, col) if ord in (1, -1) else (col, row)
        sums = _np.sum(_np.abs(x), axis=sum_axis, keepdims=True)
        red = _np.max if ord in (1, _onp.inf) else _np.min
        out = red(sums, axis=red_axis, keepdims=True)
    elif ord in (2, -2, "nuc"):
        perm = [i for i in range(x.ndim) if i not in (row, col)] + [row, col]
        s = svd(_np.transpose(x, perm))[1]
        out = {2: _np.max, -2: _np.min, "nuc": _np.sum}[ord](s, axis=-1)
        for ax in sorted((row, col)):
            out = _np.expand_dims(out, ax)
    else:
        raise MXNetValueError(f"np.linalg.norm: invalid norm order {ord!r} for matrices "
                              "(expected None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf)")
    return out if keepdims else _np.squeeze(out, axis=(row, col))


_ORD_NAMES = {"inf": _onp.inf, "-inf": -_onp.inf, "f": "fro"}   # MXNet's spellings of norm orders


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm, as ``numpy.linalg.norm``: ``axis`` None (the whole array for
    ``ord=None``; a vector or matrix by ``x.ndim`` otherwise), an int (vector norms) or a pair (matrix
    norms: 'fro', 'nuc', +-1, +-2, +-inf). As in MXNet, ``ord`` may also be spelled 'inf', '-inf'
    (the infinities) or 'f' ('fro').

    >>> import hybridlab as mx
    >>> x = mx.np.array([[1.0, -2.0], [3.0, -4.0]])
    >>> float(mx.np.linalg.norm(x, 1)), float(mx.np.linalg.norm(x, mx.np.inf))
    (6.0, 7.0)
    >>> mx.np.linalg.norm(x, axis=1).shape
    (2,)
    """
    x = as_array(x)
    if x.dtype.kind in "iub":
        x = x.astype(_onp.float32)
    if isinstance(ord, str):
        ord = _ORD_NAMES.get(ord, ord)   # noqa: A001
    if axis is None:
        if ord is None:
            return _vector_norm(_np.reshape(x, (-1,)), None, 0, False) if not keepdims else \
                _vector_norm(x, None, tuple(range(x.ndim)), True)
        if x.ndim == 1:
            return _vector_norm(x, ord, 0, keepdims)
        if x.ndim == 2:
            return _matrix_norm(x, ord, 0, 1, keepdims)
        raise MXNetValueError(f"np.linalg.norm: ord={ord!r} needs a 1-d or 2-d input or axis=, got {x.ndim} dims")
    if isinstance(axis, (tuple, list)):
        axis = tuple(operator.index(a) % x.ndim for a in axis)
        if len(axis) == 1:
            return _vector_norm(x, ord, axis[0], keepdims)
        if len(axis) != 2 or axis[0] == axis[1]:
            raise MXNetValueError(f"np.linalg.norm: expected one axis or two distinct axes, got {axis}")
        return _matrix_norm(x, ord, axis[0], axis[1], keepdims)
    return _vector_norm(x, ord, operator.index(axis), keepdims)


def cond(x, p=None):
    """Condition number of each matrix in norm ``p`` (None/2/-2 from the singular values).

    >>> import hybridlab as mx
    >>> float(mx.np.linalg.cond(mx.np.array([[2.0, 0.0], [0.0, 0.5]])))
    4.0
    """
    if p is None or p in (2, -2):
        s = svd(x)[1]
        hi, lo = _np.max(s, axis=-1), _np.min(s, axis=-1)
        return hi / lo if p != -2 else lo / hi
    ax = (-2, -1)
    return norm(x, p, axis=ax) * norm(inv(x), p, axis=ax)


def lstsq(a, b, rcond="warn"):
    """Least-squares solution of ``a x = b``: ``(x, residuals, rank, s)`` as ``numpy.linalg.lstsq``.

    >>> import hybridlab as mx
    >>> a = mx.np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> x, res, rank, s = mx.np.linalg.lstsq(a, mx.np.array([1.0, 2.0, 3.0]), rcond=None)
    >>> x.tolist(), res.tolist(), int(rank)
    ([1.0, 2.0], [9.0], 2)
    """
    a, b = as_array(a), as_array(b)
    m, n = a.shape
    if rcond is None or rcond == "warn":
        rcond = _onp.finfo(a.dtype).eps * max(m, n)
    x = _np.matmul(pinv(a, rcond), b)
    s = svd(a)[1]
    rank = matrix_rank(a, tol=float(s.max()) * rcond) if s.size else _np.array(0, dtype=_onp.int64)
    if int(rank) == n and m > n:
        r = b - _np.matmul(a, x)
        residuals = _np.sum(r * r, axis=0)
        if residuals.ndim == 0:
            residuals = _np.expand_dims(residuals, 0)
    else:
        residuals = _np.zeros((0,), dtype=a.dtype)
    return x, residuals, rank, s


def matrix_power(a, n):
    """``a`` raised to the integer power ``n`` (negative: of the inverse) by repeated squaring.

    >>> import hybridlab as mx
    >>> mx.np.linalg.matrix_power(mx.np.array([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    a = as_array(a)
    n = operator.index(n)
    if n == 0:
        eye = _np.eye(a.shape[-1], dtype=a.dtype)
        return _np.broadcast_to(eye, a.shape) + a * 0
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else _np.matmul(result, base)
        n >>= 1
        if n:
            base = _np.matmul(base, base)
    return result


def multi_dot(arrays, *, out=None):
    """Product of a chain of matrices (the first may be a vector, and the last).

    >>> import hybridlab as mx
    >>> mx.np.linalg.multi_dot([mx.np.ones((2, 3)), mx.np.ones((3, 4)), mx.np.ones(4)]).tolist()
    [12.0, 12.0]
    """
    arrays = list(arrays)
    if len(arrays) < 2:
        raise MXNetValueError(f"np.linalg.multi_dot: expected at least 2 arrays, got {len(arrays)}")
    result = arrays[0]
    for x in arrays[1:]:
        result = _np.dot(result, x)
    return result


def tensorinv(a, ind=2):
    """Inverse of ``a`` seen as a linear map from its last ``a.ndim - ind`` axes to its first ``ind``.

    >>> import hybridlab as mx
    >>> mx.np.linalg.tensorinv(mx.np.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = as_array(a)
    old = a.shape
    rows = math.prod(old[:ind])
    out = inv(_np.reshape(a, (rows, -1)))
    return _np.reshape(out, old[ind:] + old[:ind])


def tensorsolve(a, b, axes=None):
    """Solve ``tensordot(a, x, b.ndim) = b`` for ``x``. As MXNet's ``_npi_tensorsolve``: ``x`` has the
    shape ``a.shape[k:]`` (``axes`` moved last) with ``k = b.ndim`` when ``a`` has more dimensions
    than ``b``, else ``b.ndim - a.ndim`` (so ``a`` and ``b`` of shape (1, 1, 1) give (1, 1, 1)); a 0-d
    ``b`` gives ``a``'s shape, a 0-d ``a`` a 0-d ``x``; float32 when both are float32, else float64.

    >>> import hybridlab as mx
    >>> mx.np.linalg.tensorsolve(mx.np.eye(4).reshape(2, 2, 4), mx.np.ones((2, 2))).shape
    (4,)
    """
    a, b = as_array(a), as_array(b)
    if not (a.dtype == _onp.float32 and b.dtype == _onp.float32):
        a, b = a.astype(_onp.float64, copy=False), b.astype(_onp.float64, copy=False)
    if axes is not None:
        axes = [operator.index(x) % a.ndim for x in axes]
        rest = [i for i in range(a.ndim) if i not in axes]
        a = _np.transpose(a, rest + axes)
    if a.ndim == 0 or b.ndim == 0:
        xshape = a.shape
    else:
        xshape = a.shape[b.ndim if a.ndim > b.ndim else b.ndim - a.ndim:]
    n = math.prod(xshape)
    x = solve(_np.reshape(a, (-1, n)), _np.reshape(b, (-1,)))
    return _np.reshape(x, xshape)
