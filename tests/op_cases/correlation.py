"""Op-checker cases for ops/correlation.py: Correlation against a plain loop over output positions,
displacements, kernel cells and channels (MXNet 1.9.1's CPU kernel), and its internal backward op."""
import math

import numpy as np

from op_checker import Case


def _geometry(shape, kernel_size, max_displacement, stride1, stride2, pad_size):
    kr = (kernel_size - 1) // 2
    border = max_displacement + kr
    ho = math.ceil((shape[2] + 2 * pad_size - 2 * border) / stride1)
    wo = math.ceil((shape[3] + 2 * pad_size - 2 * border) / stride1)
    radius = max_displacement // stride2
    return ho, wo, radius, 2 * radius + 1


def _loop(d1, d2, kernel_size=1, max_displacement=1, stride1=1, stride2=1, pad_size=0, is_multiply=True, og=None):
    """Forward (og None) or the two input gradients for output gradient og."""
    n, c, h, w = d1.shape
    ho, wo, radius, width = _geometry(d1.shape, kernel_size, max_displacement, stride1, stride2, pad_size)
    p = pad_size
    t1 = np.zeros((n, c, h + 2 * p, w + 2 * p))
    t2 = np.zeros_like(t1)
    t1[:, :, p:p + h, p:p + w], t2[:, :, p:p + h, p:p + w] = d1, d2
    out = np.zeros((n, width * width, ho, wo))
    g1, g2 = np.zeros_like(t1), np.zeros_like(t2)
    norm = kernel_size * kernel_size * c
    for b in range(n):
        for q in range(width * width):
            dx, dy = (q % width - radius) * stride2, (q // width - radius) * stride2
            for i in range(ho):
                for j in range(wo):
                    y1, x1 = i * stride1 + max_displacement, j * stride1 + max_displacement
                    for kh in range(kernel_size):
                        for kw in range(kernel_size):
                            for ch in range(c):
                                a, z = t1[b, ch, y1 + kh, x1 + kw], t2[b, ch, y1 + dy + kh, x1 + dx + kw]
                                if og is None:
                                    out[b, q, i, j] += (a * z if is_multiply else abs(a - z)) / norm
                                    continue
                                g = og[b, q, i, j] / norm
                                s = 1.0 if a >= z else -1.0
                                g1[b, ch, y1 + kh, x1 + kw] += g * (z if is_multiply else s)
                                g2[b, ch, y1 + dy + kh, x1 + dx + kw] += g * (a if is_multiply else -s)
    if og is None:
        return out
    return g1[:, :, p:p + h, p:p + w], g2[:, :, p:p + h, p:p + w]


def ref_correlation(d1, d2, **attrs):
    return _loop(d1, d2, **attrs)


def ref_backward(og, d1, d2, **attrs):
    return _loop(d1, d2, og=og, **attrs)


_MUL = {"kernel_size": 3, "max_displacement": 1, "stride1": 1, "stride2": 1, "pad_size": 1}
_ABS = {"kernel_size": 1, "max_displacement": 2, "stride1": 2, "stride2": 2, "pad_size": 2, "is_multiply": False}
CASES = [
    Case("Correlation", [(2, 2, 5, 4), (2, 2, 5, 4)], ref=ref_correlation, attrs=_MUL, name="multiply_k3"),
    Case("Correlation", [(1, 2, 5, 6), (1, 2, 5, 6)], ref=ref_correlation, attrs=_ABS, name="absdiff_strided"),
    Case("Correlation", [(1, 1, 6, 6), (1, 1, 6, 6)], ref=ref_correlation, name="defaults",
         attrs={"kernel_size": 1, "max_displacement": 1, "stride1": 3, "stride2": 1}),
    Case("_backward_Correlation", [(2, 9, 3, 2), (2, 2, 5, 4), (2, 2, 5, 4)], ref=ref_backward, attrs=_MUL,
         grad=(), name="multiply_k3"),
    Case("_backward_Correlation", [(1, 9, 3, 3), (1, 2, 5, 6), (1, 2, 5, 6)], ref=ref_backward, attrs=_ABS,
         grad=(), name="absdiff_strided"),
]
