"""Binning values against sorted edges: MXNet's ``_histogram`` (alias ``_npi_histogram``; the
``mx.nd.histogram`` / ``mx.sym.histogram`` / ``mx.np.histogram`` wrappers call it) and
``_npi_searchsorted`` (``mx.np.searchsorted``) and ``_npi_bincount`` (``mx.np.bincount``: one bin per
non-negative integer, a dynamic output shape).

``_histogram`` has two forms, as in MXNet: with ``bin_cnt`` and ``range`` (both or neither) it takes
the data alone and makes ``bin_cnt`` equal bins over ``range`` (``(lo - 0.5, hi + 0.5)`` when
``lo == hi``); without them it takes a second input, the bin edges (increasing). Its outputs are the
counts (int64) and the edges (in the data's dtype, or the given edges). Every bin is half-open but
the last, which holds its right edge; values outside the edges (NaN included) are not counted.
Equal bins follow MXNet to the last count: edge ``i`` is ``(lo * (n - i) + hi * i) / n`` in float64
cast to the data's dtype, a value is in range when ``lo <= value <= hi`` in float64, and its bin is
``floor((value - lo) / (hi - lo) * n)`` moved by one where the value lies below that bin's edge or
on or above the next one (so integer data with fractional ranges bins as MXNet does).

Example::

    >>> import hybridlab as mx
    >>> counts, edges = mx.nd.histogram(mx.nd.array([0, 1, 2, 2.5, 5, 6]), bins=5, range=(0, 5))
    >>> counts.asnumpy().tolist(), edges.asnumpy().tolist()
    ([1, 1, 2, 0, 1], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    >>> mx.np.searchsorted(mx.np.array([1.0, 2.0, 3.0]), mx.np.array([2.0, 9.0]), side='right').tolist()
    [2, 3]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

_I64 = np.dtype(np.int64)


# ---- _histogram ----------------------------------------------------------------------------------
def _uniform(a):
    """(bin count, lo, hi) of the equal-bins form, or ``None`` for the bin-edges form."""
    cnt, rng = a["bin_cnt"], a["range"]
    if (cnt is None) != (rng is None):
        raise MXNetError("_histogram: bin_cnt and range expected both or neither, got "
                         f"bin_cnt={cnt!r}, range={rng!r}")
    if cnt is None:
        return None
    if len(rng) != 2:
        raise MXNetError(f"_histogram: range expected (lo, hi), got {rng!r}")
    lo, hi = float(rng[0]), float(rng[1])
    if not lo <= hi:
        raise MXNetError(f"_histogram: range expected lo <= hi, got {rng!r}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return cnt, lo, hi


def _hist_inputs(a):
    return ("data",) if a["bin_cnt"] is not None else ("data", "bins")


def _hist_infer(a, s):
    uniform = _uniform(a)
    if uniform is not None:
        return [(uniform[0],), (uniform[0] + 1,)]
    b = s[1]
    if b is None:
        return [None, None]
    if len(b) != 1 or b[0] < 1:
        raise InferError(1, "a 1-d array of at least one bin edge", tuple(b))
    return [(b[0] - 1,), tuple(b)]


def _hist_type(a, d):
    return [_I64, d[0] if a["bin_cnt"] is not None else d[1]]


def _uniform_edges(xp, cnt, lo, hi, dtype):
    i = np.arange(cnt + 1, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        edges = (lo * (cnt - i) + hi * i) / cnt if cnt else np.full(1, np.nan)
        return xp.asarray(edges.astype(dtype))


def _hist_compute(ctx, a, data, bins=None):
    xp = ctx.xp
    x = data.reshape(-1)
    uniform = _uniform(a)
    if uniform is not None:
        cnt, lo, hi = uniform
        edges = _uniform_edges(xp, cnt, lo, hi, data.dtype)
        if cnt == 0:
            return xp.zeros(0, _I64), edges
        xd = x.astype(np.float64)
        inside = (xd >= lo) & (xd <= hi)
        xd, x = xd[inside], x[inside]
        guess = xp.clip(xp.floor((xd - lo) / (hi - lo) * cnt), 0, cnt - 1).astype(np.int64)
        below = x < edges[guess]
        above = (guess + 1 < cnt) & (x >= edges[xp.minimum(guess + 1, cnt)]) & ~below
        b = guess - below.astype(np.int64) + above.astype(np.int64)
        b = xp.clip(b, 0, cnt - 1)
        out_edges = edges
    else:
        _hist_infer(a, [data.shape, bins.shape])
        cnt = bins.shape[0] - 1
        out_edges = bins.copy()
        if cnt == 0:
            return xp.zeros(0, _I64), out_edges
        inside = (x >= bins[0]) & (x <= bins[-1])
        b = xp.clip(xp.searchsorted(bins, x[inside], side="right") - 1, 0, cnt - 1)
    if b.size == 0:
        return xp.zeros(cnt, _I64), out_edges
    counts = xp.bincount(b.reshape(-1), minlength=cnt)[:cnt].astype(np.int64)
    return counts, out_edges


register(OpDef("_histogram", aliases=("_npi_histogram",), family="index", inputs=_hist_inputs,
               all_inputs=("data", "bins"), num_outputs=2,
               attrs={"bin_cnt": Attr("int?", None, doc="Number of equal bins (with range)."),
                      "range": Attr("floats?", None, doc="(lo, hi) of the equal bins (with bin_cnt).")},
               bounds={"bin_cnt": (0, None)},
               compute=_hist_compute, infer_shape=_hist_infer, infer_type=_hist_type,
               no_grad_reason="counts are piecewise constant; MXNet registers no gradient",
               doc="Histogram of data (flattened): counts (int64) and bin edges. With bin_cnt and range: "
                   "bin_cnt equal bins over range, edges in data's dtype; else the bins input holds the "
                   "increasing edges. Bins are half-open but the last; values outside are not counted."))


# ---- _npi_searchsorted ---------------------------------------------------------------------------
def _search_infer(a, s):
    sa, v = s
    if sa is not None and len(sa) != 1:
        raise InferError(0, "a 1-d sorted array", tuple(sa))
    return [None if v is None else tuple(v)]


def _search_compute(ctx, a, sorted_a, v):
    _search_infer(a, [sorted_a.shape, v.shape])
    return ctx.xp.searchsorted(sorted_a, v, side=a["side"]).astype(np.int64)


register(OpDef("_npi_searchsorted", inputs=("a", "v"), family="index", hidden=True,
               attrs={"side": Attr("enum", "left", choices=("left", "right"))},
               compute=_search_compute, infer_shape=_search_infer, infer_type=lambda a, d: [_I64],
               zero_grad=True, no_grad_reason="returns indices (piecewise constant)",
               doc="Indices (int64, v's shape) where the values v would be inserted into the sorted 1-d "
                   "array a to keep it sorted: before equal elements (side='left') or after them ('right'). "
                   "mx.np.searchsorted calls it (a sorter is applied first)."))


# ---- _npi_bincount -------------------------------------------------------------------------------
def _bincount_inputs(a):
    return ("data", "weights") if a["has_weights"] else ("data",)


def _bincount_infer(a, s):
    d = s[0]
    if d is not None and len(d) > 1:
        raise InferError(0, "a 1-d array of non-negative integers", tuple(d), "Input only accept 1d array")
    if a["has_weights"] and d is not None and s[1] is not None and tuple(s[1]) != tuple(d):
        raise InferError(1, f"weights of the data's shape {tuple(d)}", tuple(s[1]))
    return [None]                                   # the length is the largest value + 1: known by computing


def _bincount_compute(ctx, a, data, weights=None):
    xp = ctx.xp
    _bincount_infer(a, [data.shape] + ([weights.shape] if weights is not None else []))
    if data.dtype.kind not in "iu":
        raise MXNetError(f"_npi_bincount: data expected an integer dtype, got {data.dtype}")
    dtype = data.dtype if weights is None else weights.dtype
    x = data.reshape(-1).astype(np.int64)
    if x.size == 0:
        return xp.zeros(a["minlength"], dtype)
    if int(x.min()) < 0:
        raise MXNetError(f"_npi_bincount: data expected non-negative integers, got {int(x.min())}")
    w = None if weights is None else weights.reshape(-1).astype(np.float64)
    return xp.bincount(x, weights=w, minlength=a["minlength"]).astype(dtype)


register(OpDef("_npi_bincount", inputs=_bincount_inputs, all_inputs=("data", "weights"), family="index",
               hidden=True, dynamic_shape=True,
               attrs={"minlength": Attr("int", 0, doc="The least number of bins of the output."),
                      "has_weights": Attr("bool", False, doc="Whether a weights input is given.")},
               bounds={"minlength": (0, None)},
               compute=_bincount_compute, infer_shape=_bincount_infer,
               infer_type=lambda a, d: [d[1] if a["has_weights"] else d[0]],
               zero_grad=True, no_grad_reason="counts are piecewise constant; MXNet registers no gradient",
               doc="Occurrences (or summed weights) of each non-negative integer of the 1-d data: length "
                   "max(data) + 1, at least minlength (the output shape depends on the values); the dtype of "
                   "the data, or of the weights when given. mx.np.bincount calls it."))

