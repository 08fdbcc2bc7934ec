"""Op-checker cases for ops/roi_pooling.py: ROIPooling against a plain loop over regions, bins and
cells (MXNet's roi_pooling.cc rules), and its internal backward op."""
import math

import numpy as np

from op_checker import Case

ROIS = np.array([[0, 0, 0, 4, 4], [1, 2.4, 1.5, 6.6, 8.2], [0, 5, 5, 3, 2], [1, -3, -2, 20, 30]], np.float32)


def _c_round(v):
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def _pool(x, rois, pooled_size, spatial_scale):
    N, C, H, W = x.shape
    ph, pw = pooled_size
    out = np.zeros((len(rois), C, ph, pw))
    arg = -np.ones((len(rois), C, ph, pw), dtype=np.int64)
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sw, sh, ew, eh = (_c_round(float(np.float32(v) * np.float32(spatial_scale))) for v in (x1, y1, x2, y2))
        bh = np.float32(max(eh - sh + 1, 1)) / np.float32(ph)
        bw = np.float32(max(ew - sw + 1, 1)) / np.float32(pw)
        for i in range(ph):
            h0 = min(max(int(math.floor(np.float32(i) * bh)) + sh, 0), H)
            h1 = min(max(int(math.ceil(np.float32(i + 1) * bh)) + sh, 0), H)
            for j in range(pw):
                w0 = min(max(int(math.floor(np.float32(j) * bw)) + sw, 0), W)
                w1 = min(max(int(math.ceil(np.float32(j + 1) * bw)) + sw, 0), W)
                for c in range(C):
                    best = None
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            if best is None or x[int(b), c, h, w] > best:
                                best, arg[r, c, i, j] = x[int(b), c, h, w], h * W + w
                    out[r, c, i, j] = 0.0 if best is None else best
    return out, arg


def ref_roi(x, rois, pooled_size, spatial_scale):
    return _pool(x, rois, pooled_size, spatial_scale)[0]


def ref_roi_backward(og, maxidx, rois, x, pooled_size, spatial_scale):
    grad = np.zeros(x.shape)
    N, C, H, W = x.shape
    for r in range(og.shape[0]):
        for c in range(C):
            for k, pos in enumerate(maxidx[r, c].ravel().astype(int)):
                if pos >= 0:
                    grad[int(rois[r, 0]), c, pos // W, pos % W] += og[r, c].ravel()[k]
    return grad


def _maxidx(data_shape, pooled_size, spatial_scale):
    x = np.random.default_rng(11).standard_normal(data_shape)
    return lambda rng: _pool(x, ROIS, pooled_size, spatial_scale)[1].astype(np.float64)


CASES = [
    Case("ROIPooling", [(2, 3, 9, 7), lambda rng: ROIS], ref=ref_roi, attrs={"pooled_size": (2, 2), "spatial_scale": 1.0},
         grad=[0], name="2x2"),
    Case("ROIPooling", [(2, 2, 9, 7), lambda rng: ROIS], ref=ref_roi, attrs={"pooled_size": (3, 2), "spatial_scale": 0.7},
         grad=[0], name="3x2_scaled"),
    Case("_backward_ROIPooling", [(4, 2, 3, 2), _maxidx((2, 2, 9, 7), (3, 2), 0.7), lambda rng: ROIS, (2, 2, 9, 7)],
         ref=ref_roi_backward, attrs={"pooled_size": (3, 2), "spatial_scale": 0.7}, grad=(), name="3x2"),
]
