"""Correlation, contrib.ROIAlign / RROIAlign, contrib.Proposal / MultiProposal and
contrib.DeformableConvolution give MXNet 1.9.1's outputs and gradients (sums and checksums recorded
from real MXNet 1.9.1 on the same inputs), under MXNet's names, imperatively and in graphs."""
import numpy as np
import pytest

import hybridlab as mx

RS = np.random.RandomState(5)
A1, A2 = RS.rand(2, 3, 7, 6).astype(np.float32), RS.rand(2, 3, 7, 6).astype(np.float32)
DATA = RS.randn(2, 8, 12, 10).astype(np.float32)
ROIS = np.array([[0, 1.2, 2.3, 7.7, 9.1], [1, -3, -2, 15, 14], [1, 4.5, 4.5, 4.6, 4.7], [0, 8.0, 1.0, 2.0, 11.0]],
                np.float32)
RROIS = np.array([[0, 5.5, 6.1, 6.0, 4.0, 30.0], [1, 3.0, 8.0, 12.0, 3.0, 135.0], [0, 0, 0, 0.5, 0.5, -20]], np.float32)
CLS = RS.rand(2, 12, 5, 6).astype(np.float32)
BBOX = (RS.randn(2, 24, 5, 6) * 0.3).astype(np.float32)
INFO = np.array([[80, 96, 1.0], [64, 70, 0.6]], np.float32)
DX = RS.randn(2, 4, 6, 5).astype(np.float32)
DOFF = (RS.randn(2, 36, 6, 5) * 1.5).astype(np.float32)
DW, DB = RS.randn(6, 2, 3, 3).astype(np.float32), RS.randn(6).astype(np.float32)


def _sums(a):
    """(sum, checksum) of an NDArray: the checksum weighs element i by i % 7."""
    a = a.asnumpy().astype(np.float64)
    return a.sum(), (a * (np.arange(a.size).reshape(a.shape) % 7)).sum()


def _head(y):
    return mx.nd.array(np.arange(y.size).reshape(y.shape) % 5)


def _close(got, want):
    np.testing.assert_allclose(np.array(got, dtype=np.float64).ravel(), np.array(want).ravel(), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("attrs, shape, out, g1, g2", [
    (dict(kernel_size=3, max_displacement=2, stride1=1, stride2=1, pad_size=2), (2, 25, 5, 4),
     (202.6391664482653, 607.4854415170848), (764.8660793602467, 2631.554767847061),
     (824.9929335713387, 2547.0253788232803)),
    (dict(kernel_size=1, max_displacement=2, stride1=2, stride2=2, pad_size=1, is_multiply=False), (2, 9, 3, 2),
     (42.011479660868645, 126.79560876637697), (61.66666895151138, 185.6666737794876),
     (0.33333325386047363, 5.33333283662796)),
])
def test_correlation_matches_mxnet(attrs, shape, out, g1, g2):
    x, y = mx.nd.array(A1), mx.nd.array(A2)
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        o = mx.nd.Correlation(x, y, **attrs)
    o.backward(_head(o))
    assert o.shape == shape
    _close([_sums(o), _sums(x.grad), _sums(y.grad)], [out, g1, g2])


def test_correlation_refuses_kernels_that_do_not_fit_or_are_even():
    x = mx.nd.ones((1, 1, 28, 28))
    with pytest.raises(mx.MXNetError, match="Correlation: cannot be done"):
        mx.nd.Correlation(x, x, kernel_size=28)
    with pytest.raises(mx.MXNetError, match="kernel_size expected an odd number, got 4"):
        mx.nd.Correlation(x, x, kernel_size=4)
    assert mx.nd.Correlation(x, x, kernel_size=9).shape == (1, 9, 18, 18)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    args, outs, _ = mx.sym.Correlation(a, b, max_displacement=2, stride2=2).infer_type(a="float16")
    assert args == [np.float16, np.float16] and outs == [np.float16]


@pytest.mark.parametrize("attrs, shape, out, grad", [
    (dict(pooled_size=(2, 3), spatial_scale=1.0), (4, 8, 2, 3),
     (-0.7271315962279914, -4.274798174636089), (333.3125016616541, 979.6671596297529)),
    (dict(pooled_size=(3, 2), spatial_scale=0.5, sample_ratio=2), (4, 8, 3, 2),
     (-15.580532103776932, -52.811484552919865), (381.0000009126961, 1178.1469784863293)),
    (dict(pooled_size=(2, 2), spatial_scale=0.8, position_sensitive=True), (4, 2, 2, 2),
     (-3.7032316271215677, -0.0838952586054802), (55.464285851005116, 172.69081031573296)),
    (dict(pooled_size=(2, 2), spatial_scale=1.0, aligned=True, sample_ratio=3), (3, 8, 2, 2),
     (-5.659825068898499, -11.849226684309542), (153.88889131508768, 475.67577738082036)),
])
def test_roi_align_matches_mxnet(attrs, shape, out, grad):
    x, r = mx.nd.array(DATA), mx.nd.array(ROIS[:3] if attrs.get("aligned") else ROIS)
    x.attach_grad()
    r.attach_grad()
    with mx.autograd.record():
        o = mx.nd.contrib.ROIAlign(x, r, **attrs)
    o.backward(_head(o))
    assert o.shape == shape
    _close([_sums(o), _sums(x.grad)], [out, grad])
    assert not r.grad.asnumpy().any()              # the regions get a zero gradient


def test_roi_align_negative_batch_index_gives_zeros_and_no_gradient():
    x = mx.nd.array(DATA)
    x.attach_grad()
    with mx.autograd.record():
        o = mx.nd.contrib.ROIAlign(x, mx.nd.array([[-1, 0, 0, 4, 4]]), pooled_size=(2, 2), spatial_scale=1.0)
    o.backward(mx.nd.ones(o.shape))
    assert not o.asnumpy().any() and not x.grad.asnumpy().any()


@pytest.mark.parametrize("attrs, out", [
    (dict(pooled_size=(2, 3), spatial_scale=1.0), (-19.4492241833359, -55.808850610628724)),
    (dict(pooled_size=(3, 2), spatial_scale=0.5, sampling_ratio=2), (-8.940962925553322, -22.770107259973884)),
])
def test_rroi_align_matches_mxnet(attrs, out):
    o = mx.nd.contrib.RROIAlign(mx.nd.array(DATA), mx.nd.array(RROIS), **attrs)
    assert o.shape == (3, 8) + attrs["pooled_size"]
    _close(_sums(o), out)


_PROPOSAL = dict(feature_stride=16, scales=(2, 4, 8), ratios=(0.5, 2), rpn_pre_nms_top_n=100, rpn_post_nms_top_n=8,
                 threshold=0.6, rpn_min_size=8)
MULTI_ROIS = [[0, 58.369, 5.006, 79.636, 34.94], [0, 0, 0, 51.538, 79], [0, 2.815, 20.602, 18.586, 62.639],
              [0, 0, 23.789, 62.687, 50.295], [0, 4.907, 0, 95, 40.131], [0, 3.485, 0, 95, 79],
              [0, 0, 0, 22.31, 46.756], [0, 8.685, 7.631, 32.002, 50.295], [1, 34.567, 0, 50.978, 17.841],
              [1, 0, 0, 69, 63], [1, 0, 0, 21.192, 63], [1, 0, 0, 26.01, 24.851], [1, 0, 0, 15.883, 17.009],
              [1, 50.001, 20.635, 60.811, 63], [1, 42.167, 8.247, 69, 63], [1, 32.8, 1.326, 69, 20.083]]
MULTI_SCORES = [0.99549, 0.99165, 0.97819, 0.97738, 0.97391, 0.96684, 0.96418, 0.96308, 0.99413, 0.98002, 0.95785,
                0.95385, 0.92808, 0.9193, 0.88509, 0.85565]


def test_multi_proposal_matches_mxnet_and_proposal_per_image():
    rois, scores = mx.nd.contrib.MultiProposal(mx.nd.array(CLS), mx.nd.array(BBOX), mx.nd.array(INFO),
                                               output_score=True, **_PROPOSAL)
    np.testing.assert_allclose(rois.asnumpy(), MULTI_ROIS, atol=1e-3)
    np.testing.assert_allclose(scores.asnumpy().ravel(), MULTI_SCORES, atol=1e-5)
    for b in range(2):
        one = mx.nd.contrib.Proposal(mx.nd.array(CLS[b:b + 1]), mx.nd.array(BBOX[b:b + 1]),
                                     mx.nd.array(INFO[b:b + 1]), **_PROPOSAL)
        np.testing.assert_array_equal(one.asnumpy()[:, 1:], rois.asnumpy()[8 * b:8 * (b + 1), 1:])
        assert not one.asnumpy()[:, 0].any()        # Proposal's batch index is always 0
    iou = mx.nd.contrib.Proposal(mx.nd.array(CLS[1:]), mx.nd.array(BBOX[1:]), mx.nd.array(INFO[1:]),
                                 iou_loss=True, **_PROPOSAL)
    _close(_sums(iou), (1027.4970517158508, 3009.290415763855))


def test_proposal_shapes_names_zero_gradients_and_errors():
    cls, bbox, info = mx.sym.var("cls"), mx.sym.var("bbox"), mx.sym.var("info")
    sym = mx.sym.contrib.MultiProposal(cls, bbox, info, rpn_post_nms_top_n=7, output_score=True, name="rpn")
    assert sym.list_outputs() == ["rpn_output", "rpn_score"]
    args, outs, _ = sym.infer_shape(cls=(3, 24, 4, 5))
    assert args == [(3, 24, 4, 5), (3, 48, 4, 5), (3, 3)] and outs == [(21, 5), (21, 1)]
    assert mx.sym.contrib.Proposal(cls, bbox, info).list_outputs() == ["proposal0_output"]
    c, b, i = mx.nd.array(CLS[:1]), mx.nd.array(BBOX[:1]), mx.nd.array(INFO[:1])
    for v in (c, b, i):
        v.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.Proposal(c, b, i, **_PROPOSAL)
    y.backward(mx.nd.ones(y.shape))
    assert not any(v.grad.asnumpy().any() for v in (c, b, i))
    with pytest.raises(mx.MXNetError, match="expected one image"):
        mx.nd.contrib.Proposal(mx.nd.array(CLS), mx.nd.array(BBOX), mx.nd.array(INFO), **_PROPOSAL)
    with pytest.raises(mx.MXNetError, match=r"expected 2 \* len\(ratios\) \* len\(scales\) = 24 channels, got 12"):
        mx.nd.contrib.Proposal(c, b, i, rpn_post_nms_top_n=4)


def test_deformable_convolution_matches_mxnet():
    arrs = [mx.nd.array(v) for v in (DX, DOFF, DW, DB)]
    for v in arrs:
        v.attach_grad()
    with mx.autograd.record():
        o = mx.nd.contrib.DeformableConvolution(*arrs, kernel=(3, 3), num_filter=6, pad=(1, 1), num_group=2,
                                                num_deformable_group=2)
    o.backward(_head(o))
    assert o.shape == (2, 6, 6, 5)
    _close([_sums(o)] + [_sums(v.grad) for v in arrs],
           [(-15.637513756752014, -29.293722182512283), (881.3413951434195, 2721.514797495678),
            (116.80317682120517, 772.8022604356239), (-460.96202301979065, -1493.578007221222), (720.0, 1800.0)])


def test_deformable_convolution_in_a_graph_infers_parameters_and_checks_the_offset():
    data, offset = mx.sym.var("data"), mx.sym.var("offset")
    sym = mx.sym.contrib.DeformableConvolution(data, offset, kernel=(3, 3), num_filter=6, pad=(1, 1), num_group=2,
                                               num_deformable_group=2, name="dc")
    assert sym.list_arguments() == ["data", "offset", "dc_weight", "dc_bias"]
    args, outs, _ = sym.infer_shape(data=(2, 4, 6, 5))
    assert args == [(2, 4, 6, 5), (2, 36, 6, 5), (6, 2, 3, 3), (6,)] and outs == [(2, 6, 6, 5)]
    ex = sym.bind(mx.cpu(), {"data": mx.nd.array(DX), "offset": mx.nd.array(DOFF), "dc_weight": mx.nd.array(DW),
                             "dc_bias": mx.nd.array(DB)})
    _close(_sums(ex.forward()[0]), (-15.637513756752014, -29.293722182512283))
    with pytest.raises(mx.MXNetError, match="offset"):
        mx.nd.contrib.DeformableConvolution(mx.nd.array(DX), mx.nd.zeros((2, 18, 6, 5)), mx.nd.array(DW),
                                            mx.nd.array(DB), kernel=(3, 3), num_filter=6, pad=(1, 1), num_group=2,
                                            num_deformable_group=2)


def test_roi_align_hybridized_block():
    data, rois = mx.sym.var("data"), mx.sym.var("rois")
    net = mx.gluon.SymbolBlock(mx.sym.contrib.ROIAlign(data, rois, pooled_size=(2, 3), spatial_scale=1.0),
                               [data, rois])
    net.hybridize()
    _close(_sums(net(mx.nd.array(DATA), mx.nd.array(ROIS))), (-0.7271315962279914, -4.274798174636089))
