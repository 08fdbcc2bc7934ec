"""Op-checker cases for ops/im2col.py: im2col and col2im (1-D, 2-D, 3-D; stride, dilate, pad)
against plain loops over blocks and kernel positions."""
import itertools

import numpy as np

from op_checker import Case


def _geometry(spatial, kernel, stride, dilate, pad):
    nd = len(kernel)
    stride, dilate, pad = stride or (1,) * nd, dilate or (1,) * nd, pad or (0,) * nd
    out = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, st, d, p in zip(spatial, kernel, stride, dilate, pad))
    return stride, dilate, pad, out


def _pairs(spatial, kernel, stride, dilate, pad):
    """(row offset k, column l, source position or None) for every kernel position and block."""
    stride, dilate, pad, out = _geometry(spatial, kernel, stride, dilate, pad)
    for k, kpos in enumerate(itertools.product(*(range(v) for v in kernel))):
        for l, opos in enumerate(itertools.product(*(range(v) for v in out))):
            src = tuple(o * s + kp * d - p for o, s, kp, d, p in zip(opos, stride, kpos, dilate, pad))
            inside = all(0 <= v < n for v, n in zip(src, spatial))
            yield k, l, src if inside else None


def ref_im2col(x, kernel, stride=(), dilate=(), pad=()):
    n, c = x.shape[:2]
    kk = int(np.prod(kernel))
    out_sp = _geometry(x.shape[2:], kernel, stride, dilate, pad)[3]
    cols = np.zeros((n, c * kk, int(np.prod(out_sp))))
    for k, l, src in _pairs(x.shape[2:], kernel, stride, dilate, pad):
        if src is not None:
            for ch in range(c):
                cols[:, ch * kk + k, l] = x[(slice(None), ch) + src]
    return cols


def ref_col2im(cols, output_size, kernel, stride=(), dilate=(), pad=()):
    kk = int(np.prod(kernel))
    n, c = cols.shape[0], cols.shape[1] // kk
    img = np.zeros((n, c) + tuple(output_size))
    for k, l, src in _pairs(output_size, kernel, stride, dilate, pad):
        if src is not None:
            for ch in range(c):
                img[(slice(None), ch) + src] += cols[:, ch * kk + k, l]
    return img


SDP = {"stride": (2, 1), "dilate": (1, 2), "pad": (1, 1)}
SDP3 = {"kernel": (2, 2, 2), "stride": (1, 2, 1), "dilate": (2, 1, 1), "pad": (0, 1, 1)}
CASES = [
    Case("im2col", [(2, 2, 3, 4)], attrs={"kernel": (2, 2)}, ref=ref_im2col),
    Case("im2col", [(1, 2, 4, 5)], attrs={"kernel": (2, 2), **SDP}, ref=ref_im2col, name="stride_dilate_pad"),
    Case("im2col", [(2, 2, 6)], attrs={"kernel": (3,), "stride": (2,), "pad": (1,)}, ref=ref_im2col, name="1d"),
    Case("im2col", [(1, 1, 4, 3, 3)], attrs=SDP3, ref=ref_im2col, name="3d"),
    Case("col2im", [(2, 8, 6)], attrs={"output_size": (3, 4), "kernel": (2, 2)}, ref=ref_col2im),
    Case("col2im", [(1, 8, 15)], attrs={"output_size": (4, 5), "kernel": (2, 2), **SDP}, ref=ref_col2im,
         name="stride_dilate_pad"),
    Case("col2im", [(2, 6, 3)], attrs={"output_size": (6,), "kernel": (3,), "stride": (2,), "pad": (1,)},
         ref=ref_col2im, name="1d"),
    Case("col2im", [(1, 8, 16)], attrs={"output_size": (4, 3, 3), **SDP3}, ref=ref_col2im, name="3d"),
]
