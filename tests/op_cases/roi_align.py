"""Op-checker cases for ops/roi_align.py: ROIAlign and RROIAlign against a plain loop over regions,
channels, bins and sampling points with a scalar bilinear read (MXNet 1.9.1's roi_align.cc and
rroi_align.cc rules), and ROIAlign's internal backward op."""
import math

import numpy as np

from op_checker import Case

ROIS = np.array([[0, 1.2, 2.3, 7.7, 9.1], [1, -3, -2, 15, 14], [1, 4.5, 4.5, 4.6, 4.7], [-1, 0, 0, 4, 4],
                 [0, 6.0, 1.0, 2.0, 8.0]], np.float32)
RROIS = np.array([[0, 5.5, 6.1, 6.0, 4.0, 30.0], [1, 3.0, 7.0, 9.0, 3.0, 135.0], [0, 0, 0, 0.5, 0.5, -20]],
                 np.float32)


def _taps(H, W, y, x):
    """[(row, col, weight)] of a bilinear read at (y, x); empty more than one cell outside."""
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return []
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return [(y0, x0, (1 - ly) * (1 - lx)), (y0, x1, (1 - ly) * lx), (y1, x0, ly * (1 - lx)), (y1, x1, ly * lx)]


def _points(roi, ph, pw, spatial_scale, sample_ratio, aligned):
    """For each bin (i, j): the sampling points and their count."""
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (float(v) * spatial_scale - off for v in roi[1:5])
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    gh = sample_ratio if sample_ratio > 0 else math.ceil(rh / ph)
    gw = sample_ratio if sample_ratio > 0 else math.ceil(rw / pw)
    return {(i, j): [(y1 + i * bh + (iy + 0.5) * bh / gh, x1 + j * bw + (ix + 0.5) * bw / gw)
                     for iy in range(gh) for ix in range(gw)] for i in range(ph) for j in range(pw)}, gh * gw


def _roi_loop(x, rois, pooled_size, spatial_scale, sample_ratio=-1, position_sensitive=False, aligned=False,
              og=None):
    N, C, H, W = x.shape
    ph, pw = pooled_size
    c_out = C // (ph * pw) if position_sensitive else C
    out = np.zeros((len(rois), c_out, ph, pw))
    grad = np.zeros(x.shape)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0:
            continue
        bins, count = _points(roi, ph, pw, spatial_scale, sample_ratio, aligned)
        for (i, j), pts in bins.items():
            for c in range(c_out):
                cin = c * ph * pw + i * pw + j if position_sensitive else c
                for y, xx in pts:
                    for row, col, wt in _taps(H, W, y, xx):
                        if og is None:
                            out[r, c, i, j] += wt * x[b, cin, row, col] / count
                        else:
                            grad[b, cin, row, col] += wt * og[r, c, i, j] / count
    return out if og is None else grad


def ref_roi_align(x, rois, **attrs):
    return _roi_loop(x, rois, **attrs)


def ref_roi_align_backward(og, rois, x, **attrs):
    return _roi_loop(x, rois, og=og, **attrs)


def ref_rroi_align(x, rois, pooled_size, spatial_scale, sampling_ratio=-1):
    N, C, H, W = x.shape
    ph, pw = pooled_size
    out = np.zeros((len(rois), C, ph, pw))
    for r, roi in enumerate(rois):
        b = int(roi[0])
        cx, cy, rw, rh = (float(v) * spatial_scale for v in roi[1:5])
        theta = float(roi[5]) * math.pi / 180.0
        rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / ph)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                for iy in range(gh):
                    yy = -rh / 2 + i * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = -rw / 2 + j * bw + (ix + 0.5) * bw / gw
                        px = xx * math.cos(theta) + yy * math.sin(theta) + cx
                        py = yy * math.cos(theta) - xx * math.sin(theta) + cy
                        for row, col, wt in _taps(H, W, py, px):
                            out[r, :, i, j] += wt * x[b, :, row, col] / (gh * gw)
    return out


_PLAIN = {"pooled_size": (2, 3), "spatial_scale": 1.0}
_PS = {"pooled_size": (2, 2), "spatial_scale": 0.8, "position_sensitive": True}
CASES = [
    Case("_contrib_ROIAlign", [(2, 3, 12, 10), lambda rng: ROIS], ref=ref_roi_align, attrs=_PLAIN, grad=[0],
         name="adaptive"),
    Case("_contrib_ROIAlign", [(2, 2, 12, 10), lambda rng: ROIS], ref=ref_roi_align, grad=[0], name="ratio2_scaled",
         attrs={"pooled_size": (3, 2), "spatial_scale": 0.5, "sample_ratio": 2}),
    Case("_contrib_ROIAlign", [(2, 8, 12, 10), lambda rng: ROIS], ref=ref_roi_align, attrs=_PS, grad=[0],
         name="position_sensitive"),
    Case("_contrib_ROIAlign", [(2, 2, 12, 10), lambda rng: ROIS[:4]], ref=ref_roi_align, grad=[0], name="aligned",
         attrs={"pooled_size": (2, 2), "spatial_scale": 1.0, "aligned": True, "sample_ratio": 3}),
    Case("_backward_ROIAlign", [(5, 3, 2, 3), lambda rng: ROIS, (2, 3, 12, 10)], ref=ref_roi_align_backward,
         attrs=_PLAIN, grad=(), name="adaptive"),
    Case("_backward_ROIAlign", [(5, 2, 2, 2), lambda rng: ROIS, (2, 8, 12, 10)], ref=ref_roi_align_backward,
         attrs=_PS, grad=(), name="position_sensitive"),
    Case("_contrib_RROIAlign", [(2, 3, 12, 10), lambda rng: RROIS], ref=ref_rroi_align, grad=(), name="adaptive",
         attrs={"pooled_size": (2, 3), "spatial_scale": 1.0}),
    Case("_contrib_RROIAlign", [(2, 2, 12, 10), lambda rng: RROIS], ref=ref_rroi_align, grad=(), name="ratio2",
         attrs={"pooled_size": (3, 2), "spatial_scale": 0.5, "sampling_ratio": 2}),
]
