"""Which kernels the CPU convolutions run: ``"onednn"`` (oneDNN's primitives, ``ops/dnnl``) or
``"numpy"`` (im2col and one matrix product, ``ops/conv.py``: the reference, and the fallback).

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
without zero-size dimensions; everything else (float64, float16, CuPy arrays, cases oneDNN has no
implementation for) takes NumPy. Both paths give the same results within float32 rounding.

``HYBRIDLAB_CONV=numpy|onednn`` (read on first use) picks the starting path: by default oneDNN
when its library loads (``pip install 'hybridlab[fast]'``), NumPy otherwise; asking for oneDNN
when it does not load is an error. :func:`use` switches within a ``with`` block, :func:`set_path`
for good. Compiled training programs decide when they are built whether a Convolution keeps its
im2col columns for the weight gradient (``_Convolution_columns``): only on the NumPy path (oneDNN
builds no columns), and a program built on one path keeps that choice. The choice sees no device:
while the oneDNN path is selected, GPU training steps rebuild their columns too.

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
from . import dnnl

__all__ = ["ENV", "PATHS", "OPS", "available_paths", "current", "set_path", "use", "onednn_covers",
           "onednn_selected", "geometry", "convolution", "deconvolution", "weight_gradient"]

ENV = "HYBRIDLAB_CONV"
PATHS = ("numpy", "onednn")
OPS = ("Convolution", "Deconvolution", "_backward_Convolution_weight", "_FusedConvolution", "_ChannelAffine",
       "_LayoutReorder", "_BlockedPooling", "_Pooling_first_max")

_state = {"path": None}


def available_paths():
    """The paths this process can run: ``["numpy"]``, plus ``"onednn"`` when its library loads."""
    return ["numpy"] + (["onednn"] if dnnl.available() else [])


def _checked(path, where):
    if path not in PATHS:
        raise MXNetError(f"{where}: expected a convolution path in {PATHS}, got {path!r}")
    if path == "onednn" and not dnnl.available():
        raise MXNetError(f"{where}: the onednn convolution path needs oneDNN; {dnnl.load_error()}")
    return path


def current():
    """The path CPU convolutions take now (see the module docstring for the default)."""
    path = _state["path"]
    if path is None:
        env = os.environ.get(ENV, "").strip().lower()
        path = _checked(env, f"{ENV}={env}") if env else ("onednn" if dnnl.available() else "numpy")
        _state["path"] = path
    return path


def set_path(path):
    """Make CPU convolutions take ``path`` (``"numpy"`` or ``"onednn"``); returns the previous path."""
    previous = current()
    _state["path"] = _checked(path, "conv_path.set_path")
    return previous


@contextlib.contextmanager
def use(path):
    """``with use("numpy"):`` CPU convolutions take ``path`` inside the block."""
    previous = set_path(path)
    try:
        yield path
    finally:
        _state["path"] = previous


def onednn_selected():
    """Whether CPU convolutions take the oneDNN path now."""
    return current() == "onednn"


def onednn_covers(xp, *arrays):
    """Whether the oneDNN path computes a call on ``arrays`` (``None`` entries ignored): it is
    selected, the arrays are NumPy float32 and none is empty."""
    if xp is not np or not onednn_selected():
        return False
    return all(a is None or (a.dtype == np.float32 and a.size) for a in arrays)


def geometry(stride, dilate, pad, groups):
    """The oneDNN geometry of a (de)convolution with MXNet's attributes (symmetric ``pad``)."""
    return dnnl.Geometry(tuple(stride), tuple(dilate), tuple(pad), tuple(pad), int(groups))


def _c(a):
    return None if a is None else np.ascontiguousarray(a)


def convolution(xp, data, weight, bias, geom, channel_last, out_shape, scale=None, shift=None, relu=False,
                blocks=(0, 0), out=None, cache_weights=False):
    """The convolution's output (``out_shape``, the data's layout) on the oneDNN path, or ``None``
    when that path does not cover the call. ``scale``, ``shift`` (one value per filter) and
    ``relu`` run inside the primitive as post-ops: ``relu((conv + bias) * scale + shift)``.
    ``blocks``: the channel blocks of the data's and the output's layouts (``ops/blocked.py``);
    ``out``: a C-contiguous float32 array of ``out_shape`` to write into (a static memory plan's buffer);
    ``cache_weights``: the weights are a predict program's parameter, kept reordered between calls
    while not written (``dnnl/weight_cache.py``)."""
    if not onednn_covers(xp, data, weight, bias, scale, shift, out) or (out is not None and not out.flags.c_contiguous):
        return None
    out = np.empty(out_shape, np.float32) if out is None else out
    return out if dnnl.forward(_c(data), _c(weight), _c(bias), out, geom, channel_last, _c(scale), _c(shift),
                               relu, blocks, cache_weights) else None


def deconvolution(xp, data, weight, geom, channel_last, out_shape):
    """A Deconvolution's output without bias (``out_shape``) as the data gradient of the
    convolution from ``out_shape`` to ``data``'s shape with ``weight``, or ``None`` as above."""
    if not onednn_covers(xp, data, weight):
        return None
    out = np.empty(out_shape, np.float32)
    return out if dnnl.backward_data(_c(data), _c(weight), out, geom, channel_last) else None


def weight_gradient(xp, ograd, data, geom, channel_last, weight_shape):
    """The gradient (``weight_shape``) of a convolution of ``data`` w.r.t. its weight, for output
    gradient ``ograd``, or ``None`` as above."""
    if not onednn_covers(xp, ograd, data):
        return None
    out = np.empty(weight_shape, np.float32)
    return out if dnnl.backward_weights(_c(data), _c(ograd), out, None, geom, channel_last) else None
