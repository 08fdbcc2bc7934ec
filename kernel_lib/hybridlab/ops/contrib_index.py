"""MXNet's contrib index operators ``_contrib_index_copy`` and ``_contrib_index_array``
(``mx.nd.contrib.index_copy`` / ``index_array``).

* ``index_copy(old_tensor, index_vector, new_tensor)``: a copy of ``old_tensor`` whose rows
  ``index_vector[i]`` are replaced by the rows ``new_tensor[i]`` (the rows of the first axis; the other
  axes of both tensors agree, and ``new_tensor`` has one row per index). With a repeated index the
  last row copied wins. Gradients: ``old_tensor`` gets the head gradient with the copied-over rows
  zeroed, ``new_tensor`` the head gradient's rows ``index_vector[i]`` (as MXNet, also for a repeated
  index); the index has none. Indices outside ``[0, rows)`` are refused (MXNet writes out of bounds).
* ``index_array(data, axes=None)``: the index of every element of ``data``: for shape
  ``(d_1, ..., d_n)`` an int64 array of shape ``(d_1, ..., d_n, n)`` with ``idx[i_1, ..., i_n, :] =
  [i_1, ..., i_n]``; with ``axes`` only those components, in that order (an axis wraps modulo n, as
  in MXNet, so negative axes count from the end). Its inputs' gradient is zero.

Example::

    >>> import hybridlab as mx
    >>> x, t = mx.nd.zeros((4, 2)), mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    >>> mx.nd.contrib.index_copy(x, mx.nd.array([3, 0], dtype="int64"), t).asnumpy().tolist()
    [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    >>> mx.nd.contrib.index_array(mx.nd.ones((2, 2))).asnumpy().tolist()
    [[[0, 0], [0, 1]], [[1, 0], [1, 1]]]
    >>> mx.nd.contrib.index_array(mx.nd.ones((2, 3)), axes=(-1,)).asnumpy()[..., 0].tolist()
    [[0, 1, 2], [0, 1, 2]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []


# ---- index_copy ---------------------------------------------------------------------------------
def _index_copy_infer(a, s):
    old, idx, new = s
    if idx is not None and len(idx) != 1:
        raise InferError(1, "a vector (1-d index_vector)", tuple(idx))
    if old is not None and new is not None:
        if len(old) != len(new):
            raise InferError(2, f"a tensor with {len(old)} dimensions (as old_tensor)", tuple(new))
        if not old:
            raise InferError(0, "a tensor with at least one dimension", tuple(old))
        if old[0] and new[0] and new[0] > old[0]:
            raise InferError(2, f"at most {old[0]} rows (old_tensor's first dimension)", tuple(new))
        if any(o and n and o != n for o, n in zip(old[1:], new[1:])):
            raise InferError(2, f"the dimensions of old_tensor after the first, {tuple(old[1:])}", tuple(new))
    if idx is not None and new is not None and new and idx[0] and new[0] and idx[0] != new[0]:
        raise InferError(2, f"{idx[0]} rows (one per index)", tuple(new))
    return [None if old is None else tuple(old)]


def _index_copy_compute(ctx, a, old, idx, new):
    _index_copy_infer(a, [old.shape, idx.shape, new.shape])
    xp = ctx.xp
    rows = idx.astype(np.int64)
    if rows.size and (int(rows.min()) < 0 or int(rows.max()) >= old.shape[0]):
        raise MXNetError(f"_contrib_index_copy: index_vector expected values in [0, {old.shape[0]}) (rows of "
                         f"old_tensor), got values in [{int(rows.min())}, {int(rows.max())}]")
    out = old.copy()
    # with a repeated index the last row wins: copy each index's last row only
    last = rows.size - 1 - xp.unique(rows[::-1], return_index=True)[1]
    out[rows[last]] = new[last].astype(old.dtype, copy=False)
    return out


def _index_copy_grad(F, a, ins, outs, og):
    g, idx, new = og[0], ins[1], ins[2]
    return [F._contrib_index_copy(g, idx, F.zeros_like(new)), None, F.take(g, idx, axis=0)]


register(OpDef(
    "_contrib_index_copy", family="index", inputs=("old_tensor", "index_vector", "new_tensor"),
    compute=_index_copy_compute, infer_shape=_index_copy_infer,
    infer_type=lambda a, d: [d[0]], grad=_index_copy_grad,
    doc="A copy of old_tensor with row index_vector[i] replaced by new_tensor[i] for every i."))


# ---- index_array --------------------------------------------------------------------------------
def _axes(a, ndim):
    axes = a["axes"]
    if axes is None:
        return tuple(range(ndim))
    if axes and not ndim:
        raise InferError(0, f"an input with at least one dimension (axes={axes})", "ndim 0")
    return tuple(((ax % ndim) + ndim) % ndim for ax in axes)


def _index_array_infer(a, s):
    if s[0] is None:
        return [None]
    return [tuple(s[0]) + (len(_axes(a, len(s[0]))),)]


def _index_array_compute(ctx, a, x):
    xp = ctx.xp
    axes = _axes(a, x.ndim)
    grid = xp.indices(x.shape, dtype=np.int64) if x.ndim else xp.zeros((0,), np.int64)
    if not axes:
        return xp.zeros(x.shape + (0,), np.int64)
    return xp.stack([grid[ax] for ax in axes], axis=-1)


register(OpDef(
    "_contrib_index_array", family="index",
    attrs={"axes": Attr("shape?", None, doc="The axes to include in the index array; negative values count "
                                            "from the end. None: all axes.")},
    compute=_index_array_compute, infer_shape=_index_array_infer,
    infer_type=lambda a, d: [np.dtype(np.int64)], zero_grad=True,
    no_grad_reason="integer indices; MXNet gives the input a zero gradient",
    doc="The int64 index of every element of data: shape data.shape + (n,), idx[i_1..i_n] = [i_1..i_n] "
        "(with axes, only those components)."))
