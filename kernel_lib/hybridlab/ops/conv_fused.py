"""``_FusedConvolution``: a Convolution with what predict programs fuse into it.

The inference passes (``compiler/passes/fold_affine.py``, ``fuse_activation.py``,
``as_matmul.py``) rewrite predict graphs only, and know no op by name: they ask the registry. A
``Convolution`` declares an ``Epilogue`` naming this op (``ops/conv.py``: ``CONV_EPILOGUE``); this
op takes the Convolution's inputs and attributes plus:

* ``affine``: a per-channel affine map was folded in (a BatchNorm, whose ``ChannelAffine`` gives
  ``scale`` and ``shift``). Two more inputs, ``scale`` and ``shift`` (one value per filter, computed
  in the graph from the BatchNorm's parameters on every call, so new parameters are always seen),
  and the result is ``(conv(x, w) + bias) * scale + shift``.
* ``act_type='relu'``: a relu that read the convolution runs on its output.
* ``gemm``: a 1x1 convolution with stride 1, no padding, no dilation, one group, channel-first, is
  one matrix product ``W (F, C) @ x (C, H*W)`` per sample: no column matrix, no copies.
* ``cached_weight``: the weight is a graph input (a parameter), which oneDNN may keep in its own
  layout between calls until it is written (``dnnl/weight_cache.py``); set by the layout plan.
* ``in_block``, ``out_block``: the data and the output are in channel-blocked layouts
  (``ops/blocked.py``), as the layout plan of predict programs keeps values between oneDNN's
  convolutions (``compiler/passes/layout.py``); the oneDNN primitive reads and writes them as they
  are. Off the oneDNN path the values are moved to the plain layout and back around the NumPy form.

On the oneDNN path (``ops/conv_path.py``) everything runs in one primitive: the bias as the
primitive's bias, ``* scale``, ``+ shift`` and the relu as post-ops applied to each output value
before it is stored (no pass over the output, no weights copied). The ``gemm`` form is not taken
there (oneDNN's own 1x1 kernels measured faster) unless :data:`GEMM_ON_ONEDNN` is set, nor on cuDNN's
path, which runs the convolution, then the affine map and the relu in CuPy.

On the NumPy path the op folds ``scale`` into the weights (``conv(x, w * scale) + (bias * scale +
shift)``: one convolution with a bias) when the weights are smaller than the output, as at batch
32; otherwise (late layers at batch 1, where a 3x3x512x512 weight is 100 times a 7x7x512 output) it
scales the output in place. The ``gemm`` form is taken for one sample (one BLAS call; a batch keeps
the convolution path's single large product). All forms compute the same values within float32
rounding.

The op has no gradient: training programs run the graph before these passes.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops.context import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("_FusedConvolution")
    >>> a = op.parse_attrs({"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True", "affine": "True",
    ...                     "act_type": "relu", "gemm": "True"})
    >>> op.input_names(a)
    ('data', 'weight', 'scale', 'shift')
    >>> x, w = np.ones((1, 1, 2, 2), np.float32), np.ones((2, 1, 1, 1), np.float32)
    >>> out = op.compute(op_context(mx.cpu(), False), a, x, w, np.array([2.0, 1.0], np.float32),
    ...                  np.array([1.0, -3.0], np.float32))
    >>> out[0, :, 0, 0].tolist()          # relu([1 * 2 + 1, 1 * 1 - 3])
    [3.0, 0.0]
"""
from . import conv_path
from .attrs import Attr
from .bf16 import via_float32
from .blocked import expected, fits, from_block, to_block
from .conv import (CONV_BLOCKED, CONV_BOUNDS, CONV_EPILOGUE, _CONV_ATTRS, _conv_compute, _conv_geometry, _conv_infer,
                   _conv_accelerated, channel_last)
from .infer import InferError, merge_shape, prod
from .registry import OpDef, OutKernel, register

__all__ = ["GEMM_ON_ONEDNN"]

GEMM_ON_ONEDNN = False     # 1x1 convolutions as matrix products on the oneDNN path too (measured: slower)

_ATTRS = dict(_CONV_ATTRS)
_ATTRS.update({
    "affine": Attr("bool", False, doc="a per-channel affine map folded in (a BatchNorm): inputs scale and "
                                      "shift follow, the result is conv * scale + shift per filter"),
    "act_type": Attr("enum?", None, choices=CONV_EPILOGUE.activations, doc="an activation run on the output"),
    "gemm": Attr("bool", False, doc="a 1x1, stride-1, unpadded, ungrouped channel-first convolution "
                                    "computed as one matrix product"),
    "in_block": Attr("int", 0, doc="the channel block of the data's layout (0: plain; the layout plan)"),
    "out_block": Attr("int", 0, doc="the channel block of the output's layout (0: plain; the layout plan)"),
    "cached_weight": Attr("bool", False, doc="the weight is a graph input: oneDNN keeps it reordered between calls "
                                             "while it is not written (the layout plan)"),
})


def _inputs(a):
    names = ("data", "weight") + (() if a["no_bias"] else ("bias",))
    return names + (("scale", "shift") if a["affine"] else ())


def _infer(a, in_shapes):
    n_conv = 2 if a["no_bias"] else 3
    conv = list(in_shapes[:n_conv])
    out = _conv_infer(a, conv)
    in_shapes[:n_conv] = conv
    if a["affine"]:
        for i in (n_conv, n_conv + 1):
            merge_shape(in_shapes, i, (a["num_filter"],), "scale and shift are (num_filter,)")
    for block, shape, what in ((a["in_block"], in_shapes[0], "data"), (a["out_block"], out[0], "output")):
        if block and shape is not None and (a["layout"] not in (None, "NCW", "NCHW", "NCDHW") or not fits(shape, block)):
            raise InferError(0, f"{expected(block)} ({what} in the layout blocked by {block})", shape)
    return out


def _infer_type(a, d):
    n_conv = 2 if a["no_bias"] else 3
    want = next((t for t in d[:n_conv] if t is not None), None)
    for i in range(len(d)):
        if d[i] is None and (i < n_conv or want is not None):
            d[i] = want
    return [want]


def _gemm(xp, data, weight, bias):
    n, c = data.shape[:2]
    f = weight.shape[0]
    x = xp.ascontiguousarray(data).reshape(c, -1)
    out = xp.matmul(weight.reshape(f, c), x).reshape(1, f, -1)
    if bias is not None:
        out += bias.reshape(1, f, 1)
    return out.reshape((n, f) + tuple(data.shape[2:]))


def _extras(a, rest):
    """``(bias, scale, shift)`` from the inputs after the weight (``None`` for those absent)."""
    bias = None if a["no_bias"] else rest[0]
    return (bias,) + ((rest[-2], rest[-1]) if a["affine"] else (None, None))


def _onednn(ctx, a, data, weight, rest, out=None):
    """The whole call as one oneDNN primitive (``None`` off the oneDNN path): bias, affine map and relu
    inside it, the layouts the blocks say, the weights kept reordered when they are a parameter."""
    bias, scale, shift = _extras(a, rest)
    return _conv_accelerated(ctx, a, data, weight, bias, scale=scale, shift=shift, relu=a["act_type"] == "relu",
                        blocks=(a["in_block"], a["out_block"]), out=out, cache_weights=a["cached_weight"])


def _blocked(ctx, a, data, weight, *rest):
    """The call with blocked data or output (``in_block``, ``out_block``)."""
    out = _onednn(ctx, a, data, weight, rest)
    if out is not None:
        return out
    plain = dict(a, in_block=0, out_block=0)
    xp = ctx.xp
    return to_block(xp, _compute(ctx, plain, from_block(xp, data, a["in_block"]), weight, *rest), a["out_block"])


def _compute_out(ctx, a, out, data, weight, *rest):
    """The out kernel (static memory plans): the oneDNN primitive writes into ``out``; other paths
    compute and copy."""
    if a["gemm"] and GEMM_ON_ONEDNN and data.shape[0] == 1 or _onednn(ctx, a, data, weight, rest, out) is None:
        out[...] = _compute(ctx, a, data, weight, *rest)
    return out


def _compute(ctx, a, data, weight, *rest):
    if a["in_block"] or a["out_block"]:
        return _blocked(ctx, a, data, weight, *rest)
    xp = ctx.xp
    bias, scale, shift = _extras(a, rest)
    relu = a["act_type"] == "relu"
    # one sample: one 2-D matrix product; a batch keeps the convolution path's one large product, which
    # beat a stacked matmul (one BLAS call per sample) in benchmarks/inference_passes.py
    matmul = a["gemm"] and data.shape[0] == 1 and (
        GEMM_ON_ONEDNN or not conv_path.covers(xp, data, weight, bias, cudnn_off=a["cudnn_off"]))
    if not matmul:       # the oneDNN path: bias, affine and relu inside the primitive
        out = _onednn(ctx, a, data, weight, rest)
        if out is not None:
            return out
    post = None
    if scale is not None:
        scale, shift = (v.astype(data.dtype, copy=False) for v in (scale, shift))
        f = weight.shape[0]
        out_sp = _conv_geometry(a, data.shape)[5]
        if weight.size <= data.shape[0] * prod(out_sp) * f:     # the output is larger: scale the weights
            weight = weight * scale.reshape((f,) + (1,) * (weight.ndim - 1))    # filters first in every layout
            bias = shift if bias is None else bias * scale + shift
        else:
            post = (scale, shift)
    conv_bias = bias if post is None else None
    out = _gemm(xp, data, weight, conv_bias) if matmul else _conv_compute(ctx, a, data, weight, conv_bias)
    if post is not None:
        nd = len(a["kernel"])
        shape = (1,) * (nd + 1) + (-1,) if channel_last(a, nd, "Convolution") else (1, -1) + (1,) * nd
        scale, shift = post
        if bias is not None:                      # conv + bias, then the affine map
            out += bias.reshape(shape)
        out *= scale.reshape(shape)
        out += shift.reshape(shape)
    if relu:
        xp.maximum(out, 0, out=out)
    return out


register(OpDef(
    "_FusedConvolution", inputs=_inputs, all_inputs=("data", "weight", "bias", "scale", "shift"), attrs=_ATTRS,
    compute=via_float32(_compute, _infer_type), infer_shape=_infer, infer_type=_infer_type, bounds=CONV_BOUNDS,
    family="conv", hidden=True,
    epilogue=CONV_EPILOGUE, blocked_layout=CONV_BLOCKED, out_kernel=OutKernel(_compute_out),
    no_grad_reason="used only in predict programs (the inference passes); training runs the unfused graph",
    doc="""Convolution (same attributes) with a folded per-channel affine map (``affine``: inputs ``scale``
and ``shift``; a BatchNorm), a relu (``act_type``) and the 1x1 matrix-product form (``gemm``), as the
inference passes make it for predict programs."""))
