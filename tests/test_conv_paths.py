"""The oneDNN convolution path (``ops/conv_path.py``, ``ops/dnnl``) gives the NumPy path's results:
model-zoo networks, imperative and hybridized, forward and gradients; compiled training steps on it
keep no im2col columns; the binding's own calls (bias gradient, unsupported cases) and the path
switch. The op checker runs every convolution case on both paths (test_ops.py::test_op_path)."""

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon.model_zoo import vision
from hybridlab.ops import conv_path, dnnl
from model_zoo_cases import zoo_input_shape, zoo_params

needs_onednn = pytest.mark.skipif("onednn" not in conv_path.available_paths(),
                                  reason=f"oneDNN convolution path not available: {dnnl.load_error()}")


def _close(got, want, what, rtol=1e-3):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def _pair(make, shape, tmp_path, hybridize):
    """Two copies of the network ``make()`` with the same parameters (one per path)."""
    nets = []
    for i in range(2):
        with mx.name.NameManager():
            net = make()
        if i == 0:
            mx.random.seed(7)
            net.initialize(mx.init.Xavier())
            net(mx.nd.zeros(shape))
            net.save_parameters(str(tmp_path / "p.params"))
        else:
            net.load_parameters(str(tmp_path / "p.params"))
        if hybridize:
            net.hybridize()
        nets.append(net)
    return nets


def _run(net, x, head, train):
    """Output and parameter gradients of ``sum(net(x) * head)``; ``train``: batch statistics."""
    with mx.autograd.record(train_mode=train):
        out = net(x)
        loss = (out * head).sum()
    loss.backward()
    grads = {name: p.grad().asnumpy() for name, p in net.collect_params().items() if p.grad_req != "null"}
    return out.asnumpy(), grads


@needs_onednn
@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("train", [False, True], ids=["predict", "train"])
def test_resnet18_v1_same_outputs_and_gradients_on_both_paths(tmp_path, hybridize, train):
    # batch statistics over few values amplify rounding (2x32x32 inputs leave 2 values per channel in the
    # last BatchNorm: float32 on either path then differs from float64 by 3e-3); 4x64x64 leaves 16
    shape = (4, 3, 64, 64) if train else (2, 3, 32, 32)
    nets = _pair(lambda: vision.resnet18_v1(classes=10), shape, tmp_path, hybridize)
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal(shape))
    head = mx.nd.array(rng.standard_normal((shape[0], 10)))
    results = {}
    for path, net in zip(("onednn", "numpy"), nets):
        with conv_path.use(path):
            results[path] = [_run(net, x, head, train) for _ in range(2)]   # the second call: cached programs
    for step in range(2):
        (out, grads), (ref_out, ref_grads) = results["onednn"][step], results["numpy"][step]
        _close(out, ref_out, f"output, call {step}")
        assert grads.keys() == ref_grads.keys()
        for name in ref_grads:
            _close(grads[name], ref_grads[name], f"gradient of {name}, call {step}")


@needs_onednn
def test_depthwise_mobilenets_forward_equal(tmp_path):
    for make, shape in ((vision.mobilenet0_25, (1, 3, 32, 32)), (vision.mobilenet_v2_0_25, (1, 3, 32, 32))):
        onednn_net, numpy_net = _pair(make, shape, tmp_path, hybridize=True)
        x = mx.nd.array(np.random.default_rng(1).standard_normal(shape))
        with conv_path.use("onednn"):
            got = onednn_net(x).asnumpy()
        with conv_path.use("numpy"):
            want = numpy_net(x).asnumpy()
        _close(got, want, make.__name__)


@needs_onednn
@pytest.mark.parametrize("path", ["onednn", "numpy"])
def test_compiled_training_keeps_columns_only_on_the_numpy_path(path):
    with conv_path.use(path):
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Conv2D(4, kernel_size=3, activation="relu"), mx.gluon.nn.Conv2D(2, kernel_size=3))
        net.initialize()
        net.hybridize()
        x = mx.nd.ones((2, 3, 8, 8))
        with mx.autograd.record():
            y = net(x)
        y.backward()
        plan = net.cached_op.backward_plan()
    kept = [name for name in plan.kept_workspaces if "conv" in name]
    assert ("_Convolution_columns(" in plan.forward.source) == (path == "numpy")
    assert len(kept) == (2 if path == "numpy" else 0)
    if path == "onednn":     # the weight gradients come from the data, on oneDNN's backward-weights primitive
        assert "_backward_Convolution_weight(" in plan.backward.source


@needs_onednn
def test_backward_weights_with_bias_and_backward_data_match_numpy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)
    og = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    geom = dnnl.Geometry(stride=(2, 2), dilate=(1, 1), pad_l=(1, 1), pad_r=(1, 1), groups=2)
    dw, db, dx = np.empty_like(w), np.empty(6, np.float32), np.empty_like(x)
    assert dnnl.backward_weights(x, og, dw, db, geom)
    assert dnnl.backward_data(og, w, dx, geom)
    attrs = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=6, num_group=2, no_bias=True)
    with conv_path.use("numpy"):
        want_dw = mx.nd._backward_Convolution_weight(mx.nd.array(og), mx.nd.array(x), **attrs).asnumpy()
        want_dx = mx.nd.Deconvolution(mx.nd.array(og), mx.nd.array(w), adj=(0, 1),
                                      **{**attrs, "num_filter": 4}).asnumpy()
    _close(dw, want_dw, "weight gradient", rtol=1e-4)
    _close(db, og.sum(axis=(0, 2, 3)), "bias gradient", rtol=1e-4)
    _close(dx, want_dx, "data gradient", rtol=1e-4)


@needs_onednn
def test_channel_last_and_3d_take_the_onednn_path(monkeypatch):
    calls = []
    monkeypatch.setattr(dnnl, "forward", lambda *args, _fn=dnnl.forward: calls.append(_fn(*args)) or calls[-1])
    rng = np.random.default_rng(3)
    for x_shape, w_shape, attrs in (((2, 7, 6, 5), (4, 3, 3, 5), dict(kernel=(3, 3), layout="NHWC")),
                                    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 3), dict(kernel=(2, 3, 3), dilate=(1, 2, 1)))):
        x, w = mx.nd.array(rng.standard_normal(x_shape)), mx.nd.array(rng.standard_normal(w_shape))
        outs = []
        for path in ("onednn", "numpy"):
            with conv_path.use(path):
                outs.append(mx.nd.Convolution(x, w, num_filter=w_shape[0], no_bias=True, **attrs).asnumpy())
        _close(outs[0], outs[1], str(attrs), rtol=1e-4)
    assert calls == [True, True]             # oneDNN computed both (no NumPy fallback)
    plan = dnnl.plan_info("forward", ((2, 7, 6, 5), (4, 3, 3, 5), (2, 5, 4, 4)),
                          conv_path.geometry((1, 1), (1, 1), (0, 0), 1), channel_last=True)
    assert repr(plan).startswith("<dnnl Plan forward ")


def test_float64_and_unknown_paths():
    x, w = mx.nd.ones((1, 1, 3, 3), dtype="float64"), mx.nd.ones((1, 1, 3, 3), dtype="float64")
    for path in conv_path.available_paths():     # float64 on the CPU takes NumPy on every path
        with conv_path.use(path):
            y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=1, no_bias=True)
        assert y.dtype == np.float64 and y.asnumpy().item() == 9.0
    with pytest.raises(mx.MXNetError, match=r"expected a convolution path in \('numpy', 'onednn', 'cudnn'\), got 'mkl'"):
        conv_path.set_path("mkl")
    assert conv_path.current() in conv_path.PATHS


def test_missing_library_is_reported(monkeypatch):
    from hybridlab.ops.dnnl import library
    monkeypatch.setitem(library._state, "lib", None)        # (the binding's call reads this dict)
    monkeypatch.setitem(library._state, "error", None)
    monkeypatch.setenv(library.ENV_LIB, "/no/such/libdnnl.so")
    assert library.load() is None
    assert "HYBRIDLAB_DNNL_LIB=/no/such/libdnnl.so" in library.load_error()
    with pytest.raises(mx.MXNetError, match="oneDNN not loaded"):
        library.call("dnnl_stream_wait", None)




@needs_onednn
@pytest.mark.parametrize("name", zoo_params())
def test_every_model_zoo_net_same_outputs_and_gradients_on_both_paths(name):
    shape = zoo_input_shape(name)
    mx.random.seed(7)
    net = vision.get_model(name, classes=10)
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(4)
    x = mx.nd.array(rng.standard_normal(shape))
    head = mx.nd.array(rng.standard_normal((1, 10)))
    results = {}
    for path in ("onednn", "numpy"):     # one net (same parameters), compiled again on each path
        net.hybridize()
        with conv_path.use(path):
            results[path] = _run(net, x, head, train=False)   # predict mode: no dropout, running statistics
    (out, grads), (ref_out, ref_grads) = results["onednn"], results["numpy"]
    _close(out, ref_out, f"{name} output")
    assert grads.keys() == ref_grads.keys() and grads
    for key in ref_grads:
        _close(grads[key], ref_grads[key], f"{name} gradient of {key}")


@needs_onednn
@pytest.mark.parametrize("shape, attrs", [
    # (16 channels: a whole block of oneDNN's layout on AVX2 CPUs, 8, and on AVX-512 ones, 16)
    ((2, 16, 9, 9), {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}),          # ResNet's stem pooling
    ((2, 16, 7, 7), {"kernel": (2, 2), "stride": (1, 1), "pooling_convention": "full"}),
    ((1, 16, 5, 5, 5), {"kernel": (2, 2, 2), "stride": (1, 1, 1)}),
], ids=["3x3_stride2_pad1", "2x2_full", "3d"])
def test_max_pooling_gradient_on_the_onednn_path_routes_ties_as_numpy(shape, attrs, monkeypatch):
    """``_backward_Pooling`` (max) runs oneDNN's jit pooling backward on the oneDNN path: every window's
    gradient goes to its first maximum, as MXNet's (relu'd data: most windows tie at 0)."""
    from hybridlab.ops.dnnl import pooling as dnnl_pooling
    calls = []
    original = dnnl_pooling.max_backward
    monkeypatch.setattr(dnnl_pooling, "max_backward", lambda *a: calls.append(original(*a)) or calls[-1])
    rng = np.random.RandomState(0)
    x = mx.nd.array(np.maximum(rng.randn(*shape), 0).astype("float32"))
    head = None
    grads = {}
    for path in ("numpy", "onednn"):
        x.attach_grad()
        with conv_path.use(path):
            with mx.autograd.record():
                y = mx.nd.Pooling(x, pool_type="max", **attrs)
                head = mx.nd.array(rng.randn(*y.shape)) if head is None else head
                loss = (y * head).sum()
            loss.backward()
        grads[path] = x.grad.asnumpy()
    assert calls == [True]
    np.testing.assert_allclose(grads["onednn"], grads["numpy"], rtol=1e-5, atol=1e-6)


@needs_onednn
@pytest.mark.parametrize("nan", [False, True], ids=["ties", "nan"])
def test_training_2x2_max_pooling_on_the_onednn_path_equals_numpy_bit_for_bit(nan, monkeypatch):
    """The 2x2 max pooling of compiled training steps (``_Pooling_first_max``) runs oneDNN's jit pooling
    on the oneDNN path and gives NumPy's output and first-maximum codes bit for bit on data full of
    ties; data holding NaN stays on NumPy (which propagates it; oneDNN would skip it)."""
    from hybridlab.ndarray.dispatch import op_context
    from hybridlab.ops import pool
    from hybridlab.ops.dnnl import pooling as dnnl_pooling
    from hybridlab.ops.registry import get_op
    calls = []
    original = dnnl_pooling.first_max_forward
    monkeypatch.setattr(dnnl_pooling, "first_max_forward", lambda *a: calls.append(original(*a)) or calls[-1])
    x = np.maximum(np.random.RandomState(1).randint(-2, 3, (8, 16, 16, 16)), 0).astype(np.float32)   # relu'd: ties
    assert x.size >= pool.FIRST_MAX_ONEDNN_MIN
    if nan:
        x[3, 5, 7, 2] = np.nan
    op = get_op("_Pooling_first_max")
    a = op.parse_attrs({"kernel": (2, 2), "stride": (2, 2)})
    outs = {}
    for path in ("numpy", "onednn"):
        with conv_path.use(path):
            outs[path] = op.compute(op_context(mx.cpu(), True), a, x)
    assert calls == ([] if nan else [True])
    for got, want in zip(outs["onednn"], outs["numpy"]):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@needs_onednn
def test_onednn_runs_on_new_arrays_reused_arrays_and_from_threads_give_their_own_results():
    """oneDNN runs share one reorder workspace and skip the library call when an argument's buffer is
    the one already set: a convolution on new arrays, on the same arrays again, and from four threads
    at once (runs take turns under the plan lock) each gives its own inputs' result."""
    import threading
    rng = np.random.default_rng(3)
    w = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
    geom = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(1, 1), pad_r=(1, 1), groups=1)
    xs = [rng.standard_normal((2, 8, 10, 10)).astype(np.float32) for _ in range(4)]
    with conv_path.use("numpy"):
        wants = [mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), kernel=(3, 3), pad=(1, 1), num_filter=16,
                                   no_bias=True).asnumpy() for x in xs]

    def conv(x, y):
        assert dnnl.forward(x, w, None, y, geom)
        return y

    same_out = np.empty((2, 16, 10, 10), np.float32)
    for x, want in [*zip(xs, wants), (xs[0], wants[0]), (xs[0], wants[0])]:
        _close(conv(x, np.empty_like(same_out)), want, "new output array")
        _close(conv(x, same_out), want, "the same output array again")
    got, errors = [None] * 4, []

    def worker(k):
        try:
            for _ in range(20):
                got[k] = conv(xs[k], np.empty_like(same_out)).copy()
        except Exception as err:      # noqa: BLE001 - reported below
            errors.append(err)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        _close(got[k], wants[k], f"thread {k}")
