"""Index operators: take, pick, one_hot, gather_nd, scatter_nd, boolean_mask, and their hidden
backward ops (``_backward_take``, ``_backward_pick``, ``_backward_gather_nd``,
``_backward_boolean_mask``). Sorting ops (sort, argsort, topk) are in ``index_sort.py``.

Every gather has a scatter-add ``_backward_*`` op as its gradient, and the gradient of that op is
the gather again, so gradients of any order are recorded with registered ops. Scatter-adds are
xp-generic (``bincount`` with weights), so repeated indices accumulate on CPU and GPU alike.
Index inputs may be float (MXNet's default dtype); they are truncated to integers.
"""
import functools

import numpy as np

from ..base import MXNetError, MXNetIndexError
from .attrs import Attr
from .infer import InferError, merge_shape, normalize_axis, prod
from .registry import NsName, OpDef, register

_NO_INDEX_GRAD = "index inputs are integers (no gradient)"


def normalize_index(xp, idx, n, mode, op="take"):
    """Integer indices into an axis of size ``n``: ``clip`` to the range, ``wrap`` modulo n, or
    ``raise`` (negative indices count from the end; out of range is an MXNetIndexError)."""
    idx = idx.astype(np.int64, copy=False)
    if mode == "clip":     # (two ufuncs: xp.clip's Python wrapper costs more than the work on a batch)
        return xp.minimum(xp.maximum(idx, 0), max(n - 1, 0))
    if mode == "wrap":
        return xp.mod(idx, n) if n else idx
    bad = (idx < -n) | (idx >= n)
    if idx.size and bool(bad.any()):
        first = int(idx[bad].reshape(-1)[0])
        raise MXNetIndexError(f"{op}: index {first} is out of bounds for an axis of size {n} "
                         f"(expected indices in [{-n}, {n}))")
    return xp.where(idx < 0, idx + n, idx)


def axis_grid(xp, idx, axis):
    """Fancy-index tuple selecting ``idx`` along ``axis`` (``idx`` has the data's other dims)."""
    if xp is np:      # the other axes' ranges depend on the shape only (a loss picks from the same batch shape)
        grid = list(_host_ranges(idx.shape, axis))
    else:
        grid = [xp.arange(n).reshape((1,) * d + (n,) + (1,) * (idx.ndim - d - 1)) for d, n in enumerate(idx.shape)]
    grid[axis] = idx
    return tuple(grid)


@functools.lru_cache(maxsize=256)
def _host_ranges(shape, axis):
    """Read-only NumPy ranges of every axis of ``shape`` but ``axis`` (``None`` there), each shaped to
    broadcast along its own axis."""
    grid = []
    for d, n in enumerate(shape):
        r = None
        if d != axis:
            r = np.arange(n).reshape((1,) * d + (n,) + (1,) * (len(shape) - d - 1))
            r.flags.writeable = False
        grid.append(r)
    return tuple(grid)


def scatter_add_grid(xp, shape, grid, vals):
    """Zeros of ``shape`` plus ``vals`` added at the positions ``grid`` (a fancy-index tuple that
    broadcasts to ``vals.shape``); repeated positions accumulate."""
    lin, stride = 0, 1
    for g, n in zip(reversed(grid), reversed(shape)):
        lin = lin + g * stride
        stride *= n
    lin = xp.broadcast_to(xp.asarray(lin, dtype=np.int64), vals.shape).reshape(-1)
    out = xp.bincount(lin, weights=vals.reshape(-1).astype(np.float64), minlength=prod(shape))
    return out[:prod(shape)].reshape(shape).astype(vals.dtype)


def _need(cond, arg, expected, got, why=""):
    if not cond:
        raise InferError(arg, expected, got, why)


# ---- take --------------------------------------------------------------------------------------
_MODES = ("clip", "wrap", "raise")


def _take_axis(a, shape):
    """(data shape as taken, axis): axis None takes from the flattened data."""
    if a["axis"] is None:
        return (prod(shape),), 0
    return tuple(shape), normalize_axis(a["axis"], len(shape))


def _take_infer(a, in_shapes):
    d, i = in_shapes[:2]
    if d is None or i is None:
        return [None]
    d, ax = _take_axis(a, d)
    return [d[:ax] + tuple(i) + d[ax + 1:]]


def _take_compute(ctx, a, data, idx):
    shape, ax = _take_axis(a, data.shape)
    idx = normalize_index(ctx.xp, idx, shape[ax], a["mode"], "take")
    return ctx.xp.take(data.reshape(shape), idx, axis=ax)


def _take_kw(a):
    return {"axis": a["axis"], "mode": a["mode"]}


_TAKE_ATTRS = {"axis": Attr("int?", 0, doc="None takes from the flattened array"),
               "mode": Attr("enum", "clip", choices=_MODES)}
register(OpDef("take", inputs=("a", "indices"), family="index", attrs=dict(_TAKE_ATTRS),
               np=NsName("take", defaults={"axis": None, "mode": "raise"}, args=("axis", "mode")),
               compute=_take_compute, infer_shape=_take_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_take(og[0], ins[1], ins[0], **_take_kw(a)), None],
               doc="Elements of `a` at `indices` along `axis`: out shape a.shape[:axis] + indices.shape + "
                   "a.shape[axis+1:]. mode: clip to the range, wrap around, or raise (negatives count from "
                   "the end)."))


def _backward_take_compute(ctx, a, og, idx, data):
    xp = ctx.xp
    shape, ax = _take_axis(a, data.shape)
    n = shape[ax]
    idx = normalize_index(xp, idx, n, a["mode"], "take").reshape(-1)
    pre, post = prod(shape[:ax]), prod(shape[ax + 1:])
    g = og.reshape(pre, idx.size, post)
    grid = (xp.arange(pre).reshape(-1, 1, 1), idx.reshape(1, -1, 1), xp.arange(post).reshape(1, 1, -1))
    return scatter_add_grid(xp, (pre, n, post), grid, g).reshape(data.shape)


def _backward_take_infer(a, in_shapes):
    g, i, d = in_shapes
    if d is None:
        return [None]
    if i is not None:
        merge_shape(in_shapes, 0, _take_infer(a, [d, i])[0], "the gradient must have take's output shape")
    return [tuple(d)]


register(OpDef("_backward_take", inputs=("ograd", "indices", "data"), family="index", hidden=True,
               attrs=dict(_TAKE_ATTRS), compute=_backward_take_compute, infer_shape=_backward_take_infer,
               grad=lambda F, a, ins, outs, og: [F.take(og[0], ins[1], **_take_kw(a)), None, None],
               doc="Gradient of take: ograd scatter-added into zeros shaped like data (repeats accumulate)."))


# ---- pick --------------------------------------------------------------------------------------
def _pick_shapes(a, d):
    """(the picked axis, the index's shape with that axis kept as 1, the output's shape) for data of
    shape ``d`` (cached: every pick of a loss asks for the same batch shape)."""
    if a["axis"] is None:
        raise InferError(0, "an integer axis", "axis=None", "pick with axis=None is not supported")
    return _pick_geometry(a["axis"], a["keepdims"], tuple(d))


@functools.lru_cache(maxsize=256)
def _pick_geometry(axis, keepdims, d):
    ax = normalize_axis(axis, len(d))
    keep = d[:ax] + (1,) + d[ax + 1:]
    return ax, keep, (keep if keepdims else d[:ax] + d[ax + 1:])


def _pick_infer(a, in_shapes):
    d, i = in_shapes[:2]
    if d is None:
        return [None]
    ax, keep, out = _pick_shapes(a, d)
    removed = tuple(n for k, n in enumerate(d) if k != ax)
    if i is not None and len(i) == len(keep) and len(keep) == len(d):   # the kept axis, of size 1
        merge_shape(in_shapes, 1, keep, "index must have data's shape without the picked axis (or with it as 1)")
    else:                                                                # MXNet: the axis removed
        merge_shape(in_shapes, 1, removed, "index must have data's shape without the picked axis")
    return [out]


def _pick_compute(ctx, a, x, idx):
    ax, keep, out = _pick_shapes(a, x.shape)
    idx = normalize_index(ctx.xp, idx, x.shape[ax], a["mode"], "pick").reshape(keep)
    return x[axis_grid(ctx.xp, idx, ax)].reshape(out)


def _pick_kw(a):
    return {"axis": a["axis"], "keepdims": a["keepdims"], "mode": a["mode"]}


_PICK_ATTRS = {"axis": Attr("int?", -1), "keepdims": Attr("bool", False),
               "mode": Attr("enum", "clip", choices=("clip", "wrap"))}
register(OpDef("pick", inputs=("data", "index"), family="index", npx="pick", attrs=dict(_PICK_ATTRS),
               aliases=("choose_element_0index",),
               compute=_pick_compute, infer_shape=_pick_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_pick(og[0], ins[1], ins[0], **_pick_kw(a)), None],
               doc="One element per position along `axis`, chosen by `index` (shape of the output)."))


def _backward_pick_compute(ctx, a, og, idx, data):
    xp = ctx.xp
    ax, keep, out = _pick_shapes(a, data.shape)
    idx = normalize_index(xp, idx, data.shape[ax], a["mode"], "pick").reshape(keep)
    # pick reads one element per position of the other axes: the positions are distinct, so the
    # gradient is placed, not accumulated (what a scatter-add of distinct positions gives)
    res = xp.zeros(data.shape, dtype=og.dtype)
    res[axis_grid(xp, idx, ax)] = og.reshape(keep)
    return res


register(OpDef("_backward_pick", inputs=("ograd", "index", "data"), family="index", hidden=True,
               attrs=dict(_PICK_ATTRS), compute=_backward_pick_compute,
               infer_shape=lambda a, s: [None if s[2] is None else tuple(s[2])],
               grad=lambda F, a, ins, outs, og: [F.pick(og[0], ins[1], **_pick_kw(a)), None, None],
               doc="Gradient of pick: ograd placed at the picked positions of zeros shaped like data."))


# ---- fill_element_0index (MXNet 1.x legacy op) ------------------------------------------------
def _fill_element_compute(ctx, a, lhs, mhs, rhs):
    xp = ctx.xp
    out = lhs.copy()
    cols = rhs.astype(np.int64)
    rows = xp.arange(lhs.shape[0])
    ok = (cols >= 0) & (cols < lhs.shape[1])          # MXNet writes nothing for out-of-range columns
    out[rows[ok], cols[ok]] = mhs[ok].astype(lhs.dtype)
    return out


def _fill_element_infer(a, in_shapes):
    lhs = in_shapes[0]
    if lhs is None:
        return [None]
    if len(lhs) != 2:
        raise InferError(0, "a 2-d array", tuple(lhs))
    merge_shape(in_shapes, 1, (lhs[0],), "one value per row of lhs")
    merge_shape(in_shapes, 2, (lhs[0],), "one column index per row of lhs")
    return [tuple(lhs)]


register(OpDef("fill_element_0index", inputs=("lhs", "mhs", "rhs"), family="index",
               compute=_fill_element_compute, infer_shape=_fill_element_infer,
               no_grad_reason="MXNet registers no gradient for fill_element_0index",
               doc="A copy of the 2-d `lhs` with out[i, rhs[i]] = mhs[i] in each row i (0-based column indices; "
                   "out-of-range columns leave the row unchanged)."))


# ---- one_hot -----------------------------------------------------------------------------------
def _one_hot_compute(ctx, a, idx):
    xp = ctx.xp
    hot = idx.astype(np.int64)[..., None] == xp.arange(a["depth"])
    return xp.where(hot, a["on_value"], a["off_value"]).astype(a["dtype"])


register(OpDef("one_hot", inputs=("indices",), family="index", npx="one_hot",
               attrs={"depth": Attr("int"), "on_value": Attr("float", 1.0), "off_value": Attr("float", 0.0),
                      "dtype": Attr("dtype", np.dtype(np.float32))},
               compute=_one_hot_compute, infer_type=lambda a, d: [a["dtype"]],
               infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0]) + (a["depth"],)],
               no_grad_reason=_NO_INDEX_GRAD, zero_grad=True,
               doc="One-hot encoding: out[..., j] = on_value where indices == j, else off_value "
                   "(out-of-range indices give all off_value)."))


# ---- gather_nd / scatter_nd --------------------------------------------------------------------
def _gather_out(d, i, arg=1):
    _need(len(i) >= 1 and i[0] <= len(d), arg, f"indices of shape (M, ...) with M <= {len(d)}", tuple(i))
    return tuple(i[1:]) + tuple(d[i[0]:])


def _nd_index(xp, idx, shape, op):
    idx = idx.astype(np.int64, copy=False)
    return tuple(normalize_index(xp, idx[k], shape[k], "raise", op) for k in range(idx.shape[0]))


def _gather_infer(a, in_shapes):
    d, i = in_shapes
    return [None if d is None or i is None else _gather_out(d, i)]


register(OpDef("gather_nd", inputs=("data", "indices"), family="index", npx="gather_nd",
               compute=lambda ctx, a, data, idx: data[_nd_index(ctx.xp, idx, data.shape, "gather_nd")].copy(),
               infer_shape=_gather_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_gather_nd(og[0], ins[1], shape=ins[0].shape), None],
               doc="data[indices[0], ..., indices[M-1]]: indices of shape (M, Y...) give shape "
                   "Y + data.shape[M:] (negative indices count from the end)."))


def _scatter_compute(ctx, a, data, idx, accumulate):
    xp, shape = ctx.xp, tuple(a["shape"])
    m = idx.shape[0]
    grid = _nd_index(xp, idx, shape, "scatter_nd")
    if not accumulate:
        out = xp.zeros(shape, data.dtype)
        out[grid] = data
        return out
    inner = prod(shape[m:])
    grid = tuple(g[..., None] for g in grid) + (xp.arange(inner),)
    return scatter_add_grid(xp, shape[:m] + (inner,), grid, data.reshape(idx.shape[1:] + (inner,))).reshape(shape)


def _scatter_infer(a, in_shapes):
    d, i = in_shapes
    shape = tuple(a["shape"])
    if i is not None:
        merge_shape(in_shapes, 0, _gather_out(shape, i, arg=1), "data must have shape indices.shape[1:] + "
                                                                  "shape[M:]")
    return [shape]


for _name, _acc, _hidden, _doc in (
        ("scatter_nd", False, False, "Zeros of `shape` with data written at indices (the inverse of gather_nd; "
                                     "with repeated indices one write wins)."),
        ("_backward_gather_nd", True, True, "Gradient of gather_nd: data scatter-added into zeros of `shape` "
                                            "(repeated indices accumulate).")):
    register(OpDef(_name, inputs=("data", "indices"), family="index", hidden=_hidden,
                   attrs={"shape": Attr("shape")}, compute=(lambda acc: lambda ctx, a, d, i: _scatter_compute(
                       ctx, a, d, i, acc))(_acc), infer_shape=_scatter_infer,
                   grad=lambda F, a, ins, outs, og: [F.gather_nd(og[0], ins[1]), None], doc=_doc))


# ---- boolean_mask ------------------------------------------------------------------------------
def _mask_check(a, d, i):
    ax = normalize_axis(a["axis"], len(d))
    if i is not None:
        _need(len(i) == 1 and (not d[ax] or not i[0] or i[0] == d[ax]), 1, (d[ax],), tuple(i),
              f"index must be 1-D with the length of data's axis {ax}")
    return ax


def _mask_compute(ctx, a, data, index):
    ax = _mask_check(a, data.shape, index.shape)
    return ctx.xp.compress(index.astype(bool), data, axis=ax)


def _mask_infer(a, in_shapes):
    if in_shapes[0] is not None:
        _mask_check(a, in_shapes[0], in_shapes[1])
    return [None]


register(OpDef("boolean_mask", aliases=("_contrib_boolean_mask",), inputs=("data", "index"), family="index",
               npx="boolean_mask", attrs={"axis": Attr("int", 0)}, dynamic_shape=True,
               compute=_mask_compute, infer_shape=_mask_infer,
               grad=lambda F, a, ins, outs, og: [F._backward_boolean_mask(og[0], ins[1], ins[0], axis=a["axis"]),
                                                 None],
               doc="The slices of data along `axis` where index is nonzero (output shape depends on the values)."))


def _backward_mask_compute(ctx, a, og, index, data):
    ax = _mask_check(a, data.shape, index.shape)
    out = ctx.xp.zeros(data.shape, og.dtype)
    out[(slice(None),) * ax + (index.astype(bool),)] = og
    return out


register(OpDef("_backward_boolean_mask", inputs=("ograd", "index", "data"), family="index", hidden=True,
               attrs={"axis": Attr("int", 0)}, compute=_backward_mask_compute,
               infer_shape=lambda a, s: [None if s[2] is None else tuple(s[2])],
               grad=lambda F, a, ins, outs, og: [F.boolean_mask(og[0], ins[1], axis=a["axis"]), None, None],
               doc="Gradient of boolean_mask: ograd placed at the kept slices of zeros shaped like data."))
