"""Bounding-box contrib operators of MXNet 1.9.1: ``_contrib_box_iou``, ``_contrib_box_nms`` (alias
``_contrib_box_non_maximum_suppression``) with its internal backward op, and
``_contrib_bipartite_matching`` (``mx.nd.contrib.box_iou`` ...).

Rules (MXNet 1.9.1's, checked against it):

* box_iou: ``lhs`` (..., 4) and ``rhs`` (..., 4) give ``lhs.shape[:-1] + rhs.shape[:-1]``; the IoU
  is ``I / (area_a + area_b - I)`` where the intersection ``I`` is positive, else 0. ``format``
  ``corner`` is (left, top, right, bottom), ``center`` (x, y, width, height). Its gradient is zero.
* box_nms: ``data`` (..., N, K), every leading axis a batch. A box is valid when its score is
  greater than ``valid_thresh`` and (with ``id_index >= 0``) its class id differs from
  ``background_id``. Valid boxes are sorted by descending score (stable: ties keep input order),
  only the first ``topk`` are kept (``topk > 0``), then greedily each kept box suppresses the later
  ones whose IoU with it is greater than ``overlap_thresh`` (only those of its class unless
  ``force_suppress`` or ``id_index < 0``). The output has the kept rows first (whole rows, their
  coordinates converted from ``in_format`` to ``out_format``), every other row -1. A hidden second
  output records, for each output row, the input row it came from (-1 for none); the gradient
  sends each output row's gradient back to that input row.
* bipartite_matching: ``data`` (..., N, M) scores; greedy matching over the scores sorted
  descending (ascending with ``is_ascend``; ties in index order), taking a pair while its score is
  greater than ``threshold`` (less with ``is_ascend``) and both its row and column are free; with
  ``topk > 0`` it stops after ``topk + 1`` matches (as MXNet does). Outputs: the column matched to
  each row (..., N) and the row matched to each column (..., M), -1 where none. Zero gradient.

Example::

    >>> import hybridlab as mx
    >>> boxes = mx.nd.array([[0, 0, 2, 2], [1, 1, 3, 3]])
    >>> mx.nd.contrib.box_iou(boxes, boxes).asnumpy().astype('float64').round(4).tolist()
    [[1.0, 0.1429], [0.1429, 1.0]]
    >>> x = mx.nd.array([[0, 0.5, 0, 0, 1, 1], [0, 0.9, 0, 0, 1, 1.1], [1, 0.4, 5, 5, 6, 6]])
    >>> mx.nd.contrib.box_nms(x, overlap_thresh=0.5).asnumpy()[:, :2].tolist()
    [[0.0, 0.8999999761581421], [1.0, 0.4000000059604645], [-1.0, -1.0]]
    >>> rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]), threshold=1e-12)
    >>> rows.asnumpy().tolist(), cols.asnumpy().tolist()
    ([1.0, -1.0, 0.0], [2.0, 0.0])
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_FORMATS = ("corner", "center")


def _host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def _corners(b, fmt):
    """(..., 4) boxes as float64 (left, top, right, bottom)."""
    b = b.astype(np.float64)
    if fmt == "center":
        x, y, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1)
    return b


def _iou_matrix(a, b):
    """IoU of every corner box of ``a`` (n, 4) with every one of ``b`` (m, 4): (n, m)."""
    a, b = a[:, None, :], b[None, :, :]
    w = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0)
    h = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0)
    inter = w * h
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(inter > 0, inter / (area_a + area_b - inter), 0.0)


# ---- box_iou ---------------------------------------------------------------------------------
def _iou_infer(a, in_shapes):
    for i, s in enumerate(in_shapes):
        if s is not None and (len(s) < 1 or s[-1] != 4):
            raise InferError(i, "(..., 4) boxes", tuple(s))
    if any(s is None for s in in_shapes):
        return [None]
    return [tuple(in_shapes[0][:-1]) + tuple(in_shapes[1][:-1])]


def _iou_compute(ctx, a, lhs, rhs):
    out_shape = lhs.shape[:-1] + rhs.shape[:-1]
    la = _corners(_host(lhs).reshape(-1, 4), a["format"])
    ra = _corners(_host(rhs).reshape(-1, 4), a["format"])
    return ctx.xp.asarray(_iou_matrix(la, ra).reshape(out_shape).astype(lhs.dtype))


register(OpDef(
    "_contrib_box_iou", inputs=("lhs", "rhs"), family="nn",
    attrs={"format": Attr("enum", "corner", choices=_FORMATS,
                          doc="box encoding: corner (l, t, r, b) or center (x, y, w, h)")},
    compute=_iou_compute, infer_shape=_iou_infer, zero_grad=True,
    no_grad_reason="MXNet's box_iou gradient is zero",
    doc="Intersection over union of every box of lhs (..., 4) with every box of rhs (..., 4)."))


# ---- box_nms ---------------------------------------------------------------------------------
_NMS_ATTRS = {
    "overlap_thresh": Attr("float", 0.5, doc="boxes overlapping a kept box by more than this IoU are suppressed"),
    "valid_thresh": Attr("float", 0.0, doc="boxes scoring at most this are dropped first"),
    "topk": Attr("int", -1, doc="only the topk highest-scoring valid boxes are considered (-1: all)"),
    "coord_start": Attr("int", 2, doc="index of the first of the 4 coordinates in a row"),
    "score_index": Attr("int", 1, doc="index of the score in a row"),
    "id_index": Attr("int", -1, doc="index of the class id in a row (-1: no class ids)"),
    "background_id": Attr("int", -1, doc="class id of boxes dropped first (with id_index >= 0)"),
    "force_suppress": Attr("bool", False, doc="suppress across classes too"),
    "in_format": Attr("enum", "corner", choices=_FORMATS, doc="box encoding of the input"),
    "out_format": Attr("enum", "corner", choices=_FORMATS, doc="box encoding of the output"),
}


def _nms_check(a, shape):
    if len(shape) < 2:
        raise InferError(0, "(..., N, K) with at least 2 axes", tuple(shape))
    width = shape[-1]
    cs = a["coord_start"]
    if not (cs >= 0 and cs + 3 < width):
        raise MXNetError(f"box_nms: coordinates ({cs}, {cs + 3}) out of range (0, {width - 1})")
    if not 0 <= a["score_index"] < width:
        raise MXNetError(f"box_nms: score_index {a['score_index']} out of range (0, {width - 1})")
    if a["id_index"] >= width:
        raise MXNetError(f"box_nms: id_index {a['id_index']} out of range (-1, {width - 1})")
    for key in ("score_index", "id_index"):
        if cs <= a[key] <= cs + 3:
            raise MXNetError(f"box_nms: {key} {a[key]} conflicts with the coordinates ({cs}, {cs + 3})")
    if a["id_index"] == a["score_index"]:
        raise MXNetError(f"box_nms: id_index {a['id_index']} conflicts with score_index")


def _nms_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None, None]
    _nms_check(a, s)
    return [tuple(s), tuple(s[:-1])]


def _convert(rows, cs, fmt_in, fmt_out):
    """Rows with their 4 coordinates from ``cs`` re-encoded (in the rows' dtype)."""
    if fmt_in == fmt_out:
        return rows
    c = rows[:, cs:cs + 4].astype(np.float64)
    if fmt_in == "corner":   # -> center
        new = np.stack([(c[:, 0] + c[:, 2]) / 2, (c[:, 1] + c[:, 3]) / 2, c[:, 2] - c[:, 0], c[:, 3] - c[:, 1]], 1)
    else:
        new = _corners(c, "center")
    rows = rows.copy()
    rows[:, cs:cs + 4] = new.astype(rows.dtype)
    return rows


def _nms_one(a, x):
    """(kept rows' input indices in output order) for one batch ``x`` (N, K)."""
    score = x[:, a["score_index"]].astype(np.float64)
    valid = score > float(np.float32(a["valid_thresh"]))
    idx = a["id_index"]
    if idx >= 0:
        valid &= x[:, idx] != a["background_id"]
    cand = np.nonzero(valid)[0]
    cand = cand[np.argsort(-score[cand], kind="stable")]
    if a["topk"] > 0:
        cand = cand[:a["topk"]]
    cs = a["coord_start"]
    boxes = _corners(x[cand, cs:cs + 4], a["in_format"])
    iou = _iou_matrix(boxes, boxes)
    thresh = float(np.float32(a["overlap_thresh"]))
    same = (np.ones_like(iou, dtype=bool) if a["force_suppress"] or idx < 0
            else x[cand, idx][:, None] == x[cand, idx][None, :])
    alive = np.ones(len(cand), dtype=bool)
    for i in range(len(cand)):
        if alive[i]:
            kill = (iou[i] > thresh) & same[i]
            kill[:i + 1] = False
            alive &= ~kill
    return cand[alive]


def _nms_compute(ctx, a, data):
    _nms_check(a, data.shape)
    x = _host(data)
    shape = x.shape
    batches = x.reshape(-1, shape[-2], shape[-1])
    out = np.full(batches.shape, -1, dtype=x.dtype)
    record = np.full(batches.shape[:2], -1, dtype=np.int32)
    for b, xb in enumerate(batches):
        keep = _nms_one(a, xb)
        out[b, :len(keep)] = _convert(xb[keep], a["coord_start"], a["in_format"], a["out_format"])
        record[b, :len(keep)] = keep
    xp = ctx.xp
    return xp.asarray(out.reshape(shape)), xp.asarray(record.reshape(shape[:-1]))


def _nms_grad(F, a, inputs, outputs, ograds):
    return [F._backward_contrib_box_nms(ograds[0], outputs[1], **a)]


register(OpDef(
    "_contrib_box_nms", aliases=("_contrib_box_non_maximum_suppression",), inputs=("data",),
    attrs=_NMS_ATTRS, compute=_nms_compute, infer_shape=_nms_infer,
    infer_type=lambda a, d: [d[0], np.dtype(np.int32)], grad=_nms_grad, family="nn",
    num_outputs=2, num_visible=1, output_names=("output0",),   # MXNet: no names registered
    doc="Non-maximum suppression of the boxes of data (..., N, K): kept rows first by descending "
        "score, the rest -1 (see ops/box_ops.py)."))


def _nms_backward_compute(ctx, a, ograd, record):
    og = _host(ograd)
    rec = _host(record).astype(np.int64)
    shape = og.shape
    og = og.reshape(-1, shape[-2], shape[-1])
    rec = rec.reshape(og.shape[:2])
    grad = np.zeros_like(og)
    b, j = np.nonzero(rec >= 0)
    grad[b, rec[b, j]] = og[b, j]
    return ctx.xp.asarray(grad.reshape(shape))


def _nms_backward_infer(a, in_shapes):
    og, rec = in_shapes
    if og is not None and rec is not None and tuple(rec) != tuple(og[:-1]):
        raise InferError(1, f"{tuple(og[:-1])} (the gradient's shape without its last axis)", tuple(rec))
    return [None if og is None else tuple(og)]


register(OpDef(
    "_backward_contrib_box_nms", inputs=("ograd", "record"), attrs=_NMS_ATTRS,
    compute=_nms_backward_compute, infer_shape=_nms_backward_infer,
    infer_type=lambda a, d: [d[0]], family="nn", hidden=True,
    no_grad_reason="box_nms's gradient routes rows to fixed positions; its own gradient is not needed",
    doc="Gradient of box_nms: each row of ograd sent to the input row ``record`` names (-1: none)."))


# ---- bipartite_matching ----------------------------------------------------------------------
def _bm_infer(a, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None, None]
    if len(s) < 2:
        raise InferError(0, "(..., N, M) with at least 2 axes", tuple(s))
    return [tuple(s[:-1]), tuple(s[:-2]) + (s[-1],)]


def _bm_compute(ctx, a, data):
    x = _host(data)
    shape = x.shape
    n, m = shape[-2], shape[-1]
    batches = x.reshape(-1, n * m).astype(np.float64)
    rows = np.full((batches.shape[0], n), -1, dtype=x.dtype)
    cols = np.full((batches.shape[0], m), -1, dtype=x.dtype)
    thresh = float(np.float32(a["threshold"]))
    ascend, topk = a["is_ascend"], a["topk"]
    for b, s in enumerate(batches):
        order = np.argsort(s if ascend else -s, kind="stable")
        ok = s[order] < thresh if ascend else s[order] > thresh
        stop = int(np.argmin(ok)) if not ok.all() else len(order)
        count = 0
        for k in order[:stop]:
            i, j = divmod(int(k), m)
            if rows[b, i] == -1 and cols[b, j] == -1:
                rows[b, i], cols[b, j] = j, i
                count += 1
                if 0 < topk < count:
                    break
    xp = ctx.xp
    return xp.asarray(rows.reshape(shape[:-1])), xp.asarray(cols.reshape(shape[:-2] + (m,)))


register(OpDef(
    "_contrib_bipartite_matching", inputs=("data",), family="nn",
    attrs={"is_ascend": Attr("bool", False, doc="match the lowest scores first (else the highest)"),
           "threshold": Attr("float", doc="scores must be greater (less with is_ascend) than this"),
           "topk": Attr("int", -1, doc="stop after topk + 1 matches (-1: no limit)")},
    compute=_bm_compute, infer_shape=_bm_infer, infer_type=lambda a, d: [d[0], d[0]],
    num_outputs=2, zero_grad=True, no_grad_reason="a discrete matching; MXNet's gradient is zero",
    doc="Greedy bipartite matching of the rows and columns of the scores data (..., N, M)."))
