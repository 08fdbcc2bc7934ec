"""MXNet 1.9.1's adaptive optimizer update operators: ``adam_update``, ``rmsprop_update``,
``rmspropalex_update``, ``ftml_update``, ``ftrl_update``, ``lamb_update_phase1`` and
``lamb_update_phase2`` (the SGD family, and what every update op shares, is in
``ops/optimizer_update.py``).

The states (``mean``/``var``, ``n``/``g``/``delta``, ``d``/``v``/``z``, ``z``/``n``) are auxiliary
inputs updated IN PLACE; the output is the new weight (``lamb_update_phase1``: the update direction
``g``, which ``lamb_update_phase2`` applies with the trust ratio ``r1 / r2``). Where MXNet adds the
weight decay to the gradient (Adam, RMSProp, RMSPropAlex, FTML) it does so before clipping:
``clip(rescale_grad * grad + wd * weight)``; FTRL and LAMB clip ``rescale_grad * grad`` alone.

Example::

    >>> import hybridlab as mx
    >>> w, g = mx.nd.array([1.0, -1.0]), mx.nd.array([0.5, 0.5])
    >>> mean, var = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    >>> _ = mx.nd.adam_update(w, g, mean, var, lr=0.1, beta1=0.5, beta2=0.75, epsilon=0.0, out=w)
    >>> [round(v, 4) for v in w.asnumpy().tolist()], mean.asnumpy().tolist(), var.asnumpy().tolist()
    ([0.9, -1.1], [0.25, 0.25], [0.0625, 0.0625])
"""
from .attrs import Attr
from .infer import InferError
from .optimizer_update import CLIP, LR, RESCALE, WD, assign, rescaled, same_shapes, typed, update_op

__all__ = []


def _decayed(xp, a, w, grad, clip_key="clip_gradient"):
    """``clip(rescale_grad * grad + wd * weight)``: the gradient with weight decay, then clipped."""
    g = grad * a["rescale_grad"] + w * a["wd"]
    c = a[clip_key]
    return xp.clip(g, -c, c) if c >= 0 else g


def _clip_weights(xp, a, w):
    c = a["clip_weights"]
    return xp.clip(w, -c, c) if c >= 0 else w


# ---- Adam ----------------------------------------------------------------------------------------
_adam_types, _adam_check = typed("adam_update")


def _adam(ctx, a, w, grad, mean, var):
    _adam_check(a, w, grad, mean, var)
    xp = ctx.xp
    g = _decayed(xp, a, w, grad)
    b1, b2 = a["beta1"], a["beta2"]
    assign(mean, mean * b1 + g * (1 - b1))
    assign(var, var * b2 + g * g * (1 - b2))
    return w - mean * a["lr"] / (xp.sqrt(var) + a["epsilon"])


update_op("adam_update", ("weight", "grad", "mean", "var"), ("mean", "var"),
          {"lr": LR, "beta1": Attr("float", 0.9, doc="Decay rate of the first moment (mean)."),
           "beta2": Attr("float", 0.999, doc="Decay rate of the second moment (var)."),
           "epsilon": Attr("float", 1e-8, doc="Added to sqrt(var)."),
           "wd": WD, "rescale_grad": RESCALE, "clip_gradient": CLIP,
           "lazy_update": Attr("bool", True, doc="Accepted: gradients are dense here, so every row is updated.")},
          _adam, infer_type=_adam_types,
          doc="Adam (no bias correction, as MXNet's op): g = clip(rescale_grad*grad + wd*weight); mean = "
              "beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2 (both in place); weight = weight - "
              "lr * mean / (sqrt(var) + epsilon).")


# ---- RMSProp, RMSPropAlex --------------------------------------------------------------------------
_rms_types, _rms_check = typed("rmsprop_update")
_alex_types, _alex_check = typed("rmspropalex_update")


def _rmsprop(ctx, a, w, grad, n):
    _rms_check(a, w, grad, n)
    xp = ctx.xp
    g = _decayed(xp, a, w, grad)
    g1 = a["gamma1"]
    assign(n, g * g * (1 - g1) + n * g1)
    return _clip_weights(xp, a, w - g * a["lr"] / xp.sqrt(n + a["epsilon"]))


def _rmspropalex(ctx, a, w, grad, n, gm, delta):
    _alex_check(a, w, grad, n, gm, delta)
    xp = ctx.xp
    g = _decayed(xp, a, w, grad)
    g1 = a["gamma1"]
    assign(n, g * g * (1 - g1) + n * g1)
    assign(gm, g * (1 - g1) + gm * g1)
    assign(delta, delta * a["gamma2"] - g * a["lr"] / xp.sqrt(n - gm * gm + a["epsilon"]))
    return _clip_weights(xp, a, w + delta)


_CLIP_W = Attr("float", -1.0, doc="Clip the new weights to [-clip_weights, clip_weights]; negative: no clipping.")
_EPS = Attr("float", 1e-8, doc="A small constant for numerical stability.")

update_op("rmsprop_update", ("weight", "grad", "n"), ("n",),
          {"lr": LR, "gamma1": Attr("float", 0.95, doc="Decay rate of n."), "epsilon": _EPS, "wd": WD,
           "rescale_grad": RESCALE, "clip_gradient": CLIP, "clip_weights": _CLIP_W},
          _rmsprop, infer_type=_rms_types,
          doc="RMSProp (Tieleman & Hinton): g = clip(rescale_grad*grad + wd*weight); n = (1-gamma1)*g^2 + "
              "gamma1*n (in place); weight = clip_weights(weight - lr * g / sqrt(n + epsilon)).")
update_op("rmspropalex_update", ("weight", "grad", "n", "g", "delta"), ("n", "g", "delta"),
          {"lr": LR, "gamma1": Attr("float", 0.95, doc="Decay rate of n and g."),
           "gamma2": Attr("float", 0.9, doc="Decay rate of delta."), "epsilon": _EPS, "wd": WD,
           "rescale_grad": RESCALE, "clip_gradient": CLIP, "clip_weights": _CLIP_W},
          _rmspropalex, infer_type=_alex_types,
          doc="Centered RMSProp (Graves 2013): gr = clip(rescale_grad*grad + wd*weight); n = (1-gamma1)*gr^2 + "
              "gamma1*n; g = (1-gamma1)*gr + gamma1*g; delta = gamma2*delta - lr * gr / sqrt(n - g^2 + "
              "epsilon) (all in place); weight = clip_weights(weight + delta).")


# ---- FTML ----------------------------------------------------------------------------------------
_ftml_types, _ftml_check = typed("ftml_update")


def _ftml(ctx, a, w, grad, d, v, z):
    _ftml_check(a, w, grad, d, v, z)
    xp = ctx.xp
    g = _decayed(xp, a, w, grad, "clip_grad")
    b1, b2, t, lr = a["beta1"], a["beta2"], a["t"], a["lr"]
    assign(v, v * b2 + g * g * (1 - b2))
    d_t = (xp.sqrt(v / (1 - b2 ** t)) + a["epsilon"]) * ((1 - b1 ** t) / lr)
    assign(z, z * b1 + g * (1 - b1) - (d_t - d * b1) * w)
    assign(d, d_t)
    return -z / d


update_op("ftml_update", ("weight", "grad", "d", "v", "z"), ("d", "v", "z"),
          {"lr": LR, "beta1": Attr("float", 0.6), "beta2": Attr("float", 0.999),
           "epsilon": Attr("float", 1e-8, doc="Epsilon to prevent division by zero."),
           "t": Attr("int", doc="Number of the update (1 for the first)."), "wd": WD, "rescale_grad": RESCALE,
           "clip_grad": Attr("float", -1.0, doc="Clip gradients to [-clip_grad, clip_grad]; negative: no "
                                                "clipping.")},
          _ftml, infer_type=_ftml_types,
          doc="FTML (Zheng & Kwok 2017): g = clip(rescale_grad*grad + wd*weight); v = beta2*v + (1-beta2)*g^2; "
              "d_t = (1-beta1^t)/lr * (sqrt(v/(1-beta2^t)) + epsilon); z = beta1*z + (1-beta1)*g - (d_t - "
              "beta1*d)*weight; d = d_t (all in place); weight = -z / d.")


# ---- FTRL ----------------------------------------------------------------------------------------
_ftrl_types, _ftrl_check = typed("ftrl_update")


def _ftrl(ctx, a, w, grad, z, n):
    _ftrl_check(a, w, grad, z, n)
    xp = ctx.xp
    g = rescaled(xp, a, grad)
    lr, l1 = a["lr"], a["lamda1"]
    assign(z, z + g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * w / lr)
    assign(n, n + g * g)
    new_w = (xp.sign(z) * l1 - z) / ((xp.sqrt(n) + a["beta"]) / lr + a["wd"])
    return new_w * (xp.abs(z) > l1)


update_op("ftrl_update", ("weight", "grad", "z", "n"), ("z", "n"),
          {"lr": LR, "lamda1": Attr("float", 0.01, doc="The L1 regularization coefficient."),
           "beta": Attr("float", 1.0, doc="Per-coordinate learning rate beta."), "wd": WD,
           "rescale_grad": RESCALE, "clip_gradient": CLIP},
          _ftrl, infer_type=_ftrl_types,
          doc="FTRL (McMahan et al. 2013): g = clip(rescale_grad*grad); z += g - (sqrt(n + g^2) - sqrt(n)) * "
              "weight / lr; n += g^2 (both in place); weight = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) "
              "where |z| > lamda1, else 0.")


# ---- LAMB ----------------------------------------------------------------------------------------
_lamb1_types, _lamb1_check = typed("lamb_update_phase1")
_lamb2_types, _lamb2_check = typed("lamb_update_phase2")


def _lamb1(ctx, a, w, grad, mean, var):
    _lamb1_check(a, w, grad, mean, var)
    xp = ctx.xp
    g = rescaled(xp, a, grad)
    b1, b2, t = a["beta1"], a["beta2"], a["t"]
    assign(mean, mean * b1 + g * (1 - b1))
    assign(var, var * b2 + g * g * (1 - b2))
    m, v = mean, var
    if a["bias_correction"]:
        m, v = mean / (1 - b1 ** t), var / (1 - b2 ** t)
    return m / (xp.sqrt(v) + a["epsilon"]) + w * a["wd"]


def _lamb2(ctx, a, w, g, r1, r2):
    _lamb2_check(a, w, g, r1, r2)
    xp = ctx.xp
    r1, r2 = r1.reshape(-1)[:1], r2.reshape(-1)[:1]      # MXNet reads the first value of each
    lo, hi = a["lower_bound"], a["upper_bound"]
    if lo >= 0:
        r1 = xp.maximum(r1, lo)
    if hi >= 0:
        r1 = xp.minimum(r1, hi)
    ok, one = (r1 != 0) & (r2 != 0), xp.ones_like(r2)
    ratio = xp.where(ok, r1 / xp.where(ok, r2, one), one).astype(w.dtype, copy=False)
    return w - g * ratio * a["lr"]


def _lamb2_shape(a, s):
    out = same_shapes()(a, s[:2])
    for i in (2, 3):
        if s[i] is None:
            s[i] = (1,)
        elif not s[i] or s[i][0] != 1:
            raise InferError(i, "shape (1,): one value", tuple(s[i]), "r1 and r2 are norms")
    return out


update_op("lamb_update_phase1", ("weight", "grad", "mean", "var"), ("mean", "var"),
          {"beta1": Attr("float", 0.9), "beta2": Attr("float", 0.999),
           "epsilon": Attr("float", 1e-6), "t": Attr("int", doc="Index of the update (1 for the first)."),
           "bias_correction": Attr("bool", True, doc="Divide mean and var by 1-beta1^t and 1-beta2^t."),
           "wd": Attr("float", doc="Weight decay."), "rescale_grad": RESCALE, "clip_gradient": CLIP},
          _lamb1, infer_type=_lamb1_types,
          doc="LAMB phase 1 (You et al. 2019): g = clip(rescale_grad*grad); mean = beta1*mean + (1-beta1)*g; "
              "var = beta2*var + (1-beta2)*g^2 (both in place); output mean_hat / (sqrt(var_hat) + epsilon) + "
              "wd*weight, with the bias-corrected mean_hat, var_hat (mean, var without bias_correction).")
update_op("lamb_update_phase2", ("weight", "g", "r1", "r2"), (),
          {"lr": LR, "lower_bound": Attr("float", -1.0, doc="Lower limit of r1 (none when negative)."),
           "upper_bound": Attr("float", -1.0, doc="Upper limit of r1 (none when negative).")},
          _lamb2, infer_type=_lamb2_types, infer_shape=_lamb2_shape,
          doc="LAMB phase 2: r1 (the weight's norm, of shape (1,)) is clipped to [lower_bound, upper_bound] "
              "(each when >= 0); weight = weight - lr * (r1/r2) * g, or lr * g when r1 or r2 is 0 (r2: the "
              "norm of g).")
