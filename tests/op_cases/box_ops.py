"""Op-checker cases for ops/box_ops.py: box_iou, box_nms (and its internal backward op) and
bipartite_matching against plain loops over boxes (MXNet 1.9.1's rules, see the module)."""
import numpy as np

from op_checker import Case

NMS_DATA = np.array([[[0, 0.9, 0.0, 0.0, 1.0, 1.0], [0, 0.8, 0.1, 0.1, 1.1, 1.0], [1, 0.7, 0.0, 0.0, 1.0, 1.0],
                      [0, 0.6, 3.0, 3.0, 4.0, 5.0], [1, 0.1, 0.0, 0.2, 1.0, 1.0]],
                     [[2, 0.3, 0.0, 0.0, 2.0, 2.0], [2, 0.5, 0.5, 0.5, 2.5, 2.5], [-1, 0.95, 7, 7, 8, 8],
                      [1, 0.4, 5.0, 5.0, 6.0, 6.5], [2, 0.2, 0.4, 0.4, 2.2, 2.3]]], np.float32)


def _iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = w * h
    if inter <= 0:
        return 0.0
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _to_corner(b):
    return [b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2]


def ref_iou(lhs, rhs, format="corner"):
    la, ra = lhs.reshape(-1, 4).astype(np.float64), rhs.reshape(-1, 4).astype(np.float64)
    out = np.zeros((len(la), len(ra)))
    for i, a in enumerate(la):
        for j, b in enumerate(ra):
            if format == "center":
                a2, b2 = _to_corner(a), _to_corner(b)
            else:
                a2, b2 = a, b
            out[i, j] = _iou(a2, b2)
    return out.reshape(lhs.shape[:-1] + rhs.shape[:-1])


def _nms_keep(x, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1, id_index=-1,
              background_id=-1, force_suppress=False, in_format="corner", out_format="corner"):
    order = [i for i in range(len(x)) if x[i, score_index] > valid_thresh
             and not (id_index >= 0 and x[i, id_index] == background_id)]
    order.sort(key=lambda i: -x[i, score_index])
    if topk > 0:
        order = order[:topk]
    box = (lambda i: _to_corner(x[i, coord_start:coord_start + 4])) if in_format == "center" else (
        lambda i: x[i, coord_start:coord_start + 4])
    keep = []
    for i in order:
        if all(_iou(box(k), box(i)) <= overlap_thresh or not (
                force_suppress or id_index < 0 or x[k, id_index] == x[i, id_index]) for k in keep):
            keep.append(i)
    return keep


def ref_nms(data, **a):
    out = np.full(data.shape, -1.0)
    for b in range(data.shape[0]):
        for r, i in enumerate(_nms_keep(data[b], **a)):
            out[b, r] = data[b, i]
            cs = a.get("coord_start", 2)
            c = data[b, i, cs:cs + 4].astype(np.float64)
            if a.get("in_format", "corner") == "corner" and a.get("out_format", "corner") == "center":
                out[b, r, cs:cs + 4] = [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1]]
            elif a.get("in_format", "corner") == "center" and a.get("out_format", "corner") == "corner":
                out[b, r, cs:cs + 4] = _to_corner(c)
    return out


def ref_nms_backward(og, record, **a):
    grad = np.zeros(og.shape)
    for b in range(og.shape[0]):
        for j, i in enumerate(record[b].astype(int)):
            if i >= 0:
                grad[b, i] += og[b, j]
    return grad


def ref_bipartite(data, is_ascend=False, threshold=None, topk=-1):
    n, m = data.shape[-2:]
    flat = data.reshape(-1, n, m)
    rows, cols = -np.ones(flat.shape[:2]), -np.ones((flat.shape[0], m))
    for b, s in enumerate(flat):
        pairs = sorted(((i, j) for i in range(n) for j in range(m)),
                       key=lambda p: s[p] if is_ascend else -s[p])
        count = 0
        for i, j in pairs:
            if (s[i, j] >= threshold) if is_ascend else (s[i, j] <= threshold):
                break
            if rows[b, i] < 0 and cols[b, j] < 0:
                rows[b, i], cols[b, j] = j, i
                count += 1
                if 0 < topk < count:
                    break
    return rows.reshape(data.shape[:-1]), cols.reshape(data.shape[:-2] + (m,))


def nms_grad_rule(data, heads, **a):
    """MXNet's box_nms gradient: each output row's gradient routed back to its input row, with no
    derivative of a format conversion (so not d(forward) when in_format != out_format)."""
    grad = np.zeros(data.shape)
    for b in range(data.shape[0]):
        for r, i in enumerate(_nms_keep(data[b], **a)):
            grad[b, i] = heads[0][b, r]
    return [grad]


def _boxes(shape, center=False):
    def gen(rng):
        b = rng.uniform(0, 2, shape)
        b[..., 2:] = rng.uniform(0.5, 2, shape[:-1] + (2,)) + (0 if center else b[..., :2])
        return b
    return gen


def _record(rng):
    return np.array([[1, 3, -1, -1, -1], [2, 0, 4, -1, -1]], np.int32)


def _scores(rng):
    return np.round(rng.uniform(0, 1, (2, 3, 4)) * 8) / 8


CASES = [
    Case("_contrib_box_iou", [_boxes((2, 3, 4)), _boxes((5, 4))], ref=ref_iou, grad=(), name="corner"),
    Case("_contrib_box_iou", [_boxes((3, 4), True), _boxes((2, 1, 4), True)], ref=ref_iou, attrs={"format": "center"},
         grad=(), name="center"),
    Case("_contrib_box_nms", [lambda rng: NMS_DATA], ref=ref_nms, name="default"),
    Case("_contrib_box_nms", [lambda rng: NMS_DATA], ref=ref_nms, name="classes",
         attrs={"id_index": 0, "overlap_thresh": 0.3, "valid_thresh": 0.15, "topk": 4, "out_format": "center"}, grad_rule=nms_grad_rule),
    Case("_contrib_box_nms", [lambda rng: NMS_DATA], ref=ref_nms, name="force_background",
         attrs={"id_index": 0, "force_suppress": True, "background_id": 2, "in_format": "center"}, grad_rule=nms_grad_rule),
    Case("_backward_contrib_box_nms", [(2, 5, 6), _record], ref=ref_nms_backward, grad=()),
    Case("_contrib_bipartite_matching", [_scores], ref=ref_bipartite, attrs={"threshold": 0.2}, grad=(), name="descend"),
    Case("_contrib_bipartite_matching", [_scores], ref=ref_bipartite, attrs={"threshold": 0.7, "is_ascend": True, "topk": 1},
         grad=(), name="ascend_topk"),
]
