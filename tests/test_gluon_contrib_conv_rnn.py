"""``gluon.contrib.rnn``'s convolutional cells against real MXNet 1.9.1.

``data/mxnet/gluon_conv_rnn_ref.npz`` holds, for every config of ``CONFIGS`` (the 1D/2D/3D x
RNN/LSTM/GRU cells, each plain and with padding, dilation, uneven kernels and another activation),
what ``RECORDER`` (below) wrote in real MXNet: the inputs of a 3-step ``unroll`` (sequence, begin
states, the weights set with ``set_data``, the cotangents), its outputs and last states, and the
gradients of ``sum(outputs * g) + sum(last_state * g_state)`` for the sequence, the begin states and
the four parameters. ``test_recorder_reproduces_the_fixture`` reruns the recorder where real MXNet is
installed. MXNet's CPU build cannot run channel-last convolutions, so NHWC / NDHWC are checked
against the channel-first cell on transposed data.
"""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import contrib, nn

import real_mxnet

REF = os.path.join(os.path.dirname(__file__), "data", "mxnet", "gluon_conv_rnn_ref.npz")

# name: (class, input_shape, hidden_channels, i2h_kernel, h2h_kernel, other arguments, activation);
# activations are names: MXNet's unroll fails with a Block activation (RecurrentCell.reset calls
# reset() on every child, the activation block included)
CONFIGS = {
    "rnn1d": ("Conv1DRNNCell", (2, 7), 3, 3, 3, {}, "tanh"),
    "rnn1d_dil": ("Conv1DRNNCell", (2, 9), 2, (3,), (5,), {"i2h_pad": (2,), "i2h_dilate": (2,), "h2h_dilate": (2,)},
                  "relu"),
    "rnn2d": ("Conv2DRNNCell", (2, 5, 6), 2, 3, 3, {}, "tanh"),
    "rnn2d_dil": ("Conv2DRNNCell", (2, 6, 5), 2, (3, 2), (3, 5),
                  {"i2h_pad": (1, 1), "i2h_dilate": (2, 1), "h2h_dilate": (1, 2)}, "softrelu"),
    "rnn3d": ("Conv3DRNNCell", (2, 3, 4, 4), 2, 3, 3, {"i2h_pad": 1}, "tanh"),
    "rnn3d_dil": ("Conv3DRNNCell", (1, 5, 4, 4), 2, (3, 1, 3), (3, 3, 1),
                  {"i2h_pad": (1, 0, 1), "i2h_dilate": (2, 1, 1), "h2h_dilate": (1, 2, 1)}, "sigmoid"),
    "lstm1d": ("Conv1DLSTMCell", (2, 7), 3, 3, 3, {}, "tanh"),
    "lstm1d_dil": ("Conv1DLSTMCell", (2, 9), 2, (3,), (5,), {"i2h_pad": (2,), "i2h_dilate": (2,), "h2h_dilate": (2,)},
                   "softsign"),
    "lstm2d": ("Conv2DLSTMCell", (2, 5, 6), 2, 3, 3, {}, "tanh"),
    "lstm2d_dil": ("Conv2DLSTMCell", (2, 6, 5), 2, (3, 2), (3, 5),
                   {"i2h_pad": (1, 1), "i2h_dilate": (2, 1), "h2h_dilate": (1, 2)}, "softrelu"),
    "lstm3d": ("Conv3DLSTMCell", (2, 3, 4, 4), 2, 3, 3, {"i2h_pad": 1}, "tanh"),
    "lstm3d_dil": ("Conv3DLSTMCell", (1, 5, 4, 4), 2, (3, 1, 3), (3, 3, 1),
                   {"i2h_pad": (1, 0, 1), "i2h_dilate": (2, 1, 1), "h2h_dilate": (1, 2, 1)}, "relu"),
    "gru1d": ("Conv1DGRUCell", (2, 7), 3, 3, 3, {}, "tanh"),
    "gru1d_dil": ("Conv1DGRUCell", (2, 9), 2, (3,), (5,), {"i2h_pad": (2,), "i2h_dilate": (2,), "h2h_dilate": (2,)},
                  "softsign"),
    "gru2d": ("Conv2DGRUCell", (2, 5, 6), 2, 3, 3, {}, "tanh"),
    "gru2d_dil": ("Conv2DGRUCell", (2, 6, 5), 2, (3, 2), (3, 5),
                  {"i2h_pad": (1, 1), "i2h_dilate": (2, 1), "h2h_dilate": (1, 2)}, "softrelu"),
    "gru3d": ("Conv3DGRUCell", (2, 3, 4, 4), 2, 3, 3, {"i2h_pad": 1}, "tanh"),
    "gru3d_dil": ("Conv3DGRUCell", (1, 5, 4, 4), 2, (3, 1, 3), (3, 3, 1),
                  {"i2h_pad": (1, 0, 1), "i2h_dilate": (2, 1, 1), "h2h_dilate": (1, 2, 1)}, "relu"),
}
PARAMS = ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")
N, T = 2, 3

# runs in real MXNet: python -c RECORDER <out.npz> <CONFIGS as JSON>
RECORDER = r'''
import json, sys
import numpy as np
import mxnet as mx
from mxnet.gluon import contrib, nn

def tup(v):
    return tuple(v) if isinstance(v, list) else v

arrays = {}
for key, (cls, input_shape, hidden, i2h_kernel, h2h_kernel, kwargs, act) in json.loads(sys.argv[2]).items():
    rng = np.random.RandomState(sum(map(ord, key)))
    rand = lambda shape, scale=1.0: (rng.uniform(-scale, scale, shape)).astype(np.float32)
    cell = getattr(contrib.rnn, cls)(tuple(input_shape), hidden, tup(i2h_kernel), tup(h2h_kernel), activation=act,
                                     prefix="cell_", **{k: tup(v) for k, v in kwargs.items()})
    cell.initialize()
    for name, p in sorted(cell.collect_params().items()):
        arrays[key + "/" + name[len("cell_"):]] = w = rand(p.shape, 0.5)
        p.set_data(mx.nd.array(w))
    arrays[key + "/x"] = x = rand((2, 3) + tuple(input_shape))
    infos = cell.state_info(2)
    for i, info in enumerate(infos):
        arrays[key + "/state%d" % i] = rand(info["shape"])
        arrays[key + "/g_state%d" % i] = rand(info["shape"])
    arrays[key + "/g"] = rand((2, 3) + tuple(infos[0]["shape"][1:]))
    xs = mx.nd.array(x)
    states = [mx.nd.array(arrays[key + "/state%d" % i]) for i in range(len(infos))]
    for a in [xs] + states:
        a.attach_grad()
    with mx.autograd.record():
        out, last = cell.unroll(3, xs, begin_state=states, layout="NTC", merge_outputs=True)
        loss = (out * mx.nd.array(arrays[key + "/g"])).sum()
        for i, s in enumerate(last):
            loss = loss + (s * mx.nd.array(arrays[key + "/g_state%d" % i])).sum()
    loss.backward()
    arrays[key + "/out"] = out.asnumpy()
    for i, s in enumerate(last):
        arrays[key + "/last%d" % i] = s.asnumpy()
        arrays[key + "/grad/state%d" % i] = states[i].grad.asnumpy()
    arrays[key + "/grad/x"] = xs.grad.asnumpy()
    for name, p in cell.collect_params().items():
        arrays[key + "/grad/" + name[len("cell_"):]] = p.grad().asnumpy()
np.savez_compressed(sys.argv[1], **arrays)
'''


@pytest.fixture(scope="module")
def ref():
    with np.load(REF, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def make_cell(key, prefix="cell_", **overrides):
    cls, input_shape, hidden, i2h_kernel, h2h_kernel, kwargs, act = CONFIGS[key]
    kwargs = dict(kwargs, activation=act, prefix=prefix, **overrides)
    return getattr(contrib.rnn, cls)(input_shape, hidden, i2h_kernel, h2h_kernel, **kwargs)


def _set_weights(cell, ref, key, prefix="cell_"):
    cell.initialize()
    for name in PARAMS:
        cell.collect_params()[prefix + name].set_data(mx.nd.array(ref[f"{key}/{name}"]))


def run_unroll(cell, ref, key, merge_outputs=True):
    """Outputs, last states and gradients of the recorded 3-step unroll."""
    n_states = len(cell.state_info())
    x = mx.nd.array(ref[f"{key}/x"])
    states = [mx.nd.array(ref[f"{key}/state{i}"]) for i in range(n_states)]
    for a in [x] + states:
        a.attach_grad()
    with mx.autograd.record():
        out, last = cell.unroll(T, x, begin_state=states, layout="NTC", merge_outputs=merge_outputs)
        if not merge_outputs:
            out = mx.nd.stack(*out, axis=1)
        loss = (out * mx.nd.array(ref[f"{key}/g"])).sum()
        for i, s in enumerate(last):
            loss = loss + (s * mx.nd.array(ref[f"{key}/g_state{i}"])).sum()
    loss.backward()
    grads = {"x": x.grad.asnumpy(), **{f"state{i}": s.grad.asnumpy() for i, s in enumerate(states)},
             **{name: cell.collect_params()["cell_" + name].grad().asnumpy() for name in PARAMS}}
    return out.asnumpy(), [s.asnumpy() for s in last], grads


def assert_matches_ref(ref, key, out, last, grads):
    np.testing.assert_allclose(out, ref[f"{key}/out"], rtol=1e-4, atol=1e-5, err_msg=f"{key}: outputs")
    for i, s in enumerate(last):
        np.testing.assert_allclose(s, ref[f"{key}/last{i}"], rtol=1e-4, atol=1e-5, err_msg=f"{key}: state {i}")
    for name, g in grads.items():
        np.testing.assert_allclose(g, ref[f"{key}/grad/{name}"], rtol=1e-4, atol=1e-4, err_msg=f"{key}: d {name}")


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("key", sorted(CONFIGS))
def test_unroll_values_and_gradients_match_mxnet(ref, key, hybridize):
    cell = make_cell(key)
    _set_weights(cell, ref, key)
    if hybridize:
        cell.hybridize()
    assert_matches_ref(ref, key, *run_unroll(cell, ref, key))


@pytest.mark.parametrize("key", ["rnn2d_dil", "lstm1d", "gru3d_dil"])
def test_step_by_step_and_unmerged_unroll_equal_the_merged_one(ref, key):
    cell = make_cell(key)
    _set_weights(cell, ref, key)
    assert_matches_ref(ref, key, *run_unroll(cell, ref, key, merge_outputs=False))
    states = [mx.nd.array(ref[f"{key}/state{i}"]) for i in range(len(cell.state_info()))]
    x = ref[f"{key}/x"]
    for t in range(T):
        out, states = cell(mx.nd.array(x[:, t]), states)
        np.testing.assert_allclose(out.asnumpy(), ref[f"{key}/out"][:, t], rtol=1e-4, atol=1e-5)


def test_hybridized_steps_equal_imperative_ones_after_several_calls():
    cell, hybrid = make_cell("lstm2d_dil", prefix="a_"), make_cell("lstm2d_dil", prefix="b_")
    for c in (cell, hybrid):
        c.initialize(mx.init.Uniform(0.5))
    for name in PARAMS:
        hybrid.collect_params()["b_" + name].set_data(cell.collect_params()["a_" + name].data())
    hybrid.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (3, 6, 2, 6, 5)))
    for length in (6, 2):     # a second unroll of another length re-uses the cached step
        a, sa = cell.unroll(length, x[:, :length], merge_outputs=True)
        b, sb = hybrid.unroll(length, x[:, :length], merge_outputs=True)
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sb[1].asnumpy(), sa[1].asnumpy(), rtol=1e-5, atol=1e-6)


class _UnrollNet(mx.gluon.HybridBlock):
    """A block that unrolls a conv cell in its hybrid_forward (Symbol steps, zero begin states)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = contrib.rnn.Conv2DLSTMCell((2, 5, 6), 3, 3, 3, i2h_pad=1)

    def hybrid_forward(self, F, x):
        out, (h, c) = self.cell.unroll(4, x, merge_outputs=True)
        return F.broadcast_add(out, F.expand_dims(c, axis=1))


def test_unroll_inside_a_hybridized_block_starts_from_zero_states():
    net = _UnrollNet()
    net.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (3, 4, 2, 5, 6)))
    want = net(x).asnumpy()
    net.hybridize()
    for _ in range(2):
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    states = net.cell.begin_state(batch_size=3)
    out, _ = net.cell.unroll(4, x, begin_state=states, merge_outputs=True)
    assert out.shape == want.shape == (3, 4, 3, 5, 6)


# recorded in MXNet 1.9.1: the cells created in a HybridSequential(prefix='net_')'s name scope
MXNET_NAMES = [
    (lambda: contrib.rnn.Conv1DRNNCell((2, 7), 3, 3, 3), "Conv1DRNNCell(2 -> 3, tanh, NCW)", "net_conv_rnn0_",
     [(3, 2, 3), (3, 3, 3), (3,), (3,)], (4, 3, 5), 1),
    (lambda: contrib.rnn.Conv1DRNNCell((2, 7), 3, 3, 3), "Conv1DRNNCell(2 -> 3, tanh, NCW)", "net_conv_rnn1_",
     [(3, 2, 3), (3, 3, 3), (3,), (3,)], (4, 3, 5), 1),
    (lambda: contrib.rnn.Conv2DLSTMCell((0, 5, 6), 2, (3, 1), 5, i2h_pad=(1, 0)),
     "Conv2DLSTMCell(None -> 8, tanh, NCHW)", "net_conv_lstm0_", [(8, 0, 3, 1), (8, 2, 5, 5), (8,), (8,)],
     (4, 2, 5, 6), 2),
    (lambda: contrib.rnn.Conv3DGRUCell((2, 4, 5, 4), 2, 3, 3, activation=nn.LeakyReLU(0.25)),
     "Conv3DGRUCell(2 -> 6, LeakyReLU(0.25), NCDHW)", "net_conv_gru0_",
     [(6, 2, 3, 3, 3), (6, 2, 3, 3, 3), (6,), (6,)], (4, 2, 2, 3, 2), 1),
    (lambda: contrib.rnn.Conv2DGRUCell((5, 6, 2), 2, 3, 3, conv_layout="NHWC", activation="relu"),
     "Conv2DGRUCell(2 -> 6, relu, NHWC)", "net_conv_gru1_", [(6, 3, 3, 2), (6, 3, 3, 2), (6,), (6,)],
     (4, 3, 4, 2), 1),
]


def test_parameter_names_shapes_repr_and_state_info_match_mxnet():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        cells = [make() for make, *_ in MXNET_NAMES]
    for cell, (_, text, prefix, shapes, state_shape, n_states) in zip(cells, MXNET_NAMES):
        params = cell.collect_params()
        assert list(params.keys()) == [prefix + name for name in PARAMS]
        assert [p.shape for p in params.values()] == shapes
        assert repr(cell) == text
        layout = cell._conv_layout
        assert cell.state_info(4) == [{"shape": state_shape, "__layout__": layout}] * n_states


@pytest.mark.parametrize("cls", ["Conv2DRNNCell", "Conv2DLSTMCell", "Conv2DGRUCell"])
def test_symbolic_unroll_names_its_outputs_as_mxnet(cls):
    cell = getattr(contrib.rnn, cls)((3, 6, 8), 4, 3, 3, prefix="rnn_")
    outputs, states = cell.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)])
    group = mx.sym.Group(outputs)
    assert group.list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output", "rnn_t2_out_output"]
    _, out_shapes, _ = group.infer_shape(**{f"rnn_t{i}_data": (5, 3, 6, 8) for i in range(3)})
    assert out_shapes == [(5, 4, 4, 6)] * 3


def test_input_channels_left_0_are_inferred_on_the_first_call():
    cell = contrib.rnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))
    cell.initialize()
    cell.hybridize()
    out, _ = cell.unroll(3, mx.nd.ones((8, 3, 5, 7)), merge_outputs=True)
    assert out.shape == (8, 3, 10, 5) and cell.i2h_weight.shape == (40, 5, 3)


@pytest.mark.parametrize("cls, layout, shape", [("Conv2DLSTMCell", "NHWC", (2, 6, 5)),
                                                ("Conv3DGRUCell", "NDHWC", (2, 3, 4, 4)),
                                                ("Conv2DRNNCell", "NHWC", (2, 6, 5))])
def test_channel_last_layout_equals_channel_first_on_transposed_data(cls, layout, shape):
    dims = len(shape) - 1
    kwargs = dict(i2h_pad=1, h2h_dilate=(2,) + (1,) * (dims - 1))
    first = getattr(contrib.rnn, cls)(shape, 3, 3, 3, prefix="f_", **kwargs)
    last = getattr(contrib.rnn, cls)(shape[1:] + shape[:1], 3, 3, 3, prefix="l_", conv_layout=layout, **kwargs)
    first.initialize(mx.init.Uniform(0.5))
    last.initialize()
    to_last = (0,) + tuple(range(2, dims + 2)) + (1,)        # (O, C, *k) -> (O, *k, C)
    for name in PARAMS:
        w = first.collect_params()["f_" + name].data().asnumpy()
        last.collect_params()["l_" + name].set_data(mx.nd.array(w.transpose(to_last) if w.ndim > 1 else w))
    x = np.random.RandomState(1).uniform(-1, 1, (2, 4) + shape)
    a, sa = first.unroll(4, mx.nd.array(x), merge_outputs=True)
    b, sb = last.unroll(4, mx.nd.array(x.transpose((0, 1) + tuple(range(3, dims + 3)) + (2,))), merge_outputs=True)
    step_to_first = (0, 1, dims + 2) + tuple(range(2, dims + 2))
    np.testing.assert_allclose(b.asnumpy().transpose(step_to_first), a.asnumpy(), rtol=1e-5, atol=1e-6)
    assert last.state_info(2)[0]["shape"] == (2,) + sb[0].shape[1:]


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_leaky_relu_block_activation_is_applied_with_its_slope(hybridize):
    cell = contrib.rnn.Conv1DRNNCell((2, 6), 3, 3, 3, i2h_pad=1, activation=nn.LeakyReLU(0.3), prefix="c_")
    cell.initialize(mx.init.Uniform(1.0))
    if hybridize:
        cell.hybridize()
    x, h = mx.nd.array(np.random.RandomState(2).uniform(-1, 1, (2, 2, 6))), mx.nd.ones((2, 3, 6))
    p = {name: cell.collect_params()["c_" + name].data() for name in PARAMS}
    z = (mx.nd.Convolution(x, p["i2h_weight"], p["i2h_bias"], kernel=(3,), pad=(1,), num_filter=3) +
         mx.nd.Convolution(h, p["h2h_weight"], p["h2h_bias"], kernel=(3,), pad=(1,), num_filter=3)).asnumpy()
    out, _ = cell.unroll(1, [x], begin_state=[h])
    np.testing.assert_allclose(out[0].asnumpy(), np.where(z > 0, z, 0.3 * z), rtol=1e-5, atol=1e-6)


def test_settings_mxnet_refuses_are_refused_with_the_cell_named():
    with pytest.raises(mx.MXNetError, match=r"Conv2DLSTMCell: h2h_kernel expected odd sizes.*\(3, 4\)"):
        contrib.rnn.Conv2DLSTMCell((3, 6, 8), 4, 3, (3, 4))
    with pytest.raises(mx.MXNetError, match=r"For 2D convolution.*i2h_pad got \(1, 1, 1\)"):
        contrib.rnn.Conv2DGRUCell((3, 6, 8), 4, 3, 3, i2h_pad=(1, 1, 1))
    with pytest.raises(mx.MXNetError, match=r"Conv1DRNNCell: conv_layout expected one of \('NCW',\), got 'NWC'"):
        contrib.rnn.Conv1DRNNCell((8, 3), 4, 3, 3, conv_layout="NWC")


def test_mxnet_import_paths():
    from hybridlab.gluon.contrib.rnn import conv_rnn_cell, rnn_cell
    assert conv_rnn_cell.Conv3DLSTMCell is contrib.rnn.Conv3DLSTMCell
    assert rnn_cell.LSTMPCell is contrib.rnn.LSTMPCell
    assert set(contrib.rnn.__all__) >= {"Conv1DGRUCell", "VariationalDropoutCell", "LSTMPCell"}


@real_mxnet.needs_mxnet
def test_recorder_reproduces_the_fixture(tmp_path, ref):
    path = tmp_path / "ref.npz"
    real_mxnet.run(RECORDER, path, json.dumps(CONFIGS))
    with np.load(path, allow_pickle=False) as f:
        fresh = {k: f[k] for k in f.files}
    assert sorted(fresh) == sorted(ref)
    # (MXNet's oneDNN picks its kernels by instruction set: on a CPU other than the fixture's, float32
    # sums come in another order; an AVX-512 machine differs by up to 2e-6 in the 3-d cells' gradients)
    for k, v in fresh.items():
        np.testing.assert_allclose(v, ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
