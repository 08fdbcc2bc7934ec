"""MXNet 1.9.1's region proposal layers of Faster R-CNN: ``_contrib_Proposal`` (one image) and
``_contrib_MultiProposal`` (a batch), as proposal.cc / multi_proposal.cc compute them on the CPU.

Inputs: ``cls_prob`` (N, 2A, H, W) (background then foreground scores of the A anchors per
position), ``bbox_pred`` (N, 4A, H, W) (dx, dy, dw, dh per anchor), ``im_info`` (N, 3) rows
``[height, width, scale]``. Per image:

1. A anchors (every ratio, then every scale, around the ``feature_stride`` square at 0) are shifted
   to every position, in the order (h, w, anchor); their score is the foreground probability.
2. Each box is moved by its deltas (or by the plain corner offsets with ``iou_loss``) and clipped to
   the image; boxes at positions beyond ``height // feature_stride`` (width alike) score -1; boxes
   narrower or lower than ``rpn_min_size * scale`` are widened by that size and score -1.
3. A stable sort by score (descending) keeps ``rpn_pre_nms_top_n`` boxes (all when <= 0), then
   greedy non-maximum suppression (IoU above ``threshold``, areas with MXNet's +1 pixel) keeps at most
   ``rpn_post_nms_top_n``; the output repeats the kept boxes cyclically to ``rpn_post_nms_top_n``
   rows.

Outputs: ``output`` (N * rpn_post_nms_top_n, 5) rows ``[batch_index, x1, y1, x2, y2]`` and, visible
with ``output_score``, ``score`` (N * rpn_post_nms_top_n, 1); float32. Proposal takes one image
only. The inputs get zero gradients (MXNet's backward writes zeros).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> cls = mx.nd.array(np.tile(np.array([0.2, 0.9]).reshape(1, 2, 1, 1), (1, 1, 2, 2)))
    >>> rois = mx.nd.contrib.Proposal(cls, mx.nd.zeros((1, 4, 2, 2)), mx.nd.array([[32, 32, 1]]), scales=(2,),
    ...                               ratios=(1,), feature_stride=16, rpn_post_nms_top_n=4, rpn_min_size=1)
    >>> rois.asnumpy().tolist()
    [[0.0, 0.0, 0.0, 23.0, 23.0], [0.0, 8.0, 0.0, 31.0, 23.0], [0.0, 0.0, 8.0, 23.0, 31.0], [0.0, 8.0, 8.0, 31.0, 31.0]]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .infer import InferError
from .registry import OpDef, register

__all__ = []

_F = np.float32
_ATTRS = {
    "rpn_pre_nms_top_n": Attr("int", 6000, doc="boxes kept (best scores) before NMS; <= 0: all"),
    "rpn_post_nms_top_n": Attr("int", 300, doc="boxes kept after NMS (rows of the output per image)"),
    "threshold": Attr("float", 0.7, doc="NMS: IoU above which a box is suppressed"),
    "rpn_min_size": Attr("int", 16, doc="smallest box side (times the image scale) kept with its score"),
    "scales": Attr("floats", (4.0, 8.0, 16.0, 32.0), doc="anchor scales"),
    "ratios": Attr("floats", (0.5, 1.0, 2.0), doc="anchor aspect ratios (height / width)"),
    "feature_stride": Attr("int", 16, doc="image pixels per feature-map cell"),
    "output_score": Attr("bool", False, doc="also return the scores"),
    "iou_loss": Attr("bool", False, doc="bbox_pred holds corner offsets instead of center/size deltas"),
}


def _host(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


def anchors(feature_stride, ratios, scales):
    """The (len(ratios) * len(scales), 4) base anchors [x1, y1, x2, y2] (MXNet's GenerateAnchors)."""
    w = h = _F(feature_stride - 1.0) + _F(1)
    x_ctr = y_ctr = _F(0.5 * (float(w) - 1.0))
    out = []
    for ratio in ratios:
        for scale in scales:
            ratio, scale = _F(ratio), _F(scale)
            size_ratios = np.floor(_F(w * h) / ratio)
            new_w = np.floor(np.sqrt(size_ratios) + _F(0.5)) * scale
            new_h = np.floor(new_w / scale * ratio + _F(0.5)) * scale
            out.append([x_ctr - _F(0.5) * (new_w - _F(1)), y_ctr - _F(0.5) * (new_h - _F(1)),
                        x_ctr + _F(0.5) * (new_w - _F(1)), y_ctr + _F(0.5) * (new_h - _F(1))])
    return np.array(out, dtype=_F)


def _boxes(a, fg, deltas, info):
    """(count, 4) boxes and (count,) scores of one image, in the order (h, w, anchor)."""
    A, H, W = fg.shape
    base = anchors(a["feature_stride"], a["ratios"], a["scales"])
    if base.shape[0] != A:
        raise MXNetError(f"Proposal: cls_prob expected 2 * len(ratios) * len(scales) = {2 * base.shape[0]} "
                         f"channels, got {2 * A}")
    fs = a["feature_stride"]
    sx = np.broadcast_to((np.arange(W) * fs).astype(_F)[None, :, None], (H, W, 1))
    sy = np.broadcast_to((np.arange(H) * fs).astype(_F)[:, None, None], (H, W, 1))
    x1 = base[:, 0] + sx
    y1 = base[:, 1] + sy
    x2 = base[:, 2] + sx
    y2 = base[:, 3] + sy                                             # each (H, W, A)
    d = deltas.reshape(A, 4, H, W).transpose(1, 2, 3, 0)            # (4, H, W, A)
    im_h, im_w, im_scale = (_F(v) for v in info)
    if a["iou_loss"]:
        px1, py1, px2, py2 = x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]
    else:
        width = ((x2 - x1).astype(np.float64) + 1.0).astype(_F)
        height = ((y2 - y1).astype(np.float64) + 1.0).astype(_F)
        cx = (x1.astype(np.float64) + 0.5 * (width.astype(np.float64) - 1.0)).astype(_F)
        cy = (y1.astype(np.float64) + 0.5 * (height.astype(np.float64) - 1.0)).astype(_F)
        pcx, pcy = d[0] * width + cx, d[1] * height + cy
        pw, ph = np.exp(d[2]) * width, np.exp(d[3]) * height
        half_w = 0.5 * (pw.astype(np.float64) - 1.0)
        half_h = 0.5 * (ph.astype(np.float64) - 1.0)
        px1, px2 = (pcx.astype(np.float64) - half_w).astype(_F), (pcx.astype(np.float64) + half_w).astype(_F)
        py1, py2 = (pcy.astype(np.float64) - half_h).astype(_F), (pcy.astype(np.float64) + half_h).astype(_F)
    clip = lambda v, hi: np.maximum(np.minimum(v, hi - _F(1)), _F(0))   # noqa: E731
    box = np.stack([clip(px1, im_w), clip(py1, im_h), clip(px2, im_w), clip(py2, im_h)], axis=-1).astype(_F)
    score = fg.transpose(1, 2, 0).astype(_F).copy()                  # (H, W, A)
    real_h, real_w = int(im_h / _F(fs)), int(im_w / _F(fs))
    if H < real_h or W < real_w:
        raise MXNetError(f"Proposal: the feature map {H}x{W} expected to cover the image's "
                         f"{real_h}x{real_w} cells (im_info {float(im_h)}x{float(im_w)}, feature_stride {fs})")
    score[real_h:] = -1
    score[:, real_w:] = -1
    box, score = box.reshape(-1, 4), score.reshape(-1)
    min_size = _F(a["rpn_min_size"]) * im_scale
    small = ((box[:, 2] - box[:, 0] + _F(1)) < min_size) | ((box[:, 3] - box[:, 1] + _F(1)) < min_size)
    half = min_size / _F(2)
    box[small] += np.array([-half, -half, half, half], dtype=_F)
    score[small] = -1
    return box, score


def nms(box, thresh, limit):
    """Indices kept by greedy non-maximum suppression of boxes already sorted best first."""
    x1, y1, x2, y2 = (box[:, i] for i in range(4))
    one = _F(1)
    area = (x2 - x1 + one) * (y2 - y1 + one)
    thresh = _F(thresh)
    order = np.arange(box.shape[0])
    keep = []
    while order.size and len(keep) < limit:
        i, rest = order[0], order[1:]
        keep.append(i)
        w = np.maximum(_F(0), np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]) + one)
        h = np.maximum(_F(0), np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]) + one)
        inter = w * h
        order = rest[~(inter / (area[i] + area[rest] - inter) > thresh)]
    return np.array(keep, dtype=np.int64)


def _one_image(a, fg, deltas, info):
    box, score = _boxes(a, fg, deltas, info)
    count = score.size
    pre = a["rpn_pre_nms_top_n"] if a["rpn_pre_nms_top_n"] > 0 else count
    pre = min(pre, count)
    post = min(a["rpn_post_nms_top_n"], pre)
    order = np.argsort(-score, kind="stable")[:pre]
    box, score = box[order], score[order]
    keep = nms(box, a["threshold"], post)
    rows = keep[np.arange(a["rpn_post_nms_top_n"]) % keep.size]
    return box[rows], score[rows]


def _compute(name):
    def compute(ctx, a, cls_prob, bbox_pred, im_info):
        prob, deltas, info = (_host(v).astype(_F, copy=False) for v in (cls_prob, bbox_pred, im_info))
        _check_inputs(name, a, prob.shape, deltas.shape, info.shape)
        n, A = prob.shape[0], prob.shape[1] // 2
        post = a["rpn_post_nms_top_n"]
        out = np.zeros((n * post, 5), dtype=_F)
        score = np.zeros((n * post, 1), dtype=_F)
        for b in range(n):
            box, s = _one_image(a, prob[b, A:], deltas[b], info[b])
            out[b * post:(b + 1) * post, 0] = b
            out[b * post:(b + 1) * post, 1:] = box
            score[b * post:(b + 1) * post, 0] = s
        return ctx.xp.asarray(out), ctx.xp.asarray(score)
    return compute


def _check_inputs(name, a, prob, deltas, info):
    if len(prob) != 4 or prob[1] % 2:
        raise MXNetError(f"{name}: cls_prob expected (N, 2 * anchors, H, W), got {tuple(prob)}")
    if name == "Proposal" and prob[0] != 1:
        raise MXNetError(f"Proposal: expected one image (cls_prob batch 1; MultiProposal takes several), got {prob[0]}")
    if tuple(deltas) != (prob[0], prob[1] * 2, prob[2], prob[3]):
        raise MXNetError(f"{name}: bbox_pred expected {(prob[0], prob[1] * 2, prob[2], prob[3])}, got {tuple(deltas)}")
    if tuple(info) != (prob[0], 3):
        raise MXNetError(f"{name}: im_info expected {(prob[0], 3)} rows [height, width, scale], got {tuple(info)}")
    if a["rpn_post_nms_top_n"] < 1:
        raise MXNetError(f"{name}: rpn_post_nms_top_n expected a value >= 1, got {a['rpn_post_nms_top_n']}")


def _infer(name):
    def infer(a, in_shapes):
        prob = in_shapes[0]
        if prob is None:
            return [None, None]
        if len(prob) != 4:
            raise InferError(0, "(N, 2 * anchors, H, W)", tuple(prob))
        for i, want in ((1, (prob[0], prob[1] * 2, prob[2], prob[3])), (2, (prob[0], 3))):
            got = in_shapes[i]
            if got is None:
                in_shapes[i] = want
            elif tuple(got) != want:
                raise InferError(i, want, tuple(got))
        rows = a["rpn_post_nms_top_n"] * (prob[0] if name == "MultiProposal" else 1)
        return [(rows, 5), (rows, 1)]
    return infer


_DOC = """RPN proposals: anchors moved by ``bbox_pred``, scored by the foreground half of ``cls_prob``,
filtered, sorted and suppressed (NMS) into ``rpn_post_nms_top_n`` boxes [batch_index, x1, y1, x2, y2]
per image (see ops/proposal.py)."""

for _name in ("Proposal", "MultiProposal"):
    register(OpDef(
        f"_contrib_{_name}", inputs=("cls_prob", "bbox_pred", "im_info"), attrs=_ATTRS, compute=_compute(_name),
        infer_shape=_infer(_name), infer_type=lambda a, d: [np.dtype(np.float32), np.dtype(np.float32)],
        family="nn", num_outputs=2, num_visible=lambda a: 2 if a["output_score"] else 1,
        output_names=lambda a: ("output", "score") if a["output_score"] else ("output",),
        zero_grad=True, no_grad_reason="MXNet's proposal layers pass zero gradients to their inputs",
        bounds={"feature_stride": (1, None)}, doc=_DOC))
