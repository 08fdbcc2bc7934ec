"""Which kernels the convolutions run. On the CPU: ``"onednn"`` (oneDNN's primitives, ``ops/dnnl``)
or ``"numpy"`` (im2col and one matrix product, ``ops/conv.py``: the reference, and the fallback). On a
GPU: ``"cudnn"`` (cuDNN's convolutions, ``ops/cudnn``) or ``"numpy"`` (the same im2col code, run by
CuPy).

The ops that follow the path are :data:`OPS`: Convolution, Deconvolution (oneDNN's convolution
backward-data primitive: a transposed convolution is the data gradient of a convolution) and the
weight gradient ``_backward_Convolution_weight`` (backward-weights primitive); their gradients are
these ops again, so training runs on the same path. ``_FusedConvolution`` (predict programs: a
Convolution with a folded BatchNorm and a relu, ``ops/conv_fused.py``) runs them as post-ops of the
same oneDNN primitive; ``_ChannelAffine`` (a BatchNorm of a predict program) and ``_LayoutReorder``
(the layout plan's moves between plain and channel-blocked layouts) and ``_BlockedPooling`` (pooling
of blocked values) run oneDNN's binary, reorder and pooling primitives; max pooling's gradient
(``_backward_Pooling``, windows that do not tile the data 2x2) runs oneDNN's pooling backward, and
the 2x2 max pooling of training programs (``_Pooling_first_max``, data of at least 16384 values
without NaN) oneDNN's pooling forward with its workspace. The oneDNN path covers float32 NumPy arrays
without zero-size dimensions; everything else (float64, float16, cases oneDNN has no implementation
for) takes NumPy. The cuDNN path covers the convolutions (:data:`GPU_OPS`; a ``_FusedConvolution``
runs cuDNN's convolution, then its affine map and relu in CuPy) of float16, float32 and float64 CuPy
arrays without zero-size dimensions, unless the op's ``cudnn_off`` is set (as in MXNet); its
algorithms follow ``cudnn_tune`` and ``workspace`` (``ops/cudnn/convolution.py``). Every path gives
the same results within the dtype's rounding.

``HYBRIDLAB_CONV=numpy|onednn`` (read on first use) picks the starting CPU path: by default oneDNN
when its library loads (``pip install 'hybridlab[fast]'``), NumPy otherwise; asking for oneDNN
when it does not load is an error. ``HYBRIDLAB_CONV_GPU=numpy|cudnn`` likewise picks the GPU path:
by default cuDNN when its library loads (``pip install 'hybridlab[gpu]'``); each GPU then takes it
only after passing a check on its first convolution (``cudnn.usable``; a GPU that fails it takes
NumPy's code, and ``cudnn.unusable_reason`` says why). :func:`use` switches within a ``with``
block, :func:`set_path` for good: ``"onednn"`` sets the CPU path, ``"cudnn"`` the GPU path, and
``"numpy"`` both (the reference everywhere). Compiled training programs decide when they are built
whether a Convolution keeps its im2col columns for the weight gradient (``_Convolution_columns``):
only on the NumPy path of the program's device (the libraries build no columns), and a program built
on one path keeps that choice.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops import conv_path
    >>> x, w = mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((2, 1, 3, 3))
    >>> outs = {}
    >>> for path in conv_path.available_paths():
    ...     with conv_path.use(path):
    ...         outs[path] = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True).asnumpy()
    >>> all(np.allclose(o, 9.0) for o in outs.values()), "numpy" in outs
    (True, True)
"""
import contextlib
import os

import numpy as np

from ..base import MXNetError
from . import cudnn, dnnl

__all__ = ["ENV", "ENV_GPU", "PATHS", "OPS", "GPU_OPS", "available_paths", "current", "current_gpu", "set_path",
           "use", "onednn_covers", "onednn_selected", "cudnn_covers", "covers", "accelerated", "geometry",
           "convolution", "deconvolution", "weight_gradient"]

ENV = "HYBRIDLAB_CONV"
ENV_GPU = "HYBRIDLAB_CONV_GPU"
PATHS = ("numpy", "onednn", "cudnn")
OPS = ("Convolution", "Deconvolution", "_backward_Convolution_weight", "_FusedConvolution", "_ChannelAffine",
       "_LayoutReorder", "_BlockedPooling", "_Pooling_first_max")
GPU_OPS = ("Convolution", "Deconvolution", "_backward_Convolution_weight", "_FusedConvolution")
_CPU_PATHS, _GPU_PATHS = ("numpy", "onednn"), ("numpy", "cudnn")

_state = {"cpu": None, "gpu": None}


def available_paths():
    """The paths this process can run: ``["numpy"]``, plus ``"onednn"`` when its library loads, plus
    ``"cudnn"`` when its library loads and CuPy sees a GPU."""
    from ..device import cupy_or_none
    return (["numpy"] + (["onednn"] if dnnl.available() else [])
            + (["cudnn"] if cudnn.available() and cupy_or_none() is not None else []))


def _checked(path, where, allowed=PATHS):
    if path not in allowed:
        raise MXNetError(f"{where}: expected a convolution path in {allowed}, got {path!r}")
    if path == "onednn" and not dnnl.available():
        raise MXNetError(f"{where}: the onednn convolution path needs oneDNN; {dnnl.load_error()}")
    if path == "cudnn" and not cudnn.available():
        raise MXNetError(f"{where}: the cudnn convolution path needs cuDNN; {cudnn.load_error()}")
    return path


def _start(kind, env, library_path, library):
    path = _state[kind]
    if path is None:
        value = os.environ.get(env, "").strip().lower()
        allowed = _CPU_PATHS if kind == "cpu" else _GPU_PATHS
        path = _checked(value, f"{env}={value}", allowed) if value else (library_path if library.available() else "numpy")
        _state[kind] = path
    return path


def current():
    """The path CPU convolutions take now (see the module docstring for the default)."""
    return _state["cpu"] or _start("cpu", ENV, "onednn", dnnl)


def current_gpu():
    """The path GPU convolutions take now: ``"cudnn"`` or ``"numpy"`` (see the module docstring)."""
    return _state["gpu"] or _start("gpu", ENV_GPU, "cudnn", cudnn)


def set_path(path):
    """Make convolutions take ``path``: ``"onednn"`` on the CPU, ``"cudnn"`` on GPUs, ``"numpy"`` on both;
    returns the previous path of the CPU (``"numpy"``, ``"onednn"``) or of the GPUs (``"cudnn"``)."""
    _checked(path, "conv_path.set_path")
    previous = current_gpu() if path == "cudnn" else current()
    if path != "cudnn":
        _state["cpu"] = path
    if path != "onednn":
        _state["gpu"] = path
    return previous


@contextlib.contextmanager
def use(path):
    """``with use("numpy"):`` convolutions take ``path`` inside the block (see :func:`set_path`)."""
    previous = (current(), current_gpu())
    set_path(path)
    try:
        yield path
    finally:
        _state["cpu"], _state["gpu"] = previous


def onednn_selected():
    """Whether CPU convolutions take the oneDNN path now."""
    return current() == "onednn"


def accelerated(device):
    """Whether convolutions on ``device`` take a library's kernels now (oneDNN on the CPU, cuDNN on a GPU
    that passed its check), so that compiled training programs keep no im2col columns there."""
    if device.is_gpu:
        return current_gpu() == "cudnn" and cudnn.usable(device.device_id)
    return onednn_selected()


def onednn_covers(xp, *arrays):
    """Whether the oneDNN path computes a call on ``arrays`` (``None`` entries ignored): it is
    selected, the arrays are NumPy float32 and none is empty."""
    if xp is not np or not onednn_selected():
        return False
    return all(a is None or (a.dtype == np.float32 and a.size) for a in arrays)


_CUDNN_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def cudnn_covers(xp, *arrays, cudnn_off=False):
    """Whether the cuDNN path computes a call on CuPy ``arrays`` (``None`` entries ignored): it is
    selected, the op's ``cudnn_off`` is not set, the arrays share one of cuDNN's dtypes, none is empty,
    and their GPU passed the check of ``cudnn.usable``."""
    if xp is np or cudnn_off or current_gpu() != "cudnn":
        return False
    first = arrays[0]
    if first.dtype not in _CUDNN_DTYPES or not all(a is None or (a.dtype == first.dtype and a.size) for a in arrays):
        return False
    return cudnn.usable(first.device.id)


def covers(xp, *arrays, cudnn_off=False):
    """Whether a library's path (oneDNN on NumPy arrays, cuDNN on CuPy ones) computes a call on ``arrays``."""
    return onednn_covers(xp, *arrays) if xp is np else cudnn_covers(xp, *arrays, cudnn_off=cudnn_off)


def geometry(stride, dilate, pad, groups):
    """The geometry of a (de)convolution with MXNet's attributes (symmetric ``pad``), as both libraries take it."""
    return dnnl.Geometry(tuple(stride), tuple(dilate), tuple(pad), tuple(pad), int(groups))


def _c(a):
    return None if a is None else np.ascontiguousarray(a)


def _cudnn_options(attrs):
    """``(cudnn_off, tune, workspace MB)`` from an op's parsed attributes (MXNet's defaults without them)."""
    if attrs is None:
        return False, None, 1024
    return bool(attrs.get("cudnn_off")), attrs.get("cudnn_tune"), attrs.get("workspace", 1024)


def _add_bias(out, bias, channel_last):
    out += bias if channel_last else bias.reshape((-1,) + (1,) * (out.ndim - 2))
    return out


def convolution(xp, data, weight, bias, geom, channel_last, out_shape, scale=None, shift=None, relu=False,
                blocks=(0, 0), out=None, cache_weights=False, attrs=None):
    """The convolution's output (``out_shape``, the data's layout) on a library's path, or ``None``
    when no library's path covers the call. On oneDNN's, ``scale``, ``shift`` (one value per filter)
    and ``relu`` run inside the primitive as post-ops: ``relu((conv + bias) * scale + shift)``;
    ``blocks``: the channel blocks of the data's and the output's layouts (``ops/blocked.py``);
    ``cache_weights``: the weights are a predict program's parameter, kept reordered between calls
    while not written (``dnnl/weight_cache.py``). cuDNN's path takes no post-ops or blocks (``None``:
    the caller computes them). ``out``: a C-contiguous array of ``out_shape`` and the data's dtype to
    write into (a static memory plan's buffer); ``attrs``: the op's parsed attributes
    (``cudnn_off``, ``cudnn_tune``, ``workspace``)."""
    if out is not None and not out.flags.c_contiguous:
        return None
    if xp is not np:
        off, tune, workspace = _cudnn_options(attrs)
        if scale is not None or relu or any(blocks) or not cudnn_covers(xp, data, weight, bias, out, cudnn_off=off):
            return None
        out = xp.empty(out_shape, data.dtype) if out is None else out
        if not cudnn.forward(data, weight, out, geom, channel_last, tune, workspace):
            return None
        return out if bias is None else _add_bias(out, bias, channel_last)
    if not onednn_covers(xp, data, weight, bias, scale, shift, out):
        return None
    out = np.empty(out_shape, np.float32) if out is None else out
    return out if dnnl.forward(_c(data), _c(weight), _c(bias), out, geom, channel_last, _c(scale), _c(shift),
                               relu, blocks, cache_weights) else None


def deconvolution(xp, data, weight, geom, channel_last, out_shape, attrs=None):
    """A Deconvolution's output without bias (``out_shape``) as the data gradient of the
    convolution from ``out_shape`` to ``data``'s shape with ``weight``, or ``None`` as above."""
    off, tune, workspace = _cudnn_options(attrs)
    if not covers(xp, data, weight, cudnn_off=off):
        return None
    out = xp.empty(out_shape, data.dtype)
    if xp is not np:
        return out if cudnn.backward_data(data, weight, out, geom, channel_last, tune, workspace) else None
    return out if dnnl.backward_data(_c(data), _c(weight), out, geom, channel_last) else None


def weight_gradient(xp, ograd, data, geom, channel_last, weight_shape, attrs=None):
    """The gradient (``weight_shape``) of a convolution of ``data`` w.r.t. its weight, for output
    gradient ``ograd``, or ``None`` as above."""
    off, tune, workspace = _cudnn_options(attrs)
    if not covers(xp, ograd, data, cudnn_off=off):
        return None
    out = xp.empty(weight_shape, data.dtype)
    if xp is not np:
        return out if cudnn.backward_filter(data, ograd, out, geom, channel_last, tune, workspace) else None
    return out if dnnl.backward_weights(_c(data), _c(ograd), out, None, geom, channel_last) else None
