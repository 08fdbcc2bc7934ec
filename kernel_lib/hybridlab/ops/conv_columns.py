"""Convolution that hands its column matrix to its weight gradient (compiled training programs).

A convolution multiplies its weights with a column matrix built from the data (``conv._im2col``),
and its weight gradient builds the same matrix again from the same data. In a compiled training step
the cached op may run ``_Convolution_columns`` instead of ``Convolution``: the same output, plus the
columns as a hidden second output, which the backward program passes to
``_backward_Convolution_weight_columns`` instead of rebuilding them. That trades memory (the columns
hold C/num_group * prod(kernel) values per output position) for one im2col per layer and step; the
pass ``compiler.passes.train_variants`` makes the trade within a memory budget.

The columns are ``(num_group, C/num_group * prod(kernel), N * prod(G))``: rows in (channel, kernel
position) order, columns in (sample, grid position) order. The grid G is the output, or, for a
stride-1 convolution whose padded rows are barely wider than its output rows, the output rows by the
padded input's full rows (``conv._grid``); the weight gradient multiplies the extra positions by zero.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ndarray.dispatch import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> conv, wgrad = get_op("_Convolution_columns"), get_op("_backward_Convolution_weight_columns")
    >>> a = conv.parse_attrs({"kernel": "(2, 2)", "num_filter": "1", "no_bias": "True"})
    >>> x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)
    >>> out, cols = conv.compute(op_context(mx.cpu(), True), a, x, w)
    >>> out.ravel().tolist(), cols.shape
    ([4.0, 4.0, 4.0, 4.0], (1, 4, 6))
    >>> wgrad.compute(op_context(mx.cpu(), True), a, np.ones_like(out), cols).ravel().tolist()
    [4.0, 4.0, 4.0, 4.0]
"""
from .bf16 import via_float32
from .conv import (CONV_BOUNDS, _CONV_ATTRS, _conv_geometry, _conv_infer, _dilated, _grid, _padded, _with_bias,
                   channel_last, conv_and_columns, conv_grads, conv_params, join_shape, split_shape,
                   weight_grad_from_columns)
from .dtype_check import uniform_dtypes
from .infer import InferError, prod
from .registry import OpDef, register

__all__ = ["columns_shape"]


def columns_shape(a, data_shape):
    """Shape of the column matrix of a Convolution with attributes ``a`` on ``data_shape``."""
    cl, k, s, d, p, out_sp = _conv_geometry(a, data_shape, "_Convolution_columns")
    n, c, sp = split_shape(data_shape, cl)
    g = a["num_group"]
    return (g, c // g * prod(k), n * prod(_grid(_padded(sp, p), out_sp, s)))


def _infer(a, in_shapes):
    out = _conv_infer(a, in_shapes)
    return [out[0], None if in_shapes[0] is None else columns_shape(a, in_shapes[0])]


def _grad(F, a, inputs, outputs, ograds):
    # the columns' own gradient is not needed: the data's gradient covers them
    return conv_grads(F, a, inputs, ograds[0], F._backward_Convolution_weight_columns, outputs[1])


register(OpDef(
    "_Convolution_columns", inputs=_with_bias, all_inputs=("data", "weight", "bias"), attrs=_CONV_ATTRS,
    compute=via_float32(lambda ctx, a, data, weight, bias=None: conv_and_columns(ctx, a, data, weight, bias,
                                                                                 "_Convolution_columns"),
                        uniform_dtypes("_Convolution_columns", n_out=2)),
    infer_shape=_infer, infer_type=uniform_dtypes("_Convolution_columns", n_out=2), grad=_grad,
    bounds=CONV_BOUNDS, family="conv", hidden=True,
    num_outputs=2, num_visible=1, output_names=("output", "columns"),
    doc="""Convolution (same attributes, inputs and output) that also returns its column matrix as a
hidden output, for ``_backward_Convolution_weight_columns`` in compiled training programs."""))


def _grid_of(a, ograd_shape, cols_shape):
    """The grid the columns were built on, from the output's shape and the columns' width."""
    nd, k, s, d, _ = conv_params(a, "_backward_Convolution_weight_columns")
    cl = channel_last(a, nd, "_backward_Convolution_weight_columns")
    n, _, out_sp = split_shape(ograd_shape, cl)
    rows = tuple(o + dk - 1 for o, dk in zip(out_sp, _dilated(k, d)))      # stride 1: the padded input
    for grid in (tuple(out_sp), tuple(out_sp[:1]) + rows[1:]):
        if n * prod(grid) == cols_shape[2]:
            return grid
    raise InferError(1, f"(num_group, C/num_group*K, {n} * {prod(out_sp)}) columns of that output", cols_shape,
                     "the columns must come from _Convolution_columns with the same attributes")


def _wgrad_infer(a, in_shapes):
    og, cols = in_shapes
    if og is None or cols is None:
        return [None]
    nd, k = len(a["kernel"]), a["kernel"]
    if len(cols) != 3 or cols[0] != a["num_group"] or cols[1] % prod(k):
        raise InferError(1, f"({a['num_group']}, C/num_group * {prod(k)}, N * positions)", cols)
    _grid_of(a, og, cols)
    cl = channel_last(a, nd, "_backward_Convolution_weight_columns")
    return [join_shape(a["num_filter"], cols[1] // prod(k), k, cl)]


def _wgrad_compute(ctx, a, ograd, columns):
    return weight_grad_from_columns(ctx.xp, a, ograd, columns, _grid_of(a, ograd.shape, columns.shape))


register(OpDef(
    "_backward_Convolution_weight_columns", inputs=("ograd", "columns"), attrs=_CONV_ATTRS,
    compute=via_float32(_wgrad_compute, uniform_dtypes("_backward_Convolution_weight_columns")),
    infer_shape=_wgrad_infer, infer_type=uniform_dtypes("_backward_Convolution_weight_columns"), bounds=CONV_BOUNDS,
    family="conv", hidden=True,
    no_grad_reason="used only inside compiled backward programs; higher-order gradients differentiate "
                   "Convolution's own gradient (_backward_Convolution_weight) instead",
    doc="""Gradient of Convolution w.r.t. its weight from ``ograd`` and the column matrix that
``_Convolution_columns`` returned for the same data (attributes are the Convolution's)."""))
