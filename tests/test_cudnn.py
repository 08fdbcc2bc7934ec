"""The cuDNN binding (``ops/cudnn``) and the GPU convolution path (``ops/conv_path.py``).

Without a GPU the library still loads (``make test`` installs the ``nvidia-cudnn-cu12`` wheel): its
descriptors and output-shape query run on the host, so every geometry the binding describes is
checked against hybridlab's own shape inference here. With a GPU, the op checker runs every
convolution case on the cuDNN path (``test_ops.py::test_op_path``) and the tests at the end compare
model-zoo networks and training programs on both GPU paths."""
import ctypes

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import hybridlab as mx
from hybridlab.gluon.model_zoo import vision
from hybridlab.ops import conv_path, cudnn
from hybridlab.ops.cudnn import convolution as cudnn_conv, library
from hybridlab.ops.registry import get_op

needs_library = pytest.mark.skipif(not cudnn.available(), reason=f"cuDNN not loadable: {cudnn.load_error()}")
needs_gpu = pytest.mark.skipif(mx.num_gpus() == 0 or not cudnn.available(),
                               reason="no CUDA device (CuPy with a GPU is needed)" if mx.num_gpus() == 0
                               else f"cuDNN not loadable: {cudnn.load_error()}")


@needs_library
def test_library_loads_from_the_nvidia_wheel():
    major, minor, _, path = cudnn.version()
    assert major >= 8 and "libcudnn.so" in path
    assert library.status_name(0) == "CUDNN_STATUS_SUCCESS"


def _header_text():
    """The C declarations of the installed cuDNN's headers (the wheel ships them beside the library)."""
    import glob
    import os
    import re
    folder = os.path.join(os.path.dirname(os.path.dirname(cudnn.version()[3])), "include")
    files = [f for f in glob.glob(os.path.join(folder, "cudnn_*.h")) if not f.endswith("_v9.h") and "_v8" not in f]
    if not files:
        pytest.skip(f"no cuDNN headers beside the library in {folder}")
    return re.sub(r"/\*.*?\*/", "", "".join(open(f).read() for f in files), flags=re.S)


def _kind(param):
    if "*" in param or "[]" in param or param.split()[-2].endswith(("Descriptor_t", "Handle_t", "Stream_t")):
        return ctypes.c_void_p
    return ctypes.c_size_t if "size_t" in param else ctypes.c_int


@needs_library
def test_every_bound_function_matches_the_headers_declaration():
    import re
    text = _header_text()
    for name, argtypes in library._PROTOTYPES.items():
        found = re.search(r"\b" + name + r"\s*\(([^;]*?)\)\s*;", text)
        assert found, f"{name} is not declared in the installed cuDNN headers"
        params = [p.strip() for p in found.group(1).split(",") if p.strip()]
        want = [_kind(p) for p in params]
        got = [a if a in (ctypes.c_int, ctypes.c_size_t) else ctypes.c_void_p for a in argtypes]
        assert got == want, f"{name}: the binding's argument kinds differ from the header's {params}"


def _case(spatial, kernel, stride, dilate, pad, groups, channel_last, n=2, per_group=(2, 3)):
    """Data, weight and output shapes of a Convolution (the op's own inference) and its geometry."""
    nd = len(spatial)
    c, f = per_group[0] * groups, per_group[1] * groups
    layout = {1: None, 2: "NHWC", 3: "NDHWC"}[nd] if channel_last else None
    attrs = {"kernel": kernel, "stride": stride, "dilate": dilate, "pad": pad, "num_filter": f,
             "num_group": groups, "no_bias": True, "layout": layout}
    data = (n,) + tuple(spatial) + (c,) if channel_last else (n, c) + tuple(spatial)
    op = get_op("Convolution")
    a = op.parse_attrs({k: str(v) for k, v in attrs.items() if v is not None})
    shapes = [data, None]
    out = op.infer_shape(a, shapes)[0]
    return data, shapes[1], out, conv_path.geometry(stride, dilate, pad, groups)


def _channel_first(shape, channel_last):
    dims = (shape[0], shape[-1]) + tuple(shape[1:-1]) if channel_last else tuple(shape)
    return dims if len(dims) > 3 else dims[:2] + (1,) + dims[2:]


@st.composite
def geometries(draw):
    nd = draw(st.integers(1, 3))
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)))
    stride = tuple(draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)))
    dilate = tuple(draw(st.lists(st.integers(1, 2), min_size=nd, max_size=nd)))
    pad = tuple(draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd)))
    spatial = tuple((k - 1) * d + 1 + draw(st.integers(0, 4)) for k, d in zip(kernel, dilate))
    return spatial, kernel, stride, dilate, pad, draw(st.integers(1, 3)), nd > 1 and draw(st.booleans())


@needs_library
@settings(max_examples=60, deadline=None, derandomize=True)
@given(geometries())
@example(((9,), (3,), (2,), (2,), (1,), 1, False))                           # 1-D: lifted to height 1
@example(((5, 6), (3, 3), (1, 1), (1, 1), (1, 1), 1, True))                    # NHWC
@example(((4, 5, 6), (3, 1, 2), (2, 1, 1), (1, 2, 1), (0, 1, 1), 3, True))     # NDHWC, grouped
def test_descriptors_give_the_output_shape_hybridlab_infers(geometry):
    spatial, kernel, stride, dilate, pad, groups, channel_last = geometry
    data, weight, out, geom = _case(spatial, kernel, stride, dilate, pad, groups, channel_last)
    for dtype in ("float32", "float64", "float16"):
        (x, w, _), conv = cudnn_conv._descriptors("forward", dtype, (data, weight, out), channel_last, geom)
        assert library.forward_output_dims(conv, x, w) == _channel_first(out, channel_last)
        assert (x.dims, w.dims) == (_channel_first(data, channel_last), _channel_first(weight, channel_last))
        # the backward kinds describe the same three arrays in their functions' order
        (w2, dy, dx), _ = cudnn_conv._descriptors("backward_data", dtype, (weight, out, data), channel_last, geom)
        (x3, dy3, dw), _ = cudnn_conv._descriptors("backward_filter", dtype, (data, out, weight), channel_last, geom)
        assert (dx.dims, dy.dims, w2.dims) == (x.dims, dy3.dims, dw.dims)


@needs_library
def test_descriptor_strides_follow_the_arrays_layout():
    assert cudnn_conv._cf((2, 3, 7), False) == ([2, 3, 1, 7], [21, 7, 7, 1])          # NCW as NCHW, H = 1
    assert cudnn_conv._cf((2, 5, 6, 3), True) == ([2, 3, 5, 6], [90, 1, 18, 3])       # NHWC
    assert cudnn_conv._filter_dims((4, 3, 3, 2), True) == [4, 2, 3, 3]                # (F, kh, kw, C) -> KCRS


@needs_library
def test_a_failed_call_names_the_function_and_cudnns_status():
    with pytest.raises(cudnn.CudnnError, match=r"cuDNN cudnnSetTensorNdDescriptor failed: expected "
                       r"CUDNN_STATUS_SUCCESS, got CUDNN_STATUS_BAD_PARAM.*\(tensor float32 dims \(2, -3, 4, 4\)"):
        library.TensorDesc("float32", (2, -3, 4, 4), (48, 16, 4, 1))
    assert issubclass(cudnn.CudnnError, mx.MXNetError)


@needs_library
@pytest.mark.skipif(mx.num_gpus() > 0, reason="checks the machine without a GPU")
def test_without_a_gpu_no_device_takes_cudnn(monkeypatch):
    monkeypatch.setattr(cudnn_conv, "_usable", {})
    with pytest.warns(RuntimeWarning, match="cuDNN is not used on GPU 0: .*its convolutions run the im2col code"):
        assert not cudnn.usable(0)
    assert cudnn.unusable_reason(0)
    assert not conv_path.accelerated(mx.gpu(0))
    assert "cudnn" not in conv_path.available_paths()


def test_missing_library_is_reported(monkeypatch):
    monkeypatch.setitem(library._state, "lib", None)        # (the binding's call reads this dict)
    monkeypatch.setitem(library._state, "error", None)
    monkeypatch.setenv(library.ENV_LIB, "/no/such/libcudnn.so.9")
    assert not cudnn.available()
    assert cudnn.load_error().startswith(f"cuDNN not loaded from {library.ENV_LIB}=/no/such/libcudnn.so.9")
    monkeypatch.setattr(conv_path, "_state", {"cpu": None, "gpu": None})
    with pytest.raises(mx.MXNetError, match="the cudnn convolution path needs cuDNN; cuDNN not loaded"):
        conv_path.set_path("cudnn")
    assert conv_path.current_gpu() == "numpy"            # the default falls back


def test_paths_per_device_and_the_environment(monkeypatch):
    monkeypatch.setattr(conv_path, "_state", {"cpu": "numpy", "gpu": "numpy"})
    if cudnn.available():
        with conv_path.use("cudnn"):
            assert (conv_path.current(), conv_path.current_gpu()) == ("numpy", "cudnn")
            with conv_path.use("numpy"):              # the reference on both
                assert (conv_path.current(), conv_path.current_gpu()) == ("numpy", "numpy")
            assert conv_path.current_gpu() == "cudnn"
    assert (conv_path.current(), conv_path.current_gpu()) == ("numpy", "numpy")
    monkeypatch.setattr(conv_path, "_state", {"cpu": None, "gpu": None})
    monkeypatch.setenv(conv_path.ENV_GPU, "onednn")
    with pytest.raises(mx.MXNetError, match=r"HYBRIDLAB_CONV_GPU=onednn: expected a convolution path in "
                                            r"\('numpy', 'cudnn'\), got 'onednn'"):
        conv_path.current_gpu()
    monkeypatch.setenv(conv_path.ENV_GPU, "numpy")
    assert conv_path.current_gpu() == "numpy"


def test_cudnn_attributes_are_documented_and_parsed():
    a = get_op("Convolution").parse_attrs({"kernel": "(3, 3)", "num_filter": "2", "cudnn_off": "True",
                                           "cudnn_tune": "fastest", "workspace": "64"})
    assert conv_path._cudnn_options(a) == (True, "fastest", 64)
    assert conv_path._cudnn_options(None) == (False, None, 1024)
    assert cudnn_conv._tune("off") == "off"
    for env, want in (("0", "off"), ("1", "limited_workspace"), ("2", "fastest")):
        with pytest.MonkeyPatch.context() as m:
            m.setenv(cudnn_conv.ENV_AUTOTUNE, env)
            assert cudnn_conv._tune(None) == want


def test_float32_never_takes_tf32():
    perf = (library._Perf * 3)()
    for p, (algo, math, memory) in zip(perf, ((1, library.TENSOR_OP_MATH, 0), (2, library.FMA_MATH, 10 << 20),
                                               (3, library.DEFAULT_MATH, 0))):
        p.algo, p.status, p.mathType, p.memory = algo, 0, math, memory
    assert [p.algo for p in cudnn_conv._candidates(perf, 3, 1 << 30, "float32")] == [2, 3]
    assert [p.algo for p in cudnn_conv._candidates(perf, 3, 1 << 20, "float32")] == [3]     # workspace limit
    assert [p.algo for p in cudnn_conv._candidates(perf, 3, 1 << 30, "float16")] == [1, 2, 3]
    assert ctypes.sizeof(library._Perf) == 48           # cudnnConvolutionFwdAlgoPerf_t on 64-bit Linux


# ---- on a GPU ----------------------------------------------------------------------------------------------
def _close(got, want, what, rtol=1e-3):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def _outputs_and_grads(net, x, head, train):
    with mx.autograd.record(train_mode=train):
        loss = (net(x) * head).sum()
    loss.backward()
    return [loss.asnumpy()] + [p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"]


@needs_gpu
@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_resnet18_same_outputs_and_gradients_on_both_gpu_paths(tmp_path, hybridize):
    assert cudnn.usable(0), cudnn.unusable_reason(0)
    results = []
    for path in ("cudnn", "numpy"):
        with mx.gpu(0), conv_path.use(path):
            with mx.name.NameManager():
                net = vision.resnet18_v1(classes=10)
            mx.random.seed(7)
            net.initialize(mx.init.Xavier(), device=mx.gpu(0))
            if hybridize:
                net.hybridize()
            rng = np.random.default_rng(0)
            x = mx.nd.array(rng.standard_normal((4, 3, 64, 64)), device=mx.gpu(0))
            head = mx.nd.array(rng.standard_normal((4, 10)), device=mx.gpu(0))
            results.append(_outputs_and_grads(net, x, head, train=True))
    for i, (got, want) in enumerate(zip(*results)):
        _close(got, want, f"value {i} differs between cuDNN and the im2col path")


@needs_gpu
@pytest.mark.parametrize("path", ["cudnn", "numpy"])
def test_gpu_training_programs_keep_columns_only_on_the_numpy_path(path):
    with mx.gpu(0), conv_path.use(path):
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Conv2D(4, kernel_size=3, activation="relu"), mx.gluon.nn.Conv2D(2, kernel_size=3))
        net.initialize(device=mx.gpu(0))
        net.hybridize()
        with mx.autograd.record():
            y = net(mx.nd.ones((2, 3, 8, 8), ctx=mx.gpu(0)))
        y.backward()
        plan = net.cached_op.backward_plan()
    assert ("_Convolution_columns(" in plan.forward.source) == (path == "numpy")
    assert len([name for name in plan.kept_workspaces if "conv" in name]) == (2 if path == "numpy" else 0)


@needs_gpu
def test_cudnn_off_keeps_a_convolution_off_cudnn(monkeypatch):
    calls = []
    monkeypatch.setattr(cudnn, "forward", lambda *a, **k: calls.append(1) or cudnn_conv.forward(*a, **k))
    x, w = mx.nd.ones((1, 1, 4, 4), ctx=mx.gpu(0)), mx.nd.ones((2, 1, 3, 3), ctx=mx.gpu(0))
    with conv_path.use("cudnn"):
        off = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True, cudnn_off=True)
        on = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True, cudnn_tune="off")
    assert len(calls) == 1 and np.allclose(off.asnumpy(), 9.0) and np.allclose(on.asnumpy(), 9.0)


@needs_gpu
@pytest.mark.parametrize("dtype, tol", [("float16", 2e-2), ("float64", 1e-10)])
def test_half_and_double_convolutions_on_cudnn(dtype, tol):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 4, 9, 9)), rng.standard_normal((6, 2, 3, 3))
    attrs = dict(kernel=(3, 3), stride=(2, 1), pad=(1, 1), num_filter=6, num_group=2, no_bias=True)
    want = mx.nd.Convolution(mx.nd.array(x, dtype="float64"), mx.nd.array(w, dtype="float64"), **attrs).asnumpy()
    with conv_path.use("cudnn"):
        got = mx.nd.Convolution(mx.nd.array(x, ctx=mx.gpu(0), dtype=dtype), mx.nd.array(w, ctx=mx.gpu(0), dtype=dtype),
                                **attrs)
    assert got.dtype == np.dtype(dtype)
    _close(got.asnumpy().astype(np.float64), want, f"{dtype} convolution on cuDNN", rtol=tol)
    assert any(f"forward plan {dtype}: algorithm" in plan for plan in cudnn.plan_info())


@needs_gpu
def test_every_cudnn_tune_setting_gives_the_same_convolution(monkeypatch):
    rng = np.random.default_rng(4)
    x = mx.nd.array(rng.standard_normal((2, 3, 16, 16)), ctx=mx.gpu(0))
    w = mx.nd.array(rng.standard_normal((8, 3, 3, 3)), ctx=mx.gpu(0))
    outs, calls = {}, []
    monkeypatch.setattr(cudnn, "forward", lambda *a, **k: calls.append(a[-2]) or cudnn_conv.forward(*a, **k))
    with conv_path.use("cudnn"):
        for tune in ("off", "limited_workspace", "fastest", None):
            outs[tune] = mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True,
                                           cudnn_tune=tune, workspace=16).asnumpy()
    assert calls == ["off", "limited_workspace", "fastest", None]        # each computed by cuDNN
    for tune, out in outs.items():
        _close(out, outs["off"], f"cudnn_tune={tune}", rtol=1e-4)


@needs_gpu
def test_views_off_the_allocation_alignment_are_computed_by_cudnn(monkeypatch):
    import cupy
    calls = []
    monkeypatch.setattr(cudnn, "forward", lambda *a, **k: calls.append(cudnn_conv.forward(*a, **k)) or calls[-1])
    rng = np.random.default_rng(5)
    x = cupy.asarray(rng.standard_normal((3, 2, 7, 7)), np.float32)[1:]          # starts 392 bytes in
    w = cupy.asarray(rng.standard_normal((4, 2, 3, 3)), np.float32)
    out = cupy.empty(1 + 2 * 4 * 5 * 5, np.float32)[1:].reshape(2, 4, 5, 5)      # starts 4 bytes in
    geom = conv_path.geometry((1, 1), (1, 1), (0, 0), 1)
    with conv_path.use("cudnn"):
        assert conv_path.convolution(cupy, x, w, None, geom, False, out.shape, out=out) is out
    want = mx.nd.Convolution(mx.nd.array(cupy.asnumpy(x)), mx.nd.array(cupy.asnumpy(w)), kernel=(3, 3), num_filter=4,
                             no_bias=True).asnumpy()
    _close(cupy.asnumpy(out), want, "a convolution of misaligned views")
    assert calls == [True]


@needs_gpu
def test_a_refused_algorithm_or_a_failed_measurement_falls_back(monkeypatch):
    """cuDNN may refuse a case only when the chosen algorithm runs (NOT_SUPPORTED), or fail while measuring
    the candidates of cudnn_tune: the first leaves the case to the im2col code (remembered: cuDNN is not
    asked again), the second keeps the heuristics' algorithm; both give the reference's result."""
    assert cudnn.usable(0)                     # (checked before any call fails on purpose)
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((4, 3, 3, 3))
    want = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), kernel=(3, 3), num_filter=4, no_bias=True).asnumpy()
    real_call, failing, calls = library.call, set(), []

    def call(name, *args, detail=""):
        calls.append(name)
        if name in failing:
            raise library.CudnnError(name, 3000)          # CUDNN_STATUS_NOT_SUPPORTED
        return real_call(name, *args, detail=detail)
    monkeypatch.setattr(library, "call", call)
    gx, gw = mx.nd.array(x, ctx=mx.gpu(0)), mx.nd.array(w, ctx=mx.gpu(0))
    for failed, tune in (("cudnnConvolutionForward", "off"), ("cudnnFindConvolutionForwardAlgorithmEx", "fastest")):
        cudnn_conv.clear_cache()
        failing.add(failed)
        with conv_path.use("cudnn"):
            for _ in range(2):
                calls.clear()
                got = mx.nd.Convolution(gx, gw, kernel=(3, 3), num_filter=4, no_bias=True, cudnn_tune=tune)
                _close(got.asnumpy(), want, f"{failed} failing")
        if failed == "cudnnConvolutionForward":
            assert "cudnnConvolutionForward" not in calls and "no algorithm" in cudnn.plan_info()[-1]
        else:
            assert "cudnnConvolutionForward" in calls and "algorithm" in cudnn.plan_info()[-1]
        failing.clear()
