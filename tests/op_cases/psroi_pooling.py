"""Op-checker cases for ops/psroi_pooling.py: PSROIPooling against a plain loop over regions, bins,
output channels and cells (the R-FCN rules of MXNet 1.9.1), and its internal backward op."""
import math

import numpy as np

from op_checker import Case

ROIS = np.array([[0, 10, 22, 100, 120], [1, 3.4, 5.6, 60, 90], [0, 40, 40, 20, 30]], np.float32)


def _cells(roi, i, j, spatial_scale, pooled_size, H, W):
    """(batch, h range, w range) of bin (i, j) of a region."""
    s = np.float32(spatial_scale)
    b, x1, y1, x2, y2 = roi
    sw, sh = np.float32(round(float(x1))) * s, np.float32(round(float(y1))) * s
    bw = max(np.float32(round(float(x2)) + 1) * s - sw, np.float32(0.1)) / np.float32(pooled_size)
    bh = max(np.float32(round(float(y2)) + 1) * s - sh, np.float32(0.1)) / np.float32(pooled_size)
    clip = lambda v, n: min(max(v, 0), n)  # noqa: E731
    h = range(clip(math.floor(np.float32(i) * bh + sh), H), clip(math.ceil(np.float32(i + 1) * bh + sh), H))
    w = range(clip(math.floor(np.float32(j) * bw + sw), W), clip(math.ceil(np.float32(j + 1) * bw + sw), W))
    return int(b), h, w


def _channel(c, i, j, pooled_size, g):
    return (c * g + i * g // pooled_size) * g + j * g // pooled_size


def ref_psroi(x, rois, spatial_scale, output_dim, pooled_size, group_size=0):
    g = group_size or pooled_size
    out = np.zeros((len(rois), output_dim, pooled_size, pooled_size))
    for r, roi in enumerate(rois):
        for i in range(pooled_size):
            for j in range(pooled_size):
                b, hs, ws = _cells(roi, i, j, spatial_scale, pooled_size, x.shape[2], x.shape[3])
                for c in range(output_dim):
                    vals = [x[b, _channel(c, i, j, pooled_size, g), h, w] for h in hs for w in ws]
                    out[r, c, i, j] = sum(vals) / len(vals) if vals else 0.0
    return out


def ref_psroi_backward(og, rois, x, spatial_scale, output_dim, pooled_size, group_size=0):
    g = group_size or pooled_size
    grad = np.zeros(x.shape)
    for r, roi in enumerate(rois):
        for i in range(pooled_size):
            for j in range(pooled_size):
                b, hs, ws = _cells(roi, i, j, spatial_scale, pooled_size, x.shape[2], x.shape[3])
                for c in range(output_dim):
                    for h in hs:
                        for w in ws:
                            grad[b, _channel(c, i, j, pooled_size, g), h, w] += og[r, c, i, j] / (len(hs) * len(ws))
    return grad


_A = {"spatial_scale": 0.0625, "output_dim": 2, "pooled_size": 2}
CASES = [
    Case("_contrib_PSROIPooling", [(2, 8, 6, 7), lambda rng: ROIS], ref=ref_psroi, attrs=_A, grad=[0], name="2x2"),
    Case("_contrib_PSROIPooling", [(2, 9, 6, 7), lambda rng: ROIS], ref=ref_psroi, grad=[0], name="group3_pool2",
         attrs={"spatial_scale": 0.0625, "output_dim": 1, "pooled_size": 2, "group_size": 3}),
    Case("_backward_contrib_PSROIPooling", [(3, 2, 2, 2), lambda rng: ROIS, (2, 8, 6, 7)], ref=ref_psroi_backward,
         attrs=_A, grad=()),
]
