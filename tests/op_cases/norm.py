"""Op-checker cases for the normalisation family (ops/norm.py): BatchNorm, LayerNorm, InstanceNorm,
GroupNorm. References use the biased variance and loops over the normalised groups."""
import numpy as np

from op_checker import Case

f64 = np.float64


def positive(shape, lo=0.5, hi=1.5):
    return lambda rng: rng.uniform(lo, hi, shape)


def normalise(v, eps):
    """(v - mean) / sqrt(var + eps) of a 1-d array, with its mean and biased variance."""
    m = v.mean()
    var = ((v - m) ** 2).mean()
    return (v - m) / np.sqrt(var + eps), m, var


def ref_batch_norm(x, gamma, beta, mm, mv, eps=1e-3, momentum=0.9, fix_gamma=True, use_global_stats=False,
                   output_mean_var=False, axis=1, train=False):
    x = np.moveaxis(x.astype(f64), axis, 0)
    out = np.empty_like(x)
    means, varis = np.empty(x.shape[0]), np.empty(x.shape[0])
    for c in range(x.shape[0]):
        g = 1.0 if fix_gamma else gamma[c]
        if train and not use_global_stats:
            xhat, means[c], varis[c] = normalise(x[c].reshape(-1), eps)
            xhat = xhat.reshape(x[c].shape)
        else:
            means[c], varis[c] = mm[c], mv[c]
            xhat = (x[c] - mm[c]) / np.sqrt(mv[c] + eps)
        out[c] = xhat * g + beta[c]
    out = np.moveaxis(out, 0, axis)
    return (out, means, 1 / np.sqrt(varis + eps)) if output_mean_var else out  # MXNet: mean, inverse std


def ref_layer_norm(x, gamma, beta, axis=-1, eps=1e-5, output_mean_var=False):
    xm = np.moveaxis(x.astype(f64), axis, -1)
    rows = xm.reshape(-1, xm.shape[-1])
    out, means, stds = np.empty_like(rows), np.empty(len(rows)), np.empty(len(rows))
    for i, r in enumerate(rows):
        xhat, means[i], var = normalise(r, eps)
        stds[i] = np.sqrt(var + eps)
        out[i] = xhat * gamma + beta
    out = np.moveaxis(out.reshape(xm.shape), -1, axis)
    stat_shape = np.moveaxis(np.empty(xm.shape[:-1] + (1,)), -1, axis).shape
    return (out, means.reshape(stat_shape), stds.reshape(stat_shape)) if output_mean_var else out


def ref_instance_norm(x, gamma, beta, eps=1e-3):
    out = np.empty(x.shape)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            xhat = normalise(x[n, c].astype(f64).reshape(-1), eps)[0]
            out[n, c] = xhat.reshape(x.shape[2:]) * gamma[c] + beta[c]
    return out


def ref_group_norm(x, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    n_, c_ = x.shape[:2]
    per = c_ // num_groups
    out = np.empty(x.shape)
    means, stds = np.empty((n_, num_groups)), np.empty((n_, num_groups))
    for n in range(n_):
        for g in range(num_groups):
            block = x[n, g * per:(g + 1) * per].astype(f64)
            xhat, means[n, g], var = normalise(block.reshape(-1), eps)
            stds[n, g] = np.sqrt(var + eps)
            out[n, g * per:(g + 1) * per] = xhat.reshape(block.shape)
    scale = gamma if gamma.size == c_ else np.repeat(gamma, per)
    shift = beta if beta.size == c_ else np.repeat(beta, per)
    out = out * scale.reshape((1, c_) + (1,) * (x.ndim - 2)) + shift.reshape((1, c_) + (1,) * (x.ndim - 2))
    return (out, means, stds) if output_mean_var else out


def bn_case(shape, attrs=None, train=False, name="", axis=1):
    c = shape[axis]
    return Case("BatchNorm", [shape, positive(c), (c,), (c,), positive(c)], attrs=attrs or {}, train=train,
                grad=(0, 1, 2), name=name,
                ref=lambda *ins, **a: ref_batch_norm(*ins, train=train, **a))


CASES = [
    bn_case((2, 3, 2, 2), {"fix_gamma": False}, train=True, name="train"),
    bn_case((4, 3), {"fix_gamma": True, "eps": 1e-5}, train=True, name="train_fix_gamma"),
    bn_case((2, 3, 2), {"fix_gamma": False, "momentum": 0.8}, name="predict"),
    bn_case((2, 3, 2), name="predict_fix_gamma_default"),
    bn_case((2, 3, 2), {"fix_gamma": False, "use_global_stats": True}, train=True, name="use_global_stats"),
    bn_case((2, 2, 3), {"fix_gamma": False, "output_mean_var": True}, train=True, name="train_output_mean_var"),
    bn_case((2, 3, 2), {"fix_gamma": False, "output_mean_var": True}, name="predict_output_mean_var"),
    bn_case((3, 2, 4), {"fix_gamma": False, "axis": -1}, train=True, name="axis_last", axis=-1),
    Case("LayerNorm", [(2, 3, 4), positive(4), (4,)], ref=ref_layer_norm),
    Case("LayerNorm", [(2, 4, 3), positive(4), (4,)], attrs={"axis": 1, "eps": 1e-3}, ref=ref_layer_norm,
         name="axis1"),
    Case("LayerNorm", [(3, 4), positive(4), (4,)], attrs={"output_mean_var": True}, ref=ref_layer_norm,
         name="output_mean_var"),
    Case("InstanceNorm", [(2, 3, 4), positive(3), (3,)], ref=ref_instance_norm),
    Case("InstanceNorm", [(2, 2, 2, 3), positive(2), (2,)], attrs={"eps": 1e-5}, ref=ref_instance_norm,
         name="4d"),
    # MXNet 1.9: gamma/beta of shape (num_groups,); (C,) (one per channel) is accepted too
    Case("GroupNorm", [(2, 4, 3), positive(2), (2,)], attrs={"num_groups": 2}, ref=ref_group_norm),
    Case("GroupNorm", [(2, 4, 2, 2), positive(4), (4,)], attrs={"num_groups": 2}, ref=ref_group_norm,
         name="per_channel_params"),
    Case("GroupNorm", [(2, 3, 4), positive(1), (1,)], attrs={"output_mean_var": True, "eps": 1e-3},
         ref=ref_group_norm, name="one_group_output_mean_var"),
    Case("GroupNorm", [(2, 4, 3), positive(4), (4,)], attrs={"num_groups": 4, "output_mean_var": True},
         ref=ref_group_norm, name="group_per_channel"),
]


def ref_bn_backward(g, x, gamma, mean, inv_std, axis=1, fix_gamma=True):
    """BatchNorm's training gradient (hidden statistics) from the composed formula, in float64."""
    xm = np.moveaxis(x.astype(f64), axis, -1)
    gm = np.moveaxis(g.astype(f64), axis, -1)
    xhat = (xm - mean) * inv_std
    n = xm.size // xm.shape[-1]
    red = tuple(range(xm.ndim - 1))
    dbeta, dgamma = gm.sum(red), (gm * xhat).sum(red)
    gam = 1.0 if fix_gamma else gamma
    dx = gam * inv_std * (gm - dbeta / n - xhat * dgamma / n)
    return np.moveaxis(dx, -1, axis), (np.zeros_like(gamma) if fix_gamma else dgamma), dbeta


def bn_backward_case(shape, axis=1, fix_gamma=False, name=""):
    c = shape[axis]
    return Case("_backward_BatchNorm", [shape, shape, positive(c), (c,), positive(c)],
                attrs={"axis": axis, "fix_gamma": fix_gamma}, grad=(0, 1, 2, 3, 4), name=name, ref=ref_bn_backward)


CASES += [
    bn_backward_case((2, 3, 2, 2), name="nchw"),
    bn_backward_case((2, 3, 4, 5), fix_gamma=True, name="fix_gamma_long_rows"),   # inner rows >= 16: einsum
    bn_backward_case((3, 2, 4), axis=-1, name="axis_last"),
    bn_backward_case((4, 3), name="2d"),
]
