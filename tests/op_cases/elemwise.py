"""Op-checker cases for the unary elementwise family (ops/elemwise.py, ops/elemwise_special.py)."""
import math
import statistics

import numpy as np

from hybridlab.base import bfloat16

from op_checker import Case

S = (2, 3)


def uniform(lo, hi, shape=S):
    return lambda rng: rng.uniform(lo, hi, shape)


def away_from_zero(shape=S, lo=0.2, hi=2.0):
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


def off_grid(shape=S):
    """Values away from integers and half-integers (kinks of the rounding ops)."""
    return lambda rng: rng.integers(-3, 4, shape) + rng.choice([0.15, 0.3, 0.7, 0.85], shape)


def int_valued(shape=S):
    return lambda rng: rng.integers(-1, 2, shape).astype(np.float64)


def vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


def mish(x):
    x = x.astype(np.float64)
    return x * np.tanh(np.log(1.0 + np.exp(x)))


def erfinv(y):
    nd = statistics.NormalDist()
    return vec(lambda v: nd.inv_cdf((v + 1.0) / 2.0) / math.sqrt(2.0))(y)


def digamma(x, h=1e-5):
    """psi(x) as the central difference of math.lgamma (an independent reference)."""
    return vec(lambda v: (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h))(x)


def trigamma(x):
    """psi'(x) by the series sum 1/(x+k)^2 (x > 0), with the tail as an integral."""
    def one(v):
        n = 20000
        return sum(1.0 / (v + k) ** 2 for k in range(n)) + 1.0 / (v + n - 0.5)
    return vec(one)(x)


def mx_rint(x):
    return np.array([math.floor(v) if v - math.floor(v) <= 0.5 else math.ceil(v) for v in x.ravel()],
                    dtype=x.dtype).reshape(x.shape)


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


CASES = [
    # ---- math --------------------------------------------------------------------------------
    Case("negative", [S], ref=lambda x: -x),
    Case("abs", [away_from_zero()], ref=np.abs),
    Case("sign", [away_from_zero()], ref=np.sign),
    Case("round", [off_grid()], ref=round_half_away),
    Case("rint", [off_grid()], ref=mx_rint),
    Case("_npi_around", [off_grid()], ref=lambda x, decimals=0: np.round(x)),
    Case("_npi_around", [lambda rng: rng.integers(-30, 30, S) / 10 + rng.choice([0.02, 0.03, 0.07, 0.08], S)],
         attrs={"decimals": 1}, name="decimals1", ref=lambda x, decimals: np.round(x, decimals)),
    Case("ceil", [off_grid()], ref=np.ceil),
    Case("floor", [off_grid()], ref=np.floor),
    Case("trunc", [off_grid()], ref=np.trunc),
    Case("fix", [off_grid()], ref=lambda x: np.where(x < 0, np.ceil(x), np.floor(x))),
    Case("square", [S], ref=lambda x: x * x),
    Case("sqrt", [uniform(0.2, 3.0)], ref=np.sqrt),
    Case("rsqrt", [uniform(0.2, 3.0)], ref=lambda x: 1.0 / np.sqrt(x)),
    Case("cbrt", [away_from_zero()], ref=lambda x: np.sign(x) * np.abs(x) ** (1.0 / 3.0)),
    Case("rcbrt", [away_from_zero()], ref=lambda x: np.sign(x) / np.abs(x) ** (1.0 / 3.0)),
    Case("exp", [S], ref=np.exp),
    Case("expm1", [S], ref=lambda x: vec(math.expm1)(x)),
    Case("log", [uniform(0.2, 3.0)], ref=np.log),
    Case("log10", [uniform(0.2, 3.0)], ref=lambda x: np.log(x.astype(np.float64)) / math.log(10)),
    Case("log2", [uniform(0.2, 3.0)], ref=lambda x: np.log(x.astype(np.float64)) / math.log(2)),
    Case("log1p", [uniform(-0.5, 2.0)], ref=lambda x: vec(math.log1p)(x)),
    Case("sin", [S], ref=np.sin),
    Case("cos", [S], ref=np.cos),
    Case("tan", [uniform(-1.2, 1.2)], ref=np.tan),
    Case("arcsin", [uniform(-0.9, 0.9)], ref=np.arcsin),
    Case("arccos", [uniform(-0.9, 0.9)], ref=np.arccos),
    Case("arctan", [S], ref=np.arctan),
    Case("sinh", [S], ref=np.sinh),
    Case("cosh", [S], ref=np.cosh),
    Case("tanh", [S], ref=np.tanh),
    Case("arcsinh", [S], ref=lambda x: np.log(x + np.sqrt(x.astype(np.float64) ** 2 + 1))),
    Case("arccosh", [uniform(1.2, 3.0)], ref=lambda x: np.log(x + np.sqrt(x.astype(np.float64) ** 2 - 1))),
    Case("arctanh", [uniform(-0.9, 0.9)], ref=lambda x: 0.5 * np.log((1 + x.astype(np.float64)) / (1 - x))),
    Case("degrees", [S], ref=lambda x: x * 180.0 / np.pi),
    Case("radians", [S], ref=lambda x: x * np.pi / 180.0),
    Case("reciprocal", [away_from_zero()], ref=lambda x: 1.0 / x),
    Case("logical_not", [int_valued()], grad=(), ref=lambda x: (x == 0).astype(x.dtype)),
    Case("_npi_logical_not", [int_valued()], grad=(), ref=lambda x: x == 0),
    # ---- special functions -------------------------------------------------------------------
    Case("erf", [uniform(-2.5, 2.5)], ref=lambda x: vec(math.erf)(x)),
    Case("erfinv", [uniform(-0.95, 0.95)], ref=erfinv, rtol=1e-4),
    Case("gamma", [uniform(0.6, 4.0)], ref=lambda x: vec(math.gamma)(x), rtol=1e-4),
    Case("gamma", [np.array([-2.7, -1.4, -0.6, 0.3, 1.5, 5.2])], name="reflection", rtol=1e-4,
         ref=lambda x: vec(math.gamma)(x)),
    Case("gamma", [np.array([1.0, 2.0, 3.0, 7.0, 10.0, 0.5, 4.5])], name="integers", rtol=1e-6,
         ref=lambda x: vec(math.gamma)(x)),
    Case("gammaln", [uniform(0.6, 4.0)], ref=lambda x: vec(math.lgamma)(x), atol=1e-5),
    Case("gammaln", [np.array([-2.7, -1.4, -0.6, 0.3, 1.5, 5.2])], name="reflection", atol=1e-5,
         ref=lambda x: vec(math.lgamma)(x)),
    Case("_backward_gammaln", [S, np.array([[-2.7, -0.6, 0.3], [1.5, 2.2, 7.9]])], rtol=1e-4, atol=1e-5,
         ref=lambda og, x: og * digamma(x)),
    Case("_backward_digamma", [S, uniform(0.3, 4.0)], grad=(), rtol=1e-4, ref=lambda og, x: og * trigamma(x)),
    # ---- activations -------------------------------------------------------------------------
    Case("relu", [away_from_zero((3, 4))], ref=lambda x: np.maximum(x, 0)),
    Case("sigmoid", [uniform(-6.0, 6.0)], ref=sigmoid),
    Case("softsign", [away_from_zero()], ref=lambda x: x / (1 + np.abs(x))),
    Case("log_sigmoid", [uniform(-8.0, 8.0)], ref=lambda x: np.log(sigmoid(x))),
    Case("mish", [uniform(-4.0, 4.0)], ref=mish),
    Case("hard_sigmoid", [lambda rng: rng.choice([-1.0, 1.0], S) * rng.choice([0.3, 1.2, 2.0, 3.0, 4.0], S)],
         ref=lambda x, alpha=0.2, beta=0.5: np.clip(alpha * x + beta, 0, 1)),
    Case("hard_sigmoid", [lambda rng: rng.choice([-3.0, -0.7, 0.1, 0.9, 2.4], S)], name="alpha_beta",
         attrs={"alpha": 0.5, "beta": 0.2}, ref=lambda x, alpha, beta: np.clip(alpha * x + beta, 0, 1)),
    Case("clip", [lambda rng: rng.choice([-1.3, -0.7, -0.2, 0.3, 0.7, 1.5], (2, 4))],
         attrs={"a_min": -0.5, "a_max": 0.8}, ref=lambda x, a_min, a_max: np.minimum(np.maximum(x, a_min), a_max)),
    # ---- casts, copies -------------------------------------------------------------------------
    Case("Cast", [S], attrs={"dtype": "float64"}, ref=lambda x, dtype: x.astype(dtype)),
    Case("amp_cast", [S], attrs={"dtype": "float16"}, ref=lambda x, dtype: x.astype(dtype), rtol=1e-3, atol=1e-3,
         eps=0.1, grad_rtol=0.05, grad_atol=0.05),
    Case("amp_cast", [S], name="to_float64", attrs={"dtype": "float64"}, ref=lambda x, dtype: x.astype(dtype)),
    # bfloat16 (ml_dtypes): amp_cast rounds to nearest even, as MXNet 1.9.1 on the CPU
    Case("amp_cast", [S], name="to_bfloat16", attrs={"dtype": "bfloat16"}, ref=lambda x, dtype: x.astype(bfloat16),
         eps=0.1, grad_rtol=0.05, grad_atol=0.05),
    # (bfloat16 inputs and Cast's truncation: tests/test_amp_bf16.py; their gradients have no float64 input here)
    # (integer inputs stay unchanged: tests/test_mxnet_nd_parity.py, the op checker needs a float input)
    Case("sign", [np.array([np.nan, -2.5, 0.5, 3.0, -np.inf, np.inf])], name="nan_is_zero",
         ref=lambda x: np.nan_to_num(np.sign(x), nan=0.0)),
    Case("_copy", [(2, 2)], ref=lambda x: x.copy()),
    Case("_identity_with_attr_like_rhs", [S, S], ref=lambda lhs, rhs: lhs.copy()),
    Case("_copyto", [(2, 2)], attrs={"device": "cpu(1)"}, ref=lambda x, device: x.copy()),
    Case("BlockGrad", [S], grad=(), ref=lambda x: x.copy()),
    Case("zeros_like", [S], ref=np.zeros_like, grad=()),
    Case("ones_like", [S], ref=np.ones_like, grad=()),
]
