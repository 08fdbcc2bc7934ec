"""Module on several devices (``DataParallelExecutorGroup``): the batch split by ``work_load_list``,
one executor per device, gradients summed through the kvstore. The expected weights were recorded
from MXNet 1.9.1 (the same script run on ``mxnet``)."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.module.executor_group import DataParallelExecutorGroup, _split_input_slice

X = (np.arange(24, dtype=np.float32).reshape(8, 3) % 5) / 5.0
Y = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype=np.float32)
W0 = np.array([[0.1, -0.2, 0.3], [-0.1, 0.2, 0.05]], dtype=np.float32)
# MXNet 1.9.1, Module(context=[cpu(0), cpu(1)], work_load_list=[1, 3]), SGD lr 0.5 momentum 0.9, 3 steps
MXNET_WEIGHT = [[0.11165226995944977, -0.33993637561798096, 0.12553703784942627],
                [-0.11165226995944977, 0.33993637561798096, 0.22446295619010925]]
MXNET_BIAS = [0.02967916429042816, -0.0296791885048151]


def _net():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _train(context, work_load_list=None, steps=3):
    mod = mx.mod.Module(_net(), context=context, work_load_list=work_load_list)
    mod.bind([('data', (8, 3))], [('softmax_label', (8,))])
    mod.init_params(arg_params={'fc_weight': mx.nd.array(W0), 'fc_bias': mx.nd.zeros((2,))})
    mod.init_optimizer(optimizer='sgd', optimizer_params=(('learning_rate', 0.5), ('momentum', 0.9)))
    batch = mx.io.DataBatch([mx.nd.array(X)], [mx.nd.array(Y)])
    for _ in range(steps):
        mod.forward(batch, is_train=True)
        mod.backward()
        mod.update()
    return mod


def test_split_input_slice_follows_the_workload():
    assert _split_input_slice(8, [1, 3]) == [slice(0, 2), slice(2, 8)]
    assert _split_input_slice(10, [1, 1, 1]) == [slice(0, 3), slice(3, 6), slice(6, 10)]
    with pytest.raises(ValueError):
        _split_input_slice(2, [1, 1, 1])


def test_two_devices_end_with_the_single_device_weights():
    one = _train([mx.cpu(0)])
    two = _train([mx.cpu(0), mx.cpu(1)], [1, 3])
    w1, w2 = one.get_params()[0], two.get_params()[0]
    for name in ('fc_weight', 'fc_bias'):
        np.testing.assert_allclose(w2[name].asnumpy(), w1[name].asnumpy(), atol=1e-6)
    np.testing.assert_allclose(w2['fc_weight'].asnumpy(), MXNET_WEIGHT, atol=1e-6)
    np.testing.assert_allclose(w2['fc_bias'].asnumpy(), MXNET_BIAS, atol=1e-6)
    np.testing.assert_allclose(two.get_outputs()[0].asnumpy(), one.get_outputs()[0].asnumpy(), atol=1e-6)


def test_executors_live_on_their_devices_with_their_slices():
    mod = _train([mx.cpu(0), mx.cpu(1)], [1, 3], steps=1)
    group = mod._exec_group
    assert isinstance(group, DataParallelExecutorGroup)
    assert group.slices == [slice(0, 2), slice(2, 8)] and group.batch_size == 8
    assert [e.arg_dict['data'].shape for e in group.execs] == [(2, 3), (6, 3)]
    assert [e.arg_dict['fc_weight'].context for e in group.execs] == [mx.cpu(0), mx.cpu(1)]
    assert [o.shape for o in mod.get_outputs(merge_multi_context=False)[0]] == [(2, 2), (6, 2)]
    assert mod._kvstore is not None and mod._update_on_kvstore
    # every device holds the same weights after the kvstore update
    np.testing.assert_array_equal(group.param_arrays[0][0].asnumpy(), group.param_arrays[0][1].asnumpy())


def test_updates_off_the_kvstore_give_the_same_weights(monkeypatch):
    monkeypatch.setenv('MXNET_UPDATE_ON_KVSTORE', '0')
    mod = _train([mx.cpu(0), mx.cpu(1)], [1, 3])
    assert mod._kvstore is not None and not mod._update_on_kvstore and mod._updater is not None
    np.testing.assert_allclose(mod.get_params()[0]['fc_weight'].asnumpy(), MXNET_WEIGHT, atol=1e-6)


def test_single_device_has_one_executor_and_no_kvstore():
    mod = _train([mx.cpu(0)], steps=1)
    assert len(mod._exec_group.execs) == 1 and mod._kvstore is None
    assert mod._exec is mod._exec_group.execs[0]


def test_shared_group_reuses_parameters_and_input_memory():
    net = _net()
    params = ['fc_weight', 'fc_bias']
    g1 = DataParallelExecutorGroup(net, [mx.cpu(0), mx.cpu(1)], [1, 1], [('data', (8, 3))],
                                   [('softmax_label', (8,))], params, True, False)
    g2 = DataParallelExecutorGroup(net, [mx.cpu(0), mx.cpu(1)], [1, 1], [('data', (4, 3))],
                                   [('softmax_label', (4,))], params, True, False, shared_group=g1)
    for e1, e2 in zip(g1.execs, g2.execs):
        assert e1.arg_dict['fc_weight'] is e2.arg_dict['fc_weight']
        assert e1.grad_dict['fc_weight'] is e2.grad_dict['fc_weight']
        assert mx.test_utils.same_array(e1.arg_dict['data'], e2.arg_dict['data'])   # a view of the larger
    assert g1.shared_data_arrays is g2.shared_data_arrays


def test_borrow_optimizer_and_states():
    mod = _train([mx.cpu(0), mx.cpu(1)], [1, 3], steps=1)
    other = mx.mod.Module(_net(), context=[mx.cpu(0), mx.cpu(1)])
    other.bind([('data', (8, 3))], [('softmax_label', (8,))], shared_module=mod)
    assert other._optimizer is mod._optimizer and other._kvstore is mod._kvstore
    assert other.get_states() == []
