"""Op-checker cases for MXNet's optimizer update operators (ops/optimizer_update.py and
ops/optimizer_update_adaptive.py): the new weight (the output) against plain NumPy references in
float64, written from MXNet 1.9.1's documented update rules, with and without clipping, rescaling
and weight decay. The in-place state updates and ``out=`` are checked against values recorded from
MXNet in tests/test_optimizer_update_ops.py. No gradients: ``grad=()``."""
import numpy as np

from op_checker import Case

f64 = np.float64
S = (3, 4)


def positive(shape, low=0.1):
    return lambda rng: np.abs(rng.standard_normal(shape)) + low


def small(shape):
    return lambda rng: 0.1 * rng.standard_normal(shape)


def value(v):
    return lambda rng: np.array([v])


def _g(grad, rescale_grad=1.0, clip_gradient=-1.0, **_):
    g = grad.astype(f64) * rescale_grad
    return np.clip(g, -clip_gradient, clip_gradient) if clip_gradient >= 0 else g


def _gwd(w, grad, wd=0.0, rescale_grad=1.0, clip=-1.0):
    g = grad.astype(f64) * rescale_grad + wd * w.astype(f64)
    return np.clip(g, -clip, clip) if clip >= 0 else g


def ref_sgd(w, grad, lr, wd=0.0, **kw):
    return (1 - lr * wd) * w.astype(f64) - lr * _g(grad, **kw)


def ref_sgd_mom(w, grad, mom, lr, momentum=0.0, wd=0.0, **kw):
    w = w.astype(f64)
    return w + momentum * mom - lr * wd * w - lr * _g(grad, **kw)


def ref_mp_sgd(w, grad, w32, lr, wd=0.0, **kw):
    return ref_sgd(w32, grad, lr, wd, **kw).astype(w.dtype)


def ref_mp_sgd_mom(w, grad, mom, w32, lr, momentum=0.0, wd=0.0, **kw):
    return ref_sgd_mom(w32, grad, mom, lr, momentum, wd, **kw).astype(w.dtype)


def ref_nag(w, grad, mom, lr, momentum=0.0, wd=0.0, **kw):
    w, m = w.astype(f64), momentum * mom.astype(f64)
    return w - m + (momentum + 1) * (m - lr * (_g(grad, **kw) + wd * w))


def ref_mp_nag(w, grad, mom, w32, lr, **kw):
    return ref_nag(w32, grad, mom, lr, **kw).astype(w.dtype)


def ref_signsgd(w, grad, lr, wd=0.0, **_):       # MXNet's signsgd ignores rescale_grad and clip_gradient
    return (1 - lr * wd) * w.astype(f64) - lr * np.sign(grad)


def ref_signum(w, grad, mom, lr, momentum=0.0, wd=0.0, wd_lh=0.0, **kw):
    w = w.astype(f64)
    m = momentum * mom - (1 - momentum) * (wd * w + _g(grad, **kw))
    return (1 - lr * wd_lh) * w + lr * np.sign(m)


def ref_adam(w, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
             clip_gradient=-1.0, **_):
    g = _gwd(w, grad, wd, rescale_grad, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    return w - lr * m / (np.sqrt(v) + epsilon)


def _clip_w(w, c):
    return np.clip(w, -c, c) if c >= 0 else w


def ref_rmsprop(w, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                clip_weights=-1.0):
    g = _gwd(w, grad, wd, rescale_grad, clip_gradient)
    n = (1 - gamma1) * g * g + gamma1 * n
    return _clip_w(w - lr * g / np.sqrt(n + epsilon), clip_weights)


def ref_rmspropalex(w, grad, n, gm, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                    clip_gradient=-1.0, clip_weights=-1.0):
    g = _gwd(w, grad, wd, rescale_grad, clip_gradient)
    n = (1 - gamma1) * g * g + gamma1 * n
    gm = (1 - gamma1) * g + gamma1 * gm
    delta = gamma2 * delta - lr * g / np.sqrt(n - gm * gm + epsilon)
    return _clip_w(w + delta, clip_weights)


def ref_ftml(w, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
             clip_grad=-1.0):
    g = _gwd(w, grad, wd, rescale_grad, clip_grad)
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * w
    return -z / d_t


def ref_ftrl(w, grad, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, **kw):
    g = _g(grad, **kw)
    z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
    n = n + g * g
    return np.where(np.abs(z) > lamda1, (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd), 0.0)


def ref_lamb1(w, grad, mean, var, t, wd, beta1=0.9, beta2=0.999, epsilon=1e-6, bias_correction=True, **kw):
    g = _g(grad, **kw)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    if bias_correction:
        m, v = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return m / (np.sqrt(v) + epsilon) + wd * w


def ref_lamb2(w, g, r1, r2, lr, lower_bound=-1.0, upper_bound=-1.0):
    r1, r2 = float(r1[0]), float(r2[0])
    if lower_bound >= 0:
        r1 = max(r1, lower_bound)
    if upper_bound >= 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return w - lr * ratio * g.astype(f64)


def ref_multi(single, size):
    """The reference of a multi-tensor update from the single-weight one: one output per group."""
    def ref(*arrays, lrs, wds, num_weights=1, **kw):
        return tuple(single(*arrays[i * size:(i + 1) * size], lr=lrs[i], wd=wds[i], **kw)
                     for i in range(num_weights))
    return ref


CLIP = {"clip_gradient": 0.4, "rescale_grad": 0.5}
WD = {"wd": 0.05}


def case(op, inputs, ref, name="", **attrs):
    return Case(op, inputs, ref=ref, attrs=attrs, grad=(), name=name)


CASES = [
    case("sgd_update", [S, S], ref_sgd, lr=0.1),
    case("sgd_update", [S, S], ref_sgd, "clip_wd", lr=0.1, **WD, **CLIP),
    case("sgd_update", [S, S], ref_sgd, "clip_zero", lr=0.1, clip_gradient=0.0),
    case("sgd_mom_update", [S, S, S], ref_sgd_mom, lr=0.1, momentum=0.9),
    case("sgd_mom_update", [S, S, S], ref_sgd_mom, "clip_wd", lr=0.1, momentum=0.9, **WD, **CLIP),
    case("mp_sgd_update", [S, S, S], ref_mp_sgd, lr=0.1, **WD, **CLIP),
    case("mp_sgd_mom_update", [S, S, S, S], ref_mp_sgd_mom, lr=0.1, momentum=0.8, **WD, **CLIP),
    case("nag_mom_update", [S, S, S], ref_nag, lr=0.1, momentum=0.9),
    case("nag_mom_update", [S, S, S], ref_nag, "clip_wd", lr=0.1, momentum=0.9, **WD, **CLIP),
    case("mp_nag_mom_update", [S, S, S, S], ref_mp_nag, lr=0.1, momentum=0.9, **WD, **CLIP),
    case("signsgd_update", [S, S], ref_signsgd, lr=0.1, **WD, **CLIP),
    case("signum_update", [S, S, S], ref_signum, lr=0.1, momentum=0.9, wd_lh=0.02, **WD, **CLIP),
    case("signum_update", [S, S, S], ref_signum, "defaults", lr=0.1),
    case("adam_update", [S, S, S, positive(S)], ref_adam, lr=0.1, beta1=0.8, beta2=0.9, epsilon=1e-3),
    case("adam_update", [S, S, S, positive(S)], ref_adam, "clip_wd", lr=0.1, **WD, **CLIP),
    case("rmsprop_update", [S, S, positive(S)], ref_rmsprop, lr=0.1, gamma1=0.8, epsilon=1e-3, **WD, **CLIP),
    case("rmsprop_update", [S, S, positive(S)], ref_rmsprop, "clip_weights", lr=0.1, clip_weights=0.5),
    case("rmspropalex_update", [S, S, positive(S, 1.0), small(S), S], ref_rmspropalex, lr=0.1, gamma1=0.8,
         gamma2=0.7, epsilon=1e-3, clip_weights=0.9, **WD, **CLIP),
    case("ftml_update", [S, S, positive(S), positive(S), S], ref_ftml, lr=0.1, t=3, beta2=0.9, epsilon=1e-3,
         **WD, clip_grad=0.4, rescale_grad=0.5),
    case("ftml_update", [S, S, positive(S), positive(S), S], ref_ftml, "first_step", lr=0.01, t=1),
    case("ftrl_update", [S, S, S, positive(S)], ref_ftrl, lr=0.1, lamda1=0.2, beta=1.5, **WD, **CLIP),
    case("lamb_update_phase1", [S, S, S, positive(S)], ref_lamb1, t=3, beta1=0.8, beta2=0.9, epsilon=1e-3,
         **WD, **CLIP),
    case("lamb_update_phase1", [S, S, S, positive(S)], ref_lamb1, "no_bias_correction", t=5, wd=0.01,
         bias_correction=False),
    case("lamb_update_phase2", [S, S, value(2.0), value(4.0)], ref_lamb2, lr=0.1),
    case("lamb_update_phase2", [S, S, value(2.0), value(4.0)], ref_lamb2, "bounds", lr=0.1, lower_bound=0.5,
         upper_bound=1.5),
    case("lamb_update_phase2", [S, S, value(0.0), value(4.0)], ref_lamb2, "zero_norm", lr=0.1),
    case("multi_sgd_update", [(3,), (3,), S, S], ref_multi(ref_sgd, 2), lrs=(0.1, 0.2), wds=(0.05, 0.0),
         num_weights=2, **CLIP),
    case("multi_sgd_mom_update", [(3,), (3,), (3,), S, S, S], ref_multi(ref_sgd_mom, 3), lrs=(0.1, 0.2),
         wds=(0.05, 0.0), momentum=0.9, num_weights=2, **CLIP),
    case("multi_mp_sgd_update", [(3,), (3,), (3,), S, S, S], ref_multi(ref_mp_sgd, 3), lrs=(0.1, 0.2),
         wds=(0.05, 0.0), num_weights=2, **CLIP),
    case("multi_mp_sgd_mom_update", [(3,), (3,), (3,), (3,), S, S, S, S], ref_multi(ref_mp_sgd_mom, 4),
         lrs=(0.1, 0.2), wds=(0.05, 0.0), momentum=0.9, num_weights=2, **CLIP),
    case("multi_sgd_update", [S, S], ref_multi(ref_sgd, 2), "one_weight", lrs=(0.1,), wds=(0.0,)),
]
