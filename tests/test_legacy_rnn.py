"""mx.rnn, MXNet 1.x's legacy symbolic RNN cells: node and parameter names, the fused parameter
layout, values and initialisation as MXNet 1.9.1 gives them (recorded from it: no MXNet needed),
and fused vs unfused networks computing the same through Module."""
import os
import warnings

import numpy as np
import pytest

import hybridlab as mx


def _steps(n):
    return [mx.sym.var('rnn_t%d_data' % i) for i in range(n)]


def test_cell_names_and_shapes_as_mxnet():
    for cell, expected in [(mx.rnn.RNNCell(100, prefix='rnn_'), 'out'), (mx.rnn.GRUCell(100, prefix='rnn_'), 'out'),
                           (mx.rnn.LSTMCell(100, prefix='rnn_'), 'out')]:
        outputs, _ = cell.unroll(3, _steps(3))
        outputs = mx.sym.Group(outputs)
        assert sorted(cell.params._params) == ['rnn_h2h_bias', 'rnn_h2h_weight', 'rnn_i2h_bias', 'rnn_i2h_weight']
        assert outputs.list_outputs() == ['rnn_t0_out_output', 'rnn_t1_out_output', 'rnn_t2_out_output']
        assert outputs.infer_shape(rnn_t0_data=(10, 50), rnn_t1_data=(10, 50), rnn_t2_data=(10, 50))[1] == [(10, 100)] * 3


def test_gru_internal_names_as_mxnet():
    out, _ = mx.rnn.GRUCell(3, prefix='g_').unroll(1, [mx.sym.var('a')])
    names = mx.sym.Group(out).get_internals().list_outputs()
    for name in ['g_t0__i2h_output', 'g_t0__i2h_slice_output2', 'g_begin_state_0_output', 'g_t0__h2h_output',
                 'g_t0__z_act_output', 'g_t0__r_act_output', 'g_t0__h_act_output', 'g_t0_out_output']:
        assert name in names


def test_lstm_merged_unroll_names_and_attrs_as_mxnet():
    cell = mx.rnn.LSTMCell(3, prefix='l_')
    out, states = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    assert [s.name for s in states] == ['l_t1_out', 'l_t1_state']
    assert out.list_arguments() == ['data', 'l_i2h_weight', 'l_i2h_bias', 'l_h2h_weight', 'l_h2h_bias']
    attrs = out.attr_dict()
    assert attrs['l_i2h_bias'] == {'__init__': '["lstmbias", {"forget_bias": 1.0}]'}
    assert attrs['l_begin_state_0'] == {'shape': '(0, 3)', 'dtype': 'float32', '__layout__': 'NC'}
    names = out.get_internals().list_outputs()
    for name in ['l_t0_slice_output3', 'l_t0_i_output', 'l_t0_f_output', 'l_t0_c_output', 'l_t0_o_output',
                 'l_t0_state_output', 'l_t1_out_output']:
        assert name in names


def test_fused_unroll_names_and_attrs_as_mxnet():
    f = mx.rnn.FusedRNNCell(4, num_layers=2, mode='lstm', bidirectional=True, get_next_state=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        out, states = f.unroll(3, mx.sym.var('data'), merge_outputs=True)
    assert any('NTC layout detected' in str(w.message) for w in caught)
    assert out.get_internals().list_outputs() == [
        'data', 'swapaxes0_output', 'lstm_parameters', 'lstm_begin_state_0_output', 'lstm_begin_state_1_output',
        'lstm_rnn_output', 'lstm_rnn_state_output', 'lstm_rnn_statecell_output', 'swapaxes1_output']
    assert [s.list_outputs() for s in states] == [['lstm_rnn_state_output'], ['lstm_rnn_statecell_output']]
    attrs = out.attr_dict()
    assert attrs['lstm_parameters'] == {'__init__': '["fusedrnn", {"init": null, "num_hidden": 4, "num_layers": 2, '
                                                    '"mode": "lstm", "bidirectional": true, "forget_bias": 1.0}]'}
    assert attrs['lstm_rnn']['__layout__'] == 'LNC'
    assert f.state_info == [{'shape': (4, 0, 4), '__layout__': 'LNC'}] * 2
    assert out.infer_shape(data=(5, 3, 6))[1] == [(5, 3, 8)]


def test_fused_unpack_layout_as_mxnet():
    f = mx.rnn.FusedRNNCell(2, num_layers=2, mode='lstm', bidirectional=True, prefix='f_')
    args = f.unpack_weights({'f_parameters': mx.nd.arange(240)})
    first = [(k, v.shape, float(v.asnumpy().ravel()[0])) for k, v in args.items()][:10]
    assert first == [('f_l0_i2h_i_weight', (2, 3), 0.0), ('f_l0_i2h_f_weight', (2, 3), 6.0),
                     ('f_l0_i2h_c_weight', (2, 3), 12.0), ('f_l0_i2h_o_weight', (2, 3), 18.0),
                     ('f_l0_h2h_i_weight', (2, 2), 24.0), ('f_l0_h2h_f_weight', (2, 2), 28.0),
                     ('f_l0_h2h_c_weight', (2, 2), 32.0), ('f_l0_h2h_o_weight', (2, 2), 36.0),
                     ('f_r0_i2h_i_weight', (2, 3), 40.0), ('f_r0_i2h_f_weight', (2, 3), 46.0)]
    last = list(args)[-4:]
    assert last == ['f_r1_h2h_i_bias', 'f_r1_h2h_f_bias', 'f_r1_h2h_c_bias', 'f_r1_h2h_o_bias']
    assert [float(args[k].asnumpy()[0]) for k in last] == [232.0, 234.0, 236.0, 238.0]
    packed = f.pack_weights(args)
    assert list(packed) == ['f_parameters']
    assert packed['f_parameters'].asnumpy().tolist() == list(range(240))


def test_gated_cell_unpack_order_as_mxnet():
    w = {'a_i2h_weight': mx.nd.arange(16).reshape((8, 2)), 'a_i2h_bias': mx.nd.arange(8),
         'a_h2h_weight': mx.nd.arange(16).reshape((8, 2)), 'a_h2h_bias': mx.nd.arange(8)}
    cell = mx.rnn.LSTMCell(2, prefix='a_')
    args = cell.unpack_weights(w)
    assert list(args) == ['a_i2h_i_weight', 'a_i2h_i_bias', 'a_i2h_f_weight', 'a_i2h_f_bias', 'a_i2h_c_weight',
                          'a_i2h_c_bias', 'a_i2h_o_weight', 'a_i2h_o_bias', 'a_h2h_i_weight', 'a_h2h_i_bias',
                          'a_h2h_f_weight', 'a_h2h_f_bias', 'a_h2h_c_weight', 'a_h2h_c_bias', 'a_h2h_o_weight',
                          'a_h2h_o_bias']
    assert args['a_i2h_f_bias'].asnumpy().tolist() == [2.0, 3.0]
    back = cell.pack_weights(args)
    assert {k: v.asnumpy().tolist() for k, v in back.items()} == {k: v.asnumpy().tolist() for k, v in w.items()}


def test_lstm_and_gru_values_as_mxnet():
    x = mx.nd.array(np.linspace(-1, 1, 12).reshape(2, 2, 3))
    cell = mx.rnn.LSTMCell(2, prefix='lstm_')
    out, st = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    w = {'lstm_i2h_weight': mx.nd.array(np.linspace(-1, 1, 24).reshape(8, 3)),
         'lstm_h2h_weight': mx.nd.array(np.linspace(-0.5, 0.5, 16).reshape(8, 2)),
         'lstm_i2h_bias': mx.nd.array(np.linspace(0, 0.7, 8)), 'lstm_h2h_bias': mx.nd.zeros(8)}
    out, h, c = mx.sym.Group([out] + st).eval(data=x, **w)
    np.testing.assert_allclose(out.asnumpy(), [[[0.0275861, -0.0598587], [0.1406495, -0.0376680]],
                                               [[0.1220384, 0.2202684], [0.0965637, 0.2744204]]], atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), [[0.2767792, -0.0767655], [0.1061721, 0.2945843]], atol=1e-6)
    gru = mx.rnn.GRUCell(2, prefix='gru_')
    out, _ = gru.unroll(2, mx.sym.var('data'), merge_outputs=True)
    w = {'gru_i2h_weight': mx.nd.array(np.linspace(-1, 1, 18).reshape(6, 3)),
         'gru_h2h_weight': mx.nd.array(np.linspace(-0.5, 0.5, 12).reshape(6, 2)),
         'gru_i2h_bias': mx.nd.array(np.linspace(0, 0.5, 6)), 'gru_h2h_bias': mx.nd.array(np.linspace(0.1, -0.1, 6))}
    np.testing.assert_allclose(out.eval(data=x, **w)[0].asnumpy(),
                               [[[-0.2401317, -0.4938039], [-0.2230662, -0.4744747]],
                                [[0.3261789, 0.3235581], [0.6691023, 0.5286331]]], atol=1e-6)


def test_fused_initializer_as_mxnet():
    f = mx.rnn.FusedRNNCell(2, num_layers=1, mode='lstm', prefix='f_', forget_bias=3.0)
    out, _ = f.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[('data', (2, 1, 3))])
    mod.init_params(mx.init.Constant(0.5))
    assert mod.get_params()[0]['f_parameters'].asnumpy().tolist() == [0.5] * 40 + [0, 0, 3, 3, 0, 0, 0, 0] * 2


def test_lstm_forget_bias_through_module():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(4, forget_bias=2.0, prefix='l0_'))
    sym, _ = stack.unroll(1, mx.sym.var('data'), merge_outputs=True)
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[('data', (3, 1, 5))], label_shapes=None)
    mod.init_params()
    assert mod.get_params()[0]['l0_i2h_bias'].asnumpy().tolist() == [0] * 4 + [2] * 4 + [0] * 8


@pytest.mark.parametrize("mode, bidirectional", [('lstm', False), ('gru', True), ('rnn_tanh', True),
                                                 ('rnn_relu', False)])
def test_fused_and_unfused_agree_through_module(mode, bidirectional):
    T, N, I, H = 3, 2, 5, 4
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=bidirectional, get_next_state=True,
                                prefix='')
    stack = fused.unfuse()
    data = mx.sym.var('data')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        y1, _ = fused.unroll(T, data, layout='NTC', merge_outputs=True)
    y2, _ = stack.unroll(T, data, layout='NTC', merge_outputs=True)
    mods = []
    for y in (y1, y2):
        mod = mx.mod.Module(y, label_names=None)
        mod.bind(data_shapes=[('data', (N, T, I))], label_shapes=None, inputs_need_grad=True)
        mods.append(mod)
    mods[0].init_params()
    args, auxs = mods[0].get_params()
    mods[1].set_params(stack.pack_weights(fused.unpack_weights(args)), auxs)
    batch = mx.io.DataBatch(data=[mx.nd.random.uniform(shape=(N, T, I))])
    dy = mx.nd.random.uniform(shape=(N, T, H * (2 if bidirectional else 1)))
    for mod in mods:
        mod.forward(batch, is_train=True)
        mod.backward(out_grads=[dy])
    np.testing.assert_allclose(mods[0].get_outputs()[0].asnumpy(), mods[1].get_outputs()[0].asnumpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mods[0].get_input_grads()[0].asnumpy(), mods[1].get_input_grads()[0].asnumpy(),
                               rtol=1e-4, atol=1e-5)


def test_input_grads_are_none_for_null_grad_req():
    y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2)
    mod = mx.mod.Module(y, label_names=None)
    mod.bind(data_shapes=[('data', (2, 3))], inputs_need_grad=True, grad_req='null')
    mod.init_params()
    assert mod.get_input_grads() == [None]


def test_combinator_names_as_mxnet():
    z = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(3, prefix='r_'), 0.5, 0.5)
    out, _ = z.unroll(2, [mx.sym.var('a'), mx.sym.var('b')])
    assert mx.sym.Group(out).infer_shape(a=(4, 2), b=(4, 2))[1] == [(4, 3), (4, 3)]
    r = mx.rnn.ResidualCell(mx.rnn.RNNCell(3, prefix='r_'))
    out, _ = r.unroll(2, [mx.sym.var('a'), mx.sym.var('b')])
    assert mx.sym.Group(out).list_outputs() == ['r_t0_out_plus_residual_output', 'r_t1_out_plus_residual_output']
    b = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(3, prefix='l_'), mx.rnn.RNNCell(3, prefix='r_'))
    out, states = b.unroll(2, mx.sym.var('data'), merge_outputs=True)
    assert out.name == 'bi_out' and [[s.name for s in part] for part in states] == [['l_t1_out'], ['r_t1_out']]
    stack = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', dropout=0.3).unfuse()
    assert [(type(c).__name__, c._prefix) for c in stack._cells] == [
        ('GRUCell', 'gru_l0_'), ('DropoutCell', 'gru__dropout0_'), ('GRUCell', 'gru_l1_')]
    with pytest.raises(mx.MXNetError, match='unfuse first'):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(4))


def test_residual_eval_with_unknown_batch_begin_state():
    cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(5, prefix='rnn_'))
    out, _ = cell.unroll(2, _steps(2))
    zeros = {n: mx.nd.zeros(s) for n, s in [('rnn_i2h_weight', (15, 5)), ('rnn_i2h_bias', (15,)),
                                            ('rnn_h2h_weight', (15, 5)), ('rnn_h2h_bias', (15,))]}
    res = mx.sym.Group(out).eval(rnn_t0_data=mx.nd.ones((4, 5)), rnn_t1_data=mx.nd.ones((4, 5)), **zeros)
    assert [r.asnumpy().tolist() for r in res] == [np.ones((4, 5)).tolist()] * 2


def test_conv_cells_as_mxnet():
    for cls, prefix, n_states in [(mx.rnn.ConvRNNCell, 'ConvRNN_', 1), (mx.rnn.ConvLSTMCell, 'ConvLSTM_', 2),
                                  (mx.rnn.ConvGRUCell, 'ConvGRU_', 1)]:
        cell = cls(input_shape=(1, 3, 16, 10), num_hidden=10)
        assert cell._prefix == prefix and cell.state_info[0] == {'shape': (0, 10, 16, 10), '__layout__': 'NCHW'}
        out, states = cell.unroll(2, [mx.sym.var('a'), mx.sym.var('b')])
        assert len(states) == n_states
        assert mx.sym.Group(out).list_outputs() == [prefix + 't0_out_output', prefix + 't1_out_output']


def test_encode_sentences_as_mxnet():
    enc = mx.rnn.encode_sentences
    assert enc([['a', 'b', 'c'], ['b', 'c', 'd']], vocab={'a': 1, 'b': 2, 'c': 3}, unknown_token='UNK') == \
        ([[1, 2, 3], [2, 3, 0]], {'a': 1, 'b': 2, 'c': 3, 'UNK': 0})
    assert enc([['d', 'e', 'd']], vocab={'a': 1}, unknown_token='UNK') == ([[0, 1, 2]], {'a': 1, 'UNK': 2})
    assert enc([['d', 'e', 'd'], ['a']]) == ([[0, 1, 0], [2]], {'\n': -1, 'd': 0, 'e': 1, 'a': 2})
    assert enc([['d', 'e', 'd'], ['a']], invalid_label=0) == ([[1, 2, 1], [3]], {'\n': 0, 'd': 1, 'e': 2, 'a': 3})
    with pytest.raises(mx.MXNetError, match='Unknown token'):
        enc([['z']], vocab={'a': 1})


def test_bucket_sentence_iter(capsys):
    sentences = [[1, 2], [3, 4], [5, 6, 7], [8, 9, 10], [1] * 9]
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, invalid_label=0)
    assert 'discarded 1 sentences' in capsys.readouterr().out
    assert it.buckets == [2, 3] and it.default_bucket_key == 3
    assert [(d.name, d.shape, d.layout) for d in it.provide_data] == [('data', (2, 3), 'NT')]
    batches = sorted(((b.bucket_key, sorted(b.data[0].asnumpy().tolist()), sorted(b.label[0].asnumpy().tolist()))
                      for b in it), key=lambda t: t[0])
    assert batches == [(2, [[1, 2], [3, 4]], [[2, 0], [4, 0]]), (3, [[5, 6, 7], [8, 9, 10]], [[6, 7, 0], [9, 10, 0]])]
    it = mx.rnn.BucketSentenceIter(sentences[:4], batch_size=2, buckets=[3], layout='TN')
    assert it.next().data[0].shape == (3, 2)


def test_rnn_checkpoint_round_trip(tmp_path):
    fused = mx.rnn.FusedRNNCell(3, num_layers=1, mode='gru', prefix='g_')
    out, _ = fused.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    params = {'g_parameters': mx.nd.arange(3 * 3 * (4 + 3 + 2))}
    prefix = os.path.join(str(tmp_path), 'm')
    mx.rnn.do_rnn_checkpoint(fused, prefix, period=2)(1, out, params, {})
    saved = mx.nd.load(prefix + '-0002.params')
    assert 'arg:g_l0_i2h_r_weight' in saved and 'arg:g_parameters' not in saved
    _, arg, _ = mx.rnn.load_rnn_checkpoint(fused, prefix, 2)
    assert arg['g_parameters'].asnumpy().tolist() == params['g_parameters'].asnumpy().tolist()
    # an unfused stack reads the same file
    _, arg, _ = mx.rnn.load_rnn_checkpoint(fused.unfuse(), prefix, 2)
    assert arg['g_l0_i2h_weight'].shape == (9, 4)
