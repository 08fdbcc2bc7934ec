"""Every registered op passes the shared checker (op_checker.py) on every available device, and
every kernel path (NumPy, accelerated, GPU) runs the same cases: ``test_op`` runs the NumPy path on
the CPU (and the GPU), ``test_op_path`` the libraries' paths (oneDNN on the CPU, cuDNN on a GPU) on
the cases of the ops they serve."""
import pytest

import hybridlab as mx
from hybridlab.ops import conv_path, cudnn, dnnl
from hybridlab.ops.dnnl import channel_affine as dnnl_channel_affine, layout as dnnl_layout, pooling as dnnl_pooling
from hybridlab.ops.registry import all_ops

from op_cases import all_cases
from op_checker import check_forward, check_gradient, check_inference, check_same_gradients

CASES = all_cases()
NO_GPU = "no CUDA device (CuPy with a GPU is needed for gpu op checks)"
DEVICES = [pytest.param(mx.cpu(), id="cpu"),
           pytest.param(mx.gpu(0), id="gpu", marks=pytest.mark.skipif(mx.num_gpus() == 0, reason=NO_GPU))]
# the libraries' paths (skipped, with the reason, where their library or device is missing), the ops
# following each and the device each runs on
PATHS = [pytest.param("onednn", marks=pytest.mark.skipif(
    "onednn" not in conv_path.available_paths(),
    reason=f"oneDNN convolution path not available: {dnnl.load_error()}"), id="onednn"),
    pytest.param("cudnn", marks=pytest.mark.skipif(
        mx.num_gpus() == 0 or not cudnn.available(),
        reason=NO_GPU if mx.num_gpus() == 0 else f"cuDNN convolution path not available: {cudnn.load_error()}"),
        id="cudnn")]
PATH_OPS = {"onednn": conv_path.OPS, "cudnn": conv_path.GPU_OPS}
PATH_DEVICE = {"onednn": mx.cpu, "cudnn": mx.gpu}
PATH_CASES = [c for c in CASES if any(c.op in ops for ops in PATH_OPS.values())]


def test_every_registered_op_has_a_case():
    covered = {c.op for c in CASES}
    missing = sorted(op.name for op in all_ops() if op.name not in covered)
    assert not missing, f"registered ops without an op-checker case: {missing}"


def test_cases_name_registered_ops():
    names = {op.name for op in all_ops()}
    unknown = sorted({c.op for c in CASES} - names)
    assert not unknown, f"cases for ops that are not registered under that canonical name: {unknown}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(case, device):
    with conv_path.use("numpy"):        # the reference path; test_op_path runs the accelerated ones
        inputs, outs = check_forward(case, device)
        check_inference(case, inputs, outs)
        check_gradient(case, device)


@pytest.fixture
def library_calls(monkeypatch):
    """Results of the library calls made during a test (True: computed, False: no implementation,
    so NumPy's code ran): oneDNN's convolutions, layout reorders, channel affine maps and pooling,
    cuDNN's convolutions."""
    calls = []
    for module, name in ((dnnl, "forward"), (dnnl, "backward_data"), (dnnl, "backward_weights"),
                         (dnnl_layout, "reorder"), (dnnl_channel_affine, "forward"), (dnnl_pooling, "forward"),
                         (dnnl_pooling, "first_max_forward"), (cudnn, "forward"), (cudnn, "backward_data"),
                         (cudnn, "backward_filter")):
        def spy(*args, _fn=getattr(module, name), **kwargs):
            calls.append(_fn(*args, **kwargs))
            return calls[-1]
        monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", PATH_CASES, ids=[c.id for c in PATH_CASES])
def test_op_path(case, path, library_calls):
    if case.op not in PATH_OPS[path]:
        pytest.skip(f"{case.op} does not follow the {path} path")
    device = PATH_DEVICE[path]()
    with conv_path.use(path):
        inputs, outs = check_forward(case, device)
        check_inference(case, inputs, outs)
    assert library_calls and all(library_calls), f"{case.id}: the {path} path did not compute the call"
    check_same_gradients(case, device, lambda: conv_path.use(path), lambda: conv_path.use("numpy"))
    assert all(library_calls), f"{case.id}: the {path} path fell back to NumPy in the gradient"
    if path == "cudnn":              # cuDNN computes float64 too: the numerical gradients on its path
        with conv_path.use(path):
            check_gradient(case, device)
