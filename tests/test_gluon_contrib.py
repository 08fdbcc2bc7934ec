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
