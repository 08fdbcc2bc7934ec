"""The inference passes (``fold_affine``, ``fuse_activation``, ``as_matmul``; ``compiler/passes``)
rewrite predict programs only: every model-zoo network gives the same predictions with and without
them on every convolution path (the deep ones behind HYBRIDLAB_SLOW_TESTS, as in
tests/test_conv_paths.py), training programs and gradients are untouched, new parameters are seen
(nothing is frozen), and the lab's pipeline shows each pass."""

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd
from hybridlab.compiler import CachedOp, cached_op
from hybridlab.compiler.passes import PREDICT_PASSES, as_matmul, fold_affine, fuse_activation, layout
from hybridlab.gluon.model_zoo import vision
from hybridlab.ops import conv_fused, conv_path
from graph_inputs import input_shapes
from model_zoo_cases import zoo_input_shape, zoo_params

PATHS = conv_path.available_paths()


def _randomize_bn(net, seed=1):
    """BatchNorm statistics and affine parameters away from 0/1, so that no fold is trivial."""
    rng = np.random.RandomState(seed)
    for name, p in net.collect_params().items():
        if name.endswith(("gamma", "beta", "running_mean", "moving_mean")):
            p.set_data(mx.nd.array(rng.randn(*p.shape).astype("float32") * 0.5))
        elif name.endswith(("running_var", "moving_var")):
            p.set_data(mx.nd.array(rng.rand(*p.shape).astype("float32") + 0.5))


def _twins(name, shape):
    """Two hybridized copies of a model-zoo network with the same parameters: without and with the
    inference passes."""
    nets = []
    for passes in (False, True):
        net = vision.get_model(name, classes=10)
        net.initialize(mx.init.Xavier())
        net(mx.nd.zeros(shape))
        if nets:
            for p, q in zip(net.collect_params().values(), nets[0].collect_params().values()):
                p.set_data(q.data().copy())
        else:
            mx.random.seed(3)
            _randomize_bn(net)
        net.hybridize(static_alloc=True)
        saved = cached_op.USE_PREDICT_PASSES
        cached_op.USE_PREDICT_PASSES = passes
        try:
            net(mx.nd.zeros(shape))
        finally:
            cached_op.USE_PREDICT_PASSES = saved
        nets.append(net)
    return nets


def _close(got, want, what):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale, err_msg=what)


MODELS = [("resnet18_v1", (2, 3, 32, 32)), ("resnet50_v2", (2, 3, 32, 32)), ("mobilenet0.25", (2, 3, 32, 32))]



def _source(net):
    return net.cached_op.source().split("def forward", 1)[1]


@pytest.mark.parametrize("name", zoo_params())
def test_every_model_zoo_net_predicts_the_same_with_the_inference_passes_on_each_conv_path(name):
    shape = zoo_input_shape(name)
    plain, fused = _twins(name, shape)
    x = mx.nd.array(np.random.RandomState(0).rand(*shape).astype("float32"))
    for path in PATHS:
        with conv_path.use(path):
            want = plain(x).asnumpy()
            got = fused(x).asnumpy()
        _close(got, want, f"{name} on {path}")
    assert "_FusedConvolution" in _source(fused) and "_FusedConvolution" not in _source(plain)
    stages = [s for s, _ in fused.cached_op.pipeline]
    planned = layout.applies(fused.cached_op._ops, mx.cpu()) > 0      # built on the default path
    assert stages[-4:] == list(PREDICT_PASSES) + ["layout"] if planned else stages[-3:] == list(PREDICT_PASSES)
    assert ("_LayoutReorder" in _source(fused)) == planned and "_LayoutReorder" not in _source(plain)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name, shape", MODELS, ids=[m[0] for m in MODELS])
def test_model_zoo_predictions_are_equal_with_the_inference_passes(name, shape, path):
    plain, fused = _twins(name, shape)
    x = mx.nd.array(np.random.RandomState(0).rand(*shape).astype("float32"))
    with conv_path.use(path):
        want = plain(x).asnumpy()
        got = fused(x).asnumpy()
        conv_fused.GEMM_ON_ONEDNN = True           # the matrix-product form on this path too
        try:
            gemm = fused(x[:1]).asnumpy()
        finally:
            conv_fused.GEMM_ON_ONEDNN = False
    _close(got, want, f"{name} on {path}")
    _close(gemm, want[:1], f"{name} on {path}, 1x1 convolutions as matrix products")
    assert "_FusedConvolution" in _source(fused) and "_FusedConvolution" not in _source(plain)
    # v1 nets: every BatchNorm follows a convolution; v2 (pre-activation) normalise sums: one affine pass
    assert "BatchNorm(" not in _source(fused)
    assert ("_ChannelAffine" in _source(fused)) == (name == "resnet50_v2")
    # the lab's pass view: the predict passes after the others (then the layout plan, when one was made)
    stages = [s for s, _ in fused.cached_op.pipeline]
    assert stages[-3:] == list(PREDICT_PASSES) or stages[-4:] == list(PREDICT_PASSES) + ["layout"]
    assert [s for s, _ in plain.cached_op.pipeline][-1] == "inplace"


@pytest.mark.parametrize("name, shape", MODELS[:2], ids=[m[0] for m in MODELS[:2]])
def test_training_outputs_and_gradients_are_untouched(name, shape):
    plain, fused = _twins(name, shape)
    x = mx.nd.array(np.random.RandomState(0).rand(*shape).astype("float32"))
    results = []
    for net in (plain, fused):
        params = [p for p in net.collect_params().values() if p.grad_req != "null"]
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        results.append((net(x).asnumpy(), [p.grad().asnumpy() for p in params],
                        [p.data().asnumpy() for p in net.collect_params().values()]))
        plan = net.cached_op.backward_plan()
        assert "_FusedConvolution" not in plan.forward.source and "_FusedConvolution" not in plan.backward.source
    for a, b in zip(results[0][1], results[1][1]):
        _close(b, a, f"{name} gradient")
    for a, b in zip(results[0][2], results[1][2]):       # the moving statistics, updated alike
        _close(b, a, f"{name} parameter after the step")
    _close(results[1][0], results[0][0], f"{name} prediction after the step")
    assert all(n.op.name != "_FusedConvolution" for n in fused.cached_op._ops)   # the training graph


def test_gradients_under_record_in_predict_mode_are_equal():
    plain, fused = _twins("resnet18_v1", (1, 3, 32, 32))
    x = mx.nd.array(np.random.RandomState(2).rand(1, 3, 32, 32).astype("float32"))
    grads = []
    for net in (plain, fused):
        xx = x.copy()
        xx.attach_grad()
        with autograd.record(train_mode=False):
            out = net(xx)
        out.backward()
        grads.append(xx.grad.asnumpy())
    _close(grads[1], grads[0], "data gradient under record(train_mode=False)")


def test_new_parameters_are_seen_by_the_folded_program():
    _, net = _twins("resnet18_v1", (1, 3, 32, 32))
    x = mx.nd.array(np.random.RandomState(4).rand(1, 3, 32, 32).astype("float32"))
    before = net(x).asnumpy()
    _randomize_bn(net, seed=9)
    for name, p in net.collect_params().items():
        if name.endswith("weight"):
            p.set_data(p.data() * 1.5)
    got = net(x).asnumpy()
    net.hybridize(active=False)
    want = net(x).asnumpy()
    assert not np.allclose(got, before)
    _close(got, want, "prediction after new parameters")


def _bn_after_conv(**conv_kw):
    x = mx.sym.var("x")
    c = mx.sym.Convolution(x, kernel=conv_kw.pop("kernel", (3, 3)), num_filter=4, name="c", **conv_kw)
    return x, c


def _run_both(sym, shapes, seed=0):
    """Outputs of ``sym`` in predict mode with and without the inference passes."""
    rng = np.random.RandomState(seed)
    names = sym.list_inputs()
    args = [mx.nd.array(rng.rand(*shapes[n]).astype("float32") + (0.5 if "var" in n else -0.25)) for n in names]
    outs = []
    for passes in (False, True):
        saved = cached_op.USE_PREDICT_PASSES
        cached_op.USE_PREDICT_PASSES = passes
        try:
            op = CachedOp(sym)
        finally:
            cached_op.USE_PREDICT_PASSES = saved
        outs.append((op(*args).asnumpy(), op))
    return outs


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("layout, axis, no_bias, fix_gamma", [
    (None, 1, True, False), (None, 1, False, True), ("NHWC", 3, False, False), ("NHWC", -1, True, True)])
def test_fold_batchnorm_cases_compute_the_same(layout, axis, no_bias, fix_gamma, path):
    x, c = _bn_after_conv(layout=layout, no_bias=no_bias, pad=(1, 1))
    y = mx.sym.relu(mx.sym.BatchNorm(c, axis=axis, fix_gamma=fix_gamma, eps=1e-3, name="bn"), name="r")
    data = (2, 5, 6, 3) if layout else (2, 3, 5, 6)
    shapes = {"x": data, "c_weight": (4, 3, 3, 3) if not layout else (4, 3, 3, 3), "c_bias": (4,),
              "bn_gamma": (4,), "bn_beta": (4,), "bn_moving_mean": (4,), "bn_moving_var": (4,)}
    with conv_path.use(path):
        (want, _), (got, op) = _run_both(y, shapes)
    _close(got, want, "folded BatchNorm")
    ops = [n.op.name for n in op._graph(False)[2]]
    assert "BatchNorm" not in ops and ops[-1] == "_FusedConvolution"


def test_fold_uses_the_weights_or_the_output_whichever_is_smaller():
    # a 1x1 output is smaller than the 3x3x8x8 weights: the output is scaled; a large output: the weights
    for size in (3, 16):
        x, c = _bn_after_conv(num_filter_unused=None) if False else _bn_after_conv(no_bias=True)
        y = mx.sym.BatchNorm(c, fix_gamma=False, name="bn")
        shapes = {"x": (1, 3, size, size), "c_weight": (4, 3, 3, 3), "bn_gamma": (4,), "bn_beta": (4,),
                  "bn_moving_mean": (4,), "bn_moving_var": (4,)}
        (want, _), (got, _) = _run_both(y, shapes)
        _close(got, want, f"fold with a {size}x{size} input")


def _ops(sym):
    return [(n.name, n.op_name) for n in sym._nodes() if not n.is_variable and "_fold_" not in n.name]


def test_fold_leaves_shared_and_other_axis_batchnorms_unfolded_as_one_affine_pass():
    x, c = _bn_after_conv()
    shared = mx.sym.Group([mx.sym.BatchNorm(c, name="bn"), mx.sym.relu(c, name="r")])
    assert _ops(fold_affine.fold_affine_maps(shared)) == [("c", "Convolution"), ("bn", "_ChannelAffine"),
                                                          ("r", "relu")]
    other_axis = fold_affine.fold_affine_maps(mx.sym.BatchNorm(c, axis=2, name="bn"))
    assert _ops(other_axis) == [("c", "Convolution"), ("bn", "_ChannelAffine")]
    assert other_axis._nodes()[-1].attrs["axis"] == "2"
    stats = mx.sym.BatchNorm(c, output_mean_var=True, name="bn")      # mean and var are outputs: kept
    assert _ops(fold_affine.fold_affine_maps(stats)) == [("c", "Convolution"), ("bn", "BatchNorm")]
    # a relu after the affine pass runs inside it, with the same values on every path
    y = mx.sym.Group([mx.sym.relu(mx.sym.BatchNorm(c, fix_gamma=False, name="bn"), name="r"), c])
    opt = fuse_activation.fuse_activations(fold_affine.fold_affine_maps(y))
    assert _ops(opt) == [("c", "Convolution"), ("r", "_ChannelAffine")]
    rng = np.random.RandomState(4)
    shapes = dict(zip(y.list_inputs(), input_shapes(y, x=(2, 3, 5, 5))))
    args = {n: mx.nd.array(rng.rand(*shapes[n]) + 0.5 if n.endswith("var") else rng.randn(*shapes[n]))
            for n in y.list_inputs()}

    def run(sym):
        return CachedOp(sym, passes=())(*[args[n] for n in sym.list_inputs()])[0].asnumpy()
    want = run(y)
    for path in PATHS:
        with conv_path.use(path):
            _close(run(opt), want, f"affine pass + relu on {path}")
    # the input graph is never modified
    assert [n.op_name for n in c._nodes() if not n.is_variable] == ["Convolution"]


def test_conv_relu_fuses_single_reader_relus_only():
    x, c = _bn_after_conv()
    fused = fuse_activation.fuse_activations(mx.sym.Activation(c, act_type="relu", name="a"))
    assert [(n.name, n.op_name) for n in fused._nodes() if not n.is_variable] == [("a", "_FusedConvolution")]
    assert fused._nodes()[-1].meta["epilogue"] == ["c", "a"]
    kept = fuse_activation.fuse_activations(mx.sym.Group([mx.sym.relu(c, name="r"), c]))
    assert [n.op_name for n in kept._nodes() if not n.is_variable] == ["Convolution", "relu"]
    tanh = fuse_activation.fuse_activations(mx.sym.Activation(c, act_type="tanh", name="t"))
    assert [n.op_name for n in tanh._nodes() if not n.is_variable] == ["Convolution", "Activation"]


@pytest.mark.parametrize("path", PATHS)
def test_conv1x1_gemm_marks_plain_matrix_products_only_and_computes_the_same(path):
    x = mx.sym.var("x")
    a = mx.sym.Convolution(x, kernel=(1, 1), num_filter=6, name="a")
    b = mx.sym.Convolution(a, kernel=(1, 1), num_filter=5, stride=(2, 2), name="b")
    y = mx.sym.Convolution(b, kernel=(1, 1), num_filter=4, no_bias=True, name="c")
    marked = as_matmul.mark_matmuls(y)
    assert [n.name for n in marked._nodes() if n.attrs.get("gemm") == "True"] == ["a", "c"]
    shapes = {"x": (3, 3, 7, 7), "a_weight": (6, 3, 1, 1), "a_bias": (6,), "b_weight": (5, 6, 1, 1), "b_bias": (5,),
              "c_weight": (4, 5, 1, 1)}
    with conv_path.use(path):
        (want, _), (got, _) = _run_both(y, shapes)
        conv_fused.GEMM_ON_ONEDNN = True
        try:
            (_, _), (gemm, _) = _run_both(y, shapes)
        finally:
            conv_fused.GEMM_ON_ONEDNN = False
    _close(got, want, "1x1 convolutions")
    _close(gemm, want, "1x1 convolutions as matrix products")


def test_graphs_without_convolutions_share_one_graph_and_show_the_usual_stages():
    y = mx.sym.relu(mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc"), name="r")
    op = CachedOp(y)
    assert op._predict is None
    assert [s for s, _ in op.pipeline] == ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
