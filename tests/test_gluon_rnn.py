"""gluon.rnn: the fused layers (RNN, LSTM, GRU) and the cells, against the NumPy reference of the
op checker (tests/op_cases/rnn.py); imperative vs hybridized (outputs and gradients); MXNet's
parameter names; the real MXNet 1.9.1 lstm model (tests/data/mxnet/lstm-*) through
SymbolBlock.imports and through our own LSTM."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon
from hybridlab.gluon import rnn

from op_cases.rnn import cell as ref_cell, ref_rnn

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


def _lstm_fixture():
    with open(os.path.join(DATA, "lstm-meta.json")) as f:
        meta = json.load(f)
    inputs = [np.load(os.path.join(DATA, i["file"])) for i in meta["inputs"]]
    outputs = [np.load(os.path.join(DATA, o["file"])) for o in meta["outputs"]]
    return meta, inputs, outputs


# ---- the real MXNet model ------------------------------------------------------------------------
def test_mxnet_lstm_imports_and_reproduces_three_outputs():
    meta, inputs, expected = _lstm_fixture()
    net = gluon.SymbolBlock.imports(os.path.join(DATA, "lstm-symbol.json"), ["data0", "data1", "data2"],
                                    os.path.join(DATA, "lstm-0000.params"), device=mx.cpu())
    outs = net(*[mx.nd.array(x) for x in inputs])
    assert len(outs) == 3
    for o, e in zip(outs, expected):
        assert o.shape == e.shape
        assert np.abs(o.asnumpy() - e).max() <= 1e-4


def test_our_lstm_exports_the_fixture_arguments_and_reproduces_it(tmp_path):
    meta, inputs, expected = _lstm_fixture()
    with mx.name.NameManager():
        net = rnn.LSTM(12, num_layers=2)
    net.initialize()
    net.hybridize()
    x, h0, c0 = [mx.nd.array(a) for a in inputs]
    net(x, [h0, c0])
    net.export(str(tmp_path / "ours"))
    ours = mx.sym.load(str(tmp_path / "ours-symbol.json"))
    theirs = mx.sym.load(os.path.join(DATA, "lstm-symbol.json"))
    assert ours.list_arguments() == theirs.list_arguments()
    assert ours.list_auxiliary_states() == theirs.list_auxiliary_states() == []
    # MXNet's parameters loaded into our layer give MXNet's outputs
    net.load_parameters(os.path.join(DATA, "lstm-0000.params"))
    out, (hn, cn) = net(x, [h0, c0])
    for got, e in zip([out, hn, cn], expected):
        np.testing.assert_allclose(got.asnumpy(), e, atol=1e-5)


# ---- fused layers vs the reference ---------------------------------------------------------------
def _packed(layer):
    """The layer's parameters packed as the RNN op expects (MXNet's order), as float64."""
    d = layer._dir
    groups = ["i2h", "h2h"] + (["h2r"] if layer._projection_size else [])
    names = [f"{j}{i}_{g}_{t}" for t in ["weight", "bias"] for i in range(layer._num_layers) for j in "lr"[:d]
             for g in groups if g != "h2r" or t != "bias"]
    return np.concatenate([getattr(layer, n).data().asnumpy().reshape(-1) for n in names]).astype(np.float64)


LAYERS = [
    ("lstm", lambda: rnn.LSTM(5, num_layers=2, input_size=3), {}),
    ("lstm_bi_ntc", lambda: rnn.LSTM(4, bidirectional=True, layout="NTC"), {}),
    ("lstm_proj", lambda: rnn.LSTM(5, projection_size=2, input_size=3), {"projection_size": 2}),
    ("gru", lambda: rnn.GRU(4, num_layers=2, bidirectional=True), {}),
    ("rnn_tanh", lambda: rnn.RNN(4, activation="tanh"), {}),
    ("rnn_relu", lambda: rnn.RNN(4, num_layers=2, layout="NTC"), {}),
]


def _run(layer, x, states, hybridize):
    if hybridize:
        layer.hybridize()
    params = list(layer.collect_params().values())
    xa = mx.nd.array(x)
    xa.attach_grad()
    with mx.autograd.record():
        out, new_states = layer(xa, [mx.nd.array(s) for s in states])
        loss = (out * out).sum() + sum((s * 2).sum() for s in new_states)
    loss.backward()
    grads = [xa.grad.asnumpy()] + [p.grad().asnumpy() for p in params]
    return [out.asnumpy()] + [s.asnumpy() for s in new_states], grads


@pytest.mark.parametrize("name,make,extra", LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layer_matches_reference_and_hybridized_equals_imperative(name, make, extra):
    rng = np.random.default_rng(0)
    layer = make()
    layer.initialize(mx.init.Uniform(0.5))
    ntc = layer._layout == "NTC"
    x = rng.standard_normal((2, 4, 3) if ntc else (4, 2, 3)).astype(np.float32)
    layer(mx.nd.array(x))   # finish deferred initialisation
    states = [rng.standard_normal(i["shape"]).astype(np.float32) * 0.5 for i in layer.state_info(2)]
    outs, grads = _run(layer, x, states, False)
    xt = x.transpose(1, 0, 2) if ntc else x
    expected = ref_rnn(xt, _packed(layer), *states, state_size=layer._hidden_size, num_layers=layer._num_layers,
                       mode=layer._mode, bidirectional=layer._dir == 2, state_outputs=True, **extra)
    expected = [expected[0].transpose(1, 0, 2) if ntc else expected[0]] + list(expected[1:])
    for got, e in zip(outs, expected):
        np.testing.assert_allclose(got, e, rtol=1e-4, atol=1e-5)
    h_outs, h_grads = _run(layer, x, states, True)
    for a, b in zip(outs + grads, h_outs + h_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_layer_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    layer = rnn.GRU(3, input_size=2)
    layer.initialize(mx.init.Uniform(0.5))
    x = rng.standard_normal((3, 2, 2))
    w = layer.l0_h2h_weight
    xa = mx.nd.array(x)
    with mx.autograd.record():
        loss = layer(xa).sum()
    loss.backward()
    analytic = w.grad().asnumpy()
    base = w.data().asnumpy().astype(np.float64)
    numeric = np.zeros_like(base)
    for idx in np.ndindex(*base.shape):
        vals = []
        for sign in (1, -1):
            b = base.copy()
            b[idx] += sign * 1e-3
            w.set_data(mx.nd.array(b))
            vals.append(float(layer(xa).sum().asscalar()))
        numeric[idx] = (vals[0] - vals[1]) / 2e-3
    np.testing.assert_allclose(analytic, numeric, rtol=1e-2, atol=1e-3)


def test_parameter_names_defaults_and_begin_state():
    with mx.name.NameManager():
        net = rnn.LSTM(6, num_layers=2, bidirectional=True)
        gru = rnn.GRU(3)
    names = [p.name for p in net.collect_params().values()]
    assert names[:4] == ["lstm0_l0_i2h_weight", "lstm0_l0_h2h_weight", "lstm0_l0_i2h_bias", "lstm0_l0_h2h_bias"]
    assert "lstm0_r1_h2h_bias" in names and len(names) == 16
    assert net.l0_i2h_weight.shape == (24, 0) and net.l1_i2h_weight.shape == (24, 12)
    assert list(gru.collect_params().values())[0].name == "gru0_l0_i2h_weight"
    assert repr(net) == "LSTM(None -> 6, TNC, num_layers=2, bidirectional)"
    states = net.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(4, 3, 6), (4, 3, 6)]
    net.initialize()
    out = net(mx.nd.ones((5, 3, 7)))             # no states: returns the output only
    assert out.shape == (5, 3, 12) and net.l0_i2h_weight.shape == (24, 7)


def test_symbolic_call_without_states_builds_zero_states():
    net = rnn.GRU(4, input_size=3)
    net.initialize()
    x = mx.nd.ones((5, 2, 3))
    expected = net(x).asnumpy()
    out = net(mx.sym.var("data"))
    assert out.infer_shape(data=(5, 2, 3))[1] == [(5, 2, 4)]
    block = gluon.SymbolBlock(out, mx.sym.var("data"), params=net.collect_params())
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6)


def test_bad_input_names_the_layer_and_shapes():
    with mx.name.NameManager():
        net = rnn.LSTM(4, input_size=3)
    net.initialize()
    with pytest.raises(mx.MXNetError, match=r"lstm0: expected a 3-d input .*got shape \(2, 3\)"):
        net(mx.nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError, match=r"lstm0: expected input size 3 .*got input shape \(5, 2, 7\)"):
        net(mx.nd.ones((5, 2, 7)))
    with pytest.raises(ValueError, match=r"Invalid recurrent state shape. Expecting \(1, 2, 4\), got \(1, 3, 4\)"):
        net(mx.nd.ones((5, 2, 3)), [mx.nd.zeros((1, 3, 4)), mx.nd.zeros((1, 2, 4))])


def test_dropout_between_layers_only_in_training():
    net = rnn.LSTM(4, num_layers=2, dropout=0.5, input_size=3)
    net.initialize(mx.init.Uniform(0.5))
    x = mx.nd.ones((3, 2, 3))
    a, b = net(x).asnumpy(), net(x).asnumpy()
    np.testing.assert_array_equal(a, b)          # predict mode: no dropout
    mx.random.seed(3)
    with mx.autograd.record():
        t1 = net(x)
    mx.random.seed(3)
    with mx.autograd.record():
        t2 = net(x)
    np.testing.assert_array_equal(t1.asnumpy(), t2.asnumpy())   # seeded: reproducible
    assert np.abs(t1.asnumpy() - a).max() > 1e-4


# ---- cells ---------------------------------------------------------------------------------------
def _cell_ref(mode, cell, x_ntc):
    w = {"wi": cell.i2h_weight.data().asnumpy(), "wh": cell.h2h_weight.data().asnumpy(),
         "bi": cell.i2h_bias.data().asnumpy(), "bh": cell.h2h_bias.data().asnumpy()}
    n, t, _ = x_ntc.shape
    outs = np.zeros((n, t, cell._hidden_size))
    for b in range(n):
        h, c = np.zeros(cell._hidden_size), np.zeros(cell._hidden_size)
        for s in range(t):
            h, c = ref_cell(mode, w, x_ntc[b, s].astype(np.float64), h, c, None)
            outs[b, s] = h
    return outs


CELLS = [("lstm", lambda: rnn.LSTMCell(4, input_size=3)), ("gru", lambda: rnn.GRUCell(4, input_size=3)),
         ("rnn_tanh", lambda: rnn.RNNCell(4, input_size=3)),
         ("rnn_relu", lambda: rnn.RNNCell(4, activation="relu", input_size=3))]


@pytest.mark.parametrize("mode,make", CELLS, ids=[m for m, _ in CELLS])
def test_cell_unroll_matches_reference_hybridized_too(mode, make):
    rng = np.random.default_rng(2)
    cell = make()
    cell.initialize(mx.init.Uniform(0.5))
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    results = []
    for hybridize in (False, True):
        if hybridize:
            cell.hybridize()
        xa = mx.nd.array(x)
        xa.attach_grad()
        with mx.autograd.record():
            outs, states = cell.unroll(5, xa, layout="NTC", merge_outputs=True)
            loss = (outs * outs).sum()
        loss.backward()
        results.append([outs.asnumpy(), xa.grad.asnumpy(), cell.i2h_weight.grad().asnumpy()])
    np.testing.assert_allclose(results[0][0], _cell_ref(mode, cell, x), rtol=1e-4, atol=1e-5)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_cell_names_and_list_unroll():
    with mx.name.NameManager():
        cells = [rnn.RNNCell(3), rnn.LSTMCell(3), rnn.GRUCell(3)]
    assert [list(c.collect_params().values())[0].name for c in cells] == ["rnn0_i2h_weight", "lstm0_i2h_weight", "gru0_i2h_weight"]
    cell = cells[1]
    cell.initialize()
    steps = [mx.nd.ones((2, 4)) for _ in range(3)]
    outs, states = cell.unroll(3, steps)           # a list in, a list out
    assert isinstance(outs, list) and len(outs) == 3 and outs[0].shape == (2, 3)
    assert repr(cell) == "LSTMCell(4 -> 12)"


def test_sequential_residual_dropout_cells():
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.LSTMCell(4, input_size=4))
    stack.add(rnn.DropoutCell(0.5))
    stack.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
    stack.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.default_rng(3).standard_normal((2, 3, 4)))
    outs, states = stack.unroll(3, x, merge_outputs=True)
    assert outs.shape == (2, 3, 4) and [s.shape for s in states] == [(2, 4)] * 3
    assert len(stack) == 3 and isinstance(stack[2], rnn.ResidualCell)
    # predict mode (no dropout): the stack's first step equals the unrolled output's first step, and the
    # residual cell adds its input to the GRU's output
    step_out, _ = stack(x[:, 0, :], stack.begin_state(batch_size=2))
    np.testing.assert_allclose(step_out.asnumpy(), outs[:, 0, :].asnumpy(), rtol=1e-5, atol=1e-6)
    lstm_out, _ = stack[0].unroll(3, x, merge_outputs=True)
    stack[2].base_cell._modified = False
    gru_out, _ = stack[2].base_cell.unroll(3, lstm_out, merge_outputs=True)
    stack[2].base_cell._modified = True
    np.testing.assert_allclose(outs.asnumpy(), (gru_out + lstm_out).asnumpy(), rtol=1e-5, atol=1e-6)


def test_bidirectional_cell_unroll():
    l_cell, r_cell = rnn.LSTMCell(3, input_size=2), rnn.LSTMCell(3, input_size=2)
    bi = rnn.BidirectionalCell(l_cell, r_cell)
    bi.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.default_rng(4).standard_normal((2, 4, 2)))
    outs, states = bi.unroll(4, x, merge_outputs=True)
    assert outs.shape == (2, 4, 6) and len(states) == 4
    fwd, _ = l_cell.unroll(4, x, merge_outputs=True)
    bwd, _ = r_cell.unroll(4, mx.nd.flip(x, axis=1), merge_outputs=True)
    np.testing.assert_allclose(outs[:, :, :3].asnumpy(), fwd.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(outs[:, :, 3:].asnumpy(), mx.nd.flip(bwd, axis=1).asnumpy(), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="cannot be stepped"):
        bi(x[:, 0, :], bi.begin_state(batch_size=2))


# ---- unroll(valid_length=...) ----------------------------------------------------------------------
def _cell_ref_valid(mode, cell, x_ntc, lengths):
    """NumPy loop: each sequence stepped only over its valid steps; (outputs, zero past the length,
    and the states at the last valid step)."""
    w = {"wi": cell.i2h_weight.data().asnumpy(), "wh": cell.h2h_weight.data().asnumpy(),
         "bi": cell.i2h_bias.data().asnumpy(), "bh": cell.h2h_bias.data().asnumpy()}
    n, t, _ = x_ntc.shape
    H = cell._hidden_size
    outs, hs, cs = np.zeros((n, t, H)), np.zeros((n, H)), np.zeros((n, H))
    for b in range(n):
        h, c = np.zeros(H), np.zeros(H)
        for s in range(int(lengths[b])):
            h, c = ref_cell(mode, w, x_ntc[b, s].astype(np.float64), h, c, None)
            outs[b, s] = h
        hs[b] = h
        if c is not None:
            cs[b] = c
    return outs, ([hs, cs] if mode == "lstm" else [hs])


class _Unroller(gluon.HybridBlock):
    """Calls ``cell.unroll(..., valid_length=...)`` inside hybrid_forward (Symbol inputs once hybridized)."""

    def __init__(self, cell, length, layout="NTC"):
        super().__init__()
        self.cell, self._length, self._layout = cell, length, layout

    def hybrid_forward(self, F, x, valid_length):
        self.saw_symbol = F is mx.sym
        outs, states = self.cell.unroll(self._length, x, layout=self._layout, merge_outputs=True,
                                        valid_length=valid_length)
        return tuple([outs] + list(states))


def _run_valid(block, x, lengths, hybridize, params):
    if hybridize:
        block.hybridize()
    xa, la = mx.nd.array(x), mx.nd.array(lengths)
    xa.attach_grad()
    with mx.autograd.record():
        res = block(xa, la)
        loss = sum(((r * r).sum() for r in res[1:]), (res[0] * res[0]).sum())
    loss.backward()
    return [r.asnumpy() for r in res], [xa.grad.asnumpy()] + [p.grad().asnumpy() for p in params]


@pytest.mark.parametrize("layout", ["NTC", "TNC"])
@pytest.mark.parametrize("mode,make", CELLS, ids=[m for m, _ in CELLS])
def test_cell_unroll_valid_length_matches_reference_hybridized_too(mode, make, layout):
    rng = np.random.default_rng(5)
    cell = make()
    cell.initialize(mx.init.Uniform(0.5))
    x = rng.standard_normal((3, 5, 3)).astype(np.float32)
    lengths = np.array([5, 2, 1], np.float32)
    x_in = x if layout == "NTC" else x.transpose(1, 0, 2)
    params = list(cell.collect_params().values())
    block = _Unroller(cell, 5, layout)
    (outs, *states), grads = _run_valid(block, x_in, lengths, False, params)
    ref_outs, ref_states = _cell_ref_valid(mode, cell, x, lengths)
    if layout == "TNC":
        outs = outs.transpose(1, 0, 2)
    np.testing.assert_allclose(outs, ref_outs, rtol=1e-4, atol=1e-5)
    assert np.all(outs[1, 2:] == 0) and np.all(outs[2, 1:] == 0)
    assert len(states) == len(ref_states)
    for s, r in zip(states, ref_states):
        np.testing.assert_allclose(s, r, rtol=1e-4, atol=1e-5)
    # the padded inputs get no gradient; hybridized (a Symbol graph) equals imperative
    x_grad = grads[0] if layout == "NTC" else grads[0].transpose(1, 0, 2)
    assert np.all(x_grad[1, 2:] == 0) and np.all(x_grad[2, 1:] == 0) and np.any(x_grad[1, :2] != 0)
    h_res, h_grads = _run_valid(block, x_in, lengths, True, params)
    assert block.saw_symbol   # the hybridized run traced the unroll as a graph
    outs_in_layout = outs if layout == "NTC" else outs.transpose(1, 0, 2)
    for a, b in zip([outs_in_layout] + states + grads, h_res + h_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_cell_unroll_valid_length_list_outputs_and_hybridized_cell():
    cell = rnn.GRUCell(4, input_size=3)
    cell.initialize(mx.init.Uniform(0.5))
    x = np.random.default_rng(6).standard_normal((2, 4, 3)).astype(np.float32)
    lengths = mx.nd.array([3, 1])
    outs, states = cell.unroll(4, mx.nd.array(x), merge_outputs=False, valid_length=lengths)
    assert isinstance(outs, list) and len(outs) == 4 and outs[0].shape == (2, 4)
    ref_outs, ref_states = _cell_ref_valid("gru", cell, x, [3, 1])
    np.testing.assert_allclose(np.stack([o.asnumpy() for o in outs], 1), ref_outs, rtol=1e-4, atol=1e-5)
    cell.hybridize()   # each step a cached graph: the same result
    outs_h, states_h = cell.unroll(4, mx.nd.array(x), merge_outputs=True, valid_length=lengths)
    np.testing.assert_allclose(outs_h.asnumpy(), ref_outs, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(states_h[0].asnumpy(), ref_states[0], rtol=1e-4, atol=1e-5)


def test_bidirectional_and_residual_cells_with_valid_length():
    rng = np.random.default_rng(7)
    l_cell, r_cell = rnn.LSTMCell(3, input_size=2), rnn.LSTMCell(3, input_size=2)
    bi = rnn.BidirectionalCell(l_cell, r_cell)
    bi.initialize(mx.init.Uniform(0.5))
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    lengths = np.array([4, 2, 3])
    params = list(bi.collect_params().values())
    block = _Unroller(bi, 4)
    (outs, *states), grads = _run_valid(block, x, lengths, False, params)
    fwd, fwd_states = _cell_ref_valid("lstm", l_cell, x, lengths)
    x_rev = x.copy()
    for b, n in enumerate(lengths):    # each sequence's valid part reversed, padding in place
        x_rev[b, :n] = x[b, :n][::-1]
    bwd, bwd_states = _cell_ref_valid("lstm", r_cell, x_rev, lengths)
    bwd_back = bwd.copy()
    for b, n in enumerate(lengths):
        bwd_back[b, :n] = bwd[b, :n][::-1]
    np.testing.assert_allclose(outs, np.concatenate([fwd, bwd_back], axis=2), rtol=1e-4, atol=1e-5)
    for s, r in zip(states, fwd_states + bwd_states):
        np.testing.assert_allclose(s, r, rtol=1e-4, atol=1e-5)
    h_res, h_grads = _run_valid(block, x, lengths, True, params)
    for a, b in zip([outs] + states + grads, h_res + h_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    res = rnn.ResidualCell(rnn.GRUCell(2, input_size=2))
    res.initialize(mx.init.Uniform(0.5))
    outs, states = res.unroll(4, mx.nd.array(x), merge_outputs=True, valid_length=mx.nd.array(lengths))
    gru_ref, gru_states = _cell_ref_valid("gru", res.base_cell, x, lengths)
    mask = (np.arange(4)[None, :] < lengths[:, None])[..., None]
    np.testing.assert_allclose(outs.asnumpy(), gru_ref + x * mask, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(states[0].asnumpy(), gru_states[0], rtol=1e-4, atol=1e-5)


def test_sequential_stack_with_valid_length_masks_and_picks_each_layer():
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.RNNCell(3, input_size=2))
    stack.add(rnn.DropoutCell(0.5))           # predict mode: identity, outputs not masked (as MXNet)
    stack.add(rnn.LSTMCell(3, input_size=3))
    stack.initialize(mx.init.Uniform(0.5))
    x = np.random.default_rng(8).standard_normal((2, 3, 2)).astype(np.float32)
    lengths = np.array([1, 3])
    outs, states = stack.unroll(3, mx.nd.array(x), merge_outputs=True, valid_length=mx.nd.array(lengths))
    o1, s1 = _cell_ref_valid("rnn_tanh", stack[0], x, lengths)
    o2, s2 = _cell_ref_valid("lstm", stack[2], o1.astype(np.float32), lengths)
    np.testing.assert_allclose(outs.asnumpy(), o2, rtol=1e-4, atol=1e-5)
    for s, r in zip(states, s1 + s2):
        np.testing.assert_allclose(s.asnumpy(), r, rtol=1e-4, atol=1e-5)
    d_out, d_states = rnn.DropoutCell(0.5).unroll(3, mx.nd.array(x), merge_outputs=True,
                                                   valid_length=mx.nd.array(lengths))
    np.testing.assert_array_equal(d_out.asnumpy(), x)
    assert d_states == []


def test_zoneout_keeps_previous_values_in_training_and_is_the_base_cell_in_prediction():
    mx.random.seed(4)
    base = gluon.rnn.RNNCell(6, input_size=3)
    cell = gluon.rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    cell.initialize()
    x = mx.nd.random.uniform(shape=(2, 4, 3))
    plain = gluon.rnn.RNNCell(6, input_size=3, params=base.params)
    expected, _ = plain.unroll(4, x, merge_outputs=True)
    predicted, _ = cell.unroll(4, x, merge_outputs=True)
    np.testing.assert_allclose(predicted.asnumpy(), expected.asnumpy(), rtol=1e-6)
    with mx.autograd.record():
        outs, _ = cell.unroll(4, x, merge_outputs=False)
    outs = [o.asnumpy() for o in outs]
    assert (outs[0] == 0).any()                      # zoned out at t=0: the previous (zero) output kept
    kept = [(outs[t] == outs[t - 1]) & (outs[t] != 0) for t in range(1, 4)]
    assert any(k.any() for k in kept)                # later steps keep some units from the step before
    sym_out, _ = cell.unroll(3, [mx.sym.var(f"t{i}") for i in range(3)])
    assert mx.sym.Group(sym_out).infer_shape(t0=(2, 3), t1=(2, 3), t2=(2, 3))[1] == [(2, 6)] * 3


# ---- MXNet 1.x's graph names and the unfused form ------------------------------------------------
def test_cells_name_their_nodes_per_step_as_mxnet():
    # the names MXNet 1.9.1 gives the same unrolls
    cell = mx.gluon.rnn.LSTMCell(4, prefix="rnn_")
    outputs, _ = cell.unroll(2, [mx.sym.var(f"rnn_t{i}_data") for i in range(2)])
    assert mx.sym.Group(outputs).list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output"]
    gru = mx.gluon.rnn.GRUCell(3, prefix="g_")
    out, _ = gru.unroll(1, [mx.sym.var("x")])
    assert "g_t0_h2h_slice_output0" in out[0].get_internals().list_outputs()
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(2, prefix="l_"), mx.gluon.rnn.RNNCell(2, prefix="r_"))
    outs, _ = bi.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert mx.sym.Group(outs).list_outputs() == ["bi_t0_output", "bi_t1_output"]
    states = mx.gluon.rnn.LSTMCell(4, prefix="c_").begin_state(func=mx.sym.zeros)
    assert [s.name for s in states] == ["c_begin_state_0", "c_begin_state_1"]


def test_a_stack_unrolls_a_merged_symbol_sequence():
    stack = mx.gluon.rnn.SequentialRNNCell()
    stack.add(mx.gluon.rnn.LSTMCell(5, prefix="l0_"))
    out, _ = stack.unroll(3, mx.sym.var("data"), merge_outputs=True)
    assert out.infer_shape(data=(2, 3, 7))[1] == [(2, 3, 5)]


@pytest.mark.parametrize("mode", ["rnn_tanh", "lstm", "gru"])
def test_unfuse_gives_the_layers_outputs_with_its_parameters(mode):
    cls = {"rnn_tanh": lambda: mx.gluon.rnn.RNN(3, num_layers=2, bidirectional=True),
           "lstm": lambda: mx.gluon.rnn.LSTM(3, num_layers=2, bidirectional=True),
           "gru": lambda: mx.gluon.rnn.GRU(3, num_layers=2)}[mode]
    layer = cls()
    cells = layer._unfuse()
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(1).randn(4, 2, 5))      # TNC
    expected = layer(x).asnumpy()
    got = cells.unroll(4, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert set(cells.collect_params()) == set(layer.collect_params())


def test_device_default_ctx_is_the_current_device():
    assert mx.Context.default_ctx == mx.cpu(0)
    with mx.cpu(1):
        assert mx.Context.default_ctx == mx.cpu(1)
