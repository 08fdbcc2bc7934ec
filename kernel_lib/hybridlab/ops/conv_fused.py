"""``_FusedConvolution``: a Convolution with what predict programs fuse into it.

The inference passes (``compiler/passes/fold_batchnorm.py``, ``conv_relu.py``, ``conv1x1_gemm.py``)
rewrite predict graphs only; this op runs what they made of a Convolution, with the Convolution's
attributes plus:

* ``bn_fold``: a BatchNorm that read the convolution was folded in. Two more inputs, ``scale`` and
  ``shift`` (one value per filter, computed in the graph from the BatchNorm's parameters on every
  call, so new parameters are always seen), and the result is ``conv(x, w) * scale + shift``. The
  op folds ``scale`` into the weights (``conv(x, w * scale) + shift``: one convolution with a
  bias, no pass over the output) when the weights are smaller than the output, as at batch 32;
  otherwise (late layers at batch 1, where a 3x3x512x512 weight is 100 times a 7x7x512 output) it
  scales the output in place instead. Both compute the same values within float32 rounding.
* ``act_type='relu'``: a relu that read the convolution runs in place on its fresh output.
* ``gemm``: a 1x1 convolution with stride 1, no padding, no dilation, one group, channel-first, is
  one matrix product ``W (F, C) @ x (C, H*W)`` per sample: no column matrix, no copies. Taken for
  one sample (batch 1: one BLAS call; a batch keeps the convolution path's single large product) on
  the NumPy convolution path (``ops/conv_path.py``); on the oneDNN path only when
  :data:`GEMM_ON_ONEDNN` is set (oneDNN's own 1x1 kernels measured faster: see
  ``benchmarks/inference_passes.py``).

The op has no gradient: training programs run the graph before these passes.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ndarray.dispatch import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("_FusedConvolution")
    >>> a = op.parse_attrs({"kernel": "(1, 1)", "num_filter": "2", "no_bias": "True", "bn_fold": "True",
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
from .conv import CONV_BOUNDS, _CONV_ATTRS, _conv_compute, _conv_geometry, _conv_infer, channel_last
from .infer import merge_shape, prod
from .registry import OpDef, register

__all__ = ["GEMM_ON_ONEDNN", "gemm_applies"]

GEMM_ON_ONEDNN = False     # 1x1 convolutions as matrix products on the oneDNN path too (measured: slower)

_ATTRS = dict(_CONV_ATTRS)
_ATTRS.update({
    "bn_fold": Attr("bool", False, doc="a BatchNorm folded in: inputs scale and shift follow, "
                                       "the result is conv * scale + shift per filter"),
    "act_type": Attr("enum?", None, choices=("relu",), doc="an activation run in place on the output"),
    "gemm": Attr("bool", False, doc="a 1x1, stride-1, unpadded, ungrouped channel-first convolution "
                                    "computed as one matrix product"),
})


def gemm_applies(a):
    """Whether a Convolution with parsed attributes ``a`` is a plain matrix product (1x1 kernel,
    stride 1, no padding or dilation, one group, channel-first, 2-D)."""
    if len(a["kernel"]) != 2 or tuple(a["kernel"]) != (1, 1) or a["num_group"] != 1:
        return False
    if a["layout"] not in (None, "NCHW"):
        return False
    return all(v == 1 for v in a["stride"]) and all(v == 1 for v in a["dilate"]) and all(v == 0 for v in a["pad"])


def _inputs(a):
    names = ("data", "weight") + (() if a["no_bias"] else ("bias",))
    return names + (("scale", "shift") if a["bn_fold"] else ())


def _infer(a, in_shapes):
    n_conv = 2 if a["no_bias"] else 3
    conv = list(in_shapes[:n_conv])
    out = _conv_infer(a, conv)
    in_shapes[:n_conv] = conv
    if a["bn_fold"]:
        for i in (n_conv, n_conv + 1):
            merge_shape(in_shapes, i, (a["num_filter"],), "scale and shift are (num_filter,)")
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
    w = weight.reshape(f, c)
    x = xp.ascontiguousarray(data).reshape(n, c, -1)
    out = xp.matmul(w, x[0]).reshape(1, f, -1) if n == 1 else xp.matmul(w, x)
    if bias is not None:
        out += bias.reshape(1, f, 1)
    return out.reshape((n, f) + tuple(data.shape[2:]))


def _compute(ctx, a, data, weight, *rest):
    xp = ctx.xp
    bias = None if a["no_bias"] else rest[0]
    post = None
    if a["bn_fold"]:
        scale, shift = (v.astype(data.dtype, copy=False) for v in rest[-2:])
        f = weight.shape[0]
        out_sp = _conv_geometry(a, data.shape)[5]
        if weight.size <= data.shape[0] * prod(out_sp) * f:     # the output is larger: scale the weights

            weight = weight * scale.reshape((f,) + (1,) * (weight.ndim - 1))
            bias = shift if bias is None else bias * scale + shift
        else:
            post = (scale, shift)
    # one sample: one 2-D matrix product; a batch stays on the convolution path, whose one large product
    # beat a stacked matmul (one BLAS call per sample) in benchmarks/inference_passes.py
    if a["gemm"] and data.shape[0] == 1 and (GEMM_ON_ONEDNN or not conv_path.onednn_covers(xp, data, weight, bias)):
        out = _gemm(xp, data, weight, bias if post is None else None)
    else:
        out = _conv_compute(ctx, a, data, weight, bias if post is None else None)
    if post is not None:
        nd = len(a["kernel"])
        shape = (1,) * (nd + 1) + (-1,) if channel_last(a, nd, "Convolution") else (1, -1) + (1,) * nd
        scale, shift = post
        if bias is not None:                      # conv + bias, then the BatchNorm's affine
            out += bias.reshape(shape)
        out *= scale.reshape(shape)
        out += shift.reshape(shape)
    if a["act_type"] == "relu":
        xp.maximum(out, 0, out=out)
    return out


register(OpDef(
    "_FusedConvolution", inputs=_inputs, all_inputs=("data", "weight", "bias", "scale", "shift"), attrs=_ATTRS,
    compute=_compute, infer_shape=_infer, infer_type=_infer_type, bounds=CONV_BOUNDS, family="conv", hidden=True,
    no_grad_reason="used only in predict programs (the inference passes); training runs the unfused graph",
    doc="""Convolution (same attributes) with a folded BatchNorm (``bn_fold``: inputs ``scale`` and
``shift``), an in-place relu (``act_type``) and the 1x1 matrix-product form (``gemm``), as the
inference passes make it for predict programs."""))
