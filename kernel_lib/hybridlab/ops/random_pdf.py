"""``_random_pdf_*``: the density (or, with ``is_log=True``, the log-density) of samples under
distributions whose parameters are arrays (MXNet's ``random_pdf_normal``, ``random_pdf_gamma``, ...).

Inputs are ``sample`` then the parameter arrays, which share one shape S that must be the leading
part of the sample's shape: ``sample`` of shape S + E holds the samples of the distribution at each
index of S, and the output has the sample's shape. The Dirichlet distribution is parametrised by
vectors: ``alpha`` of shape S + (k,), ``sample`` of shape S + E + (k,), output S + E (``(1,)`` for a
single vector sample). All inputs share one floating dtype; values are computed in float64 and cast
to it. As in MXNet:

* normal(mu, sigma); uniform(low, high) (``1 / (high - low)`` with no support check);
  gamma(alpha, beta) with ``beta`` the *rate* (``x**(alpha-1) exp(-beta x) beta**alpha / Gamma(alpha)``);
  exponential(lam) (rate); poisson(lam); negative_binomial(k, p) (``p`` the success probability of
  each trial: ``C(x+k-1, x) p**k (1-p)**x``); generalized_negative_binomial(mu, alpha) (negative
  binomial with k = 1/alpha, p = 1/(mu alpha + 1)); dirichlet(alpha).
* Gradients are those of the (log-)density: w.r.t. the parameters summed over the samples of each
  distribution; w.r.t. the sample they are the density's derivative for the continuous
  distributions and zero for the discrete ones (poisson, the negative binomials) and for uniform.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[-1.0, 0.0, 1.0]])
    >>> p = mx.nd.random_pdf_normal(x, mx.nd.array([0.0]), mx.nd.array([1.0]))
    >>> [round(v, 5) for v in p.asnumpy()[0].tolist()]
    [0.24197, 0.39894, 0.24197]
    >>> lp = mx.nd.random_pdf_poisson(mx.nd.array([[0.0, 2.0]]), mx.nd.array([2.0]), is_log=True)
    >>> [round(v, 5) for v in lp.asnumpy()[0].tolist()]
    [-2.0, -1.30685]
    >>> mx.nd.random_pdf_dirichlet(mx.nd.array([[0.25, 0.75]]), mx.nd.array([[1.0, 1.0]])).asnumpy().tolist()
    [1.0]
"""
import math

import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .elemwise_special import gammaln64
from .infer import InferError, merge_shape
from .registry import OpDef, register

__all__ = []

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


# ---- log-densities (float64 xp arrays; the parameters already broadcast against the sample) -----
def _lp_normal(xp, x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - xp.log(sigma) - _LOG_SQRT_2PI


def _lp_uniform(xp, x, low, high):
    return xp.broadcast_to(-xp.log(high - low), x.shape)


def _lp_gamma(xp, x, alpha, beta):
    return alpha * xp.log(beta) + (alpha - 1.0) * xp.log(x) - beta * x - gammaln64(xp, alpha)


def _lp_exponential(xp, x, lam):
    return xp.log(lam) - lam * x


def _lp_poisson(xp, x, lam):
    return x * xp.log(lam) - gammaln64(xp, x + 1.0) - lam


def _lp_negative_binomial(xp, x, k, p):
    return (gammaln64(xp, x + k) - gammaln64(xp, x + 1.0) - gammaln64(xp, k)
            + k * xp.log(p) + x * xp.log(1.0 - p))


def _lp_generalized_negative_binomial(xp, x, mu, alpha):
    return _lp_negative_binomial(xp, x, 1.0 / alpha, 1.0 / (mu * alpha + 1.0))


def _lp_dirichlet(xp, x, alpha):
    return (((alpha - 1.0) * xp.log(x)).sum(axis=-1) + gammaln64(xp, alpha.sum(axis=-1))
            - gammaln64(xp, alpha).sum(axis=-1))


# ---- derivatives of the log-density, written with registered ops -----------------------------------
# d(F, x, *params) -> (d/dsample or None for zero, [d/dparam, ...]); the parameters are reshaped to
# broadcast against the sample, each result broadcasts against it too.
def _digamma(F, v):
    """digamma(v), as the gradient of gammaln at v."""
    return F._backward_gammaln(F.ones_like(v), v)


def _d_normal(F, x, mu, sigma):
    diff = F.broadcast_sub(x, mu)
    var = F.square(sigma)
    d_mu = F.broadcast_div(diff, var)
    d_sigma = F.broadcast_div(F.broadcast_sub(F.square(diff), var), F.elemwise_mul(var, sigma))
    return F.negative(d_mu), [d_mu, d_sigma]


def _d_uniform(F, x, low, high):
    inv = F.reciprocal(F.elemwise_sub(high, low))
    return None, [inv, F.negative(inv)]


def _d_gamma(F, x, alpha, beta):
    d_alpha = F.broadcast_add(F.log(x), F.elemwise_sub(F.log(beta), _digamma(F, alpha)))
    d_beta = F.broadcast_sub(F.elemwise_div(alpha, beta), x)
    d_x = F.broadcast_sub(F.broadcast_div(F._minus_scalar(alpha, scalar=1.0), x), beta)
    return d_x, [d_alpha, d_beta]


def _d_exponential(F, x, lam):
    return F.negative(lam), [F.broadcast_sub(F.reciprocal(lam), x)]


def _d_poisson(F, x, lam):
    return None, [F._minus_scalar(F.broadcast_div(x, lam), scalar=1.0)]


def _d_nb(F, x, k, p):
    """d/dk and d/dp of the negative binomial log-density."""
    d_k = F.broadcast_add(_digamma(F, F.broadcast_add(x, k)),
                          F.elemwise_sub(F.log(p), _digamma(F, k)))
    d_p = F.broadcast_sub(F.elemwise_div(k, p), F.broadcast_div(x, F._rminus_scalar(p, scalar=1.0)))
    return d_k, d_p


def _d_negative_binomial(F, x, k, p):
    return None, list(_d_nb(F, x, k, p))


def _d_generalized_negative_binomial(F, x, mu, alpha):
    den = F._plus_scalar(F.elemwise_mul(mu, alpha), scalar=1.0)
    d_k, d_p = _d_nb(F, x, F.reciprocal(alpha), F.reciprocal(den))
    den2 = F.square(den)
    d_mu = F.negative(F.broadcast_mul(d_p, F.elemwise_div(alpha, den2)))
    d_alpha = F.negative(F.broadcast_add(F.broadcast_div(d_k, F.square(alpha)),
                                         F.broadcast_mul(d_p, F.elemwise_div(mu, den2))))
    return None, [d_mu, d_alpha]


def _d_dirichlet(F, x, alpha):
    d_x = F.broadcast_div(F._minus_scalar(alpha, scalar=1.0), x)
    psi_sum = _digamma(F, F.sum(alpha, axis=-1, keepdims=True))
    d_alpha = F.broadcast_add(F.log(x), F.broadcast_sub(psi_sum, _digamma(F, alpha)))
    return d_x, [d_alpha]


# distribution -> ((parameter input name, doc), ...), log-density, derivatives, what the doc calls it)
_DISTS = {
    "normal": ((("mu", "Means of the distributions."), ("sigma", "Standard deviations of the distributions.")),
               _lp_normal, _d_normal, "normal distributions with parameters mu (mean) and sigma "
                                      "(standard deviation)"),
    "uniform": ((("low", "Lower bounds of the distributions."), ("high", "Upper bounds of the distributions.")),
                _lp_uniform, _d_uniform, "uniform distributions on the intervals [low, high)"),
    "gamma": ((("alpha", "Alpha (shape) parameters of the distributions."),
               ("beta", "Beta (rate) parameters of the distributions.")),
              _lp_gamma, _d_gamma, "gamma distributions with parameters alpha (shape) and beta (rate)"),
    "exponential": ((("lam", "Lambda (rate) parameters of the distributions."),),
                    _lp_exponential, _d_exponential, "exponential distributions with parameters lam (rate)"),
    "poisson": ((("lam", "Lambda (rate) parameters of the distributions."),),
                _lp_poisson, _d_poisson, "Poisson distributions with parameters lam (rate)"),
    "negative_binomial": ((("k", "Limits of unsuccessful experiments."),
                           ("p", "Failure probabilities in each experiment.")),
                          _lp_negative_binomial, _d_negative_binomial,
                          "negative binomial distributions with parameters k (failure limit) and p "
                          "(failure probability)"),
    "generalized_negative_binomial": ((("mu", "Means of the distributions."),
                                       ("alpha", "Alpha (dispersion) parameters of the distributions.")),
                                      _lp_generalized_negative_binomial, _d_generalized_negative_binomial,
                                      "generalized negative binomial distributions with parameters mu (mean) "
                                      "and alpha (dispersion)"),
    "dirichlet": ((("alpha", "Concentration parameters of the distributions."),),
                  _lp_dirichlet, _d_dirichlet, "Dirichlet distributions with parameters alpha (concentrations)"),
}
_VECTOR = ("dirichlet",)


def _shape_rule(dist):
    vector = dist in _VECTOR

    def infer(a, s):
        sample = s[0]
        ref = next((p for p in s[1:] if p is not None), None)
        if sample is None or ref is None:
            return [None]
        sample, ref = tuple(sample), tuple(ref)
        if len(ref) == 0 or len(ref) > len(sample):
            raise InferError(1, f"parameters with 1 to {len(sample)} dimensions (at most the sample's)",
                             f"shape {ref}")
        expected = sample[:len(ref)]
        if vector:
            expected = expected[:-1] + sample[-1:]
        for i in range(1, len(s)):
            merge_shape(s, i, expected, "the parameters' shape must be the leading part of the sample's")
        if not vector:
            return [sample]
        return [sample[:-1] if len(sample) > 1 else (1,)]
    return infer


def _pdf_type(a, dtypes):
    known = next((d for d in dtypes if d is not None), None)
    for i, d in enumerate(dtypes):
        if d is None:
            dtypes[i] = known
        elif onp.dtype(d) != onp.dtype(known):
            raise InferError(i, f"dtype {onp.dtype(known)} (all inputs share one dtype)", f"dtype {onp.dtype(d)}")
    if known is not None and onp.dtype(known).kind != "f":
        raise MXNetError(f"random_pdf: this operation only supports floating point types, not {onp.dtype(known)}")
    return [known]


def _compute_rule(dist):
    logpdf = _DISTS[dist][1]
    vector = dist in _VECTOR

    def compute(ctx, a, x, *params):
        xp = ctx.xp
        if x.dtype.kind != "f":
            raise MXNetError(f"_random_pdf_{dist}: this operation only supports floating point types, "
                             f"not {x.dtype}")
        lead = params[0].shape[:-1] if vector else params[0].shape
        tail = params[0].shape[-1:] if vector else ()
        extra = (1,) * (x.ndim - params[0].ndim)
        ps = [p.astype(onp.float64).reshape(lead + extra + tail) for p in params]
        with onp.errstate(all="ignore"):
            out = logpdf(xp, x.astype(onp.float64), *ps)
            if not a["is_log"]:
                out = xp.exp(out)
        if vector and x.ndim == 1:
            out = out.reshape(1)
        return xp.ascontiguousarray(out.astype(x.dtype))
    return compute


def _grad_rule(dist):
    derivatives = _DISTS[dist][2]
    vector = dist in _VECTOR

    def grad(F, a, ins, outs, og):
        x, params = ins[0], ins[1:]
        pshape = tuple(params[0].shape)
        lead, tail = (pshape[:-1], pshape[-1:]) if vector else (pshape, ())
        n_extra = len(x.shape) - len(pshape)
        ps = [F.Reshape(p, shape=lead + (1,) * n_extra + tail) for p in params]
        scale = og[0] if a["is_log"] else F.elemwise_mul(og[0], outs[0])
        if vector:      # one density per sample vector: broadcast along the vector axis
            scale = F.Reshape(scale, shape=tuple(x.shape[:-1]) + (1,))
        d_x, d_params = derivatives(F, x, *ps)
        g_x = F.zeros_like(x) if d_x is None else F.broadcast_mul(scale, d_x)
        axes = tuple(range(len(lead), len(lead) + n_extra))
        g_params = []
        for p, d in zip(params, d_params):
            g = F.broadcast_mul(scale, d)      # the sample's shape: one term per sample
            if axes:
                g = F.sum(g, axis=axes)
            g_params.append(F.Reshape(g, shape=pshape))
        return [g_x] + g_params
    return grad


def pdf_op(dist):
    params, _, _, what = _DISTS[dist]
    names = tuple(n for n, _ in params)
    shapes = ("S + (k,)", "S + E + (k,)") if dist in _VECTOR else ("S", "S + E")
    doc = (f"The probability density (mass) of sample under {what}: parameters ({', '.join(names)}) of "
           f"shape {shapes[0]}, sample of shape {shapes[1]}; is_log gives the log-density.")
    return register(OpDef(
        f"_random_pdf_{dist}", inputs=("sample",) + names, family="random",
        aliases=(f"random_pdf_{dist}",),
        attrs={"is_log": Attr("bool", False, doc="If set, compute the density of the log-probability "
                                                 "instead of the probability.")},
        compute=_compute_rule(dist), infer_shape=_shape_rule(dist), infer_type=_pdf_type,
        grad=_grad_rule(dist), doc=doc))


for _dist in _DISTS:
    pdf_op(_dist)
