"""Convolution family: ``Convolution`` (1-D, 2-D and 3-D; strided, padded,
dilated, grouped and depthwise; channel-first layouts and NHWC/NDHWC) and the internal
``_backward_Convolution_weight``.

Compute is im2col: the padded input is viewed as sliding windows with ``as_strided`` (no copy),
copied once into a column matrix and multiplied with the weights by one batched ``matmul`` over the
groups; ``Deconvolution`` (``ops/deconv.py``) shares the geometry helpers here. On the CPU, float32
calls take oneDNN's primitives instead when its library is installed (``ops/conv_path.py`` chooses;
this NumPy code stays the reference and the fallback). Gradients are registered ops, so they can be
recorded again: Convolution's data gradient is a Deconvolution of the output gradient with the same weight, Deconvolution's is a
Convolution, and both weight gradients are ``_backward_Convolution_weight``, whose own gradient is
again a Convolution and a Deconvolution.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> x, w = mx.nd.array(np.ones((1, 1, 4, 4))), mx.nd.array(np.ones((2, 1, 3, 3)))
    >>> mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True).asnumpy().ravel().tolist()
    [9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0]
"""
import functools
import itertools

import numpy as np

from .. import threads
from ..base import MXNetError
from . import conv_path
from .attrs import Attr
from .bf16 import via_float32
from .dtype_check import check_dtypes, uniform_dtypes
from .infer import InferError, merge_shape, prod
from .registry import BlockedLayout, Epilogue, NsName, OpDef, register

__all__ = ["conv_params", "channel_last", "split_shape", "join_shape", "layout_pattern", "shape_pattern",
           "to_cf", "from_cf", "pad_spatial", "windows", "kernel_slices", "CONV_EPILOGUE", "is_matmul"]

_DEFAULT_LAYOUT = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CONV_LAYOUTS = ("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC")


# ---- geometry shared with pool.py --------------------------------------------------------------
def conv_params(a, name, keys=("stride", "dilate", "pad")):
    """``(nd, kernel, stride, dilate, pad)`` with MXNet's defaults for empty tuples (stride and
    dilate 1, pad 0); an error when a tuple's length differs from the kernel's."""
    kernel = a["kernel"]
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise MXNetError(f"{name}: kernel expected 1, 2 or 3 dimensions, got {kernel}")
    if any(k <= 0 for k in kernel):
        raise MXNetError(f"{name}: kernel expected positive sizes, got {kernel}")
    out = [nd, kernel]
    for key in keys:
        default = 0 if key == "pad" else 1
        value = a[key] or (default,) * nd
        if len(value) != nd:
            raise MXNetError(f"{name}: {key} expected {nd} values (like kernel {kernel}), got {value}")
        if key != "pad" and any(v <= 0 for v in value):
            raise MXNetError(f"{name}: {key} expected positive values, got {value}")
        out.append(value)
    return out


def channel_last(a, nd, name):
    """True for NWC/NHWC/NDHWC; an error when the layout does not fit an ``nd``-D kernel."""
    layout = a["layout"] or _DEFAULT_LAYOUT[nd]
    if len(layout) != nd + 2:
        raise MXNetError(f"{name}: layout expected a {nd + 2}-D layout such as {_DEFAULT_LAYOUT[nd]!r} "
                         f"for {nd}-D data, got {layout!r}")
    return layout[-1] == "C"


def split_shape(shape, cl):
    """``(batch, channels, spatial)`` of a data shape in a channel-first or channel-last layout."""
    if cl:
        return shape[0], shape[-1], tuple(shape[1:-1])
    return shape[0], shape[1], tuple(shape[2:])


def join_shape(n, c, spatial, cl):
    return (n,) + tuple(spatial) + (c,) if cl else (n, c) + tuple(spatial)


def layout_pattern(nd, cl):
    """``"(N, C, H, W)"``-style text of the data shape an ``nd``-D op expects (for error messages)."""
    sp = list({1: "W", 2: "HW", 3: "DHW"}[nd])
    return "(" + ", ".join(["N"] + sp + ["C"] if cl else ["N", "C"] + sp) + ")"


def shape_pattern(shape, cl, spatial_min=None, channels=None):
    """``shape`` as text with the failing entries replaced: ``spatial_min`` {dim: least size} and
    ``channels`` (a text for the channel entry), e.g. ``"(1, 2, >=7, 5)"``."""
    n, c, sp = split_shape(shape, cl)
    spatial_min = spatial_min or {}
    sp = [f">={spatial_min[i]}" if i in spatial_min else str(v) for i, v in enumerate(sp)]
    c = channels or str(c)
    return "(" + ", ".join([str(n)] + sp + [c] if cl else [str(n), c] + sp) + ")"


def to_cf(xp, x, cl):
    """A channel-first view of ``x`` (weights too: their channel axis moves from last to 1)."""
    return xp.moveaxis(x, -1, 1) if cl else x


def from_cf(xp, y, cl):
    return xp.ascontiguousarray(xp.moveaxis(y, 1, -1)) if cl else y


def pad_spatial(xp, x, before, after, value=0):
    """``x`` (N, C, *spatial) padded with ``value`` (no copy when there is nothing to pad)."""
    if not any(before) and not any(after):
        return x
    return xp.pad(x, [(0, 0), (0, 0)] + list(zip(before, after)), mode="constant", constant_values=value)


def windows(xp, x, out_spatial, kernel, stride, dilate):
    """View of (padded) ``x`` (N, C, *S) as sliding windows (N, C, *out_spatial, *kernel); no copy."""
    st = x.strides
    nd = len(kernel)
    shape = tuple(x.shape[:2]) + tuple(out_spatial) + tuple(kernel)
    strides = (tuple(st[:2]) + tuple(st[2 + i] * stride[i] for i in range(nd))
               + tuple(st[2 + i] * dilate[i] for i in range(nd)))
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def kernel_slices(kernel, stride, dilate, out_spatial):
    """For every kernel position (row-major): the strided slice of the padded input it touches."""
    nd = len(kernel)
    for pos in itertools.product(*(range(k) for k in kernel)):
        yield pos, (slice(None), slice(None)) + tuple(
            slice(pos[i] * dilate[i], pos[i] * dilate[i] + stride[i] * (out_spatial[i] - 1) + 1, stride[i])
            for i in range(nd))


def _dilated(kernel, dilate):
    return tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilate))


def _conv_out(spatial, kernel, stride, dilate, pad):
    return tuple(0 if s == 0 else (s + 2 * p - dk) // st + 1
                 for s, dk, st, p in zip(spatial, _dilated(kernel, dilate), stride, pad))


def _check_groups(name, a, channels, arg, shape, cl):
    g = a["num_group"]
    if g <= 0:
        raise MXNetError(f"{name}: num_group expected a positive integer, got {g}")
    if a["num_filter"] <= 0 or a["num_filter"] % g:
        raise MXNetError(f"{name}: num_filter expected a positive multiple of num_group={g}, "
                         f"got {a['num_filter']}")
    if channels and channels % g:
        raise InferError(arg, shape_pattern(shape, cl, channels=f"<a multiple of num_group={g}>"),
                         tuple(shape), "the channels must split evenly into the groups")


# ---- Convolution -------------------------------------------------------------------------------
def _conv_geometry(a, data_shape, name="Convolution"):
    """Everything shape inference needs: ``(cl, kernel, stride, dilate, pad, out_spatial)``."""
    nd, k, s, d, p = conv_params(a, name)
    cl = channel_last(a, nd, name)
    if len(data_shape) != nd + 2:
        raise InferError(0, f"{layout_pattern(nd, cl)} for the {nd}-D kernel {k}", tuple(data_shape), alone=True)
    _, _, sp = split_shape(data_shape, cl)
    need = {i: dk - 2 * p[i] for i, dk in enumerate(_dilated(k, d)) if sp[i] and dk > sp[i] + 2 * p[i]}
    if need:
        raise InferError(0, shape_pattern(data_shape, cl, need), tuple(data_shape),
                         f"the dilated kernel {_dilated(k, d)} exceeds the input padded by {p}", alone=True)
    return cl, k, s, d, p, _conv_out(sp, k, s, d, p)


def _conv_infer(a, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None]
    cl, k, s, d, p, out_sp = _conv_geometry(a, data)
    n, c, _ = split_shape(data, cl)
    _check_groups("Convolution", a, c, 0, data, cl)
    F, g = a["num_filter"], a["num_group"]
    merge_shape(in_shapes, 1, join_shape(F, c // g, k, cl),
                "weight is (num_filter, channels / num_group, *kernel) in the data's layout")
    if not a["no_bias"]:
        merge_shape(in_shapes, 2, (F,), "bias is (num_filter,)")
    return [join_shape(n, F, out_sp, cl)]


def _conv_partial(a, in_shapes, outs):
    """Partial symbolic inference (MXNet's ConvolutionShape): the data gets the output's batch size
    and, along the axes of stride 1, the size that gives the output's (``out + dilated kernel - 1 -
    2 * pad``)."""
    data, out = in_shapes[0], outs[0]
    if data is None or out is None or len(out) != len(data):
        return
    nd, k, stride, dilate, pad = conv_params(a, "Convolution")
    cl = channel_last(a, nd, "Convolution")
    n, c, sp = split_shape(data, cl)
    on, _, osp = split_shape(out, cl)
    sp = tuple(x or (o + dk - 1 - 2 * p if o and st == 1 and o + dk - 1 - 2 * p > 0 else 0)
               for x, o, dk, st, p in zip(sp, osp, _dilated(k, dilate), stride, pad))
    merge_shape(in_shapes, 0, join_shape(n or on, c, sp, cl), "the output's batch and spatial sizes")


def _grid(rows, inner, stride):
    """The spatial grid that the columns of a stride-1 (de)convolution cover: normally ``inner``
    (the output of a convolution, the input of a deconvolution); when the rows of the larger side
    ``rows`` (padded input, full output) are not much wider, ``inner[0]`` by those full rows. Every
    kernel position then maps ONE contiguous run of each sample's flattened array (values past the
    inner corner are computed and dropped, or are zeros), which copies and adds several times
    faster than short rows."""
    grid = tuple(inner[:1]) + tuple(rows[1:])
    if all(st == 1 for st in stride) and prod(grid) <= 1.5 * prod(inner):
        return grid
    return tuple(inner)


def _row_strides(shape):
    """Flat (element) stride of each dimension of a C-ordered ``shape``."""
    return [prod(shape[i + 1:]) for i in range(len(shape))]


def _flat_offsets(k, d, rows):
    """Offset of every kernel position (row-major) in the flattened ``rows`` grid, and the largest."""
    row = _row_strides(rows)
    offs = [sum(pi * di * ri for pi, di, ri in zip(pos, d, row))
            for pos in itertools.product(*(range(kk) for kk in k))]
    return offs, offs[-1]


def _padded(spatial, pad):
    return tuple(n + 2 * q for n, q in zip(spatial, pad))


def _im2col(xp, x, g, out_sp, k, s, d, p, grid):
    """Columns of channel-first ``x`` grouped by ``g``: (g, C/g*K, N*G), one column per position of
    ``grid`` (see :func:`_grid`). The batch sits in the columns so that each group is ONE large
    matrix product (one BLAS call instead of one per sample)."""
    N, C = x.shape[:2]
    nd = len(k)
    xpad = pad_spatial(xp, x, p, p)
    ck = (C // g) * prod(k)
    if tuple(grid) == tuple(out_sp):
        win = windows(xp, xpad, out_sp, k, s, d)                          # (N, C, *O, *K)
        win = win.reshape((N, g, C // g) + tuple(win.shape[2:]))          # (N, g, C/g, *O, *K)
        o_axes = tuple(3 + i for i in range(nd))
        k_axes = tuple(3 + nd + i for i in range(nd))
        return win.transpose((1, 2) + k_axes + (0,) + o_axes).reshape(g, ck, N * prod(out_sp))
    # stride 1 on the full rows: kernel position (i, j, ...) reads the flat run starting at
    # i*d1*W + j*d2 + ...; the runs are extended past each sample's end with zeros
    sp = tuple(xpad.shape[2:])
    row = _row_strides(sp)
    span, last = prod(grid), _flat_offsets(k, d, sp)[1]
    flat = xp.zeros((N, C, last + span), dtype=x.dtype)
    flat[:, :, :prod(sp)] = xpad.reshape(N, C, -1)
    st = flat.strides
    win = xp.lib.stride_tricks.as_strided(
        flat, shape=(N, g, C // g) + tuple(k) + (span,),
        strides=(st[0], st[1] * (C // g), st[1]) + tuple(dd * r * st[2] for dd, r in zip(d, row)) + (st[2],))
    return win.transpose((1, 2) + tuple(3 + i for i in range(nd)) + (0, 3 + nd)).reshape(g, ck, N * span)


def _batch_first(xp, y, bias=None, out_sp=None):
    """``y`` (F, N, *G) as a contiguous (N, F, *out_sp) array (``out_sp`` the leading corner of the
    grid G, all of it by default), plus ``bias`` (F,) when given (added in place first, while each
    filter's values are one contiguous row)."""
    F, N = y.shape[:2]
    if bias is not None:
        if not y.flags.c_contiguous:
            y = xp.ascontiguousarray(y)
        yf = y.reshape(F, -1)
        xp.add(yf, bias.reshape(F, 1), out=yf)
    out_sp = tuple(y.shape[2:]) if out_sp is None else tuple(out_sp)
    out = xp.empty((N, F) + out_sp, dtype=y.dtype)
    if out_sp == tuple(y.shape[2:]):
        xp.copyto(out.reshape(N, F, -1), xp.swapaxes(y.reshape(F, N, -1), 0, 1))
    else:
        xp.copyto(out, xp.swapaxes(y[(slice(None), slice(None)) + tuple(slice(o) for o in out_sp)], 0, 1))
    return out


def conv_and_columns(ctx, a, data, weight, bias=None, name="Convolution"):
    """The convolution's output and its column matrix (g, C/g*K, N*G) (see :func:`_im2col`)."""
    if weight.dtype != data.dtype or (bias is not None and bias.dtype != data.dtype):
        check_dtypes(uniform_dtypes(name), a, data, weight, bias)
    xp = ctx.xp
    nd, k, s, d, p = conv_params(a, name)
    cl = channel_last(a, nd, name)
    x, w = to_cf(xp, data, cl), to_cf(xp, weight, cl)
    N, C = x.shape[:2]
    F, g = a["num_filter"], a["num_group"]
    out_sp = _conv_out(x.shape[2:], k, s, d, p)
    grid = _grid(_padded(x.shape[2:], p), out_sp, s)
    cols = _im2col(xp, x, g, out_sp, k, s, d, p, grid)                  # (g, C/g*K, N*G)
    out = xp.matmul(w.reshape(g, F // g, -1), cols)                      # (g, F/g, N*G)
    return from_cf(xp, _batch_first(xp, out.reshape((F, N) + grid), bias, out_sp), cl), cols


def _conv_accelerated(ctx, a, data, weight, bias, **post):
    """The output on a library's path (oneDNN, cuDNN: ``ops/conv_path.py``), or ``None`` when none covers
    the call; ``post``: the post-ops ``scale``, ``shift``, ``relu``, the layouts ``blocks`` and the buffer
    ``out`` of ``conv_path.convolution`` (``ops/conv_fused.py``)."""
    geom, cl, out_shape = _library_geometry(tuple(a[key] for key in _GEOMETRY_ATTRS), data.shape)
    return conv_path.convolution(ctx.xp, data, weight, bias, geom, cl, out_shape, attrs=a, **post)


_GEOMETRY_ATTRS = ("kernel", "stride", "dilate", "pad", "num_group", "layout", "num_filter")


@functools.lru_cache(maxsize=4096)
def _library_geometry(values, data_shape):
    """``(the libraries' geometry, channel_last, output shape)`` of a convolution: computed once per attributes
    and data shape (predict programs call the same convolutions again and again)."""
    a = dict(zip(_GEOMETRY_ATTRS, values))
    nd, k, s, d, p = conv_params(a, "Convolution")
    cl = channel_last(a, nd, "Convolution")
    n, _, sp = split_shape(data_shape, cl)
    return conv_path.geometry(s, d, p, a["num_group"]), cl, join_shape(n, a["num_filter"], _conv_out(sp, k, s, d, p), cl)


def _conv_compute(ctx, a, data, weight, bias=None):
    out = _conv_accelerated(ctx, a, data, weight, bias)
    if out is not None:
        return out
    threads.current()     # sets the BLAS thread count for the matmul (hybridlab.threads)
    return conv_and_columns(ctx, a, data, weight, bias)[0]


def _bias_axes(nd, cl):
    return (0,) + tuple(range(1, nd + 1)) if cl else (0,) + tuple(range(2, nd + 2))


def _common(a, pad):
    return dict(kernel=a["kernel"], stride=a["stride"], dilate=a["dilate"], pad=pad,
                num_group=a["num_group"], layout=a["layout"], cudnn_tune=a["cudnn_tune"],
                cudnn_off=a["cudnn_off"])


def _conv_data_grad(F, a, og, weight, data_shape):
    """Gradient of Convolution w.r.t. its data: a Deconvolution of ``og`` with the same weight."""
    nd, k, s, d, p = conv_params(a, "Convolution")
    cl = channel_last(a, nd, "Convolution")
    _, c, sp = split_shape(data_shape, cl)
    adj = tuple((sp[i] + 2 * p[i] - dk) % s[i] for i, dk in enumerate(_dilated(k, d)))
    return F.Deconvolution(og, weight, adj=adj, num_filter=c, no_bias=True, **_common(a, p))


def conv_grads(F, a, inputs, og, weight_grad_op, weight_source):
    """Convolution's input gradients for output gradient ``og``: data (a Deconvolution), weight
    (``weight_grad_op(og, weight_source)``: the data, or the kept columns) and bias."""
    data, weight = inputs[0], inputs[1]
    nd = len(a["kernel"])
    grads = [_conv_data_grad(F, a, og, weight, data.shape),
             weight_grad_op(og, weight_source, num_filter=a["num_filter"], no_bias=True, **_common(a, a["pad"]))]
    if len(inputs) == 3:
        grads.append(F.sum(og, axis=_bias_axes(nd, channel_last(a, nd, "Convolution"))))
    return grads


def _conv_grad(F, a, inputs, outputs, ograds):
    return conv_grads(F, a, inputs, ograds[0], F._backward_Convolution_weight, inputs[0])


def _conv_attrs(workspace, no_bias, layouts):
    return {
        "kernel": Attr("shape", doc="convolution kernel size: (w,), (h, w) or (d, h, w)"),
        "stride": Attr("shape", (), doc="stride per spatial dimension; empty means 1 each"),
        "dilate": Attr("shape", (), doc="dilation per spatial dimension; empty means 1 each"),
        "pad": Attr("shape", (), doc="zero padding per spatial dimension (both sides); empty means 0"),
        "num_filter": Attr("int", doc="number of output channels"),
        "num_group": Attr("int", 1, doc="number of groups (channels / num_group per filter)"),
        "workspace": Attr("int", workspace, doc="megabytes of workspace cuDNN's algorithms may use on a GPU "
                                                 "(with cudnn_tune 'limited_workspace'); unused on the CPU"),
        "no_bias": Attr("bool", no_bias, doc="whether to leave out the bias input"),
        "cudnn_tune": Attr("enum?", None, choices=("off", "limited_workspace", "fastest"),
                           doc="how cuDNN's algorithm is chosen on a GPU: heuristics ('off') or measured "
                               "(None: MXNET_CUDNN_AUTOTUNE_DEFAULT; ops/cudnn/convolution.py)"),
        "cudnn_off": Attr("bool", False, doc="on a GPU, compute without cuDNN (the im2col path)"),
        "layout": Attr("enum?", None, choices=layouts,
                       doc="data layout; None means NCW, NCHW or NCDHW by the kernel's rank"),
    }


_CONV_ATTRS = _conv_attrs(1024, False, _CONV_LAYOUTS)
# MXNet: num_filter >= 1 and workspace >= 0 (parameter bounds), kernel/stride/dilate > 0 (shape
# checks); groups and padding below 1 and 0 have no meaning (and crash the computes)
CONV_BOUNDS = {"kernel": (1, None), "stride": (1, None), "dilate": (1, None), "pad": (0, None),
               "num_filter": (1, None), "num_group": (1, None), "workspace": (0, None)}
_with_bias = lambda a: ("data", "weight") if a["no_bias"] else ("data", "weight", "bias")  # noqa: E731


def _columns_pay(a, in_shapes, device):
    """Whether a compiled training step on ``device`` keeps the im2col columns for the weight gradient:
    only on the NumPy path (oneDNN and cuDNN build none; ``ops/conv_path.py``)."""
    return not conv_path.accelerated(device)


def _channel_axes(a):
    """The output's channel axis, both signs (``Epilogue.channel_axes``)."""
    nd = len(a["kernel"])
    return (nd + 1, -1) if channel_last(a, nd, "Convolution") else (1, -(nd + 1))


def is_matmul(a):
    """Whether a Convolution with parsed attributes ``a`` is one plain matrix product per sample
    (``W (F, C) @ x (C, H*W)``): a 2-D 1x1 kernel, stride 1, no padding or dilation, one group,
    channel-first (``Epilogue.matmul``)."""
    if len(a["kernel"]) != 2 or tuple(a["kernel"]) != (1, 1) or a["num_group"] != 1:
        return False
    if a["layout"] not in (None, "NCHW"):
        return False
    return all(v == 1 for v in a["stride"]) and all(v == 1 for v in a["dilate"]) and all(v == 0 for v in a["pad"])


# predict programs run a Convolution with what follows it in one call (ops/conv_fused.py)
CONV_EPILOGUE = Epilogue("_FusedConvolution", channel_axes=_channel_axes, activations=("relu",), matmul=is_matmul)
# ... and may read and write oneDNN's channel-blocked layouts there (the layout plan; channel-first data)
CONV_BLOCKED = BlockedLayout(op="_FusedConvolution", applies=lambda a, ndim: not channel_last(a, ndim - 2, "Convolution"),
                             weight_cache_attr="cached_weight")


register(OpDef(
    "Convolution", inputs=_with_bias, epilogue=CONV_EPILOGUE, blocked_layout=CONV_BLOCKED, all_inputs=("data", "weight", "bias"), attrs=_CONV_ATTRS,
    compute=via_float32(_conv_compute, uniform_dtypes("Convolution")), infer_shape=_conv_infer,
    infer_type=uniform_dtypes("Convolution"),
    infer_partial=_conv_partial, grad=_conv_grad, bounds=CONV_BOUNDS, family="conv", aliases=("_npx_convolution",),
    npx=NsName("convolution"), train_variant=("_Convolution_columns", "weight", _columns_pay),
    doc="""N-D convolution (1-D, 2-D, 3-D) of ``data`` (N, C, *spatial) with ``weight``
(num_filter, C / num_group, *kernel) plus ``bias`` (num_filter,) unless ``no_bias``.
Output size per dimension: ``floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``.
``num_group`` splits channels and filters into groups (``num_group == C`` is depthwise).
With layout NWC/NHWC/NDHWC, data and weight put the channel axis last."""))


# ---- weight gradient ---------------------------------------------------------------------------
def _wgrad_infer(a, in_shapes):
    og, data = in_shapes
    if data is None:
        return [None]
    cl, k, s, d, p, out_sp = _conv_geometry(a, data, "_backward_Convolution_weight")
    n, c, _ = split_shape(data, cl)
    _check_groups("_backward_Convolution_weight", a, c, 1, data, cl)
    F = a["num_filter"]
    merge_shape(in_shapes, 0, join_shape(n, F, out_sp, cl), "ograd has the Convolution output's shape")
    return [join_shape(F, c // a["num_group"], k, cl)]


_GEMV_MAX_BYTES = 32 << 20     # columns per group read once per filter row (see below)


def _products_over_long_axis(xp, a, b):
    """``a @ b.T`` per group for ``a`` (g, m, L) and ``b`` (g, n, L), L the long batch-and-positions
    axis. OpenBLAS runs such a GEMM on one core with a poorly filled kernel when m < 8 (measured 2-3x
    slower for m from 2 to 7 than m matrix-vector products, which it spreads over the cores; equal at
    m = 1), so on the CPU such rows take one ``b @ a[i]`` each, while the calls stay few and ``b``
    stays in cache (each product reads all of it: with 75 MB of columns one GEMM won)."""
    g, m, _ = a.shape
    if xp is not np or not 1 < m < 8 or g * m > 32 or b.nbytes > _GEMV_MAX_BYTES * g:
        return xp.matmul(a, xp.swapaxes(b, 1, 2))
    out = xp.empty((g, m, b.shape[1]), dtype=xp.result_type(a, b))
    for gi in range(g):
        for i in range(m):
            xp.matmul(b[gi], a[gi, i], out=out[gi, i])
    return out


def _wgrad_compute(ctx, a, ograd, data):
    xp = ctx.xp
    nd, k, s, d, p = conv_params(a, "_backward_Convolution_weight")
    cl = channel_last(a, nd, "_backward_Convolution_weight")
    if conv_path.covers(xp, ograd, data, cudnn_off=a["cudnn_off"]):
        _, c, _ = split_shape(data.shape, cl)
        dw = conv_path.weight_gradient(xp, ograd, data, conv_path.geometry(s, d, p, a["num_group"]), cl,
                                       join_shape(a["num_filter"], c // a["num_group"], k, cl), attrs=a)
        if dw is not None:
            return dw
    x = to_cf(xp, data, cl)
    out_sp = tuple(ograd.shape[1:-1] if cl else ograd.shape[2:])
    grid = _grid(_padded(x.shape[2:], p), out_sp, s)
    cols = _im2col(xp, x, a["num_group"], out_sp, k, s, d, p, grid)     # (g, C/g*K, N*G)
    return weight_grad_from_columns(xp, a, ograd, cols, grid)


def weight_grad_from_columns(xp, a, ograd, cols, grid):
    """The weight gradient from ``ograd`` (the Convolution output's shape, in its layout) and the
    column matrix ``cols`` (g, C/g*K, N*G) built on ``grid`` G (see :func:`_im2col`)."""
    nd, k = len(a["kernel"]), a["kernel"]
    cl = channel_last(a, nd, "_backward_Convolution_weight")
    og = to_cf(xp, ograd, cl)
    N, F, g = og.shape[0], a["num_filter"], a["num_group"]
    C = cols.shape[1] // prod(k) * g
    out_sp = tuple(og.shape[2:])
    grid = tuple(grid)
    if grid == out_sp:
        ogm = xp.swapaxes(og.reshape(N, F, -1), 0, 1).reshape(g, F // g, -1)
    else:   # zeros on the grid's extra columns, so they add nothing
        ogm = xp.zeros((F, N) + grid, dtype=og.dtype)
        ogm[(slice(None), slice(None)) + tuple(slice(o) for o in out_sp)] = xp.swapaxes(og, 0, 1)
        ogm = ogm.reshape(g, F // g, -1)
    dw = _products_over_long_axis(xp, ogm, cols)                         # (g, F/g, C/g*K)
    return from_cf(xp, dw.reshape((F, C // g) + tuple(k)), cl)


def _wgrad_grad(F, a, inputs, outputs, ograds):
    og, data = inputs
    gw = ograds[0]
    common = _common(a, a["pad"])
    return [F.Convolution(data, gw, num_filter=a["num_filter"], no_bias=True, **common),
            _conv_data_grad(F, a, og, gw, data.shape)]


register(OpDef(
    "_backward_Convolution_weight", inputs=("ograd", "data"), attrs=_CONV_ATTRS,
    compute=via_float32(_wgrad_compute, uniform_dtypes("_backward_Convolution_weight")),
    infer_shape=_wgrad_infer, infer_type=uniform_dtypes("_backward_Convolution_weight"), grad=_wgrad_grad,
    bounds=CONV_BOUNDS, family="conv", hidden=True,
    doc="""Gradient of Convolution w.r.t. its weight: ``ograd`` (the output's shape) correlated with
``data``; attributes are the Convolution's. Also Deconvolution's weight gradient (with data and
ograd swapped). Its own gradient is a Convolution (w.r.t. ograd) and a Deconvolution (w.r.t. data)."""))
