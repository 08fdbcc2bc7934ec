"""Op-checker cases for ops/upsampling.py (UpSampling): nearest with one or several inputs (concat and
sum), and bilinear against a direct transposed-convolution loop."""
import math

import numpy as np

from op_checker import Case


def ref_nearest(*xs, scale, sample_type, num_args=1, multi_input_mode="concat", **_):
    oh = xs[0].shape[2] * scale
    ups = [x.repeat(oh // x.shape[2], axis=2).repeat(oh // x.shape[2], axis=3) for x in xs]
    if multi_input_mode == "sum":
        return sum(ups)
    return np.concatenate(ups, axis=1)


def ref_bilinear(x, w, scale, sample_type, num_filter=0, **_):
    """out[n, c, i*s - p + a, j*s - p + b] += x[n, c, i, j] * w[c, 0, a, b] (grouped deconvolution)."""
    n, c, h, wd = x.shape
    k = w.shape[-1]
    p = math.ceil((scale - 1) / 2)
    full = np.zeros((n, c, (h - 1) * scale + k, (wd - 1) * scale + k))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * scale:i * scale + k, j * scale:j * scale + k] += x[:, :, i, j, None, None] * w[None, :, 0]
    return full[:, :, p:p + h * scale, p:p + wd * scale]


NEAR = {"sample_type": "nearest"}
CASES = [
    Case("UpSampling", [(2, 3, 2, 3)], attrs={"scale": 2, **NEAR, "num_args": 1}, ref=ref_nearest),
    Case("UpSampling", [(1, 2, 2, 2)], attrs={"scale": 3, **NEAR, "num_args": 1}, ref=ref_nearest, name="scale3"),
    Case("UpSampling", [(1, 2, 2, 2), (1, 1, 1, 1), (1, 3, 4, 4)], attrs={"scale": 2, **NEAR, "num_args": 3},
         ref=ref_nearest, name="concat3"),
    Case("UpSampling", [(2, 2, 2, 2), (2, 2, 1, 1)],
         attrs={"scale": 2, **NEAR, "num_args": 2, "multi_input_mode": "sum"}, ref=ref_nearest, name="sum"),
    Case("UpSampling", [(2, 3, 3, 2), (3, 1, 4, 4)],
         attrs={"scale": 2, "sample_type": "bilinear", "num_filter": 3, "num_args": 2}, ref=ref_bilinear,
         name="bilinear", rtol=1e-4, atol=1e-5),
    Case("UpSampling", [(1, 2, 2, 2), (2, 1, 5, 5)],
         attrs={"scale": 3, "sample_type": "bilinear", "num_filter": 2, "num_args": 2}, ref=ref_bilinear,
         name="bilinear_scale3", rtol=1e-4, atol=1e-5),
]
