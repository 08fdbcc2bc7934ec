"""Op-checker cases for ops/proposal.py: Proposal and MultiProposal against a plain per-anchor loop,
a Python sort and a pairwise greedy NMS (MXNet 1.9.1's proposal.cc rules)."""
import math

import numpy as np

from op_checker import Case

A_RATIOS, A_SCALES = (0.5, 2.0), (1.0, 2.0)


def _anchors(stride, ratios, scales):
    out = []
    w = h = float(stride)
    cx = cy = 0.5 * (w - 1)
    for ratio in ratios:
        for scale in scales:
            nw = math.floor(math.sqrt(math.floor(w * h / ratio)) + 0.5) * scale
            nh = math.floor(nw / scale * ratio + 0.5) * scale
            out.append((cx - 0.5 * (nw - 1), cy - 0.5 * (nh - 1), cx + 0.5 * (nw - 1), cy + 0.5 * (nh - 1)))
    return out


def _image(fg, deltas, info, a):
    A, H, W = fg.shape
    im_h, im_w, im_scale = (float(v) for v in info)
    stride = a["feature_stride"]
    boxes = []
    for h in range(H):
        for w in range(W):
            for k, (x1, y1, x2, y2) in enumerate(_anchors(stride, a["ratios"], a["scales"])):
                x1, x2, y1, y2 = x1 + w * stride, x2 + w * stride, y1 + h * stride, y2 + h * stride
                d = deltas[4 * k:4 * k + 4, h, w]
                if a.get("iou_loss"):
                    box = [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]
                else:
                    bw, bh = x2 - x1 + 1, y2 - y1 + 1
                    cx, cy = x1 + 0.5 * (bw - 1) + d[0] * bw, y1 + 0.5 * (bh - 1) + d[1] * bh
                    pw, ph = math.exp(d[2]) * bw, math.exp(d[3]) * bh
                    box = [cx - 0.5 * (pw - 1), cy - 0.5 * (ph - 1), cx + 0.5 * (pw - 1), cy + 0.5 * (ph - 1)]
                box = [min(max(v, 0.0), lim - 1) for v, lim in zip(box, (im_w, im_h, im_w, im_h))]
                score = float(fg[k, h, w])
                if h >= int(im_h / stride) or w >= int(im_w / stride):
                    score = -1.0
                m = a["rpn_min_size"] * im_scale
                if box[2] - box[0] + 1 < m or box[3] - box[1] + 1 < m:
                    box = [box[0] - m / 2, box[1] - m / 2, box[2] + m / 2, box[3] + m / 2]
                    score = -1.0
                boxes.append((box, score))
    order = sorted(range(len(boxes)), key=lambda i: -boxes[i][1])       # stable
    pre = a["rpn_pre_nms_top_n"] if a["rpn_pre_nms_top_n"] > 0 else len(boxes)
    cand = [boxes[i] for i in order[:pre]]
    post = min(a["rpn_post_nms_top_n"], len(cand))
    keep, dead = [], [False] * len(cand)
    for i, (bi, _) in enumerate(cand):
        if len(keep) >= post:
            break
        if dead[i]:
            continue
        keep.append(i)
        ai = (bi[2] - bi[0] + 1) * (bi[3] - bi[1] + 1)
        for j in range(i + 1, len(cand)):
            bj = cand[j][0]
            iw = max(0.0, min(bi[2], bj[2]) - max(bi[0], bj[0]) + 1)
            ih = max(0.0, min(bi[3], bj[3]) - max(bi[1], bj[1]) + 1)
            aj = (bj[2] - bj[0] + 1) * (bj[3] - bj[1] + 1)
            if iw * ih / (ai + aj - iw * ih) > a["threshold"]:
                dead[j] = True
    rows = [cand[keep[i % len(keep)]] for i in range(a["rpn_post_nms_top_n"])]
    return [r[0] for r in rows], [r[1] for r in rows]


def ref_proposal(cls_prob, bbox_pred, im_info, **attrs):
    a = {"rpn_pre_nms_top_n": 6000, "rpn_post_nms_top_n": 300, "threshold": 0.7, "rpn_min_size": 16,
         "scales": (4, 8, 16, 32), "ratios": (0.5, 1, 2), "feature_stride": 16, **attrs}
    A = cls_prob.shape[1] // 2
    rois, scores = [], []
    for b in range(cls_prob.shape[0]):
        boxes, s = _image(cls_prob[b, A:], bbox_pred[b], im_info[b], a)
        rois += [[b] + box for box in boxes]
        scores += [[v] for v in s]
    out = np.array(rois)
    return (out, np.array(scores)) if attrs.get("output_score") else out


def _cls(n):
    return lambda rng: rng.uniform(0, 1, (n, 8, 4, 5))


def _bbox(n, scale=0.3):
    return lambda rng: rng.standard_normal((n, 16, 4, 5)) * scale


_INFO = np.array([[60, 70, 1.0], [50, 80, 0.5], [64, 48, 1.5]], np.float32)
_A = {"feature_stride": 16, "scales": A_SCALES, "ratios": A_RATIOS, "rpn_pre_nms_top_n": 50,
      "rpn_post_nms_top_n": 12, "threshold": 0.5, "rpn_min_size": 12}
CASES = [
    Case("_contrib_Proposal", [_cls(1), _bbox(1), lambda rng: _INFO[:1]], ref=ref_proposal, grad=(), rtol=1e-4,
         attrs=dict(_A, output_score=True), name="scores"),
    Case("_contrib_Proposal", [_cls(1), _bbox(1), lambda rng: _INFO[1:2]], ref=ref_proposal, grad=(), rtol=1e-4,
         attrs=dict(_A, rpn_post_nms_top_n=40, rpn_pre_nms_top_n=-1, threshold=0.05), name="cyclic_fill"),
    Case("_contrib_MultiProposal", [_cls(3), _bbox(3), lambda rng: _INFO], ref=ref_proposal, grad=(), rtol=1e-4,
         attrs=dict(_A, output_score=True), name="batch3"),
    Case("_contrib_MultiProposal", [_cls(2), _bbox(2, 4.0), lambda rng: _INFO[:2]], ref=ref_proposal, grad=(),
         rtol=1e-4, attrs=dict(_A, iou_loss=True, threshold=0.3), name="iou_loss"),
]
