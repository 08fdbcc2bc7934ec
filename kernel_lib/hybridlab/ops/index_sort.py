"""Sorting operators: sort (values; hidden indices output), argsort, topk (value / indices / mask /
both), with the hidden ``_backward_topk`` (scatter-add along an axis) and ``_take_along_axis``
(gather along an axis), each the other's gradient.

Sorting is stable; descending order keeps equal elements in their original order (as MXNet's
stable sort with a greater-than comparator). axis=None works on the flattened array.
"""
import numpy as np

from .attrs import Attr
from .index import axis_grid, scatter_add_grid
from .infer import InferError, normalize_axis, prod
from .registry import NsName, OpDef, register


def _flat_axis(axis, shape):
    """(shape sorted over, axis): axis None sorts the flattened array."""
    if axis is None:
        return (prod(shape),), 0
    return tuple(shape), normalize_axis(axis, len(shape))


def sorted_indices(xp, x, axis, ascend):
    """Stable argsort along ``axis`` (int64), ascending or descending."""
    if not ascend:
        x = -x.astype(np.int64) if x.dtype.kind in "ub" else -x
    # CuPy's argsort is always stable (and older versions take no `kind`)
    idx = xp.argsort(x, axis=axis, kind="stable") if xp is np else xp.argsort(x, axis=axis)
    return idx.astype(np.int64, copy=False)


# ---- sort / argsort ----------------------------------------------------------------------------
def _sort_compute(ctx, a, x):
    shape, ax = _flat_axis(a["axis"], x.shape)
    xx = x.reshape(shape)
    idx = sorted_indices(ctx.xp, xx, ax, a["is_ascend"])
    return xx[axis_grid(ctx.xp, idx, ax)], idx


def _sort_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None, None]
    shape, _ = _flat_axis(a["axis"], s)
    return [shape, shape]


register(OpDef("sort", family="index", np=NsName("sort", args=("axis",)), num_outputs=2, num_visible=1,
               attrs={"axis": Attr("int?", -1), "is_ascend": Attr("bool", True)},
               compute=_sort_compute, infer_shape=_sort_infer,
               infer_type=lambda a, d: [d[0], np.dtype(np.int64)],
               grad=lambda F, a, ins, outs, og: [F._backward_topk(og[0], outs[1], ins[0], axis=a["axis"])],
               doc="Sorted copy along `axis` (flattened when None); is_ascend=False sorts descending."))


def _argsort_compute(ctx, a, x):
    shape, ax = _flat_axis(a["axis"], x.shape)
    return sorted_indices(ctx.xp, x.reshape(shape), ax, a["is_ascend"]).astype(a["dtype"])


register(OpDef("argsort", family="index", np=NsName("argsort", defaults={"dtype": "int64"}, args=("axis",)),
               attrs={"axis": Attr("int?", -1), "is_ascend": Attr("bool", True),
                      "dtype": Attr("dtype", np.dtype(np.float32))},
               compute=_argsort_compute,
               infer_shape=lambda a, s: [None if s[0] is None else _flat_axis(a["axis"], s[0])[0]],
               infer_type=lambda a, d: [a["dtype"]], no_grad_reason="returns indices (piecewise constant)",
               zero_grad=True,
               doc="Indices that sort along `axis` (stable), in `dtype` (float32 by default, as MXNet)."))


# ---- topk --------------------------------------------------------------------------------------
def _topk_n_out(a):
    return 2 if a["ret_typ"] in ("value", "both") else 1


def _topk_k(a, shape, ax):
    n = shape[ax]
    k = a["k"] if a["k"] >= 1 else n
    if n and k > n:
        raise InferError(0, f"with axis {ax} of at least k={k} elements", tuple(shape))
    return k


def _topk_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None] * _topk_n_out(a)
    shape, ax = _flat_axis(a["axis"], s)
    out = list(shape)
    out[ax] = _topk_k(a, shape, ax)
    out = tuple(out)
    return {"value": [out, out], "both": [out, out], "indices": [out], "mask": [tuple(s)]}[a["ret_typ"]]


def _topk_type(a, d):
    return {"value": [d[0], a["dtype"]], "both": [d[0], a["dtype"]], "indices": [a["dtype"]],
            "mask": [d[0]]}[a["ret_typ"]]


def _topk_compute(ctx, a, x):
    xp = ctx.xp
    shape, ax = _flat_axis(a["axis"], x.shape)
    xx = x.reshape(shape)
    k = _topk_k(a, shape, ax)
    idx = sorted_indices(xp, xx, ax, a["is_ascend"])[(slice(None),) * ax + (slice(0, k),)]
    ret = a["ret_typ"]
    if ret == "mask":
        mask = xp.zeros(shape, x.dtype)
        mask[axis_grid(xp, idx, ax)] = 1
        return mask.reshape(x.shape)
    if ret == "indices":
        return idx.astype(a["dtype"])
    return xx[axis_grid(xp, idx, ax)], idx.astype(a["dtype"])


def _topk_grad(F, a, inputs, outputs, ograds):
    if a["ret_typ"] in ("indices", "mask"):
        return [F.zeros_like(inputs[0])]
    return [F._backward_topk(ograds[0], outputs[1], inputs[0], axis=a["axis"])]


register(OpDef("topk", family="index", npx="topk", num_outputs=_topk_n_out,
               num_visible=lambda a: 2 if a["ret_typ"] == "both" else 1,
               attrs={"axis": Attr("int?", -1), "k": Attr("int", 1),
                      "ret_typ": Attr("enum", "indices", choices=("both", "indices", "mask", "value")),
                      "is_ascend": Attr("bool", False), "dtype": Attr("dtype", np.dtype(np.float32))},
               compute=_topk_compute, infer_shape=_topk_infer, infer_type=_topk_type, grad=_topk_grad,
               doc="The k largest (is_ascend=False) or smallest elements along `axis` (flattened when None; "
                   "k < 1 = all): their values, indices (in `dtype`), a 0/1 mask, or both values and indices."))


# ---- _backward_topk / _take_along_axis ---------------------------------------------------------
def _along_shapes(a, data_shape, idx_shape, arg):
    shape, ax = _flat_axis(a["axis"], data_shape)
    if idx_shape is not None:
        ok = len(idx_shape) == len(shape) and all(i == d or j == ax or not i or not d
                                                  for j, (i, d) in enumerate(zip(idx_shape, shape)))
        if not ok:
            exp = tuple("k" if j == ax else d for j, d in enumerate(shape))
            raise InferError(arg, exp, tuple(idx_shape), f"indices must match the data except along axis {ax}")
    return shape, ax


def _backward_topk_compute(ctx, a, og, idx, data):
    shape, ax = _along_shapes(a, data.shape, idx.shape, 1)
    idx = idx.astype(np.int64, copy=False)
    return scatter_add_grid(ctx.xp, shape, axis_grid(ctx.xp, idx, ax), og.reshape(idx.shape)).reshape(data.shape)


def _backward_topk_infer(a, in_shapes):
    g, i, d = in_shapes
    if d is None:
        return [None]
    _along_shapes(a, d, i, 1)
    return [tuple(d)]


register(OpDef("_backward_topk", inputs=("ograd", "indices", "data"), family="index", hidden=True,
               attrs={"axis": Attr("int?", -1)}, compute=_backward_topk_compute, infer_shape=_backward_topk_infer,
               grad=lambda F, a, ins, outs, og: [F._take_along_axis(og[0], ins[1], axis=a["axis"]), None, None],
               doc="Gradient of sort/topk: ograd scatter-added along `axis` at `indices` into zeros shaped like "
                   "data (flattened when axis is None)."))


def _take_along_compute(ctx, a, data, idx):
    shape, ax = _along_shapes(a, data.shape, idx.shape, 1)
    return data.reshape(shape)[axis_grid(ctx.xp, idx.astype(np.int64, copy=False), ax)]


def _take_along_infer(a, in_shapes):
    d, i = in_shapes
    if d is None or i is None:
        return [None]
    _along_shapes(a, d, i, 1)
    return [tuple(i)]


register(OpDef("_take_along_axis", inputs=("data", "indices"), family="index", hidden=True,
               attrs={"axis": Attr("int?", -1)}, compute=_take_along_compute, infer_shape=_take_along_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_topk(og[0], ins[1], ins[0], axis=a["axis"]), None],
               doc="Elements of data at `indices` along `axis` (NumPy's take_along_axis; flattened when None)."))
