"""Op-checker cases for ops/random_pdf.py (``_random_pdf_*``): densities and log-densities against
plain NumPy formulas (``math.lgamma`` for the gamma functions), gradients w.r.t. the sample (the
continuous distributions) and the parameters against finite differences."""
import math

import numpy as np

from op_checker import Case

lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def uniform(lo, hi, shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def counts(shape, hi=6):
    return lambda rng: rng.integers(0, hi, shape).astype(np.float64)


def _b(p, x):
    """Parameter p (shape S) broadcast against sample x (shape S + E)."""
    return p.astype(np.float64).reshape(p.shape + (1,) * (x.ndim - p.ndim))


def _lp_nb(x, k, p):
    return lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k * np.log(p) + x * np.log(1 - p)


LOGPDF = {
    "normal": lambda x, mu, s: -0.5 * ((x - _b(mu, x)) / _b(s, x)) ** 2 - np.log(np.sqrt(2 * np.pi) * _b(s, x)),
    "uniform": lambda x, lo, hi: -np.log(_b(hi, x) - _b(lo, x)) + 0 * x,
    "gamma": lambda x, a, b: (_b(a, x) * np.log(_b(b, x)) + (_b(a, x) - 1) * np.log(x) - _b(b, x) * x
                              - lgamma(_b(a, x))),
    "exponential": lambda x, lam: np.log(_b(lam, x)) - _b(lam, x) * x,
    "poisson": lambda x, lam: x * np.log(_b(lam, x)) - lgamma(x + 1) - _b(lam, x),
    "negative_binomial": lambda x, k, p: _lp_nb(x, _b(k, x), _b(p, x)),
    "generalized_negative_binomial": lambda x, mu, al: _lp_nb(x, 1 / _b(al, x), 1 / (_b(mu, x) * _b(al, x) + 1)),
}


def ref(dist):
    def f(x, *params, is_log=False):
        lp = LOGPDF[dist](x.astype(np.float64), *params)
        return (lp if is_log else np.exp(lp)).astype(x.dtype)
    return f


def ref_dirichlet(x, alpha, is_log=False):
    x64 = x.astype(np.float64)
    a = alpha.astype(np.float64).reshape(alpha.shape[:-1] + (1,) * (x.ndim - alpha.ndim) + alpha.shape[-1:])
    lp = ((a - 1) * np.log(x64)).sum(-1) + lgamma(a.sum(-1)) - lgamma(a).sum(-1)
    out = lp if is_log else np.exp(lp)
    return out.reshape(out.shape or (1,)).astype(x.dtype)


def simplex(shape):
    def make(rng):
        v = rng.uniform(0.2, 1.0, shape)
        return v / v.sum(-1, keepdims=True)
    return make


G = dict(grad_rtol=1e-4, grad_atol=1e-6, rtol=1e-4)
CASES = [
    Case("_random_pdf_normal", [(2, 3), (2,), uniform(0.5, 2, (2,))], ref=ref("normal"), **G),
    Case("_random_pdf_normal", [(2, 2, 3), (2, 2), uniform(0.5, 2, (2, 2))], attrs={"is_log": True},
         ref=ref("normal"), name="log-2d", **G),
    Case("_random_pdf_normal", [(3,), (3,), uniform(0.5, 2, (3,))], ref=ref("normal"), name="one-each", **G),
    Case("_random_pdf_uniform", [uniform(0.1, 0.9, (2, 3)), uniform(-1, 0, (2,)), uniform(1, 2, (2,))],
         ref=ref("uniform"), **G),
    Case("_random_pdf_uniform", [uniform(0.1, 0.9, (2, 3)), uniform(-1, 0, (2,)), uniform(1, 2, (2,))],
         attrs={"is_log": True}, ref=ref("uniform"), name="log", **G),
    Case("_random_pdf_gamma", [uniform(0.5, 3, (2, 3)), uniform(0.5, 3, (2,)), uniform(0.5, 2, (2,))],
         ref=ref("gamma"), **G),
    Case("_random_pdf_gamma", [uniform(0.5, 3, (2, 3)), uniform(0.5, 3, (2,)), uniform(0.5, 2, (2,))],
         attrs={"is_log": True}, ref=ref("gamma"), name="log", **G),
    Case("_random_pdf_exponential", [uniform(0.1, 3, (2, 3)), uniform(0.5, 3, (2,))], ref=ref("exponential"), **G),
    Case("_random_pdf_exponential", [uniform(0.1, 3, (2, 3)), uniform(0.5, 3, (2,))], attrs={"is_log": True},
         ref=ref("exponential"), name="log", **G),
    Case("_random_pdf_poisson", [counts((2, 3)), uniform(0.5, 4, (2,))], ref=ref("poisson"), grad=(1,), **G),
    Case("_random_pdf_poisson", [counts((2, 3)), uniform(0.5, 4, (2,))], attrs={"is_log": True},
         ref=ref("poisson"), grad=(1,), name="log", **G),
    Case("_random_pdf_negative_binomial", [counts((2, 3)), uniform(1, 5, (2,)), uniform(0.2, 0.8, (2,))],
         ref=ref("negative_binomial"), grad=(1, 2), **G),
    Case("_random_pdf_negative_binomial", [counts((2, 3)), uniform(1, 5, (2,)), uniform(0.2, 0.8, (2,))],
         attrs={"is_log": True}, ref=ref("negative_binomial"), grad=(1, 2), name="log", **G),
    Case("_random_pdf_generalized_negative_binomial",
         [counts((2, 3)), uniform(1, 3, (2,)), uniform(0.2, 1.0, (2,))],
         ref=ref("generalized_negative_binomial"), grad=(1, 2), **G),
    Case("_random_pdf_generalized_negative_binomial",
         [counts((2, 3)), uniform(1, 3, (2,)), uniform(0.2, 1.0, (2,))], attrs={"is_log": True},
         ref=ref("generalized_negative_binomial"), grad=(1, 2), name="log", **G),
    Case("_random_pdf_dirichlet", [simplex((2, 3, 3)), uniform(0.5, 3, (2, 3))], ref=ref_dirichlet, **G),
    Case("_random_pdf_dirichlet", [simplex((2, 3, 3)), uniform(0.5, 3, (2, 3))], attrs={"is_log": True},
         ref=ref_dirichlet, name="log", **G),
    Case("_random_pdf_dirichlet", [simplex((3,)), uniform(0.5, 3, (3,))], ref=ref_dirichlet,
         name="one-vector", **G),
]
