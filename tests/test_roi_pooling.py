"""ROIPooling gives MXNet 1.9.1's outputs and data gradients (checksums recorded from real MXNet on
the same inputs, odd regions included: inverted, outside the map, fractional corners)."""
import numpy as np
import pytest

import hybridlab as mx

X = np.random.RandomState(1).randn(2, 3, 9, 7).astype(np.float32)
ROIS = np.array([[0, 0, 0, 4, 4], [1, 2.4, 1.5, 6.6, 8.2], [0, 5, 5, 3, 2], [1, -3, -2, 20, 30],
                 [0, 1.5, 2.5, 2.5, 3.5]], np.float32)


@pytest.mark.parametrize("pooled, scale, out_sum, out_checksum, grad_checksum", [
    ((2, 2), 1.0, 45.9998779296875, 894.8954772129655, 21659.0),
    ((3, 2), 0.7, 54.762184143066406, 1879.437983399257, 42050.0),
    ((4, 4), 0.5, 81.21056365966797, 8390.623517939355, 94197.0),
])
def test_roi_pooling_matches_mxnet(pooled, scale, out_sum, out_checksum, grad_checksum):
    data = mx.nd.array(X)
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.ROIPooling(data, mx.nd.array(ROIS), pooled_size=pooled, spatial_scale=scale)
    y.backward(mx.nd.array(np.arange(y.size).reshape(y.shape) % 7))
    assert y.shape == (5, 3) + pooled
    np.testing.assert_allclose(y.asnumpy().sum(), out_sum, rtol=1e-6)
    np.testing.assert_allclose((y.asnumpy() * np.arange(y.size).reshape(y.shape)).sum(), out_checksum, rtol=1e-6)
    assert (data.grad.asnumpy() * np.arange(data.size).reshape(data.shape)).sum() == grad_checksum


def test_roi_pooling_hybridized_and_errors():
    data = mx.sym.var("data")
    net = mx.gluon.SymbolBlock(mx.sym.ROIPooling(data, mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0),
                               [data, mx.sym.var("rois")])
    net.hybridize()
    out = net(mx.nd.array(X), mx.nd.array(ROIS))
    np.testing.assert_allclose(out.asnumpy().sum(), 45.9998779296875, rtol=1e-6)
    with pytest.raises(mx.MXNetError, match=r"roi 0 expected a batch index in \[0, 2\), got 5"):
        mx.nd.ROIPooling(mx.nd.array(X), mx.nd.array([[5, 0, 0, 1, 1]]), pooled_size=(2, 2), spatial_scale=1.0)
    with pytest.raises(mx.MXNetError, match=r"\(R, 5\) rows"):
        mx.nd.ROIPooling(mx.nd.array(X), mx.nd.array([[0, 0, 0, 1]]), pooled_size=(2, 2), spatial_scale=1.0)
