"""Max pooling that hands each window's first-maximum position to its gradient (compiled training).

Max pooling's gradient finds every window's first maximum again from the data. In a compiled
training step a ``Pooling`` over 2x2 windows with stride 2 that tile its channel-first input may run
``_Pooling_first_max`` instead (``train_variant`` in the registry; the pass is
``compiler.passes.train_variants``): the same output, plus the position code of each window's first
maximum (``ops/pool.first_max_2x2``: one byte per window, a quarter of the data's elements) as a
hidden output, from which ``_backward_Pooling_first_max`` writes the gradient without reading the
data. LeNet's two pooling layers at batch 64, forward + backward: 336 -> 259 us and 209 -> 163 us.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ndarray.dispatch import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> fwd, bwd = get_op("_Pooling_first_max"), get_op("_backward_Pooling_first_max")
    >>> a = fwd.parse_attrs({"kernel": "(2, 2)", "stride": "(2, 2)"})
    >>> x = np.array([[[[1, 5], [5, 2]]]], np.float32)
    >>> out, code = fwd.compute(op_context(mx.cpu(), True), a, x)
    >>> out.ravel().tolist(), code.ravel().tolist()     # 5 first at the top right
    ([5.0], [1])
    >>> bwd.compute(op_context(mx.cpu(), True), a, np.ones_like(out), code).ravel().tolist()
    [0.0, 1.0, 0.0, 0.0]
"""
import numpy as np

from ..base import MXNetError
from .bf16 import via_float32
from .conv import split_shape
from .infer import InferError
from .pool import POOL_BOUNDS, _POOL_ATTRS, _kind, first_max, first_max_applies, grad_from_first_max
from .registry import OpDef, register

__all__ = []


def _check(a, shape, name):
    if not first_max_applies(a, [tuple(shape)]):
        raise MXNetError(f"{name}: expected max pooling of channel-first 4-D data with 2x2 windows and stride 2 "
                         f"tiling it, got pool_type={a['pool_type']!r}, kernel={a['kernel']}, stride={a['stride']}, "
                         f"pad={a['pad']}, layout={a['layout']} on {tuple(shape)}")


def _compute(ctx, a, data):
    _check(a, data.shape, "_Pooling_first_max")
    return first_max(ctx.xp, data)


def _infer(a, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None, None]
    _check(a, data, "_Pooling_first_max")
    n, c, (h, w) = split_shape(data, False)
    return [(n, c, h // 2, w // 2)] * 2


def _types(a, dtypes):
    return [dtypes[0], np.dtype(np.uint8)]


def _grad(F, a, inputs, outputs, ograds):
    return [F._backward_Pooling_first_max(ograds[0], outputs[1], **a)]


register(OpDef(
    "_Pooling_first_max", attrs=_POOL_ATTRS, bounds=POOL_BOUNDS, compute=via_float32(_compute, _types),
    infer_shape=_infer, infer_type=_types, grad=_grad, family="pool", hidden=True,
    num_outputs=2, num_visible=1, output_names=("output", "first_max"),
    doc="""Max pooling over 2x2 windows with stride 2 tiling channel-first data (Pooling's attributes)
that also returns each window's first-maximum position (0..3, >= 4 for NaN windows) as a hidden
uint8 output, for ``_backward_Pooling_first_max`` in compiled training programs."""))


def _backward_compute(ctx, a, ograd, first_max):
    _kind(a, "_backward_Pooling_first_max")
    return grad_from_first_max(ctx.xp, ograd, first_max)


def _backward_infer(a, in_shapes):
    og, code = in_shapes
    if og is not None and code is not None and tuple(og) != tuple(code):
        raise InferError(1, f"{tuple(og)} (one code per window, like ograd)", tuple(code))
    shape = og or code
    if shape is None:
        return [None]
    if len(shape) != 4:
        raise InferError(0, "(N, C, H, W)", tuple(shape))
    n, c, h, w = shape
    return [(n, c, 2 * h, 2 * w)]


register(OpDef(
    "_backward_Pooling_first_max", inputs=("ograd", "first_max"), attrs=_POOL_ATTRS, bounds=POOL_BOUNDS,
    compute=via_float32(_backward_compute, lambda a, d: [d[0]]),
    infer_shape=_backward_infer, infer_type=lambda a, d: [d[0]], family="pool", hidden=True,
    no_grad_reason="used only inside compiled backward programs; higher-order gradients differentiate "
                   "Pooling's own gradient (_backward_Pooling) instead",
    doc="""Gradient of 2x2 stride-2 max pooling w.r.t. its data from ``ograd`` and the first-maximum
codes ``_Pooling_first_max`` returned: ``ograd`` at each window's first maximum, 0 elsewhere."""))
