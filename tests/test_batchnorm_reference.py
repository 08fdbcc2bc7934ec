"""BatchNorm in training mode against real MXNet 1.9.1 (``data/mxnet/bn_trainmode_ref.npz``).

The fixture net (bn_trainmode-symbol.json) is Convolution(8, 3x3, pad 1, no bias) -> BatchNorm(eps 1e-5,
momentum 0.9) -> relu -> MaxPool(2, 2) -> Flatten -> FullyConnected(16) -> BatchNorm(eps 1e-3, momentum
0.8) -> FullyConnected(5), all BatchNorms with fix_gamma=False. The npz holds the input, the train-mode
output, every parameter before and after one recorded forward + backward (only the BatchNorm running
statistics change: MXNet updates them in backward, with the biased batch variance) and the
inference-mode output after the update.
"""
import os

import numpy as np
import pytest

import hybridlab as mx

REF = os.path.join(os.path.dirname(__file__), "data", "mxnet", "bn_trainmode_ref.npz")
P = "hybridsequential0_"
BN0 = dict(eps=1e-5, momentum=0.9, fix_gamma=False, use_global_stats=False, axis=1)
BN1 = dict(eps=1e-3, momentum=0.8, fix_gamma=False, use_global_stats=False, axis=1)


@pytest.fixture(scope="module")
def ref():
    with np.load(REF) as f:
        return {k: f[k] for k in f.files}


def _p(ref, name, when="before"):
    return ref[f"{when}/{P}{name}"].astype(np.float64)


# ---- plain NumPy forward of the fixture net ----
def np_conv3x3(x, w):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((x.shape[0], w.shape[0]) + x.shape[2:])
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + x.shape[2], j:j + x.shape[3]], w[:, :, i, j])
    return out


def np_bn(x, gamma, beta, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * gamma.reshape(shape) + beta.reshape(shape)


def batch_stats(x):
    axes = (0,) + tuple(range(2, x.ndim))
    return x.mean(axis=axes), x.var(axis=axes)  # biased variance


def np_net(ref, x, stats=None):
    """Forward in train mode (stats=None: batch statistics) or with the given running statistics.
    Returns the output and the inputs of both BatchNorms."""
    h0 = np_conv3x3(x, _p(ref, "conv0_weight"))
    s0 = batch_stats(h0) if stats is None else stats[0]
    h = np.maximum(np_bn(h0, _p(ref, "batchnorm0_gamma"), _p(ref, "batchnorm0_beta"), *s0, BN0["eps"]), 0)
    h = h.reshape(4, 8, 5, 2, 5, 2).max(axis=(3, 5)).reshape(4, -1)
    h1 = h @ _p(ref, "dense0_weight").T + _p(ref, "dense0_bias")
    s1 = batch_stats(h1) if stats is None else stats[1]
    h = np_bn(h1, _p(ref, "batchnorm1_gamma"), _p(ref, "batchnorm1_beta"), *s1, BN1["eps"])
    return h @ _p(ref, "dense1_weight").T + _p(ref, "dense1_bias"), h0, h1


def test_numpy_model_of_the_fixture(ref):
    """The plain NumPy reading of MXNet's train-mode BatchNorm reproduces the fixture."""
    y, _, _ = np_net(ref, ref["x"].astype(np.float64))
    np.testing.assert_allclose(y, ref["y_train_mode"], rtol=1e-4, atol=1e-4)


def _run_bn(ref, data, name, attrs):
    """hybridlab BatchNorm on ``data`` in a recorded training pass + backward; returns the output and
    the (updated in place) running statistics."""
    x = mx.nd.array(data)
    x.attach_grad()
    params = [mx.nd.array(ref[f"before/{P}{name}_{k}"]) for k in ("gamma", "beta", "running_mean", "running_var")]
    params[0].attach_grad()
    with mx.autograd.record():
        y = mx.nd.BatchNorm(x, *params, **attrs)
    y.backward(mx.nd.ones(y.shape))
    return y, params[2].asnumpy(), params[3].asnumpy()


@pytest.mark.parametrize("layer", [0, 1])
def test_batchnorm_updates_running_statistics_in_backward(ref, layer):
    _, h0, h1 = np_net(ref, ref["x"].astype(np.float64))
    name, data, attrs = (("batchnorm0", h0, BN0), ("batchnorm1", h1, BN1))[layer]
    x = mx.nd.array(data)
    params = [mx.nd.array(ref[f"before/{P}{name}_{k}"]) for k in ("gamma", "beta", "running_mean", "running_var")]
    with mx.autograd.record():
        mx.nd.BatchNorm(x, *params, **attrs)
    # forward alone leaves the statistics untouched
    np.testing.assert_array_equal(params[2].asnumpy(), ref[f"before/{P}{name}_running_mean"])
    _, mean, var = _run_bn(ref, data, name, attrs)
    np.testing.assert_allclose(mean, ref[f"after/{P}{name}_running_mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, ref[f"after/{P}{name}_running_var"], rtol=1e-5, atol=1e-6)


def test_predict_mode_leaves_statistics_alone(ref):
    _, h0, _ = np_net(ref, ref["x"].astype(np.float64))
    x = mx.nd.array(h0)
    x.attach_grad()
    params = [mx.nd.array(ref[f"before/{P}batchnorm0_{k}"]) for k in ("gamma", "beta", "running_mean", "running_var")]
    with mx.autograd.record(train_mode=False):
        y = mx.nd.BatchNorm(x, *params, **BN0)
    y.backward()
    np.testing.assert_array_equal(params[2].asnumpy(), ref[f"before/{P}batchnorm0_running_mean"])
    np.testing.assert_array_equal(params[3].asnumpy(), ref[f"before/{P}batchnorm0_running_var"])
    # the gradient matches the predict-mode forward: gamma / sqrt(moving_var + eps) per channel
    scale = _p(ref, "batchnorm0_gamma") / np.sqrt(_p(ref, "batchnorm0_running_var") + BN0["eps"])
    np.testing.assert_allclose(x.grad.asnumpy(), np.broadcast_to(scale.reshape(1, -1, 1, 1), h0.shape), rtol=1e-5)


def test_full_network_train_step_matches_mxnet(ref):
    """The whole fixture net with hybridlab ops: train-mode output, updated statistics, and the
    inference output after the update."""
    nd = mx.nd
    arrays = {k[len("before/" + P):]: nd.array(v) for k, v in ref.items() if k.startswith("before/")}
    for k in ("conv0_weight", "batchnorm0_gamma", "batchnorm0_beta", "dense0_weight", "dense0_bias",
              "batchnorm1_gamma", "batchnorm1_beta", "dense1_weight", "dense1_bias"):
        arrays[k].attach_grad()

    def net(x):
        h = nd.Convolution(x, arrays["conv0_weight"], kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True)
        h = nd.BatchNorm(h, *(arrays[f"batchnorm0_{k}"] for k in ("gamma", "beta", "running_mean", "running_var")),
                         **BN0)
        h = nd.Activation(h, act_type="relu")
        h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
        h = nd.FullyConnected(nd.Flatten(h), arrays["dense0_weight"], arrays["dense0_bias"], num_hidden=16)
        h = nd.BatchNorm(h, *(arrays[f"batchnorm1_{k}"] for k in ("gamma", "beta", "running_mean", "running_var")),
                         **BN1)
        return nd.FullyConnected(h, arrays["dense1_weight"], arrays["dense1_bias"], num_hidden=5)

    x = nd.array(ref["x"])
    with mx.autograd.record():
        y = net(x)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), ref["y_train_mode"], rtol=1e-4, atol=1e-4)
    for k, v in ref.items():
        if k.startswith("after/") and "running" in k:
            np.testing.assert_allclose(arrays[k[len("after/" + P):]].asnumpy(), v, rtol=1e-5, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(net(x).asnumpy(), ref["y_inference_after_update"], rtol=1e-4, atol=1e-4)
