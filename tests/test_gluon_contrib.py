"""``gluon.contrib.nn``: the layers give MXNet 1.9.1's results (values recorded from real MXNet on
the same inputs), imperative and hybridized."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon.contrib import nn as cnn


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("layer, shape, out_shape, mxnet_checksum", [
    (lambda: cnn.PixelShuffle1D(3), (2, 6, 3), (2, 2, 9), 14814.0),
    (lambda: cnn.PixelShuffle2D((2, 3)), (1, 12, 2, 3), (1, 2, 4, 9), 118386.0),
    (lambda: cnn.PixelShuffle3D((2, 2, 2)), (1, 16, 2, 1, 2), (1, 2, 4, 2, 4), 83056.0),
], ids=["1d", "2d", "3d"])
def test_pixel_shuffle_matches_mxnet(layer, shape, out_shape, mxnet_checksum, hybridize):
    block = layer()
    if hybridize:
        block.hybridize()
    out = block(mx.nd.array(np.arange(np.prod(shape)).reshape(shape))).asnumpy()
    # the sum of out * position: equal only if every value lands where MXNet puts it
    assert out.shape == out_shape and (out * np.arange(out.size).reshape(out_shape)).sum() == mxnet_checksum


def test_pixel_shuffle_2d_is_sub_pixel_rearrangement():
    x = np.arange(1 * 8 * 2 * 3, dtype=np.float32).reshape(1, 8, 2, 3)
    got = cnn.PixelShuffle2D(2)(mx.nd.array(x)).asnumpy()
    want = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(mx.MXNetError, match=r"factor expected an int or 2 positive ints, got \(2, 0\)"):
        cnn.PixelShuffle2D((2, 0))


@pytest.mark.parametrize("hybridize", [False, True])
def test_concurrent_layers_concatenate_their_children(hybridize):
    net = cnn.HybridConcurrent(axis=1) if hybridize else cnn.Concurrent(axis=1)
    net.add(mx.gluon.nn.Dense(2, weight_initializer=mx.init.One()), cnn.Identity())
    net.initialize()
    if hybridize:
        net.hybridize()
    assert net(mx.nd.ones((1, 3))).asnumpy().tolist() == [[3, 3, 1, 1, 1]]


def test_sync_batch_norm_is_batch_norm_over_the_batch():
    layer = cnn.SyncBatchNorm(in_channels=2)
    layer.initialize()
    with mx.autograd.record():
        y = layer(mx.nd.array(np.arange(8).reshape(2, 2, 2)))
    np.testing.assert_allclose(y.asnumpy(), [[[-1.2127, -0.7276], [-1.2127, -0.7276]],
                                             [[0.7276, 1.2127], [0.7276, 1.2127]]], atol=1e-4)
    with pytest.raises(mx.MXNetError, match="num_devices expected 1"):
        cnn.SyncBatchNorm(num_devices=4)


def _sig(z):
    return 1 / (1 + np.exp(-z))


def test_lstmp_cell_projects_its_recurrent_state():
    cell = mx.gluon.contrib.rnn.LSTMPCell(5, 2, input_size=3)
    cell.initialize(mx.init.Uniform(0.5))
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    r0, c0 = cell.begin_state(batch_size=4)
    out, (r, c) = cell(mx.nd.array(x), [r0 + 0.1, c0 + 0.2])
    p = {k[len(cell.prefix):]: v.data().asnumpy() for k, v in cell.collect_params().items()}   # lstmpcell0_i2h_weight
    z = x @ p["i2h_weight"].T + p["i2h_bias"] + np.full((4, 2), 0.1) @ p["h2h_weight"].T + p["h2h_bias"]
    i, f, g, o = np.split(z, 4, axis=1)
    c_ref = _sig(f) * 0.2 + _sig(i) * np.tanh(g)
    r_ref = (_sig(o) * np.tanh(c_ref)) @ p["h2r_weight"].T
    np.testing.assert_allclose(c.asnumpy(), c_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), r_ref, rtol=1e-5, atol=1e-6)
    assert r.shape == (4, 2) and "h2r_weight" in p


@pytest.mark.parametrize("drop_states", [0.0, 0.5])
def test_variational_dropout_uses_one_mask_for_the_whole_sequence(drop_states):
    mx.random.seed(2)
    base = mx.gluon.rnn.RNNCell(8, input_size=3)
    cell = mx.gluon.contrib.rnn.VariationalDropoutCell(base, drop_outputs=0.5, drop_states=drop_states)
    cell.initialize(mx.init.Uniform(1.0))
    x = mx.nd.random.uniform(0.5, 1.0, shape=(2, 5, 3))
    with mx.autograd.record():
        out, _ = cell.unroll(5, x, merge_outputs=True)
    zeros = out.asnumpy() == 0
    assert zeros.any() and not zeros.all()
    assert (zeros == zeros[:, :1, :]).all()          # the same units dropped at every step
    predicted, _ = cell.unroll(5, x, merge_outputs=True)
    assert not (predicted.asnumpy() == 0).any()      # no dropout in prediction
