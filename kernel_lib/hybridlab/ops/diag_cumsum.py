"""Diagonals and cumulative sums: ``diag`` (MXNet 1.x), ``_np_diag`` / ``_np_diagonal`` (``mx.np.diag``,
``mx.np.diagonal``), the hidden ``_diag_scatter`` (their gradient) and ``_np_cumsum`` (``mx.np.cumsum``,
also ``mx.nd.cumsum`` as in MXNet 1.9.1).

* ``diag(data, k=0, axis1=0, axis2=1)``: a 1-D input builds the (n+|k|, n+|k|) matrix with the input on
  diagonal ``k``; an N-D input (N >= 2) extracts diagonal ``k`` of the planes (axis1, axis2), appended
  as the last axis (``numpy.diagonal``). MXNet raises when the diagonal does not exist.
* ``np.diag(a, k)`` takes 1-D or 2-D input; ``np.diagonal(a, offset, axis1, axis2)`` at least 2-D; both
  give an empty result for an offset out of range, as NumPy.
* ``np.cumsum(a, axis=None, dtype=None)``: ``axis=None`` sums the flattened array; the dtype defaults
  to the input's (booleans give int64), as MXNet 1.9.1 (which, unlike NumPy, keeps int8/int32).

Example::

    >>> import hybridlab as mx
    >>> mx.nd.diag(mx.nd.array([1.0, 2.0]), k=1).asnumpy().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    >>> mx.np.diagonal(mx.np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [1.0, 4.0]
    >>> mx.np.cumsum(mx.np.array([[1, 2], [3, 4]], dtype='int32'), axis=1).tolist()
    [[1, 3], [3, 7]]
"""
import numpy as onp

from .attrs import Attr
from .infer import InferError, normalize_axis
from .registry import NsName, OpDef, register

__all__ = []


def _diag_axes(ndim, axis1, axis2):
    x1, x2 = normalize_axis(axis1, ndim), normalize_axis(axis2, ndim, 0)
    if x1 == x2:
        raise InferError(0, f"axis1 and axis2 naming different axes (got axis1={axis1}, axis2={axis2})",
                         f"ndim {ndim}")
    return x1, x2


def _diag_len(h, w, k):
    return min(h + min(k, 0), w - max(k, 0))


def _extract_shape(d, k, axis1, axis2, strict):
    x1, x2 = _diag_axes(len(d), axis1, axis2)
    n = _diag_len(d[x1], d[x2], k)
    if n < 0 and strict:
        raise InferError(0, f"a diagonal k={k} that exists in planes of size ({d[x1]}, {d[x2]}) "
                            f"(k in [{-d[x1]}, {d[x2]}])", tuple(d), "Diagonal does not exist")
    return tuple(s for i, s in enumerate(d) if i not in (x1, x2)) + (max(n, 0),)


def _extract(xp, x, k, axis1, axis2):
    x1, x2 = _diag_axes(x.ndim, axis1, axis2)
    if _diag_len(x.shape[x1], x.shape[x2], k) <= 0:
        return xp.zeros(_extract_shape(x.shape, k, axis1, axis2, False), dtype=x.dtype)
    return xp.ascontiguousarray(xp.diagonal(x, offset=k, axis1=x1, axis2=x2))


def _build(xp, v, k):
    n = v.shape[0] + abs(k)
    out = xp.zeros((n, n), dtype=v.dtype)
    i = xp.arange(v.shape[0])
    out[i + max(-k, 0), i + max(k, 0)] = v
    return out


def _diag_like_shape(d, k, axis1, axis2, strict):
    if len(d) == 1:
        n = d[0] + abs(k)
        return (n, n)
    return _extract_shape(d, k, axis1, axis2, strict)


def _diag_grad(F, x, g, k, axis1, axis2):
    if x.ndim == 1:
        return F.diag(g, k=k)
    return F._diag_scatter(g, x, k=k, axis1=axis1, axis2=axis2)


# ---- diag (MXNet 1.x) ---------------------------------------------------------------------------
def _diag_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) == 0:
        raise InferError(0, "an input with at least 1 dimension", tuple(d))
    return [_diag_like_shape(d, a["k"], a["axis1"], a["axis2"], True)]


def _diag_compute(ctx, a, x):
    _diag_infer(a, [x.shape])
    if x.ndim == 1:
        return _build(ctx.xp, x, a["k"])
    return _extract(ctx.xp, x, a["k"], a["axis1"], a["axis2"])


_K_DOC = "Diagonal offset: > 0 above the main diagonal, < 0 below."
register(OpDef(
    "diag", family="index",
    attrs={"k": Attr("int", 0, doc=_K_DOC),
           "axis1": Attr("int", 0, doc="First axis of the planes (N-D input)."),
           "axis2": Attr("int", 1, doc="Second axis of the planes (N-D input).")},
    compute=_diag_compute, infer_shape=_diag_infer,
    grad=lambda F, a, ins, outs, og: [_diag_grad(F, ins[0], og[0], a["k"], a["axis1"], a["axis2"])],
    doc="1-D input: the square matrix with the input on diagonal k. N-D input: diagonal k of the "
        "(axis1, axis2) planes, as the last axis."))


# ---- np.diag / np.diagonal ----------------------------------------------------------------------
def _np_diag_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) not in (1, 2):
        raise InferError(0, "a 1-D or 2-D input", tuple(d))
    return [_diag_like_shape(d, a["k"], 0, 1, False)]


def _np_diag_compute(ctx, a, x):
    _np_diag_infer(a, [x.shape])
    if x.ndim == 1:
        return _build(ctx.xp, x, a["k"])
    return _extract(ctx.xp, x, a["k"], 0, 1)


register(OpDef(
    "_np_diag", family="index", np=NsName("diag", args=("k",)),
    attrs={"k": Attr("int", 0, doc=_K_DOC)},
    compute=_np_diag_compute, infer_shape=_np_diag_infer,
    grad=lambda F, a, ins, outs, og: [
        F._np_diag(og[0], k=a["k"]) if ins[0].ndim == 1 else F._diag_scatter(og[0], ins[0], k=a["k"])],
    doc="numpy.diag: a 1-D input builds the matrix with it on diagonal k; a 2-D input gives diagonal k."))


def _np_diagonal_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if len(d) < 2:
        raise InferError(0, "an input with at least 2 dimensions", tuple(d))
    return [_extract_shape(d, a["offset"], a["axis1"], a["axis2"], False)]


def _np_diagonal_compute(ctx, a, x):
    _np_diagonal_infer(a, [x.shape])
    return _extract(ctx.xp, x, a["offset"], a["axis1"], a["axis2"])


register(OpDef(
    "_np_diagonal", family="index", np=NsName("diagonal", args=("offset", "axis1", "axis2")),
    attrs={"offset": Attr("int", 0, doc=_K_DOC),
           "axis1": Attr("int", 0, doc="First axis of the planes."),
           "axis2": Attr("int", 1, doc="Second axis of the planes.")},
    compute=_np_diagonal_compute, infer_shape=_np_diagonal_infer,
    grad=lambda F, a, ins, outs, og: [F._diag_scatter(og[0], ins[0], k=a["offset"], axis1=a["axis1"],
                                                      axis2=a["axis2"])],
    doc="numpy.diagonal: diagonal ``offset`` of the (axis1, axis2) planes, as the last axis."))


# ---- _diag_scatter: the gradient of an extraction -------------------------------------------------
def _scatter_infer(a, s):
    g, d = s
    if d is None:
        return [None]
    expected = _extract_shape(d, a["k"], a["axis1"], a["axis2"], False)
    if g is not None and tuple(g) != expected:
        raise InferError(0, expected, tuple(g), f"the diagonal k={a['k']} of an input of shape {tuple(d)}")
    return [tuple(d)]


def _scatter_compute(ctx, a, g, like):
    xp = ctx.xp
    x1, x2 = _diag_axes(like.ndim, a["axis1"], a["axis2"])
    out = xp.zeros(like.shape, dtype=g.dtype)
    n = g.shape[-1]
    if n:
        view = xp.moveaxis(out, (x1, x2), (-2, -1))
        i = xp.arange(n)
        view[..., i + max(-a["k"], 0), i + max(a["k"], 0)] = g
    return out


register(OpDef(
    "_diag_scatter", family="index", hidden=True, inputs=("data", "like"),
    attrs={"k": Attr("int", 0), "axis1": Attr("int", 0), "axis2": Attr("int", 1)},
    compute=_scatter_compute, infer_shape=_scatter_infer, infer_type=lambda a, d: [d[0]],
    grad=lambda F, a, ins, outs, og: [
        F._np_diagonal(og[0], offset=a["k"], axis1=a["axis1"], axis2=a["axis2"]), None],
    doc="Zeros shaped like ``like`` with ``data`` written on diagonal k of the (axis1, axis2) planes "
        "(the gradient of diag / np.diagonal)."))


# ---- cumsum -------------------------------------------------------------------------------------
def _cumsum_type(a, d):
    if a["dtype"] is not None:
        return [onp.dtype(a["dtype"])]
    x = d[0]
    if x is None:
        return [None]
    return [onp.dtype(onp.int64) if onp.dtype(x) == onp.bool_ else onp.dtype(x)]


def _cumsum_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    if a["axis"] is None:
        n = 1
        for v in d:
            n *= v
        return [(n,)]
    normalize_axis(a["axis"], len(d))
    return [tuple(d)]


def _cumsum_compute(ctx, a, x):
    dt = _cumsum_type(a, [x.dtype])[0]
    if a["axis"] is None:
        return ctx.xp.cumsum(x.reshape(-1), dtype=dt)
    return ctx.xp.cumsum(x, axis=normalize_axis(a["axis"], x.ndim), dtype=dt)


def _cumsum_grad(F, a, ins, outs, og):
    x, g = ins[0], og[0]
    if g.dtype != x.dtype:
        g = F.Cast(g, dtype=x.dtype)
    axis = 0 if a["axis"] is None else normalize_axis(a["axis"], x.ndim)
    rev = F.reverse(F._np_cumsum(F.reverse(g, axis=axis), axis=axis), axis=axis)
    return [F.reshape_like(rev, x) if a["axis"] is None else rev]


register(OpDef(
    "_np_cumsum", family="reduce", aliases=("cumsum",), inputs=("a",),
    np=NsName("cumsum", args=("axis", "dtype")),
    attrs={"axis": Attr("int?", None, doc="Axis to sum along; None: the flattened array."),
           "dtype": Attr("dtype?", None, choices=("float16", "float32", "float64", "int32", "int64", "int8"),
                         doc="Output (and accumulator) dtype; None: the input's (int64 for booleans).")},
    compute=_cumsum_compute, infer_shape=_cumsum_infer, infer_type=_cumsum_type, grad=_cumsum_grad,
    doc="Cumulative sum along ``axis`` (of the flattened array when axis is None)."))
