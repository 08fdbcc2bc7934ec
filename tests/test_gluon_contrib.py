"""``gluon.contrib`` (``nn``, ``rnn``, ``cnn``, ``data``) and ``mx.contrib.text``: the layers give
MXNet 1.9.1's results (values recorded from real MXNet on the same inputs), imperative and
hybridized."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon.contrib import nn as cnn
from hybridlab.gluon.contrib.rnn.rnn_cell import dynamic_unroll


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


def _det(shape, scale=1.0, phase=0.0):
    """Deterministic inputs (the same arrays were fed to real MXNet 1.9.1 to record the values)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.7 + phase) * scale).reshape(shape).astype(np.float32)


def test_sparse_embedding_keeps_a_row_sparse_weight_and_gradient():
    emb = cnn.SparseEmbedding(5, 2, weight_initializer=mx.init.One())
    emb.initialize()
    x = mx.nd.array([0, 3, 3])
    with pytest.raises(RuntimeError, match="no Trainer is created"):
        emb(x)                                       # the rows come through the Trainer's kvstore
    trainer = mx.gluon.Trainer(emb.collect_params(), "sgd")
    with mx.autograd.record():
        y = emb(x)
    y.backward()
    grad = emb.weight.grad()
    assert grad.stype == "row_sparse" and y.shape == (3, 2) and repr(emb) == "SparseEmbedding(5 -> 2, float32)"
    assert grad.asnumpy()[:, 0].tolist() == [1.0, 0.0, 0.0, 2.0, 0.0]
    trainer.step(1)                                  # MXNet 1.9.1: lazy SGD touches only the looked-up rows
    np.testing.assert_allclose(emb.weight.row_sparse_data(mx.nd.array([0, 1, 3])).asnumpy()[:, 0],
                               [0.99, 1.0, 0.0, 0.98, 0.0], rtol=1e-6)


# dynamic_unroll of an LSTMCell (weights _det(shape, 0.5, i) in sorted name order), NTC, valid_length [2, 4]
_UNROLL_OUT = [[[-0.121027, 0.026195, 0.151685], [-0.313978, 0.029071, 0.26507], [0, 0, 0], [0, 0, 0]],
               [[-0.179237, -0.049448, -0.001397], [-0.312246, 0.037462, 0.254121],
                [-0.4048, -0.045852, 0.284722], [-0.182381, -0.370274, 0.086156]]]
_UNROLL_C = [[-0.602729, 0.069749, 0.4988], [-0.291232, -0.531445, 0.134006]]
_UNROLL_XGRAD = [[[0.006759, 0.239718], [-0.054918, 0.588905], [0, 0], [0, 0]],
                 [[0.192123, 0.106995], [0.100982, 0.104568], [0.237623, 0.278294], [0.136718, 0.405062]]]


def _unroll_cell():
    cell = mx.gluon.rnn.LSTMCell(3, input_size=2, prefix="rnn_")
    cell.initialize()
    for i, (_, p) in enumerate(sorted(cell.collect_params().items())):
        p.set_data(mx.nd.array(_det(p.shape, 0.5, i)))
    return cell


class _Unroller(mx.gluon.HybridBlock):
    def __init__(self, cell, layout):
        super().__init__()
        self.cell, self.layout = cell, layout

    def hybrid_forward(self, F, x, h, c, valid_length):
        return dynamic_unroll(self.cell, x, [h, c], valid_length=valid_length, layout=self.layout)





@pytest.mark.parametrize("hybridize", [False, True])
def test_dynamic_unroll_matches_mxnet_with_valid_length(hybridize):
    net = _Unroller(_unroll_cell(), "NTC")
    if hybridize:
        net.hybridize()
    x = mx.nd.array(_det((2, 4, 2), 1.0, 0.3))
    h, c = mx.nd.array(_det((2, 3), 0.2, 1.0)), mx.nd.array(_det((2, 3), 0.2, 2.0))
    x.attach_grad()
    with mx.autograd.record():
        out, (h1, c1) = net(x, h, c, mx.nd.array([2, 4]))
        loss = (out * out).sum() + h1.sum() + 2 * c1.sum()
    loss.backward()
    np.testing.assert_allclose(out.asnumpy(), _UNROLL_OUT, atol=2e-6)
    np.testing.assert_allclose(h1.asnumpy(), np.array(_UNROLL_OUT)[[0, 1], [1, 3]], atol=2e-6)  # last valid steps
    np.testing.assert_allclose(c1.asnumpy(), _UNROLL_C, atol=2e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), _UNROLL_XGRAD, atol=2e-6)


def test_dynamic_unroll_without_valid_length_and_a_new_length_when_hybridized():
    cell = _unroll_cell()
    x = mx.nd.array(_det((2, 4, 2), 1.0, 0.3))
    states = [mx.nd.array(_det((2, 3), 0.2, 1.0)), mx.nd.array(_det((2, 3), 0.2, 2.0))]
    out, (h, _) = dynamic_unroll(cell, x, states, layout="NTC")
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose([float(out.sum().asscalar()), float(h.sum().asscalar())],
                               [-1.708868, -1.023063], atol=1e-5)        # MXNet 1.9.1
    net = _Unroller(cell, "TNC")
    net.hybridize()
    for steps in (3, 5):          # the unrolled graph is traced again for a new length
        xt = mx.nd.array(_det((steps, 2, 2)))
        got, _ = net(xt, *states, mx.nd.array([steps, 1]))
        want, _ = dynamic_unroll(cell, xt, states, valid_length=mx.nd.array([steps, 1]))
        assert got.shape == (steps, 2, 3)
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), atol=1e-6)


# ModulatedDeformableConvolution(x _det((1,2,4,5)), offset _det((1,16,3,4),1.3,.5), mask _det((1,8,3,4),.5,.2)+.7,
# weight _det((4,2,2,2),.8,.9), bias [.1,-.2,.3,0], kernel (2,2), num_filter 4, num_deformable_group 2): MXNet 1.9.1
_MDC_OUT = [[[-0.42967, -0.45848, -0.15026, 0.13899], [-0.39348, 0.20074, 0.84231, -0.0883],
             [-0.04663, -0.11828, -0.36697, -0.28588]],
            [[-0.52605, -0.25894, 0.02399, 0.11939], [-0.68281, 0.14896, 0.13089, -0.4355],
             [-0.93454, -0.11108, -0.16067, -0.3615]],
            [[0.32392, 0.76706, 0.8977, 0.75642], [0.04457, 0.74054, 0.07095, 0.12302],
             [-0.69274, 0.65621, 0.82799, 0.43538]],
            [[0.36316, 0.78341, 0.70312, 0.38858], [0.08662, 0.33438, -0.68618, -0.03903],
             [-0.80533, 0.46361, 0.77964, 0.37148]]]


def test_modulated_deformable_convolution_op_matches_mxnet():
    y = mx.nd.contrib.ModulatedDeformableConvolution(
        mx.nd.array(_det((1, 2, 4, 5))), mx.nd.array(_det((1, 16, 3, 4), 1.3, 0.5)),
        mx.nd.array(_det((1, 8, 3, 4), 0.5, 0.2) + 0.7), mx.nd.array(_det((4, 2, 2, 2), 0.8, 0.9)),
        mx.nd.array([0.1, -0.2, 0.3, 0.0]), kernel=(2, 2), num_filter=4, num_deformable_group=2)
    np.testing.assert_allclose(y.asnumpy()[0], _MDC_OUT, atol=1e-5)
    with pytest.raises(mx.MXNetError, match="num_deformable_group"):     # MXNet: num_filter % groups
        mx.nd.contrib.ModulatedDeformableConvolution(
            mx.nd.ones((1, 2, 4, 5)), mx.nd.zeros((1, 16, 3, 4)), mx.nd.ones((1, 8, 3, 4)), mx.nd.ones((3, 2, 2, 2)),
            kernel=(2, 2), num_filter=3, num_deformable_group=2, no_bias=True)


@pytest.mark.parametrize("name, every_7th", [
    ("DeformableConvolution", [0.0, 0.15643, 0.04912, -0.07754, -0.39538, 0.4741, 0.15583, 0.18824, -0.10688,
                               0.49012, 0.62497, 0.50777, 0.15676]),
    ("ModulatedDeformableConvolution", [-0.13217, -0.10751, 0.02229, -0.08174, -0.24072, 0.47096, 0.23607, 0.14682,
                                        0.03206, 0.45635, 0.69142, 0.50837, 0.22708]),
])
def test_deformable_convolution_layers_match_mxnet(name, every_7th):
    layer = getattr(mx.gluon.contrib.cnn, name)(3, kernel_size=(2, 2), padding=1, in_channels=2, activation="tanh")
    layer.initialize()
    x = mx.nd.array(_det((1, 2, 4, 5)))
    layer(x)                                              # the deformable weight's in-channels are deferred
    for i, (_, p) in enumerate(sorted(layer.collect_params().items())):
        p.set_data(mx.nd.array(_det(p.shape, 0.3, i)))
    y = layer(x)
    assert y.shape == (1, 3, 5, 6)
    np.testing.assert_allclose(y.asnumpy().ravel()[::7], every_7th, atol=1e-5)
    layer.hybridize()
    with mx.autograd.record():
        y2 = layer(x)
    y2.backward()
    np.testing.assert_allclose(y2.asnumpy(), y.asnumpy(), atol=1e-6)
    assert float(layer.offset_weight.grad().abs().sum().asscalar()) > 0       # gradients reach the offsets
    names = [k[len(layer.prefix):] for k in layer.collect_params()]
    assert names == (["offset_weight", "offset_bias", "deformable_conv_weight", "deformable_conv_bias"]
                     if name == "DeformableConvolution" else
                     ["deformable_conv_weight", "deformable_conv_bias", "offset_weight", "offset_bias"])


def test_interval_sampler_is_mxnet_1x_contrib():
    from hybridlab.gluon.contrib.data import IntervalSampler
    assert list(IntervalSampler(13, 3)) == [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    s = IntervalSampler(10, 3, rollover=False)
    assert list(s) == [0, 3, 6, 9] and len(s) == 10          # len is the length, as in MXNet 1.9.1
    assert list(IntervalSampler(3, 3)) == [0, 1, 2]
    with pytest.raises(AssertionError, match="Interval 4 must be smaller than or equal to length 3"):
        IntervalSampler(3, 4)


def test_wikitext_reads_a_segment_into_samples(tmp_path, monkeypatch):
    from hybridlab.gluon.contrib.data import text
    (tmp_path / "wiki.test.tokens").write_text(" = A = \n\n b a b \n", encoding="utf8")
    monkeypatch.setattr(text, "check_sha1", lambda path, sha1: True)        # a stand-in for the real file
    ds = text.WikiText2(root=str(tmp_path), segment="test", seq_len=2)
    # recorded from MXNet 1.9.1 on the same file
    assert ds.vocabulary.idx_to_token == ["<unk>", "<eos>", "=", "b", "A", "a"]
    assert dict(ds.frequencies) == {"=": 2, "b": 2, "A": 1, "a": 1}
    assert [(x.asnumpy().tolist(), y.asnumpy().tolist()) for x, y in ds] == [
        ([2, 4], [4, 2]), ([2, 1], [1, 3]), ([3, 5], [5, 3])]
    other = text.WikiText103(root=str(tmp_path), segment="test", vocab=ds.vocabulary, seq_len=3)
    assert other.vocabulary is ds.vocabulary and len(other) == 2


def test_wikitext_download_failure_names_the_url(tmp_path, monkeypatch):
    from hybridlab.gluon.contrib.data import text
    monkeypatch.setenv("MXNET_GLUON_REPO", (tmp_path / "missing").as_uri())
    with pytest.raises(mx.MXNetError, match="wikitext-2-v1.zip"):
        text.WikiText2(root=str(tmp_path / "root"), segment="validation")


def test_contrib_text_vocabulary_orders_tokens_by_frequency():
    counter = mx.contrib.text.utils.count_tokens_from_str("Life is great ! \n life is good . \n", to_lower=True)
    vocab = mx.contrib.text.vocab.Vocabulary(counter, most_freq_count=3, reserved_tokens=["<pad>"])
    assert vocab.idx_to_token == ["<unk>", "<pad>", "is", "life", "!"]
    assert vocab.to_indices(["life", "zzz"]) == [3, 0] and vocab.to_tokens(2) == "is"
    with pytest.raises(ValueError, match="Token index 9"):
        vocab.to_tokens(9)
