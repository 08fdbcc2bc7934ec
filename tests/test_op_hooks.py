"""Op hooks (register_op_hook): MXNet's tensor names, once per op per call, hybridized (instrumented
program variant, with and without static_alloc) and imperative, under autograd, and a raising hook."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon
from hybridlab.gluon import nn
from hybridlab.ops.registry import get_op


def mlp(**hybridize):
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(16, activation="relu", prefix="d0_"), nn.Dense(8, activation="relu", prefix="d1_"),
                nn.Dense(2, prefix="d2_"))
    net.initialize(mx.init.Xavier())
    if hybridize is not None:
        net.hybridize(**hybridize)
    return net


MLP_OUTPUTS = ["mlp_d0_fwd_output", "mlp_d0_relu_fwd_output", "mlp_d1_fwd_output", "mlp_d1_relu_fwd_output",
               "mlp_d2_fwd_output"]


def recorder():
    seen = []

    def hook(name, op_name, arr):
        assert isinstance(arr, mx.nd.NDArray)
        seen.append((name, op_name, arr.asnumpy().copy()))
    return hook, seen


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}])
def test_hybridized_hooks_fire_once_per_op_per_call_with_mxnet_names(flags):
    net = mlp(**flags)
    x = mx.nd.random.uniform(shape=(3, 5))
    hook, seen = recorder()
    net.register_op_hook(hook)
    out = net(x)
    assert [n for n, _, _ in seen] == MLP_OUTPUTS
    assert [o for _, o, _ in seen] == ["FullyConnected", "Activation"] * 2 + ["FullyConnected"]
    np.testing.assert_allclose(seen[-1][2], out.asnumpy(), rtol=1e-6)
    net(x)
    assert [n for n, _, _ in seen] == MLP_OUTPUTS * 2          # once per op per call
    # the values are the intermediates: relu of the first dense output
    np.testing.assert_allclose(seen[1][2], np.maximum(seen[0][2], 0), rtol=1e-6)


def test_monitor_all_names_inputs_like_mxnet():
    # MXNet's test_op_hook_output_names, stacked Dense + Activation with monitor_all
    net = nn.HybridSequential(prefix="hybridsequential_")
    with net.name_scope():
        net.add(nn.Dense(2, prefix="dense0_"), nn.Activation("relu", prefix="activation0_"))
    net.initialize()
    for flags in ({}, {"static_alloc": True}):
        net.hybridize(**flags)
        hook, seen = recorder()
        net.register_op_hook(hook, monitor_all=True)
        net(mx.nd.ones((2, 3, 4)))
        # MXNet names Activation's input 'input0' (registered without FListInputNames), Dense's by name
        assert [n for n, _, _ in seen] == [
            "hybridsequential_dense0_fwd_data", "hybridsequential_dense0_fwd_weight",
            "hybridsequential_dense0_fwd_bias", "hybridsequential_dense0_fwd_output",
            "hybridsequential_activation0_fwd_input0", "hybridsequential_activation0_fwd_output"]


class Splitter(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        a, b = F.split(x, num_outputs=2, axis=1, name="sp")
        return a * 2 + b


def test_multi_output_ops_name_each_output():
    net = Splitter(prefix="s_")
    net.hybridize()
    hook, seen = recorder()
    net.register_op_hook(hook)
    net(mx.nd.ones((2, 4)))
    names = [n for n, _, _ in seen]
    assert names[:2] == ["s_sp_output0", "s_sp_output1"]
    assert len(names) == 4     # split, *2, +


def test_plain_program_is_untouched_and_hook_removal_restores_the_fast_path():
    net = mlp()
    x = mx.nd.ones((1, 5))
    net(x)
    prog = net.cached_op.program()
    plain_fn, plain_source = prog.fn, prog.source
    hook, seen = recorder()
    net.register_op_hook(hook)
    net(x)
    assert prog.fn is plain_fn and prog.source == plain_source and "mon." not in plain_source
    assert "mon.enter(0, " in prog.instrumented().source
    net.register_op_hook(None)
    n = len(seen)
    net(x)
    assert len(seen) == n


def test_a_raising_hook_names_the_op_and_the_next_call_works():
    for flags in ({}, {"static_alloc": True}):
        net = mlp(**flags)
        x = mx.nd.random.uniform(shape=(2, 5))
        expected = net(x).asnumpy()
        calls = []

        def bad(name, op_name, arr):
            calls.append(name)
            if op_name == "Activation":
                raise ValueError("inspection failed")
        net.register_op_hook(bad)
        with pytest.raises(mx.MXNetError, match=r"op hook 'bad' raised ValueError: inspection failed \(on tensor "
                                                r"'mlp_d0_relu_fwd_output' of node 'mlp_d0_relu_fwd', op Activation"):
            net(x)
        with pytest.raises(mx.MXNetError, match="inspection failed"):   # the same again: nothing corrupted
            net(x)
        net.register_op_hook(None)
        np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)
        hook, seen = recorder()
        net.register_op_hook(hook)
        np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)
        assert [n for n, _, _ in seen] == MLP_OUTPUTS


def test_hooks_under_autograd_record_fire_once_and_keep_gradients():
    net = mlp()
    x = mx.nd.random.uniform(shape=(4, 5))
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    want = {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items()}
    hook, seen = recorder()
    net.register_op_hook(hook)
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    assert [n for n, _, _ in seen] == MLP_OUTPUTS
    for k, p in net.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), want[k], rtol=1e-5, atol=1e-7)


def test_imperative_hooks_report_each_op_call():
    net = mlp(active=False)
    x = mx.nd.ones((2, 5))
    net(x)          # parameters initialised (their init ops are never reported anyway)
    hook, seen = recorder()
    net.register_op_hook(hook, monitor_all=True)
    out = net(x)
    names = [n for n, _, _ in seen]
    assert names[:4] == ["mlp_d0_fullyconnected0_data", "mlp_d0_fullyconnected0_weight",
                         "mlp_d0_fullyconnected0_bias", "mlp_d0_fullyconnected0_output"]
    assert [n for n in names if n.endswith("_output")] == [
        "mlp_d0_fullyconnected0_output", "mlp_d0_relu_activation0_output", "mlp_d1_fullyconnected0_output",
        "mlp_d1_relu_activation0_output", "mlp_d2_fullyconnected0_output"]
    np.testing.assert_allclose(seen[-1][2], out.asnumpy(), rtol=1e-6)
    # the wrappers exist only while a hooked block runs
    assert not hasattr(get_op("FullyConnected").compute, "_hl_plain")


def test_imperative_hook_on_a_plain_block_and_a_raising_one():
    class Model(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=4)

        def forward(self, x):
            return mx.nd.relu(self.dense(x))
    model = Model(prefix="model_")
    model.initialize()
    hook, seen = recorder()
    model.register_op_hook(hook)
    model(mx.nd.ones((1, 4)))
    assert [n for n, _, _ in seen] == ["model_dense0_fullyconnected0_output", "model_relu0_output"]

    def bad(name, op_name, arr):
        raise KeyError(name)
    model.register_op_hook(bad)
    with pytest.raises(mx.MXNetError, match="op hook 'bad' raised KeyError.*op FullyConnected, imperative call"):
        model(mx.nd.ones((1, 4)))
    assert not hasattr(get_op("relu").compute, "_hl_plain")
    model.register_op_hook(None)
    assert model(mx.nd.ones((1, 4))).shape == (1, 3)


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)")
def test_gpu_hooks_and_profiler_on_cupy_arrays():
    from hybridlab import profiler
    net = mlp(static_alloc=True)
    net.reset_device(mx.gpu(0))
    x = mx.nd.ones((2, 5), ctx=mx.gpu(0))
    hook, seen = recorder()
    net.register_op_hook(hook)
    out = net(x)
    assert [n for n, _, _ in seen] == MLP_OUTPUTS and out.device == mx.gpu(0)
    net.register_op_hook(None)
    profiler.set_state("run")
    net(x)
    profiler.set_state("stop")
    assert "FullyConnected" in profiler.dumps(reset=True)
