"""Op-checker cases for ops/modulated_deformable_conv.py: ModulatedDeformableConvolution against a
plain loop over outputs, taps and channels with a scalar zero-padded bilinear read (MXNet 1.9.1's
modulated_deformable_im2col rules: the point counts inside (-1, H) x (-1, W), pixels outside read
0), and its internal backward op against the same loop's hand-derived gradients."""
import math

import numpy as np

from op_checker import Case


def _read(img, y, x):
    """(value, d value / dy, d value / dx, [(row, col, weight)]) of the zero-padded bilinear read."""
    H, W = img.shape
    if not (-1 < y < H and -1 < x < W):
        return 0.0, 0.0, 0.0, []
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0

    def at(r, c):
        return img[r, c] if 0 <= r < H and 0 <= c < W else 0.0
    v00, v01, v10, v11 = at(y0, x0), at(y0, x0 + 1), at(y0 + 1, x0), at(y0 + 1, x0 + 1)
    taps = [(r, c, wt) for r, c, wt in ((y0, x0, (1 - ly) * (1 - lx)), (y0, x0 + 1, (1 - ly) * lx),
                                        (y0 + 1, x0, ly * (1 - lx)), (y0 + 1, x0 + 1, ly * lx))
            if 0 <= r < H and 0 <= c < W]
    value = v00 * (1 - ly) * (1 - lx) + v01 * (1 - ly) * lx + v10 * ly * (1 - lx) + v11 * ly * lx
    dy = (v10 - v00) * (1 - lx) + (v11 - v01) * lx
    dx = (v01 - v00) * (1 - ly) + (v11 - v10) * ly
    return value, dy, dx, taps


def _loop(x, off, mask, wt, kernel, num_filter, stride=(1, 1), dilate=(1, 1), pad=(0, 0), num_group=1,
          num_deformable_group=1, og=None):
    N, C, H, W = x.shape
    kh, kw = kernel
    Ho, Wo = off.shape[2:]
    cg, fg = C // num_group, num_filter // num_group
    out = np.zeros((N, num_filter, Ho, Wo))
    gx, goff, gm, gw = np.zeros(x.shape), np.zeros(off.shape), np.zeros(mask.shape), np.zeros(wt.shape)
    for n in range(N):
        for c in range(C):
            dg = c // (C // num_deformable_group)
            g = c // cg
            for i in range(kh):
                for j in range(kw):
                    ch = dg * 2 * kh * kw + 2 * (i * kw + j)
                    mc = dg * kh * kw + i * kw + j
                    for yo in range(Ho):
                        for xo in range(Wo):
                            py = yo * stride[0] - pad[0] + i * dilate[0] + off[n, ch, yo, xo]
                            px = xo * stride[1] - pad[1] + j * dilate[1] + off[n, ch + 1, yo, xo]
                            v, dy, dx, taps = _read(x[n, c], py, px)
                            m = mask[n, mc, yo, xo]
                            for f in range(g * fg, (g + 1) * fg):
                                w = wt[f, c - g * cg, i, j]
                                if og is None:
                                    out[n, f, yo, xo] += w * m * v
                                    continue
                                o = og[n, f, yo, xo]
                                gw[f, c - g * cg, i, j] += o * m * v
                                gm[n, mc, yo, xo] += o * w * v
                                goff[n, ch, yo, xo] += o * w * m * dy
                                goff[n, ch + 1, yo, xo] += o * w * m * dx
                                for r, cc, tw in taps:
                                    gx[n, c, r, cc] += o * w * m * tw
    return out if og is None else (gx, goff, gm, gw)


def ref_modulated(x, off, mask, wt, bias=None, no_bias=False, **attrs):
    out = _loop(x, off, mask, wt, **attrs)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


def ref_modulated_backward(og, x, off, mask, wt, no_bias=False, **attrs):
    return _loop(x, off, mask, wt, og=og, **attrs)


def _offset(shape, spread=1.5):
    return lambda rng: rng.standard_normal(shape) * spread


def _mask(shape):
    return lambda rng: rng.uniform(0.2, 1.8, shape)


_G = {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1), "num_deformable_group": 2}
_S = {"kernel": (3, 2), "num_filter": 4, "stride": (2, 1), "dilate": (2, 1), "pad": (2, 1), "num_group": 2}
_OP = "_contrib_ModulatedDeformableConvolution"
CASES = [
    Case(_OP, [(1, 4, 5, 4), _offset((1, 36, 5, 4)), _mask((1, 18, 5, 4)), (4, 4, 3, 3), (4,)],
         ref=ref_modulated, attrs=_G, name="deformable_groups", grad_rtol=1e-3, grad_atol=1e-5),
    Case(_OP, [(2, 2, 6, 5), _offset((2, 12, 3, 6)), _mask((2, 6, 3, 6)), (4, 1, 3, 2), (4,)],
         ref=ref_modulated, attrs=_S, name="strided_dilated_groups", grad_rtol=1e-3, grad_atol=1e-5),
    Case(_OP, [(1, 2, 4, 4), _offset((1, 8, 3, 3), 0.4), _mask((1, 4, 3, 3)), (3, 2, 2, 2)],
         ref=ref_modulated, attrs={"kernel": (2, 2), "num_filter": 3, "no_bias": True}, name="no_bias",
         grad_rtol=1e-3, grad_atol=1e-5),
    Case("_backward_" + _OP, [(1, 4, 5, 4), (1, 4, 5, 4), _offset((1, 36, 5, 4)), _mask((1, 18, 5, 4)),
                              (4, 4, 3, 3)],
         ref=ref_modulated_backward, attrs=_G, grad=(), name="deformable_groups", rtol=1e-4, atol=1e-5),
    Case("_backward_" + _OP, [(2, 4, 3, 6), (2, 2, 6, 5), _offset((2, 12, 3, 6)), _mask((2, 6, 3, 6)),
                              (4, 1, 3, 2)],
         ref=ref_modulated_backward, attrs=_S, grad=(), name="strided_dilated_groups", rtol=1e-4, atol=1e-5),
]
