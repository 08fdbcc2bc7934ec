"""``Deconvolution`` (transposed convolution; 1-D, 2-D and 3-D, grouped, channel-first layouts and
NHWC/NDHWC): the weights multiply first and the columns are scattered back (col2im: one strided add
per kernel position). Its data gradient is a Convolution of the output gradient with the same
weight, its weight gradient ``_backward_Convolution_weight`` (both in ``ops/conv.py``, whose
geometry helpers it shares). On the CPU, float32 calls take oneDNN's convolution backward-data
primitive instead when its library is installed (``ops/conv_path.py``).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> x, w = mx.nd.array(np.ones((1, 1, 2, 2))), mx.nd.array(np.ones((1, 1, 2, 2)))
    >>> mx.nd.Deconvolution(x, w, kernel=(2, 2), num_filter=1, no_bias=True).asnumpy()[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
"""
from ..base import MXNetError
from . import conv_path
from .attrs import Attr
from .bf16 import via_float32
from .conv import (CONV_BOUNDS, _CONV_LAYOUTS, _batch_first, _bias_axes, _check_groups, _common, _conv_attrs,
                   _dilated, _flat_offsets, _grid, _with_bias, channel_last, conv_params, from_cf, join_shape,
                   kernel_slices, layout_pattern, shape_pattern, split_shape, to_cf)
from .dtype_check import check_dtypes, uniform_dtypes
from .infer import InferError, merge_shape, prod
from .registry import NsName, OpDef, register


# ---- Deconvolution -----------------------------------------------------------------------------
def _deconv_pad_adj(a, k, s, d, in_sp):
    """MXNet's InferPad: ``pad``/``adj`` as given, or derived from ``target_shape``."""
    nd = len(k)
    target = a["target_shape"]
    pad = a["pad"] or (0,) * nd
    adj = a["adj"] or (0,) * nd
    if len(adj) != nd:
        raise MXNetError(f"Deconvolution: adj expected {nd} values (like kernel {k}), got {adj}")
    if any(target):
        if len(target) != nd:
            raise MXNetError(f"Deconvolution: target_shape expected {nd} values (like kernel {k}), got {target}")
        pad, adj = list(pad), list(adj)
        for i, dk in enumerate(_dilated(k, d)):
            if target[i] and in_sp[i]:
                total = s[i] * (in_sp[i] - 1) + dk - target[i]
                if total < 0:
                    raise MXNetError(f"Deconvolution: target_shape expected at most {s[i] * (in_sp[i] - 1) + dk} "
                                     f"in dimension {i} for input size {in_sp[i]}, got {target[i]}")
                pad[i], adj[i] = (total + 1) // 2, total % 2
        pad, adj = tuple(pad), tuple(adj)
    for i in range(nd):
        if adj[i] >= s[i]:
            raise MXNetError(f"Deconvolution: adj expected values smaller than stride {s}, got {tuple(adj)}")
    return pad, adj


def _deconv_geometry(a, data_shape):
    nd, k, s, d, _ = conv_params(a, "Deconvolution")
    cl = channel_last(a, nd, "Deconvolution")
    if len(data_shape) != nd + 2:
        raise InferError(0, f"{layout_pattern(nd, cl)} for the {nd}-D kernel {k}", tuple(data_shape))
    _, _, sp = split_shape(data_shape, cl)
    pad, adj = _deconv_pad_adj(a, k, s, d, sp)
    out = tuple(0 if sp[i] == 0 else s[i] * (sp[i] - 1) + dk - 2 * pad[i] + adj[i]
                for i, dk in enumerate(_dilated(k, d)))
    if any(o < 0 or (o == 0 and sp[i]) for i, o in enumerate(out)):
        raise InferError(0, shape_pattern(data_shape, cl, {i: sp[i] + 1 for i, o in enumerate(out) if o <= 0}),
                         tuple(data_shape), f"the output size would be {out} with pad {pad}")
    return cl, k, s, d, pad, adj, out


def _deconv_infer(a, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None]
    cl, k, s, d, pad, adj, out_sp = _deconv_geometry(a, data)
    n, c, _ = split_shape(data, cl)
    _check_groups("Deconvolution", a, c, 0, data, cl)
    F, g = a["num_filter"], a["num_group"]
    merge_shape(in_shapes, 1, join_shape(c, F // g, k, cl),
                "weight is (channels, num_filter / num_group, *kernel) in the data's layout")
    if not a["no_bias"]:
        merge_shape(in_shapes, 2, (F,), "bias is (num_filter,)")
    return [join_shape(n, F, out_sp, cl)]


_deconv_types = uniform_dtypes("Deconvolution")


def _deconv_compute(ctx, a, data, weight, bias=None):
    if weight.dtype != data.dtype or (bias is not None and bias.dtype != data.dtype):
        check_dtypes(_deconv_types, a, data, weight, bias)
    xp = ctx.xp
    nd, k, s, d, _ = conv_params(a, "Deconvolution")
    cl = channel_last(a, nd, "Deconvolution")
    x, w = to_cf(xp, data, cl), to_cf(xp, weight, cl)
    N, C = x.shape[:2]
    in_sp = tuple(x.shape[2:])
    F, g = a["num_filter"], a["num_group"]
    pad, adj = _deconv_pad_adj(a, k, s, d, in_sp)
    full = tuple(s[i] * (in_sp[i] - 1) + dk + adj[i] for i, dk in enumerate(_dilated(k, d)))
    if conv_path.covers(xp, data, weight, bias, cudnn_off=a["cudnn_off"]):      # the data gradient of a convolution
        out = conv_path.deconvolution(xp, data, weight, conv_path.geometry(s, d, pad, g), cl,
                                      join_shape(N, F, tuple(f - 2 * q for f, q in zip(full, pad)), cl), attrs=a)
        if out is not None:
            if bias is not None:
                out += bias if cl else bias.reshape((F,) + (1,) * nd)
            return out
    # columns: ONE product per group (K*F/g, C/g) @ (C/g, N*G) -> (g, K, F/g, N*G), G the grid of
    # the data (see _grid); every kernel position then adds its (F, N*G) columns into the output
    Kp = prod(k)
    wm = w.reshape(g, C // g, F // g, Kp).transpose(0, 3, 2, 1).reshape(g, Kp * (F // g), C // g)
    grid = _grid(full, in_sp, s)
    xm = xp.zeros((C, N) + grid, dtype=x.dtype) if grid != in_sp else xp.empty((C, N) + grid, dtype=x.dtype)
    xm[(slice(None), slice(None)) + tuple(slice(n) for n in in_sp)] = xp.swapaxes(x, 0, 1)
    prods = xp.matmul(wm, xm.reshape(g, C // g, -1)).reshape(g, Kp, F // g, -1)
    cols = [prods[:, i].reshape(F, N, -1) for i in range(Kp)]    # views when g == 1
    if grid != in_sp:       # flat runs: the grid's zero columns add nothing
        offs, last = _flat_offsets(k, d, full)
        span = prod(grid)
        out = xp.zeros((F, N, max(prod(full), last + span)), dtype=x.dtype)
        for col, off in zip(cols, offs):
            out[:, :, off:off + span] += col
        out = out[:, :, :prod(full)].reshape((F, N) + full)
    else:
        out = xp.zeros((F, N) + full, dtype=x.dtype)
        for col, (_, sl) in zip(cols, kernel_slices(k, s, d, in_sp)):
            out[sl] += col.reshape((F, N) + in_sp)
    if any(pad):
        out = out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))]
    return from_cf(xp, _batch_first(xp, out, bias), cl)


def _deconv_grad(F, a, inputs, outputs, ograds):
    data, weight = inputs[0], inputs[1]
    og = ograds[0]
    nd, k, s, d, _ = conv_params(a, "Deconvolution")
    cl = channel_last(a, nd, "Deconvolution")
    _, c, sp = split_shape(data.shape, cl)
    pad, _ = _deconv_pad_adj(a, k, s, d, sp)
    common = _common(a, pad)
    # Deconvolution is the transpose of a Convolution from the output space to the data space
    grads = [F.Convolution(og, weight, num_filter=c, no_bias=True, **common),
             F._backward_Convolution_weight(data, og, num_filter=c, no_bias=True, **common)]
    if len(inputs) == 3:
        grads.append(F.sum(og, axis=_bias_axes(nd, cl)))
    return grads


_DECONV_ATTRS = dict(_conv_attrs(512, True, _CONV_LAYOUTS))
_DECONV_ATTRS = {**{k: _DECONV_ATTRS[k] for k in ("kernel", "stride", "dilate", "pad")},
                 "adj": Attr("shape", (), doc="extra output size per dimension (< stride); empty means 0"),
                 "target_shape": Attr("shape", (), doc="output spatial shape; when set, pad and adj are derived"),
                 **{k: _DECONV_ATTRS[k] for k in ("num_filter", "num_group", "workspace", "no_bias",
                                                   "cudnn_tune", "cudnn_off", "layout")}}

register(OpDef(
    "Deconvolution", inputs=_with_bias, all_inputs=("data", "weight", "bias"), attrs=_DECONV_ATTRS,
    compute=via_float32(_deconv_compute, _deconv_types), infer_shape=_deconv_infer, infer_type=_deconv_types,
    grad=_deconv_grad,
    bounds={**CONV_BOUNDS, "adj": (0, None), "target_shape": (0, None)}, family="conv",
    aliases=("_npx_deconvolution",), npx=NsName("deconvolution"),
    doc="""Transposed convolution (the gradient of Convolution w.r.t. its data) of ``data``
(N, C, *spatial) with ``weight`` (C, num_filter / num_group, *kernel), plus ``bias`` unless
``no_bias`` (True by default, as in MXNet 1.x). Output size per dimension:
``stride * (x - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj``; ``target_shape`` sets the output
size and derives pad and adj from it."""))
