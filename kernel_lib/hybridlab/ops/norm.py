"""Normalisation operators: ``BatchNorm``, ``LayerNorm``, ``InstanceNorm``, ``GroupNorm``.

All normalise with the biased (population) variance. Gradients are written with registered ops and
include the contributions of the statistics outputs (mean, var/std), so they are exact for every
visible output and can be differentiated again. BatchNorm's training gradient, when its statistics
outputs are hidden (their head gradients are zero), is one op, ``_backward_BatchNorm`` (four passes
over the data instead of the composed ops' ~25), with its own gradient for the second order.

BatchNorm follows MXNet 1.9 on the CPU: in training mode (``autograd`` training and not
``use_global_stats``) it normalises with the batch statistics, and the moving statistics (aux inputs
``moving_mean``/``moving_var``) are updated in BACKWARD, in place:
``new = old * momentum + batch * (1 - momentum)`` with the biased batch variance. Its statistics
outputs are, as in MXNet, the mean and the INVERSE standard deviation 1/sqrt(var + eps) (of the batch in
training, of ``moving_var`` otherwise).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    >>> y = mx.nd.LayerNorm(x, mx.nd.ones((3,)), mx.nd.zeros((3,)))
    >>> [[round(v, 3) for v in row] for row in y.asnumpy().tolist()]
    [[-1.225, 0.0, 1.225], [1.225, 0.0, -1.225]]
"""
import numpy as np

from .attrs import Attr
from .bf16 import via_float32
from .dtype_check import check_dtypes, norm_param_dtype, norm_param_dtypes, uniform_dtypes
from .infer import InferError, merge_shape, normalize_axis, prod
from .registry import ChannelAffine, OpDef, SideEffect, register


def _bshape(ndim, axis, n):
    shape = [1] * ndim
    shape[axis] = n
    return tuple(shape)


def _sum_to(F, t, keep, ndim):
    """Sum of ``t`` over every axis not in ``keep`` (a tuple), without keepdims."""
    axes = tuple(i for i in range(ndim) if i not in keep)
    return F.sum(t, axis=axes) if axes else t


# MXNet 1.9: BatchNorm keeps float16 data's parameters in float32 (the statistics outputs in the
# parameters' dtype); LayerNorm and GroupNorm take one dtype for everything, and so does InstanceNorm
# here (MXNet 1.9.1's takes float32 only)
_bn_types = norm_param_dtypes("BatchNorm")
_in_types = uniform_dtypes("InstanceNorm", n_out=3)
_ln_types = uniform_dtypes("LayerNorm", n_out=3)
_gn_types = uniform_dtypes("GroupNorm", n_out=3)


def _check_bn_params(a, x, *params):
    """Refuse parameters whose dtype BatchNorm's type inference refuses (one comparison each when they fit)."""
    want = norm_param_dtype(x.dtype)
    for p in params:
        if p.dtype != want:
            check_dtypes(_bn_types, a, x, *params)      # raises, naming the input
            return


def _norm_dx(F, xhat, dxhat, inv_std, red, count, og_mean=None, og_second=None, second_is_var=False,
             centered=None):
    """d/dx of a normalisation over axes ``red`` given dL/dxhat (already shaped like xhat):
    inv_std * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), plus the terms of the mean and
    std (or var) outputs' head gradients (all statistics broadcastable with keepdims)."""
    m1 = F.mean(dxhat, axis=red, keepdims=True)
    m2 = F.mean(F.elemwise_mul(dxhat, xhat), axis=red, keepdims=True)
    dx = F.broadcast_mul(F.elemwise_sub(F.broadcast_sub(dxhat, m1), F.broadcast_mul(xhat, m2)), inv_std)
    if og_mean is not None:
        if second_is_var:  # d var / dx = 2 (x - mean) / count
            extra = F.broadcast_add(F._mul_scalar(F.broadcast_mul(centered, og_second), scalar=2.0), og_mean)
        else:              # d std / dx = xhat / count
            extra = F.broadcast_add(F.broadcast_mul(xhat, og_second), og_mean)
        dx = F.elemwise_add(dx, F._div_scalar(extra, scalar=float(count)))
    return dx


# ---- BatchNorm ----------------------------------------------------------------------------------
def _channel_view(x, ax):
    """``x`` as ``(outer, C, inner)`` around the channel axis ``ax`` (a view of a contiguous array)."""
    return x.reshape(prod(x.shape[:ax]), x.shape[ax], prod(x.shape[ax + 1:]))


def _channel_sum(t3):
    """Per-channel sums of an ``(outer, C, inner)`` array: whole rows added first (NumPy's fastest
    reduction, ``ops/reduce.py``'s staged sum), then the short rows."""
    return t3.sum(axis=0).sum(axis=-1)


def _channel_dot(xp, a3, b3):
    """Per-channel sums of ``a3 * b3`` (``(outer, C, inner)`` arrays): einsum reads both without writing
    the product when the inner rows are long enough for its loop; short rows (late ResNet stages,
    2x2 pixels) multiply first (measured: 106 vs 198 us at (32, 64, 256), 111 vs 35 us at (32, 512, 4))."""
    if a3.shape[2] >= 16:
        return xp.einsum("ocs,ocs->c", a3, b3)
    return _channel_sum(a3 * b3)


def _bn_forward(ctx, a, x, gamma, beta, moving_mean, moving_var):
    """The normalised output and the statistics used, ``(out, mean, var, inv_std)``, in x's dtype
    (shared with the BatchNorm variants of ``ops/norm_variants.py``, which output the variance).
    Batch statistics take four passes over ``x``: the mean, ``x - mean`` (kept, scaled and shifted in
    place into the output) and its per-channel sum of squares."""
    _check_bn_params(a, x, gamma, beta, moving_mean, moving_var)
    xp = ctx.xp
    ax = normalize_axis(a["axis"], x.ndim)
    c = x.shape[ax]
    work = _work_dtype(x.dtype)
    dt = work.type
    x3 = _channel_view(x, ax).astype(work, copy=False)
    count = max(x3.shape[0] * x3.shape[2], 1)
    if ctx.is_train and not a["use_global_stats"]:
        mean = _channel_sum(x3) / dt(count)
        out = x3 - mean.reshape(1, c, 1)
        var = _channel_dot(xp, out, out) / dt(count)
    else:
        mean, var = moving_mean.astype(work), moving_var.astype(work)
        out = x3 - mean.reshape(1, c, 1)
    inv_std = 1 / xp.sqrt(var + dt(a["eps"]))
    scale = inv_std if a["fix_gamma"] else inv_std * gamma.astype(work, copy=False)
    out *= scale.reshape(1, c, 1)
    out += beta.astype(work, copy=False).reshape(1, c, 1)
    cast = lambda t: t.astype(x.dtype, copy=False)     # noqa: E731
    return cast(out.reshape(x.shape)), cast(mean), cast(var), cast(inv_std)


def _work_dtype(dtype):
    """float16 data is normalised in float32 (its sums would lose the small terms); others as they are."""
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _bn_compute(ctx, a, x, gamma, beta, moving_mean, moving_var):
    out, mean, _, inv_std = _bn_forward(ctx, a, x, gamma, beta, moving_mean, moving_var)
    return out, mean.astype(gamma.dtype), inv_std.astype(gamma.dtype)


def _bn_infer(a, s):
    d = s[0]
    if d is None:
        return [None, None, None]
    if not d:
        raise InferError(0, "a shape with at least one (channel) dimension", d)
    c = d[normalize_axis(a["axis"], len(d))]
    for i, n in ((1, "gamma"), (2, "beta"), (3, "moving_mean"), (4, "moving_var")):
        merge_shape(s, i, (c,), f"{n} has one value per channel (axis={a['axis']})")
    return [tuple(d), (c,), (c,)]


def _bn_update_moving(a, mean, inv_std, moving_mean, moving_var):
    """MXNet 1.9 CPU: the moving statistics are updated by the backward pass, in place, with the batch
    variance recovered from the saved inverse std as MXNet does (1/inv_std^2 - eps). Raw arrays."""
    var = 1.0 / (inv_std * inv_std) - inv_std.dtype.type(a["eps"])
    m = a["momentum"]
    for stat, batch in ((moving_mean, mean), (moving_var, var)):
        stat *= stat.dtype.type(m)
        stat += (batch * (1.0 - m)).astype(stat.dtype, copy=False)


def _bn_updates_moving(a, training):
    """Whether a call in mode ``training`` normalised with the batch statistics (and so its gradient
    updates the moving ones)."""
    return training and not a["use_global_stats"]


def _bn_grad(F, a, ins, outs, og, training):
    x, gamma = ins[0], ins[1]
    mean, inv_std = outs[1], outs[2]
    g, og_mean, og_inv_std = og
    ax = normalize_axis(a["axis"], x.ndim)
    # ``training`` is the forward's mode: in training the forward used the batch statistics, and
    # (as MXNet 1.9 on CPU) the backward updates the moving statistics in place.
    train = _bn_updates_moving(a, training)
    stats = [getattr(t, "_data", None) for t in (mean, inv_std, ins[3], ins[4])]
    if train and all(t is not None for t in stats):   # traced gradients see no data: see train_side_effect
        _bn_update_moving(a, *stats)
    if train and not a["output_mean_var"]:
        # the statistics outputs are hidden, so their head gradients are zero: one fused op
        res = F._backward_BatchNorm(g, x, gamma, mean, inv_std, axis=ax, fix_gamma=a["fix_gamma"])
        return [res[0], res[1], res[2], None, None]
    c = x.shape[ax]
    bs = _bshape(x.ndim, ax, c)
    red = tuple(i for i in range(x.ndim) if i != ax)
    mean_b = F.Reshape(mean, shape=bs)
    inv_std_b = F.Reshape(inv_std, shape=bs)
    centered = F.broadcast_sub(x, mean_b)
    xhat = F.broadcast_mul(centered, inv_std_b)
    dxhat = g if a["fix_gamma"] else F.broadcast_mul(g, F.Reshape(gamma, shape=bs))
    if train:
        count = x.size // c
        # d inv_std / d var = -inv_std^3 / 2: the inv_std head gradient as one on the variance
        og_var = F.elemwise_mul(og_inv_std, F._mul_scalar(F.elemwise_mul(inv_std, F.square(inv_std)), scalar=-0.5))
        dx = _norm_dx(F, xhat, dxhat, inv_std_b, red, count, F.Reshape(og_mean, shape=bs),
                      F.Reshape(og_var, shape=bs), second_is_var=True, centered=centered)
    else:  # statistics are constants (the moving ones)
        dx = F.broadcast_mul(dxhat, inv_std_b)
    dgamma = F.zeros_like(gamma) if a["fix_gamma"] else _sum_to(F, F.elemwise_mul(g, xhat), (ax,), x.ndim)
    dbeta = _sum_to(F, g, (ax,), x.ndim)
    return [dx, dgamma, dbeta, None, None]


def _bn_backward_compute(ctx, a, g, x, gamma, mean, inv_std):
    """BatchNorm's gradient in training (batch statistics, hidden statistics outputs) in four passes
    over the activations instead of the composed ops' ~25: with ``xhat = (x - mean) * inv_std`` and
    ``n`` values per channel, ``dbeta = sum(g)``, ``dgamma = sum(g * xhat)`` and
    ``dx = gamma * inv_std * (g - dbeta / n - xhat * dgamma / n)``, which is ``P * g + Q * x + R``
    per channel. Float16 data is worked in float32."""
    xp = ctx.xp
    ax = normalize_axis(a["axis"], x.ndim)
    c = x.shape[ax]
    work = _work_dtype(x.dtype)
    g3, x3 = _channel_view(g, ax).astype(work, copy=False), _channel_view(x, ax).astype(work, copy=False)
    count = max(x3.shape[0] * x3.shape[2], 1)
    mean, inv_std = mean.astype(work), inv_std.astype(work)
    gam = xp.ones(c, work) if a["fix_gamma"] else gamma.astype(work)
    dbeta = _channel_sum(g3)
    dgamma = (_channel_dot(xp, g3, x3) - mean * dbeta) * inv_std        # sum(g * xhat)
    p = gam * inv_std
    q = -p * inv_std * dgamma / count
    r = -p * dbeta / count - q * mean
    dx = g3 * p.reshape(1, c, 1)
    dx += x3 * q.reshape(1, c, 1)
    dx += r.reshape(1, c, 1)
    dgamma = xp.zeros_like(gamma) if a["fix_gamma"] else dgamma.astype(gamma.dtype)
    return dx.reshape(x.shape).astype(x.dtype, copy=False), dgamma, dbeta.astype(gamma.dtype)


def _bn_backward_grad(F, a, ins, outs, og):
    """Second order: the vector-Jacobian product of ``_backward_BatchNorm`` w.r.t. all five inputs
    (``mean`` and ``inv_std`` as independent inputs; their gradients reach ``x`` through BatchNorm's
    own gradient), written with registered ops."""
    g, x, gamma, mean, inv_std = ins
    hx, hgamma, hbeta = og
    ndim = len(x.shape)
    ax = normalize_axis(a["axis"], ndim)
    c = x.shape[ax]
    bs = _bshape(ndim, ax, c)
    count = float(max(x.size // c, 1))
    centered = F.broadcast_sub(x, F.Reshape(mean, shape=bs))
    inv_b = F.Reshape(inv_std, shape=bs)
    xhat = F.broadcast_mul(centered, inv_b)
    gam = F.ones_like(inv_std) if a["fix_gamma"] else gamma
    p = F.elemwise_mul(gam, inv_std)                     # gamma * inv_std
    p_b = F.Reshape(p, shape=bs)
    sg = _sum_to(F, g, (ax,), ndim)                      # dbeta
    sgx = _sum_to(F, F.elemwise_mul(g, xhat), (ax,), ndim)   # dgamma (before fix_gamma)
    sh = _sum_to(F, hx, (ax,), ndim)
    shx = _sum_to(F, F.elemwise_mul(hx, xhat), (ax,), ndim)
    # d/dg: hbeta + hgamma * xhat + p * (hx - mean(hx) - xhat * mean(hx * xhat))
    dg = F.broadcast_mul(F.elemwise_sub(F.broadcast_sub(hx, F.Reshape(F._div_scalar(sh, scalar=count), shape=bs)),
                                        F.broadcast_mul(xhat, F.Reshape(F._div_scalar(shx, scalar=count), shape=bs))),
                         p_b)
    dg = F.broadcast_add(dg, F.Reshape(hbeta, shape=bs))
    if not a["fix_gamma"]:
        dg = F.elemwise_add(dg, F.broadcast_mul(xhat, F.Reshape(hgamma, shape=bs)))
    # d/dxhat: hgamma * g - p * (hx * sum(g xhat) + g * sum(hx xhat)) / n
    dxhat = F.broadcast_mul(F.elemwise_add(F.broadcast_mul(hx, F.Reshape(sgx, shape=bs)),
                                           F.broadcast_mul(g, F.Reshape(shx, shape=bs))),
                            F.Reshape(F._div_scalar(F.negative(p), scalar=count), shape=bs))
    if not a["fix_gamma"]:
        dxhat = F.elemwise_add(dxhat, F.broadcast_mul(g, F.Reshape(hgamma, shape=bs)))
    # d/dp = sum(hx * (g - sg/n - xhat * sgx/n)) = (sum(hx g) - sh sg / n - shx sgx / n)
    dp = F.elemwise_sub(_sum_to(F, F.elemwise_mul(hx, g), (ax,), ndim),
                        F._div_scalar(F.elemwise_add(F.elemwise_mul(sh, sg), F.elemwise_mul(shx, sgx)), scalar=count))
    dx = F.broadcast_mul(dxhat, inv_b)
    dmean = F.negative(F.elemwise_mul(_sum_to(F, dxhat, (ax,), ndim), inv_std))
    dinv = F.elemwise_add(_sum_to(F, F.elemwise_mul(dxhat, centered), (ax,), ndim), F.elemwise_mul(dp, gam))
    dgamma = F.zeros_like(gamma) if a["fix_gamma"] else F.elemwise_mul(dp, inv_std)
    return [dg, dx, dgamma, dmean, dinv]


register(OpDef(
    "_backward_BatchNorm", family="norm", hidden=True, inputs=("ograd", "data", "gamma", "mean", "inv_std"),
    num_outputs=3, output_names=("data_grad", "gamma_grad", "beta_grad"),
    attrs={"axis": Attr("int", 1, doc="The channel axis."),
           "fix_gamma": Attr("bool", True, doc="gamma taken as 1 (its gradient is 0).")},
    compute=_bn_backward_compute, grad=_bn_backward_grad,
    infer_shape=lambda a, s: [None if s[1] is None else tuple(s[1])] + [None if s[2] is None else tuple(s[2])] * 2,
    infer_type=lambda a, d: [d[1], d[2], d[2]],
    doc="BatchNorm's gradient in training w.r.t. data, gamma and beta from the output gradient ``ograd``, "
        "the data and the batch statistics (``mean``, ``inv_std``) its forward used."))


def _bn_scale_shift(F, a, ins):
    """Predict mode as a per-channel affine map (``ChannelAffine``): ``scale = gamma / sqrt(moving_var
    + eps)`` (gamma taken as 1 under ``fix_gamma``), ``shift = beta - moving_mean * scale``."""
    _, gamma, beta, moving_mean, moving_var = ins
    scale = F.rsqrt(F._plus_scalar(moving_var, scalar=float(a["eps"])))
    if not a["fix_gamma"]:
        scale = F.elemwise_mul(gamma, scale)
    return scale, F.elemwise_sub(beta, F.elemwise_mul(moving_mean, scale))


register(OpDef(
    "BatchNorm", family="norm", npx="batch_norm", needs_train=True,
    predict_affine=ChannelAffine(axis=lambda a: a["axis"], scale_shift=_bn_scale_shift),
    var_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'},
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
    num_outputs=3, num_visible=lambda a: 3 if a["output_mean_var"] else 1,
    output_names=lambda a: ("output", "mean", "var") if a["output_mean_var"] else ("output",),
    attrs={"eps": Attr("float", 1e-3, doc="Epsilon added to the variance."),
           "momentum": Attr("float", 0.9, doc="Momentum of the moving average."),
           "fix_gamma": Attr("bool", True, doc="Treat gamma as 1 (its gradient is then 0)."),
           "use_global_stats": Attr("bool", False, doc="Normalise with the moving statistics even in training."),
           "output_mean_var": Attr("bool", False, doc="Also output the mean and the inverse std."),
           "axis": Attr("int", 1, doc="The channel axis."),
           "cudnn_off": Attr("bool", False, doc="Accepted for compatibility; no effect."),
           "min_calib_range": Attr("float?", None, doc="Quantisation only; ignored."),
           "max_calib_range": Attr("float?", None, doc="Quantisation only; ignored.")},
    compute=via_float32(_bn_compute, _bn_types), infer_shape=_bn_infer, infer_type=_bn_types, grad=_bn_grad,
    grad_mode=True,
    train_side_effect=SideEffect(reads=(("output", 1), ("output", 2), ("input", 3), ("input", 4)),
                                 update=_bn_update_moving, when=_bn_updates_moving,
                                 doc="moving statistics updated in place"),
    doc="Batch normalisation along the channel ``axis``: (x - mean) / sqrt(var + eps) * gamma + beta. In "
        "training mode mean/var are the batch statistics (biased variance) and the moving statistics are "
        "updated in backward (new = old*momentum + batch*(1-momentum)); otherwise (or with "
        "use_global_stats) the moving statistics are used. Outputs output, mean, var (the last two hidden "
        "unless output_mean_var; as in MXNet, 'var' holds the inverse std 1/sqrt(var + eps))."))


# ---- LayerNorm ----------------------------------------------------------------------------------
def _ln_compute(ctx, a, x, gamma, beta):
    if gamma.dtype != x.dtype or beta.dtype != x.dtype:
        check_dtypes(_ln_types, a, x, gamma, beta)
    xp = ctx.xp
    ax = normalize_axis(a["axis"], x.ndim)
    bs = _bshape(x.ndim, ax, x.shape[ax])
    mean = x.mean(axis=ax, keepdims=True)
    std = xp.sqrt(((x - mean) ** 2).mean(axis=ax, keepdims=True) + x.dtype.type(a["eps"]))
    out = (x - mean) / std * gamma.reshape(bs) + beta.reshape(bs)
    return out.astype(x.dtype, copy=False), mean, std


def _ln_infer(a, s):
    d = s[0]
    if d is None:
        return [None, None, None]
    ax = normalize_axis(a["axis"], len(d))
    merge_shape(s, 1, (d[ax],), f"gamma has one value per element of axis {a['axis']}")
    merge_shape(s, 2, (d[ax],), f"beta has one value per element of axis {a['axis']}")
    stats = tuple(1 if i == ax else n for i, n in enumerate(d))
    return [tuple(d), stats, stats]


def _ln_grad(F, a, ins, outs, og):
    x, gamma = ins[0], ins[1]
    mean, std = outs[1], outs[2]
    g, og_mean, og_std = og
    ax = normalize_axis(a["axis"], x.ndim)
    bs = _bshape(x.ndim, ax, x.shape[ax])
    inv_std = F._rdiv_scalar(std, scalar=1.0)
    xhat = F.broadcast_mul(F.broadcast_sub(x, mean), inv_std)
    dxhat = F.broadcast_mul(g, F.Reshape(gamma, shape=bs))
    dx = _norm_dx(F, xhat, dxhat, inv_std, ax, x.shape[ax], og_mean, og_std)
    return [dx, _sum_to(F, F.elemwise_mul(g, xhat), (ax,), x.ndim), _sum_to(F, g, (ax,), x.ndim)]


_LN_OUT = dict(num_outputs=3, num_visible=lambda a: 3 if a["output_mean_var"] else 1,
               output_names=lambda a: ("output", "mean", "std") if a["output_mean_var"] else ("output",))

register(OpDef(
    "LayerNorm", family="norm", npx="layer_norm", inputs=("data", "gamma", "beta"), **_LN_OUT,
    attrs={"axis": Attr("int", -1, doc="The axis to normalise over."),
           "eps": Attr("float", 1e-5, doc="Epsilon added to the variance."),
           "output_mean_var": Attr("bool", False, doc="Also output the mean and the std.")},
    compute=_ln_compute, infer_shape=_ln_infer, infer_type=_ln_types, grad=_ln_grad,
    doc="Layer normalisation over ``axis``: (x - mean) / sqrt(var + eps) * gamma + beta, gamma and beta "
        "of shape (data.shape[axis],). Outputs output, mean, std (keepdims shapes; hidden unless "
        "output_mean_var)."))


# ---- InstanceNorm -------------------------------------------------------------------------------
def _in_compute(ctx, a, x, gamma, beta):
    if gamma.dtype != x.dtype or beta.dtype != x.dtype:
        check_dtypes(_in_types, a, x, gamma, beta)
    xp = ctx.xp
    red = tuple(range(2, x.ndim))
    bs = _bshape(x.ndim, 1, x.shape[1])
    mean = x.mean(axis=red, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=red, keepdims=True)
    out = (x - mean) / xp.sqrt(var + x.dtype.type(a["eps"])) * gamma.reshape(bs) + beta.reshape(bs)
    return out.astype(x.dtype, copy=False), mean.reshape(x.shape[:2]), var.reshape(x.shape[:2])


def _in_infer(a, s):
    d = s[0]
    if d is None:
        return [None, None, None]
    if len(d) < 3:
        raise InferError(0, "(N, C, d1, ...): at least 3 dimensions", d)
    merge_shape(s, 1, (d[1],), "gamma has one value per channel (axis 1)")
    merge_shape(s, 2, (d[1],), "beta has one value per channel (axis 1)")
    return [tuple(d), tuple(d[:2]), tuple(d[:2])]


def _in_grad(F, a, ins, outs, og):
    x, gamma = ins[0], ins[1]
    g = og[0]
    nc = x.shape[:2] + (1,) * (x.ndim - 2)
    red = tuple(range(2, x.ndim))
    mean, var = F.Reshape(outs[1], shape=nc), F.Reshape(outs[2], shape=nc)
    inv_std = F._rdiv_scalar(F.sqrt(F._plus_scalar(var, scalar=a["eps"])), scalar=1.0)
    centered = F.broadcast_sub(x, mean)
    xhat = F.broadcast_mul(centered, inv_std)
    dxhat = F.broadcast_mul(g, F.Reshape(gamma, shape=_bshape(x.ndim, 1, x.shape[1])))
    dx = _norm_dx(F, xhat, dxhat, inv_std, red, prod(x.shape[2:]), F.Reshape(og[1], shape=nc),
                  F.Reshape(og[2], shape=nc), second_is_var=True, centered=centered)
    return [dx, _sum_to(F, F.elemwise_mul(g, xhat), (1,), x.ndim), _sum_to(F, g, (1,), x.ndim)]


register(OpDef(
    "InstanceNorm", family="norm", inputs=("data", "gamma", "beta"), num_outputs=3, num_visible=1,
    attrs={"eps": Attr("float", 1e-3, doc="Epsilon added to the variance.")},
    compute=_in_compute, infer_shape=_in_infer, infer_type=_in_types, grad=_in_grad,
    doc="Instance normalisation: each (instance, channel) plane of (N, C, ...) data is normalised "
        "over its spatial axes, then scaled by gamma and shifted by beta (per channel). Hidden outputs: "
        "mean and var of shape (N, C)."))


# ---- GroupNorm ----------------------------------------------------------------------------------
def _gn_shapes(x_shape, groups, gamma_size):
    """Grouped data shape (N, G, C/G, ...), statistics shape (N, G, 1, ...) and the shape gamma/beta
    broadcast with: (1, G, C/G, 1, ...) for per-channel parameters, (1, G, 1, ...) per group."""
    n, c = x_shape[0], x_shape[1]
    grouped = (n, groups, c // groups) + tuple(x_shape[2:])
    stats = (n, groups) + (1,) * (len(grouped) - 2)
    param = [1] * len(grouped)
    param[1] = groups
    param[2] = c // groups if gamma_size == c else 1
    return grouped, stats, tuple(param)


def _gn_compute(ctx, a, x, gamma, beta):
    if gamma.dtype != x.dtype or beta.dtype != x.dtype:
        check_dtypes(_gn_types, a, x, gamma, beta)
    xp = ctx.xp
    grouped, stats, param = _gn_shapes(x.shape, a["num_groups"], gamma.size)
    xg = x.reshape(grouped)
    red = tuple(range(2, len(grouped)))
    mean = xg.mean(axis=red, keepdims=True)
    std = xp.sqrt(((xg - mean) ** 2).mean(axis=red, keepdims=True) + x.dtype.type(a["eps"]))
    out = (xg - mean) / std * gamma.reshape(param) + beta.reshape(param)
    return out.reshape(x.shape).astype(x.dtype, copy=False), mean.reshape(stats[:2]), std.reshape(stats[:2])


def _gn_infer(a, s):
    d, groups = s[0], a["num_groups"]
    if d is None:
        return [None, None, None]
    if len(d) < 3:
        raise InferError(0, "(N, C, d1, ...): at least 3 dimensions", d)
    if d[1] and d[1] % groups:
        raise InferError(0, f"(N, C, ...) with C divisible by num_groups={groups}", d)
    for i, n in ((1, "gamma"), (2, "beta")):
        if s[i] is not None and d[1] and tuple(s[i]) == (d[1],):
            continue  # one value per channel: accepted too (a size that cannot be mistaken for per group)
        merge_shape(s, i, (groups,), f"{n} has one value per group (MXNet 1.9), or one per channel")
    return [tuple(d), (d[0], groups), (d[0], groups)]


def _gn_grad(F, a, ins, outs, og):
    x, gamma = ins[0], ins[1]
    grouped, stats, param = _gn_shapes(x.shape, a["num_groups"], gamma.shape[0])
    red = tuple(range(2, len(grouped)))
    g = F.Reshape(og[0], shape=grouped)
    xg = F.Reshape(x, shape=grouped)
    inv_std = F._rdiv_scalar(F.Reshape(outs[2], shape=stats), scalar=1.0)
    xhat = F.broadcast_mul(F.broadcast_sub(xg, F.Reshape(outs[1], shape=stats)), inv_std)
    dxhat = F.broadcast_mul(g, F.Reshape(gamma, shape=param))
    dxg = _norm_dx(F, xhat, dxhat, inv_std, red, prod(grouped[2:]), F.Reshape(og[1], shape=stats),
                   F.Reshape(og[2], shape=stats))
    keep = tuple(i for i, n in enumerate(param) if n != 1)
    p_shape = (gamma.shape[0],)
    dgamma = F.Reshape(_sum_to(F, F.elemwise_mul(g, xhat), keep, len(grouped)), shape=p_shape)
    dbeta = F.Reshape(_sum_to(F, g, keep, len(grouped)), shape=p_shape)
    return [F.Reshape(dxg, shape=x.shape), dgamma, dbeta]


register(OpDef(
    "GroupNorm", family="norm", inputs=("data", "gamma", "beta"), **_LN_OUT,
    attrs={"num_groups": Attr("int", 1, doc="Number of groups the channels are split into."),
           "eps": Attr("float", 1e-5, doc="Epsilon added to the variance."),
           "output_mean_var": Attr("bool", False, doc="Also output the mean and the std.")},
    compute=_gn_compute, infer_shape=_gn_infer, infer_type=_gn_types, grad=_gn_grad,
    bounds={"num_groups": (1, None)},
    doc="Group normalisation: the channels of (N, C, ...) data are split into ``num_groups`` groups, each "
        "normalised over its channels and spatial axes, then scaled by gamma and shifted by beta (one "
        "value per group, shape (num_groups,), as in MXNet 1.9; (C,) for one per channel is accepted "
        "too). Outputs output, mean, std (shape (N, num_groups); hidden unless output_mean_var)."))
