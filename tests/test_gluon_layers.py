"""The nn layers beyond the basics: every layer imperative vs hybridized (outputs and gradients
equal), outputs against NumPy references, input gradients against finite differences, MXNet's
parameter names, and errors for a wrong input rank or channel count naming the layer."""
import itertools
import math

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd
from hybridlab.gluon import nn

RS = np.random.RandomState(0)


# ---- NumPy references -------------------------------------------------------------------------
def np_conv(x, w, b, stride=1, pad=0):
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * nd)
    k = w.shape[2:]
    out_sp = [(x.shape[2 + i] - k[i]) // stride + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], w.shape[0], *out_sp))
    for pos in itertools.product(*[range(s) for s in out_sp]):
        sl = tuple(slice(p * stride, p * stride + k[i]) for i, p in enumerate(pos))
        patch = x[(slice(None), slice(None)) + sl]
        out[(slice(None), slice(None)) + pos] = np.tensordot(patch, w, axes=(list(range(1, nd + 2)),
                                                                             list(range(1, nd + 2))))
    return out + b.reshape((1, -1) + (1,) * nd)


def np_deconv(x, w, b, stride=1, pad=0, adj=0):
    nd = x.ndim - 2
    k = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * stride + k[i] + adj for i in range(nd)]
    out = np.zeros((x.shape[0], w.shape[1], *full))
    for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
        sl = tuple(slice(p * stride, p * stride + k[i]) for i, p in enumerate(pos))
        contrib = np.tensordot(x[(slice(None), slice(None)) + pos], w, axes=([1], [0]))
        out[(slice(None), slice(None)) + sl] += contrib
    crop = tuple(slice(pad, full[i] - pad) for i in range(nd))
    return out[(slice(None), slice(None)) + crop] + b.reshape((1, -1) + (1,) * nd)


def np_pool(x, k, kind):
    nd = x.ndim - 2
    out_sp = [x.shape[2 + i] // k for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for pos in itertools.product(*[range(s) for s in out_sp]):
        patch = x[(slice(None), slice(None)) + tuple(slice(p * k, p * k + k) for p in pos)]
        red = patch.reshape(patch.shape[:2] + (-1,))
        out[(slice(None), slice(None)) + pos] = red.max(-1) if kind == "max" else red.mean(-1)
    return out


def np_norm(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def np_group_norm(x, g, gamma, beta, eps=1e-5):
    """gamma/beta of shape (g,): one value per group (MXNet 1.9)."""
    n = x.shape[0]
    y = np_norm(x.reshape(n, g, -1), (2,), eps)
    return (y * gamma.reshape(1, g, 1) + beta.reshape(1, g, 1)).reshape(x.shape)


_erf = np.vectorize(math.erf)
_SELU_L, _SELU_A = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def _params(block):
    return {p.name.split("_", 1)[1] if "_" in p.name else p.name: p.data().asnumpy().astype("float64")
            for p in block.collect_params().values()}


# name: (factory, input shape, reference(x, params))
CASES = {
    "Conv1D": (lambda: nn.Conv1D(3, 3, strides=2, padding=1), (2, 4, 9),
               lambda x, p: np_conv(x, p["weight"], p["bias"], 2, 1)),
    "Conv3D": (lambda: nn.Conv3D(2, 2), (1, 3, 4, 4, 4), lambda x, p: np_conv(x, p["weight"], p["bias"])),
    "Conv1DTranspose": (lambda: nn.Conv1DTranspose(3, 3, strides=2, padding=1, output_padding=1), (2, 4, 5),
                        lambda x, p: np_deconv(x, p["weight"], p["bias"], 2, 1, 1)),
    "Conv2DTranspose": (lambda: nn.Conv2DTranspose(2, 3, strides=2), (1, 3, 3, 4),
                        lambda x, p: np_deconv(x, p["weight"], p["bias"], 2)),
    "Conv3DTranspose": (lambda: nn.Conv3DTranspose(2, 2), (1, 2, 2, 3, 2),
                        lambda x, p: np_deconv(x, p["weight"], p["bias"])),
    "MaxPool1D": (lambda: nn.MaxPool1D(2), (2, 3, 8), lambda x, p: np_pool(x, 2, "max")),
    "MaxPool3D": (lambda: nn.MaxPool3D(2), (1, 2, 4, 4, 4), lambda x, p: np_pool(x, 2, "max")),
    "AvgPool1D": (lambda: nn.AvgPool1D(2), (2, 3, 8), lambda x, p: np_pool(x, 2, "avg")),
    "AvgPool3D": (lambda: nn.AvgPool3D(2), (1, 2, 4, 4, 4), lambda x, p: np_pool(x, 2, "avg")),
    "GlobalMaxPool1D": (nn.GlobalMaxPool1D, (2, 3, 5), lambda x, p: x.max(axis=2, keepdims=True)),
    "GlobalAvgPool2D": (nn.GlobalAvgPool2D, (2, 3, 4, 5), lambda x, p: x.mean(axis=(2, 3), keepdims=True)),
    "GlobalMaxPool3D": (nn.GlobalMaxPool3D, (1, 2, 3, 3, 3), lambda x, p: x.max(axis=(2, 3, 4), keepdims=True)),
    "GlobalAvgPool3D": (nn.GlobalAvgPool3D, (1, 2, 3, 3, 3), lambda x, p: x.mean(axis=(2, 3, 4), keepdims=True)),
    "LayerNorm": (lambda: nn.LayerNorm(gamma_initializer="uniform", beta_initializer="uniform"), (3, 4, 6),
                  lambda x, p: np_norm(x, (-1,)) * p["gamma"] + p["beta"]),
    "GroupNorm": (lambda: nn.GroupNorm(2, gamma_initializer="uniform", beta_initializer="uniform"), (2, 4, 3, 3),
                  lambda x, p: np_group_norm(x, 2, p["gamma"], p["beta"])),
    "InstanceNorm": (lambda: nn.InstanceNorm(scale=True, gamma_initializer="uniform", beta_initializer="uniform"),
                     (2, 3, 5), lambda x, p: np_norm(x, (2,)) * p["gamma"].reshape(1, 3, 1)
                     + p["beta"].reshape(1, 3, 1)),
    "LeakyReLU": (lambda: nn.LeakyReLU(0.1), (3, 5), lambda x, p: np.where(x > 0, x, 0.1 * x)),
    "PReLU": (lambda: nn.PReLU(in_channels=4), (2, 4, 3),
              lambda x, p: np.where(x > 0, x, p["alpha"].reshape(1, 4, 1) * x)),
    "ELU": (lambda: nn.ELU(0.7), (3, 5), lambda x, p: np.where(x > 0, x, 0.7 * (np.exp(x) - 1))),
    "SELU": (nn.SELU, (3, 5), lambda x, p: _SELU_L * np.where(x > 0, x, _SELU_A * (np.exp(x) - 1))),
    "GELU": (nn.GELU, (3, 5), lambda x, p: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    "Swish": (lambda: nn.Swish(1.5), (3, 5), lambda x, p: x / (1 + np.exp(-1.5 * x))),
    "SiLU": (nn.SiLU, (3, 5), lambda x, p: x / (1 + np.exp(-x))),
}


def _run(block, x, hybridize):
    block.hybridize(hybridize)
    xa = mx.nd.array(x)
    xa.attach_grad()
    shape = block(xa).shape
    head = mx.nd.array(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))
    with autograd.record():
        out = block(xa)
        loss = (out * head).sum()
    loss.backward()
    grads = {p.name: p.grad().asnumpy().copy() for p in block.collect_params().values() if p.grad_req != "null"}
    return out.asnumpy(), xa.grad.asnumpy().copy(), grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_imperative_hybridized_numpy(name):
    factory, shape, ref = CASES[name]
    mx.random.seed(1)
    block = factory()
    block.initialize(mx.init.Uniform(0.5))
    x = RS.uniform(-1, 1, shape).astype("float32")
    out_i, gx_i, gp_i = _run(block, x, False)
    out_h, gx_h, gp_h = _run(block, x, True)
    np.testing.assert_allclose(out_h, out_i, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx_h, gx_i, rtol=1e-5, atol=1e-6)
    assert gp_h.keys() == gp_i.keys()
    for k in gp_i:
        np.testing.assert_allclose(gp_h[k], gp_i[k], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_i, ref(x.astype("float64"), _params(block)), rtol=1e-4, atol=1e-5)
    if "Max" not in name:                              # max pooling: kinks make differences unreliable
        head = np.linspace(-1, 1, out_i.size).reshape(out_i.shape)
        f = lambda v: float((ref(v, _params(block)) * head).sum())  # noqa: E731
        eps, flat = 1e-6, x.astype("float64").ravel()
        for i in RS.choice(flat.size, min(6, flat.size), replace=False):
            up, down = flat.copy(), flat.copy()
            up[i] += eps
            down[i] -= eps
            num = (f(up.reshape(x.shape)) - f(down.reshape(x.shape))) / (2 * eps)
            assert abs(gx_i.ravel()[i] - num) < 1e-3 * max(1.0, abs(num)), (name, i, gx_i.ravel()[i], num)


def test_embedding_and_concatenate():
    emb = nn.Embedding(10, 4)
    emb.initialize()
    idx = np.array([[1, 3], [3, 9]])
    for hybrid in (False, True):
        emb.hybridize(hybrid)
        with autograd.record():
            out = emb(mx.nd.array(idx))
            out.sum().backward()
        np.testing.assert_array_equal(out.asnumpy(), emb.weight.data().asnumpy()[idx])
        counts = np.bincount(idx.ravel(), minlength=10)[:, None] * np.ones((1, 4))
        np.testing.assert_array_equal(emb.weight.grad().asnumpy(), counts)
    cat = nn.HybridConcatenate(axis=1)
    cat.add(nn.Dense(2), nn.Identity(), nn.Dense(3))
    cat.initialize()
    x = mx.nd.array(RS.rand(4, 5))
    a = cat(x).asnumpy()
    cat.hybridize()
    np.testing.assert_allclose(cat(x).asnumpy(), a, rtol=1e-6)
    d0, d2 = cat[0], cat[2]
    ref = np.concatenate([d0(x).asnumpy(), x.asnumpy(), d2(x).asnumpy()], axis=1)
    np.testing.assert_allclose(a, ref, rtol=1e-6)
    plain = nn.Concatenate(axis=0)
    plain.add(nn.Identity(), nn.Identity())
    assert plain(x).shape == (8, 5) and len(cat) == 3


def test_parameter_names_and_defaults_follow_mxnet():
    with mx.name.NameManager():
        layers = [nn.Conv2DTranspose(4, 3), nn.LayerNorm(), nn.GroupNorm(), nn.InstanceNorm(), nn.Embedding(5, 2),
                  nn.PReLU()]
    names = [p.name for blk in layers for p in blk.collect_params().values()]
    assert names == ["conv0_weight", "conv0_bias", "layernorm0_gamma", "layernorm0_beta", "groupnorm0_gamma",
                     "groupnorm0_beta", "instancenorm0_gamma", "instancenorm0_beta", "embedding0_weight",
                     "prelu0_alpha"]
    assert layers[0].weight.shape == (0, 4, 3, 3) and layers[3].gamma.grad_req == "null"
    layers[5].initialize()
    assert layers[5].alpha.data().asnumpy().tolist() == [0.25]


@pytest.mark.parametrize("factory,good,bad,expect", [
    (lambda: nn.Conv2D(4, 3, in_channels=3), (1, 3, 8, 8), (1, 5, 8, 8), "(N, 3, H, W)"),
    (lambda: nn.Conv2D(4, 3), (1, 3, 8, 8), (1, 3, 8), "rank 4"),
    (lambda: nn.Conv1DTranspose(2, 3), (1, 3, 8), (1, 4, 8), "3 channels on axis 1"),
    (lambda: nn.MaxPool3D(), (1, 1, 4, 4, 4), (1, 4, 4, 4), "rank 5"),
    (lambda: nn.BatchNorm(), (2, 3, 4), (2, 5, 4), "3 channels on axis 1"),
    (lambda: nn.Dense(2), (2, 6), (2, 7), "(N, 6)"),
    (lambda: nn.LayerNorm(), (2, 6), (2, 7), "6 channels on axis -1"),
    (lambda: nn.GroupNorm(2), (2, 4, 3), (2, 3, 3), "divisible by num_groups=2"),
    (lambda: nn.InstanceNorm(), (2, 4, 3), (2, 4), "rank >= 3"),
])
@pytest.mark.parametrize("hybridize", [False, True])
def test_wrong_input_shape_names_layer_expected_and_got(factory, good, bad, expect, hybridize):
    block = factory()
    block.initialize()
    block.hybridize(hybridize)
    block(mx.nd.ones(good))
    with pytest.raises(mx.base.MXNetError) as err:
        block(mx.nd.ones(bad))
    msg = str(err.value)
    assert f"Layer '{block.name}' ({type(block).__name__})" in msg and expect in msg and f"got shape {bad}" in msg


def test_dense_with_zero_units_builds_and_its_operator_refuses_it_when_run():
    # MXNet builds Dense(0) (1.x models hold such unused layers); FullyConnected refuses num_hidden=0
    layer = mx.gluon.nn.Dense(0)
    layer.initialize()
    with pytest.raises(mx.MXNetError, match="num_hidden' expected a value >= 1, got 0"):
        layer(mx.nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError, match="units expected a value >= 1"):
        mx.gluon.nn.Dense(-1)
