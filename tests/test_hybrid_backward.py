"""Backward through hybridized blocks: the compiled gradient program gives the imperative gradients.

Each test computes the same thing twice, imperatively and hybridized, and compares values and
gradients (micrograd's test style); a hybridized call under ``record()`` is ONE tape node whose
gradient runs the compiled backward program.
"""
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd
from hybridlab.compiler.instrument import HookMonitor
from hybridlab.gluon import nn
from hybridlab.ops import conv_path

REF = os.path.join(os.path.dirname(__file__), "data", "mxnet", "bn_trainmode_ref.npz")
TOL = dict(rtol=1e-5, atol=1e-5)


@pytest.fixture
def numpy_convs():
    """Convolutions on the NumPy path, the one that keeps im2col columns (ops/conv_path.py)."""
    with conv_path.use("numpy"):
        yield


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(32, activation="relu"), nn.Dense(16, activation="relu"), nn.Dense(3))
    return net


def lenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(8, kernel_size=3, activation="relu"), nn.AvgPool2D(pool_size=2, strides=2),
            nn.Flatten(), nn.Dense(20, activation="relu"), nn.Dense(4))
    return net


def bn_net():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.Dense(8), nn.BatchNorm(momentum=0.8, epsilon=1e-3), nn.Dense(3))
    return net


def _grads(net):
    return {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items() if p.grad_req != "null"}


def _stats(net):
    return {k: p.data().asnumpy().copy() for k, p in net.collect_params().items() if "running" in k}


def _twins(make, x_shape, seed=0, **flags):
    """Two nets with identical parameters (one to run imperatively, one hybridized with ``flags``)
    and an input."""
    mx.random.seed(seed)
    a, b = make(), make()
    a.initialize(mx.init.Xavier())
    b.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(seed).normal(size=x_shape).astype("float32"))
    a(x), b(x)                                   # finish deferred shapes
    for pa, pb in zip(a.collect_params().values(), b.collect_params().values()):
        pb.set_data(pa.data())
    b.hybridize(**flags)
    return a, b, x


def _step(net, x, loss=lambda y: (y * y).sum()):
    x = x.copy()
    x.attach_grad()
    with autograd.record():
        y = net(x)
        out = loss(y)
    out.backward()
    return y, x.grad.asnumpy()


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}], ids=["dynamic", "static"])
@pytest.mark.parametrize("make, shape", [(mlp, (5, 12)), (lenet, (2, 1, 14, 14)), (bn_net, (4, 3, 6, 6))],
                         ids=["mlp", "lenet", "batchnorm"])
def test_gradients_equal_imperative(make, shape, flags):
    imp, hyb, x = _twins(make, shape, **flags)
    y0, gx0 = _step(imp, x)
    y1, gx1 = _step(hyb, x)
    np.testing.assert_allclose(y1.asnumpy(), y0.asnumpy(), **TOL)
    np.testing.assert_allclose(gx1, gx0, **TOL)
    g0, g1 = _grads(imp), _grads(hyb)
    for k0, k1 in zip(g0, g1):
        np.testing.assert_allclose(g1[k1], g0[k0], **TOL, err_msg=k1)
    for (k0, s0), s1 in zip(_stats(imp).items(), _stats(hyb).values()):   # BatchNorm's moving statistics
        np.testing.assert_allclose(s1, s0, **TOL, err_msg=k0)
    # the prediction after the step reads the updated statistics (and the planned buffers) like eager
    np.testing.assert_allclose(hyb(x).asnumpy(), imp(x).asnumpy(), **TOL)
    op = hyb.cached_op
    assert not op.fallbacks and "def backward(" in op.source(kind="backward")


def test_one_tape_node_per_hybridized_call():
    _, net, x = _twins(mlp, (2, 12))
    with autograd.record():
        y = net(x)
    node = y._node[0]
    assert node.op.name.startswith("CachedOp(")
    params = [p.data() for p in net.collect_params().values()]
    # the node's gradients go straight to the parameters (x has no gradient): no per-op nodes in between
    assert [s for s in node.sources if s is not None] == params
    assert node.sources[0] is None
    plan = net.cached_op.backward_plan()
    assert plan.need == (False,) + (True,) * len(params)


def test_backward_program_and_symbol_are_printable():
    _, net, x = _twins(mlp, (2, 12))
    _step(net, x)
    op = net.cached_op
    src = op.source(kind="backward")
    assert src.startswith("# hybridlab cached op backward program:") and "head_grad" in src
    assert "def forward(" in op.source(kind="train_forward")
    sym = op.backward_symbol()
    assert any(n.endswith("_head_grad") for n in sym.list_inputs())
    assert len(sym.list_outputs()) == 7            # x and the six parameters
    with pytest.raises(mx.MXNetError, match="kind expected"):
        op.source(kind="sideways")
    fresh = mlp()
    fresh.initialize()
    fresh.hybridize()
    fresh(x)
    with pytest.raises(mx.MXNetError, match="no compiled backward"):
        fresh.cached_op.backward_symbol()


def test_backward_inlines_dense_gradients_bit_for_bit():
    # on the CPU the backward program writes 2-d dot, the relu mask, its product and the bias sums as
    # NumPy calls (no kernel-call overhead); the instrumented variant calls the kernels: same bits
    _, net, x = _twins(mlp, (5, 12))
    _step(net, x)
    op = net.cached_op
    src = op.source(kind="backward")
    assert "matmul(" in src and "greater(" in src and "multiply(" in src and "add.reduce(" in src
    assert "dot(ctx" not in src and "sum_1(ctx" not in src and "no kernels (every op inlined)" in src
    # relu's gradient reads relu's output, as MXNet's _backward_relu: the train forward keeps no
    # pre-activation value for it and computes each relu over the dense output it alone reads
    assert "_backward_relu" in src
    plan = op.backward_plan()
    saved = [node.name for node, _ in plan.saved_entries]
    assert saved and all("relu" in name for name in saved), saved
    relus = [line for line in plan.forward.source.splitlines() if "maximum(" in line and "#" not in line]
    assert len(relus) == 2 and all(", out=" in line for line in relus), relus
    params = {p.name: p.data() for p in net.collect_params().values()}
    datas = [params.get(name, x)._data for name in op.input_names]
    outs, saved = plan.split(plan.forward.fn(*datas))
    heads = [np.random.RandomState(1).standard_normal(o.shape).astype(o.dtype) for o in outs]
    plain = plan.run(saved, datas, heads)
    kernels = plan.run(saved, datas, heads, HookMonitor(lambda name, op_name, arr: None))
    assert sum(g is not None for g in plain) == 7
    for g0, g1 in zip(plain, kernels):
        assert (g0 is None) == (g1 is None)
        if g0 is not None:
            assert g0.dtype == g1.dtype and np.array_equal(g0, g1)


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}], ids=["dynamic", "static"])
def test_backward_inlines_convolution_bias_sums_bit_for_bit(flags):
    # a convolution's bias gradient (the sum over every axis but the channels) is NumPy calls in the
    # backward program, in the kernel's order: the same bits as the instrumented variant's kernel calls
    _, net, x = _twins(lenet, (3, 1, 14, 14), **flags)
    _step(net, x)
    op = net.cached_op
    plan = op.backward_plan()
    src = plan.backward.source
    assert src.count(", 0).sum(axis=(1, 2,)") == 2 and "sum_1(ctx" not in src     # both convolutions
    params = {p.name: p.data() for p in net.collect_params().values()}
    datas = [params.get(name, x)._data for name in op.input_names]
    outs, saved = plan.split(plan.forward.fn(*datas))
    heads = [np.random.RandomState(2).standard_normal(o.shape).astype(o.dtype) for o in outs]
    plain = [None if g is None else g.copy() for g in plan.run(saved, datas, heads)]
    kernels = plan.run(saved, datas, heads, HookMonitor(lambda name, op_name, arr: None))
    biases = [i for i, name in enumerate(op.input_names) if name.endswith("_bias")]
    assert biases
    for g0, g1 in zip(plain, kernels):
        assert (g0 is None) == (g1 is None)
        if g0 is not None:
            assert g0.dtype == g1.dtype and np.array_equal(g0, g1)


@pytest.mark.usefixtures("numpy_convs")
def test_training_keeps_convolution_columns_and_pooling_maxima_for_the_gradients():
    _, net, x = _twins(lenet, (2, 1, 14, 14))
    _step(net, x)
    op = net.cached_op
    plan = op.backward_plan()
    variants = [n.name for n in op.symbol._nodes() if not n.is_variable and (
        n.op.name == "Convolution" or n.op.name == "Pooling" and n.parsed_attrs()["pool_type"] == "max")]
    assert plan.kept_workspaces == variants and len(variants) == 3      # the average pooling has no variant
    assert "_Convolution_columns(" in plan.forward.source and "_backward_Convolution_weight_columns(" in \
        plan.backward.source and "_backward_Convolution_weight(" not in plan.backward.source
    assert "_Pooling_first_max(" in plan.forward.source and "_backward_Pooling_first_max(" in plan.backward.source
    assert plan.backward.source.count("_backward_Pooling(") == 1 and f"{variants[1]}_first_max" in plan.backward.source
    # the cached op's own graph and its predict program are untouched
    assert all(n.op.name != "_Convolution_columns" for n in op.symbol._nodes() if not n.is_variable)
    net(x)
    assert "Convolution(ctx" in op.source() and "_Convolution_columns" not in op.source()


@pytest.mark.parametrize("frozen, budget, kept", [(True, None, 1), (False, 1, 0)],
                         ids=["frozen-first-layer-keeps-the-second", "one-byte-budget-keeps-none"])
@pytest.mark.usefixtures("numpy_convs")
def test_convolution_columns_need_a_weight_gradient_and_fit_the_budget(monkeypatch, frozen, budget, kept):
    from hybridlab.compiler.passes import train_variants
    if budget is not None:
        monkeypatch.setattr(train_variants, "WORKSPACE_BUDGET", budget)
    imp, hyb, x = _twins(lenet, (2, 1, 14, 14))
    if frozen:
        hyb[0].weight.grad_req = imp[0].weight.grad_req = "null"
    y0, gx0 = _step(imp, x)
    y1, gx1 = _step(hyb, x)
    names = [n.name for n in hyb.cached_op.symbol._nodes() if not n.is_variable and n.op.name == "Convolution"]
    assert [n for n in hyb.cached_op.backward_plan().kept_workspaces if n in names] == names[1:1 + kept]
    np.testing.assert_allclose(gx1, gx0, **TOL)
    for (k, g0), g1 in zip(_grads(imp).items(), _grads(hyb).values()):
        np.testing.assert_allclose(g1, g0, **TOL, err_msg=k)


def test_grad_req_add_and_null():
    imp, hyb, x = _twins(mlp, (3, 12))
    for net in (imp, hyb):
        for p in net.collect_params().values():
            p.grad_req = "add"
        net[1].weight.grad_req = "null"
    for _ in range(2):
        _step(imp, x)
        _step(hyb, x)
    g0, g1 = _grads(imp), _grads(hyb)
    assert len(g1) == 5                           # the null parameter is left out
    for k0, k1 in zip(g0, g1):
        np.testing.assert_allclose(g1[k1], g0[k0], **TOL, err_msg=k1)
    once, _, _ = _twins(mlp, (3, 12))            # same parameters, one write-mode step
    _step(once, x)
    np.testing.assert_allclose(next(iter(g1.values())), 2 * next(iter(_grads(once).values())), **TOL)
    assert not hyb.cached_op.backward_plan().need[3]   # dense1 weight: no gradient compiled


def test_autograd_grad_through_hybridized_block():
    imp, hyb, x = _twins(mlp, (2, 12))
    got = []
    for net in (imp, hyb):
        xi = x.copy()
        xi.attach_grad()
        with autograd.record():
            y = (net(xi) ** 2).sum()
        got.append(autograd.grad(y, [xi])[0].asnumpy())
        assert net[0].weight.grad().asnumpy().sum() == 0   # autograd.grad does not write .grad
    np.testing.assert_allclose(got[1], got[0], **TOL)


def _conv_dense():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(3, kernel_size=3, activation="tanh"), nn.Dense(2))
    return net


@pytest.mark.parametrize("make, shape", [(lambda: nn.Dense(4, activation="tanh"), (3, 5)), (_conv_dense, (2, 1, 6, 6))],
                         ids=["dense", "conv"])
def test_autograd_grad_create_graph_falls_back_to_recorded_ops(make, shape):
    """create_graph=True: the gradient itself is recorded (op by op), so it can be differentiated
    (a convolution's too, whose compiled training step keeps its columns)."""
    imp, hyb, x = _twins(make, shape)
    second = []
    for net in (imp, hyb):
        xi = x.copy()
        xi.attach_grad()
        with autograd.record():
            y = net(xi).sum()
            (gx,) = autograd.grad(y, [xi], create_graph=True)
            z = (gx * gx).sum()
        z.backward()
        weight = next(iter(net.collect_params().values()))
        second.append((gx.asnumpy(), xi.grad.asnumpy(), weight.grad().asnumpy()))
    for a, b in zip(*second):
        np.testing.assert_allclose(b, a, **TOL)


def test_dropout_uses_the_forward_mask_and_honours_modes():
    net = nn.HybridSequential()
    net.add(nn.Dropout(0.5))
    net.hybridize()
    x = mx.nd.ones((4, 50))
    x.attach_grad()
    mx.random.seed(1)
    with autograd.record():
        y = net(x)
    y.backward()
    out = y.asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).mean() < 1
    np.testing.assert_array_equal(x.grad.asnumpy(), out)       # d(x * mask)/dx = the mask drawn
    with autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((4, 50)))
    # the same seed gives the imperative block the same mask
    imp = nn.Dropout(0.5)
    mx.random.seed(1)
    with autograd.record():
        np.testing.assert_array_equal(imp(x).asnumpy(), out)


def test_predict_mode_batchnorm_leaves_statistics_alone():
    imp, hyb, x = _twins(bn_net, (2, 3, 6, 6))
    before = _stats(hyb)
    for net in (imp, hyb):
        xi = x.copy()
        xi.attach_grad()
        with autograd.record(train_mode=False):
            y = (net(xi) ** 2).sum()
        y.backward()
    for k, v in _stats(hyb).items():
        np.testing.assert_array_equal(v, before[k])
    for k0, k1 in zip(_grads(imp), _grads(hyb)):
        np.testing.assert_allclose(_grads(hyb)[k1], _grads(imp)[k0], **TOL, err_msg=k1)


def test_bn_trainmode_reference_through_hybridized_net():
    """shared/mxnet-fixtures bn_trainmode_ref.npz, reproduced by a hybridized Gluon net: the train-mode
    output, the moving statistics updated in backward, the inference output after the update, and
    gradients equal to the imperative run's."""
    with np.load(REF) as f:
        ref = {k: f[k] for k in f.files}

    def make():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(8, kernel_size=3, padding=1, use_bias=False, in_channels=3),
                nn.BatchNorm(in_channels=8), nn.Activation("relu"), nn.MaxPool2D(2, 2),
                nn.Dense(16, in_units=200), nn.BatchNorm(momentum=0.8, epsilon=1e-3, in_channels=16),
                nn.Dense(5, in_units=16))
        net.initialize()
        before = [k for k in ref if k.startswith("before/")]
        params = list(net.collect_params().values())
        assert len(params) == len(before)
        for p, k in zip(params, before):
            assert p.name.split("_")[-1] == k.split("_")[-1], (p.name, k)
            p.set_data(mx.nd.array(ref[k]))
        return net

    imp, hyb = make(), make()
    hyb.hybridize()
    x = mx.nd.array(ref["x"])
    results = []
    for net in (imp, hyb):
        with autograd.record():
            y = net(x)
        y.backward()
        results.append(y.asnumpy())
    np.testing.assert_allclose(results[1], ref["y_train_mode"], rtol=1e-4, atol=1e-4)
    params = list(hyb.collect_params().values())
    for p, k in zip(params, [k for k in ref if k.startswith("after/")]):
        np.testing.assert_allclose(p.data().asnumpy(), ref[k], rtol=1e-5, atol=1e-6, err_msg=k)
    for k0, k1 in zip(_grads(imp), _grads(hyb)):
        np.testing.assert_allclose(_grads(hyb)[k1], _grads(imp)[k0], **TOL, err_msg=k1)
    np.testing.assert_allclose(hyb(x).asnumpy(), ref["y_inference_after_update"], rtol=1e-4, atol=1e-4)
    src = hyb.cached_op.source(kind="backward")
    assert src.count("moving statistics updated in place") == 2


def test_backward_twice_without_retain_graph_raises_and_retain_works():
    _, net, x = _twins(mlp, (2, 12))
    with autograd.record():
        y = (net(x) ** 2).sum()
    y.backward(retain_graph=True)
    first = net[0].weight.grad().asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(net[0].weight.grad().asnumpy(), first, **TOL)
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()


def test_cached_op_falls_back_where_the_backward_cannot_be_compiled(monkeypatch):
    from hybridlab.compiler import CachedOp
    from hybridlab.ops.registry import SideEffect, get_op
    x = mx.sym.var("x")
    op = CachedOp(mx.sym.tanh(x, name="t"))
    # a gradient step that cannot be traced
    monkeypatch.setattr(get_op("tanh"), "train_side_effect", SideEffect((), None, lambda a, training: 1 / 0))
    a = mx.nd.array([0.5, 1.0])
    a.attach_grad()
    with autograd.record():
        y = op(a)
    y.backward()
    monkeypatch.undo()
    assert list(op.fallbacks.values()) == ["tracing the gradient failed: ZeroDivisionError: division by zero"]
    np.testing.assert_allclose(a.grad.asnumpy(), 1 - np.tanh([0.5, 1.0]) ** 2, rtol=1e-6)
    assert y._node[0].op.name == "tanh"                          # op-by-op recorded


def test_multi_output_fan_out_and_static_alloc_flags():
    """Several outputs, an input read twice (gradients summed), an output that is an input, flags."""
    from hybridlab.compiler import CachedOp
    a, b = mx.sym.var("a"), mx.sym.var("b")
    h = mx.sym.tanh(a * b, name="h")
    op = CachedOp(mx.sym.Group([h * a, mx.sym.sum(h, name="s"), b]), flags={"static_alloc": True})
    vals = [mx.nd.array([[0.5, -1.0], [2.0, 0.1]]), mx.nd.array([[1.5, 0.3], [-0.2, 1.0]])]
    got, want = [v.copy() for v in vals], [v.copy() for v in vals]
    for v in got + want:
        v.attach_grad()
    heads = [mx.nd.array([[1.0, 2.0], [3.0, 4.0]]), mx.nd.array([0.5]), mx.nd.ones((2, 2))]
    with autograd.record():
        outs = op(*got)
    autograd.backward(outs, heads)
    with autograd.record():
        hh = mx.nd.tanh(want[0] * want[1])
        ref = [hh * want[0], mx.nd.sum(hh), want[1] * 1]
    autograd.backward(ref, heads)
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(o.asnumpy(), r.asnumpy(), **TOL)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.grad.asnumpy(), w.grad.asnumpy(), **TOL)
    assert not op.fallbacks and len({id(o._node[0]) for o in outs}) == 1


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)")
@pytest.mark.parametrize("make, shape", [(mlp, (5, 12)), (bn_net, (4, 3, 6, 6))], ids=["mlp", "batchnorm"])
def test_gpu_backward_matches_cpu(make, shape):
    cpu_net, _, x = _twins(make, shape)
    gpu_net = make()
    gpu_net.initialize(device=mx.gpu(0))
    gpu_net(x.copyto(mx.gpu(0)))
    for pc, pg in zip(cpu_net.collect_params().values(), gpu_net.collect_params().values()):
        pg.set_data(pc.data().copyto(mx.gpu(0)))
    cpu_net.hybridize()
    gpu_net.hybridize()
    _, gx_c = _step(cpu_net, x)
    _, gx_g = _step(gpu_net, x.copyto(mx.gpu(0)))
    np.testing.assert_allclose(gx_g, gx_c, rtol=1e-4, atol=1e-5)
    for (k, gc), gg in zip(_grads(cpu_net).items(), _grads(gpu_net).values()):
        np.testing.assert_allclose(gg, gc, rtol=1e-4, atol=1e-5, err_msg=k)
    for (k, sc), sg in zip(_stats(cpu_net).items(), _stats(gpu_net).values()):
        np.testing.assert_allclose(sg, sc, rtol=1e-4, atol=1e-5, err_msg=k)
    assert not gpu_net.cached_op.fallbacks
