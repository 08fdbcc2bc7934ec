"""Op-checker cases for index and sorting ops (index.py, index_sort.py)."""
import numpy as np

from op_checker import Case

I = np.int64


def _take_ref(a, indices, axis=0, mode="clip"):
    if axis is None:
        a, axis = a.reshape(-1), 0
    return np.take(a, indices.astype(np.int64), axis=axis, mode=mode)


def _take_backward_ref(og, indices, data, axis=0, mode="clip"):
    out = np.zeros_like(data)
    idx = np.take(np.arange(data.shape[axis]), indices.astype(np.int64), mode=mode)
    moved = np.moveaxis(out, axis, 0)
    g = np.moveaxis(og.reshape(data.shape[:axis] + (idx.size,) + data.shape[axis + 1:]), axis, 0)
    for k, i in enumerate(idx.reshape(-1)):
        moved[i] += g[k]
    return out


def _pick_ref(data, index, axis=-1, keepdims=False, mode="clip"):
    axis %= data.ndim
    idx = index.astype(np.int64)
    n = data.shape[axis]
    idx = np.clip(idx, 0, n - 1) if mode == "clip" else idx % n
    idx = idx.reshape(data.shape[:axis] + (1,) + data.shape[axis + 1:])
    out = np.take_along_axis(data, idx, axis)
    return out if keepdims else out.squeeze(axis)


def _pick_backward_ref(og, index, data, axis=-1, keepdims=False, mode="clip"):
    axis %= data.ndim
    out = np.zeros_like(data)
    n = data.shape[axis]
    idx = np.clip(index.astype(np.int64), 0, n - 1) if mode == "clip" else index.astype(np.int64) % n
    rest = data.shape[:axis] + data.shape[axis + 1:]      # (index and ograd may keep the axis as 1)
    idx, og = idx.reshape(rest), og.reshape(rest)
    for pos in np.ndindex(*idx.shape):
        full = list(pos)
        full.insert(axis, idx[pos])
        out[tuple(full)] += og[pos]
    return out


def _pick_log_softmax_backward_ref(og, index, data, y, axis=-1, keepdims=False, mode="clip"):
    """``_backward_log_softmax(_backward_pick(og, index, data), y)``: the two ops it fuses."""
    g = _pick_backward_ref(og, index, data, axis, keepdims, mode)
    return g - np.exp(y) * g.sum(axis, keepdims=True)


def _fill_element_ref(lhs, mhs, rhs):
    out = lhs.copy()
    out[np.arange(lhs.shape[0]), rhs.astype(np.int64)] = mhs
    return out


def _one_hot_ref(indices, depth, on_value=1.0, off_value=0.0, dtype="float32"):
    out = np.full(indices.shape + (depth,), off_value)
    for pos in np.ndindex(*indices.shape):
        if 0 <= indices[pos] < depth:
            out[pos + (int(indices[pos]),)] = on_value
    return out.astype(dtype)


def _gather_ref(data, indices):
    out = np.zeros(indices.shape[1:] + data.shape[indices.shape[0]:], data.dtype)
    for pos in np.ndindex(*indices.shape[1:]):
        out[pos] = data[tuple(indices[(slice(None),) + pos])]
    return out


def _scatter_ref(data, indices, shape, accumulate):
    out = np.zeros(shape, data.dtype)
    for pos in np.ndindex(*indices.shape[1:]):
        key = tuple(indices[(slice(None),) + pos])
        out[key] = out[key] + data[pos] if accumulate else data[pos]
    return out


def _topk_ref(x, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    if axis is None:
        flat, ax = x.reshape(-1), 0
    else:
        flat, ax = x, axis % x.ndim
    order = np.argsort(flat if is_ascend else -flat, axis=ax, kind="stable")
    k = k if k >= 1 else flat.shape[ax]
    idx = np.take(order, range(k), axis=ax)
    vals = np.take_along_axis(flat, idx, ax)
    if ret_typ == "mask":
        mask = np.zeros_like(flat)
        np.put_along_axis(mask, idx, 1, ax)
        return mask.reshape(x.shape)
    if ret_typ == "indices":
        return idx.astype(dtype)
    if ret_typ == "value":
        return vals
    return vals, idx.astype(dtype)


def _sort_ref(x, axis=-1, is_ascend=True):
    if axis is None:
        x, axis = x.reshape(-1), 0
    out = np.sort(x, axis=axis)
    return out if is_ascend else np.flip(out, axis)


def _argsort_ref(x, axis=-1, is_ascend=True, dtype="float32"):
    return np.argsort(x if is_ascend else -x, axis=axis, kind="stable").astype(dtype)


def _scatter_along_ref(og, indices, data, axis=-1):
    out = np.zeros(data.size if axis is None else data.shape, data.dtype)
    ax = 0 if axis is None else axis % data.ndim
    for pos in np.ndindex(*indices.shape):
        full = list(pos)
        full[ax] = int(indices[pos])
        out[tuple(full)] += og[pos]
    return out.reshape(data.shape)


def _mask_back(og, index, data, axis=0):
    out = np.zeros_like(data)
    out[index != 0] = og
    return out


CASES = [
    Case("take", [(4, 3), np.array([[0, 2], [3, -1]], I)], ref=_take_ref, name="clip"),
    Case("take", [(4, 3), np.array([5, -1, 1], I)], attrs={"mode": "wrap"}, ref=_take_ref, name="wrap"),
    Case("take", [(4, 3), np.array([2, -1, 2], I)], attrs={"mode": "raise", "axis": 1}, ref=_take_ref, name="raise_axis1"),
    Case("take", [(2, 3), np.array([[4.0, 0.0]], np.float32)], attrs={"axis": None}, grad=(0,), ref=_take_ref,
         name="flat_float_index"),
    Case("_backward_take", [(2, 2, 3), np.array([[0, 2], [0, 3]], I), (4, 3)], grad=(0,), ref=_take_backward_ref),
    Case("_backward_take", [(4, 3), np.array([1, 1, -1], I), (4, 2)], attrs={"axis": 1, "mode": "wrap"}, grad=(0,),
         ref=lambda og, i, d, axis, mode: _take_backward_ref(og, i % 2, d, axis), name="axis1_wrap"),
    Case("pick", [(3, 4), np.array([0, 3, 1], np.float32)], grad=(0,), ref=_pick_ref),
    Case("pick", [(3, 4), np.array([[2], [5], [1]], I)], attrs={"keepdims": True, "mode": "wrap"}, ref=_pick_ref,
         name="keepdims_wrap"),
    Case("pick", [(3, 4), np.array([0, 3, 1], I)], attrs={"keepdims": True}, ref=_pick_ref,
         name="keepdims_with_axis_removed_index"),   # MXNet: loss layers pick (N,C) with (N,) labels
    Case("pick", [(3, 4), np.array([2, 0, 1, 9], I)], attrs={"axis": 0}, ref=_pick_ref, name="axis0_clip"),
    Case("_backward_pick", [(3,), np.array([0, 3, 1], I), (3, 4)], grad=(0,), ref=_pick_backward_ref),
    # softmax cross-entropy's gradient: _backward_log_softmax(_backward_pick(...), output) in one call
    Case("_backward_pick_log_softmax", [(3,), np.array([0, 5, 1], np.float32), (3, 4), (3, 4)], grad=(0, 3),
         ref=_pick_log_softmax_backward_ref),
    Case("_backward_pick_log_softmax", [(3, 1), np.array([[2], [-1], [6]], I), (3, 4), (3, 4)], grad=(0, 3),
         attrs={"keepdims": True, "mode": "wrap"}, ref=_pick_log_softmax_backward_ref, name="keepdims_wrap"),
    Case("_backward_pick_log_softmax", [(2, 3), np.array([[1, 0, 3], [2, 1, 0]], I), (2, 4, 3), (2, 4, 3)],
         grad=(0, 3), attrs={"axis": 1}, ref=_pick_log_softmax_backward_ref, name="axis1"),
    Case("fill_element_0index", [(3, 4), np.array([7.0, 8.0, 9.0], np.float32), np.array([2, 0, 3], np.float32)],
         grad=(), ref=_fill_element_ref),
    Case("one_hot", [np.array([[1, 0], [3, -1]], I)], attrs={"depth": 3}, grad=(), ref=_one_hot_ref),
    Case("one_hot", [np.array([2, 0], I)], attrs={"depth": 4, "on_value": 5.0, "off_value": -1.0, "dtype": "int32"},
         grad=(), ref=_one_hot_ref, name="values_dtype"),
    Case("gather_nd", [(3, 4), np.array([[0, 2, -1], [1, 3, 0]], I)], grad=(0,),
         ref=lambda d, i: _gather_ref(d, np.where(i < 0, i + 3, i))),
    Case("gather_nd", [(3, 2, 2), np.array([[2, 0, 2]], I)], grad=(0,), ref=_gather_ref, name="rows_repeated"),
    Case("_backward_gather_nd", [(3,), np.array([[0, 2, 0], [1, 3, 1]], I)], attrs={"shape": (3, 4)}, grad=(0,),
         ref=lambda d, i, shape: _scatter_ref(d, i, shape, True)),
    Case("_backward_gather_nd", [(2, 3), np.array([[1, 1]], I)], attrs={"shape": (2, 3)}, grad=(0,), name="rows",
         ref=lambda d, i, shape: _scatter_ref(d, i, shape, True)),
    Case("scatter_nd", [(3,), np.array([[0, 2, 1], [1, 3, 0]], I)], attrs={"shape": (3, 4)}, grad=(0,),
         ref=lambda d, i, shape: _scatter_ref(d, i, shape, False)),
    Case("boolean_mask", [(4, 3), np.array([1, 0, 1, 1], np.float32)], grad=(0,),
         ref=lambda d, i: d[i != 0]),
    Case("boolean_mask", [(2, 3), np.array([False, True, True])], attrs={"axis": 1}, grad=(0,),
         ref=lambda d, i, axis: d[:, i], name="axis1"),
    Case("_backward_boolean_mask", [(3, 2), np.array([1, 0, 1, 1], I), (4, 2)], grad=(0,), ref=_mask_back),
    Case("sort", [(3, 4)], ref=_sort_ref),
    Case("sort", [(3, 4)], attrs={"axis": 0, "is_ascend": False}, ref=_sort_ref, name="desc_axis0"),
    Case("sort", [(2, 3)], attrs={"axis": None}, ref=_sort_ref, name="flat"),
    Case("argsort", [(3, 4)], grad=(), ref=_argsort_ref),
    Case("argsort", [np.array([[3, 1, 3, 2]], np.int32)], attrs={"is_ascend": False, "dtype": "int32"}, grad=(),
         ref=_argsort_ref, name="desc_stable_int"),
    Case("topk", [(3, 4)], attrs={"k": 2}, ref=_topk_ref, name="indices"),
    Case("topk", [(3, 4)], attrs={"k": 2, "ret_typ": "value"}, ref=_topk_ref, name="value"),
    Case("topk", [(3, 4)], attrs={"k": 3, "ret_typ": "both", "axis": 0, "is_ascend": True}, ref=_topk_ref,
         name="both_axis0_asc"),
    Case("topk", [(3, 4)], attrs={"k": 2, "ret_typ": "mask"}, ref=_topk_ref, name="mask"),
    Case("topk", [(2, 3)], attrs={"k": 4, "ret_typ": "value", "axis": None}, ref=_topk_ref, name="flat"),
    Case("topk", [(2, 3)], attrs={"k": 0, "ret_typ": "both", "dtype": "int64"}, ref=_topk_ref, name="k0_all"),
    Case("_backward_topk", [(2, 2), np.array([[0, 0], [2, 1]], I), (2, 3)], grad=(0,), ref=_scatter_along_ref),
    Case("_backward_topk", [(3,), np.array([5, 0, 5], I), (2, 3)], attrs={"axis": None}, grad=(0,),
         ref=_scatter_along_ref, name="flat"),
    Case("_take_along_axis", [(2, 3), np.array([[0, 2], [1, 1]], I)], attrs={"axis": 1}, grad=(0,),
         ref=lambda d, i, axis: np.take_along_axis(d, i, 1)),
]
