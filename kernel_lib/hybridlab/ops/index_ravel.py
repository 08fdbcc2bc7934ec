"""Index arithmetic of MXNet 1.x: ``_ravel_multi_index`` (alias ``ravel_multi_index``) and
``_unravel_index`` (alias ``unravel_index``), which convert between columns of multi-indices and
flat (row-major) indices, mx.np's ``_npi_unravel_index_fallback`` (NumPy's checked unravel_index,
stacked) and ``_npi_diag_indices_from``, and the deprecated ``batch_take`` (``out[i] = a[i, indices[i]]``, MXNet
says: use ``pick``).

Indices may be float (MXNet's default dtype); they are truncated to integers and the results keep
the input's dtype. As in MXNet, nothing is range-checked: ``ravel_multi_index`` sums
``index * stride`` (the first dimension of ``shape`` is never used, so it may be ``-1``) and
``unravel_index`` takes C remainders and quotients from the last dimension to the second, leaving
the rest in the first row. ``batch_take`` clips its indices to the last axis.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.ravel_multi_index(mx.nd.array([[3, 6, 6], [4, 5, 1]]), shape=(7, 6)).asnumpy().tolist()
    [22.0, 41.0, 37.0]
    >>> mx.nd.unravel_index(mx.nd.array([22, 41, 37]), shape=(-1, 6)).asnumpy().tolist()
    [[3.0, 6.0, 6.0], [4.0, 5.0, 1.0]]
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd.batch_take(x, mx.nd.array([0, 1, 0], dtype='int32')).asnumpy().tolist()
    [1.0, 4.0, 5.0]
"""
import numpy as np

from ..base import MXNetTypeError, MXNetValueError
from .attrs import Attr
from .infer import InferError, merge_shape, prod
from .registry import OpDef, register

_NO_GRAD = "returns indices (piecewise constant); MXNet gives its input a zero gradient"
_SHAPE_ATTR = {"shape": Attr("shape?", None, doc="Shape of the array the multi-indices apply to; the first "
                                                 "dimension may be -1 (it is not used).")}


def _target_shape(a, arg=0):
    shape = a["shape"]
    if not shape:
        raise InferError(arg, "a non-empty shape attribute", shape, "empty shape parameter")
    return shape


def _strides(shape):
    """Row-major strides of ``shape`` (the first dimension does not enter them)."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return strides[::-1]


# ---- _ravel_multi_index --------------------------------------------------------------------------
def _ravel_infer(a, s):
    shape = _target_shape(a)
    d = s[0]
    if d is None:
        return [None]
    if len(d) != 2:
        raise InferError(0, "a 2-d array of multi-indices (one per column)", tuple(d), "ndim must be 2")
    merge_shape(s, 0, (len(shape), d[1]), f"one row per dimension of shape={shape}")
    return [(s[0][1],)]


def _ravel_compute(ctx, a, data):
    shape = _target_shape(a)
    _ravel_infer(a, [data.shape])
    idx = data.astype(np.int64)
    flat = ctx.xp.zeros(data.shape[1], np.int64)
    for row, stride in enumerate(_strides(shape)):
        flat += idx[row] * stride
    return flat.astype(data.dtype)


register(OpDef("_ravel_multi_index", aliases=("ravel_multi_index",), family="index", attrs=dict(_SHAPE_ATTR),
               compute=_ravel_compute, infer_shape=_ravel_infer, infer_type=lambda a, d: [d[0]],
               zero_grad=True, no_grad_reason=_NO_GRAD,
               doc="Flat (row-major) indices of the multi-indices in the columns of data (shape "
                   "(len(shape), n)) into an array of `shape`: sum of index * stride, unchecked; the first "
                   "dimension may be -1. Indices are truncated to integers; the output keeps data's dtype."))


# ---- _unravel_index ------------------------------------------------------------------------------
def _unravel_infer(a, s):
    shape = _target_shape(a)
    if 0 in shape[1:]:
        raise InferError(0, "dimensions after the first that are not 0", shape,
                         "unravel_index divides by them; MXNet crashes on it")
    d = s[0]
    if d is None:
        return [None]
    if len(d) != 1:
        raise InferError(0, "a 1-d array of flat indices", tuple(d),
                         "MXNet computes nothing meaningful for other shapes")
    return [(len(shape), d[0])]


def _unravel_compute(ctx, a, data):
    xp = ctx.xp
    shape = _target_shape(a)
    _unravel_infer(a, [data.shape])
    rest = data.astype(np.int64)
    rows = [None] * len(shape)
    for i in range(len(shape) - 1, 0, -1):
        rem = xp.fmod(rest, shape[i])           # C remainder: the sign of the dividend
        rows[i] = rem
        rest = (rest - rem) // shape[i]         # exact, so this is C's truncating division
    rows[0] = rest
    return xp.stack(rows).astype(data.dtype)


register(OpDef("_unravel_index", aliases=("unravel_index",), family="index", attrs=dict(_SHAPE_ATTR),
               compute=_unravel_compute, infer_shape=_unravel_infer, infer_type=lambda a, d: [d[0]],
               zero_grad=True, no_grad_reason=_NO_GRAD,
               doc="Multi-indices (one column per flat index of the 1-d data; shape (len(shape), n)) of "
                   "flat row-major indices into an array of `shape`: C remainders and quotients from the last "
                   "dimension to the second, the quotient left in the first row (unchecked; the first "
                   "dimension may be -1). Indices are truncated to integers; the output keeps data's dtype."))


# ---- _npi_unravel_index_fallback (mx.np.unravel_index) ---------------------------------------------
def _np_unravel_infer(a, s):
    shape = _target_shape(a)
    d = s[0]
    return [None if d is None else (len(shape),) + tuple(d)]


def _np_unravel_compute(ctx, a, data):
    xp = ctx.xp
    shape = tuple(_target_shape(a))
    if data.dtype.kind not in "iu":
        raise MXNetTypeError(f"_npi_unravel_index_fallback: indices expected integers, got {data.dtype}")
    flat = data.astype(np.int64)
    size = prod(shape)
    if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= size):
        bad = int(flat.max()) if int(flat.max()) >= size else int(flat.min())
        raise MXNetValueError(f"_npi_unravel_index_fallback: indices expected in [0, {size}) for shape "
                              f"{shape}, got {bad}")
    rows, rest = [], flat
    for d in reversed(shape):
        rows.append(rest % d if d else rest)
        rest = rest // d if d else rest
    return xp.stack(rows[::-1]).astype(data.dtype).reshape((len(shape),) + data.shape)


register(OpDef("_npi_unravel_index_fallback", inputs=("indices",), family="index", hidden=True,
               attrs=dict(_SHAPE_ATTR), compute=_np_unravel_compute, infer_shape=_np_unravel_infer,
               infer_type=lambda a, d: [d[0]], zero_grad=True, no_grad_reason=_NO_GRAD,
               doc="NumPy's unravel_index stacked: the row-major coordinates of the integer indices (any "
                   "shape, each in [0, prod(shape))) into an array of `shape`, as one array of shape "
                   "(len(shape),) + indices.shape in the indices' dtype; mx.np.unravel_index splits it."))


# ---- _npi_diag_indices_from (mx.np.diag_indices_from) --------------------------------------------
def _diag_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) < 2 or len(set(d)) != 1:
        raise InferError(0, "an array of at least 2 dimensions, all of equal length", tuple(d))
    return [(len(d), d[0])]


def _diag_compute(ctx, a, data):
    _diag_infer(a, [data.shape])
    n, k = data.shape[0], data.ndim
    return ctx.xp.broadcast_to(ctx.xp.arange(n, dtype=np.int64), (k, n)).copy()


register(OpDef("_npi_diag_indices_from", inputs=("arr",), family="index", hidden=True,
               compute=_diag_compute, infer_shape=_diag_infer, infer_type=lambda a, d: [np.dtype(np.int64)],
               zero_grad=True, no_grad_reason=_NO_GRAD,
               doc="The indices of the main diagonal of an array whose dimensions are all n: int64 of shape "
                   "(ndim, n), each row 0..n-1; mx.np.diag_indices_from splits it."))


# ---- batch_take ----------------------------------------------------------------------------------
def _batch_take_infer(a, s):
    d, i = s
    if d is None:
        return [None]
    if len(d) < 2:
        raise InferError(0, "an array of at least 2 dimensions", tuple(d), "data must be at least 2-d")
    if i is None:
        return [None]
    rows = prod(d) // d[-1] if d[-1] else prod(d[:-1])
    if prod(i) != rows:
        raise InferError(1, f"indices with {rows} elements (one per row of data flattened to "
                            f"({rows}, {d[-1]}))", tuple(i))
    return [tuple(i)]


def _batch_take_type(a, d):
    if d[1] is None:
        d[1] = np.dtype(np.int32)     # MXNet's index dtype
    return [d[0]]


def _batch_take_compute(ctx, a, data, indices):
    xp = ctx.xp
    _batch_take_infer(a, [data.shape, indices.shape])
    k = data.shape[-1]
    rows = data.reshape(-1, k)
    idx = xp.clip(indices.reshape(-1).astype(np.int64), 0, max(k - 1, 0))
    return rows[xp.arange(rows.shape[0]), idx].reshape(indices.shape)


register(OpDef("batch_take", inputs=("a", "indices"), family="index", compute=_batch_take_compute,
               infer_shape=_batch_take_infer, infer_type=_batch_take_type,
               no_grad_reason="MXNet registers no gradient for batch_take (deprecated; pick has one)",
               doc="out[i] = a[i, indices[i]] with a flattened to (-1, a.shape[-1]) and indices clipped to the "
                   "last axis; the output has indices' shape. Deprecated in MXNet: use pick."))
