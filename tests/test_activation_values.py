"""Activation kernels written branch-free (sigmoid as MXNet's 1 / (1 + exp(-x)); leaky, prelu, elu,
selu, rrelu as max(x, 0) + f(min(x, 0))): extreme and special values give what MXNet gives, with no
floating-point warnings, on arrays large enough to take the row-of-zeros path too."""
import warnings

import numpy as np
import pytest

import hybridlab as mx

SPECIAL = np.array([-np.inf, -1000.0, -100.0, -20.0, -1.5, -0.0, 0.0, 1.5, 20.0, 100.0, np.inf, np.nan],
                   dtype=np.float32)


def _values(n_repeat):
    return mx.nd.array(np.tile(SPECIAL, n_repeat))


@pytest.mark.parametrize("n_repeat", [1, 1000])      # 12 values, and 12,000 (the fast path)
def test_sigmoid_extremes_without_warnings(n_repeat):
    x = _values(n_repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mx.nd.sigmoid(x).asnumpy()[:12]
        act = mx.nd.Activation(x, act_type="sigmoid").asnumpy()[:12]
    want = np.array([0, 0, 0, 1 / (1 + np.exp(20)), 1 / (1 + np.exp(1.5)), 0.5, 0.5, 1 / (1 + np.exp(-1.5)),
                     1 / (1 + np.exp(-20)), 1, 1, np.nan], dtype=np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(act, got)


@pytest.mark.parametrize("n_repeat", [1, 1000])
@pytest.mark.parametrize("act, negative", [
    ("leaky", lambda x: 0.25 * x),
    ("elu", lambda x: 0.25 * np.expm1(x)),
    ("selu", None),
])
def test_leaky_family_matches_the_per_sign_definition(n_repeat, act, negative):
    x = _values(n_repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mx.nd.LeakyReLU(x, act_type=act, slope=0.25).asnumpy()[:12]
    v = SPECIAL.astype(np.float64)
    if act == "selu":
        lam, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
        want = lam * np.where(v > 0, v, alpha * np.expm1(np.minimum(v, 0)))
    else:
        with np.errstate(invalid="ignore"):
            want = np.where(v > 0, v, negative(np.minimum(v, 0)))
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6)


def test_prelu_per_channel_slopes():
    x = np.random.default_rng(0).standard_normal((64, 3, 32)).astype(np.float32)   # fast path: rows of 96
    gamma = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    got = mx.nd.LeakyReLU(mx.nd.array(x), mx.nd.array(gamma), act_type="prelu").asnumpy()
    want = np.where(x > 0, x, x * gamma[None, :, None])
    np.testing.assert_array_equal(got, want)
