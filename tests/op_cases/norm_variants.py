"""Op-checker cases for ops/norm_variants.py: BatchNorm_v1 and _contrib_SyncBatchNorm (BatchNorm over
axis 1 whose third output is the variance used), in training and predict mode, with the statistics
outputs and with fix_gamma; the reference loops over the channels in float64."""
import numpy as np

from op_checker import Case
from op_cases.norm import normalise, positive


def ref_bn_var(x, gamma, beta, mm, mv, eps=1e-3, momentum=0.9, fix_gamma=True, use_global_stats=False,
               output_mean_var=False, train=False, ndev=1, key=None):
    x = x.astype(np.float64)
    out = np.empty_like(x)
    means, varis = np.empty(x.shape[1]), np.empty(x.shape[1])
    for c in range(x.shape[1]):
        xc = x[:, c]
        if train and not use_global_stats:
            xhat, means[c], varis[c] = normalise(xc.reshape(-1), eps)
            xhat = xhat.reshape(xc.shape)
        else:
            means[c], varis[c] = mm[c], mv[c]
            xhat = (xc - mm[c]) / np.sqrt(mv[c] + eps)
        out[:, c] = xhat * (1.0 if fix_gamma else gamma[c]) + beta[c]
    return (out, means, varis) if output_mean_var else out


def variant_case(op, shape, attrs, train, name):
    c = shape[1]
    if op == "_contrib_SyncBatchNorm":
        attrs = dict(attrs, key="bn0")
    return Case(op, [shape, positive(c), (c,), (c,), positive(c)], attrs=attrs, train=train, grad=(0, 1, 2),
                name=name, ref=lambda *ins, **a: ref_bn_var(*ins, train=train, **a))


CASES = [
    variant_case(op, shape, attrs, train, name)
    for op in ("BatchNorm_v1", "_contrib_SyncBatchNorm")
    for shape, attrs, train, name in (
        ((2, 3, 2, 2), {"fix_gamma": False}, True, "train"),
        ((4, 3), {"eps": 1e-5}, True, "train_fix_gamma"),
        ((2, 2, 3), {"fix_gamma": False, "output_mean_var": True}, True, "train_output_mean_var"),
        ((2, 3, 2), {"fix_gamma": False, "output_mean_var": True, "momentum": 0.8}, False, "predict_output_mean_var"),
        ((2, 3, 2), {"fix_gamma": False, "use_global_stats": True}, True, "use_global_stats"),
    )
]
