"""Op-checker cases for ops/l2_lrn.py: L2Normalization (3 modes), LRN and its helper
_lrn_channel_sum. References loop over the normalised groups / channel windows."""
import numpy as np

from op_checker import Case


def ref_l2(x, eps=1e-10, mode="instance"):
    x = x.astype(np.float64)
    out = np.empty_like(x)
    if mode == "instance":
        for n in range(x.shape[0]):
            out[n] = x[n] / np.sqrt((x[n] ** 2).sum() + eps)
    elif mode == "channel":
        for idx in np.ndindex(x.shape[:1] + x.shape[2:]):
            sl = (idx[0], slice(None)) + idx[1:]
            out[sl] = x[sl] / np.sqrt((x[sl] ** 2).sum() + eps)
    else:
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                out[n, c] = x[n, c] / np.sqrt((x[n, c] ** 2).sum() + eps)
    return out


def window_sum(t, nsize):
    out = np.zeros(t.shape)
    half = nsize // 2
    for c in range(t.shape[1]):
        out[:, c] = t[:, max(0, c - half):c + half + 1].sum(axis=1)
    return out


def ref_lrn(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    x = x.astype(np.float64)
    return x * (knorm + alpha / nsize * window_sum(x * x, nsize)) ** -beta


CASES = [
    Case("L2Normalization", [(2, 3, 4)], ref=ref_l2),
    Case("L2Normalization", [(2, 3, 2, 2)], attrs={"mode": "channel", "eps": 0.1}, ref=ref_l2, name="channel"),
    Case("L2Normalization", [(2, 3, 2, 2)], attrs={"mode": "spatial"}, ref=ref_l2, name="spatial"),
    Case("L2Normalization", [(3, 4)], attrs={"eps": 1e-3}, ref=ref_l2, name="2d"),
    Case("LRN", [(2, 5, 2, 3)], attrs={"nsize": 3}, ref=ref_lrn),
    Case("LRN", [(1, 4, 2, 2)], attrs={"nsize": 5, "alpha": 0.5, "beta": 0.5, "knorm": 1.0}, ref=ref_lrn,
         name="wide"),
    Case("LRN", [(1, 3, 2, 2)], attrs={"nsize": 1, "alpha": 0.3}, ref=ref_lrn, name="nsize1"),
    Case("_lrn_channel_sum", [(2, 5, 3)], attrs={"nsize": 3}, ref=window_sum),
    Case("_lrn_channel_sum", [(1, 3, 2, 2)], attrs={"nsize": 7}, ref=window_sum, name="wider_than_channels"),
]
