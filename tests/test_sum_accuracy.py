"""Sums down many rows stay close to the exact sum, as MXNet's compensated CPU sums do: a gradient
summed over a large batch (a dense layer's bias, LayerNorm's gamma and beta) in float32 keeps the
accuracy MXNet's own tests ask of it, imperatively and in compiled backward programs
(``ops.reduce.sum_rows``: blocks of rows summed, then the blocks)."""
import numpy as np

import hybridlab as mx

RNG = np.random.default_rng(0)
ROWS = (RNG.standard_normal((4096, 64)) + 1).astype(np.float32)     # column sums ~4100
EXACT = ROWS.astype(np.float64).sum(axis=0)
NAIVE_ERROR = np.abs(ROWS.sum(axis=0) - EXACT).max()                # one running sum: ~1e-2


def test_a_sum_down_many_rows_is_five_times_closer_than_one_running_sum():
    for axis in (0, (0,)):
        got = mx.nd.sum(mx.nd.array(ROWS), axis=axis).asnumpy()
        assert np.abs(got - EXACT).max() < NAIVE_ERROR / 5
    got = mx.nd.sum(mx.nd.array(ROWS.reshape(64, 64, 64)), axis=(0, 1)).asnumpy()   # leading axes together
    assert np.abs(got - EXACT).max() < NAIVE_ERROR / 5


def test_a_dense_bias_gradient_over_a_large_batch_in_a_compiled_backward():
    net = mx.gluon.nn.Dense(64, in_units=16)
    net.initialize()
    net.hybridize()
    x = mx.nd.array(RNG.standard_normal((4096, 16)).astype(np.float32))
    for _ in range(2):
        with mx.autograd.record():
            y = net(x)
        y.backward(mx.nd.array(ROWS))
    assert "sum_rows(" in net.cached_op.source(kind="backward")
    assert np.abs(net.bias.grad().asnumpy() - EXACT).max() < NAIVE_ERROR / 5


def test_layer_norm_parameter_gradients_over_4096_rows():
    """As MXNet 1.9.1's test_operator.py::test_layer_norm: (4096, 512) float32 against a float64 NumPy
    reference at rtol = atol = 1e-4 (a rare unlucky column failed it), and 2x closer than float32
    NumPy's own sums, imperative and hybridized."""
    data = RNG.standard_normal((4096, 512)).astype(np.float32)
    gamma, beta = (RNG.standard_normal(512).astype(np.float32) for _ in range(2))
    og = (RNG.standard_normal(data.shape) + 1).astype(np.float32)
    d = data.astype(np.float64)
    xhat = (d - d.mean(axis=1, keepdims=True)) / np.sqrt(d.var(axis=1, keepdims=True) + 1e-3)
    want = {"gamma": (xhat * og).sum(axis=0), "beta": og.astype(np.float64).sum(axis=0)}
    numpy_error = {"gamma": np.abs((xhat.astype(np.float32) * og).sum(axis=0) - want["gamma"]).max(),
                   "beta": np.abs(og.sum(axis=0) - want["beta"]).max()}
    for hybridized in (False, True):
        net = mx.gluon.nn.LayerNorm(epsilon=1e-3, in_channels=512)
        net.initialize()
        net.gamma.set_data(mx.nd.array(gamma))
        net.beta.set_data(mx.nd.array(beta))
        if hybridized:
            net.hybridize()
        x = mx.nd.array(data)
        for _ in range(2):
            with mx.autograd.record():
                y = net(x)
            y.backward(mx.nd.array(og))
        for name, value in want.items():
            got = getattr(net, name).grad().asnumpy()
            np.testing.assert_allclose(got, value, rtol=1e-4, atol=1e-4, err_msg=f"{name} (hybridized={hybridized})")
            assert np.abs(got - value).max() < numpy_error[name] / 2, (name, hybridized)
