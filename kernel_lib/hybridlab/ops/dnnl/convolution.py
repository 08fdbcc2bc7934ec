"""oneDNN convolutions on float32 NumPy arrays: forward, backward data and backward weights.

Each function takes C-contiguous arrays in the user's layout (channel-first ``(N, C, *spatial)``
with weights ``(F, C / groups, *kernel)``, or, with ``channel_last``, ``(N, *spatial, C)`` and
``(F, *kernel, C / groups)``), writes its result into the given output array and returns ``True``;
``False`` when oneDNN has no implementation for the case (the caller then computes it another way).
A :class:`Geometry` holds stride, dilation (MXNet's: 1 means none), padding before and after, and
groups.

The primitive is created with ``format_tag any`` for its tensors, so oneDNN picks its fastest
internal layouts (blocked ones such as ``nChw8c`` on AVX2); reorders copy the user's arrays in and
the results out when the chosen layout differs; an array already in the chosen layout (``blocks``:
the layout plan of predict programs, ``compiler/passes/layout.py``) is used as it is. The plans
(primitive, reorders, memory objects) are built once per key (kind, shapes, layouts, geometry,
bias) and cached (``plan.py``).

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> x, w = np.ones((1, 1, 4, 4), np.float32), np.ones((2, 1, 3, 3), np.float32)
    >>> y = np.empty((1, 2, 2, 2), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g) and y.ravel().tolist() == [9.0] * 8)
    True
"""
import collections
import math

from . import library as L, weight_cache
from .plan import Arg, Plan, clear_cache, plan_of, run

__all__ = ["Geometry", "forward", "backward_data", "backward_weights", "plan_info", "clear_cache"]

Geometry = collections.namedtuple("Geometry", "stride dilate pad_l pad_r groups")


def _cf(shape, channel_last):
    """The channel-first dimensions and element strides of a C-contiguous array of ``shape``."""
    shape = tuple(int(s) for s in shape)
    strides, acc = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= shape[i]
    if channel_last:
        order = (0, len(shape) - 1) + tuple(range(1, len(shape) - 1))
        return tuple(shape[i] for i in order), tuple(strides[i] for i in order)
    return shape, tuple(strides)


def _grouped(dims, strides, groups):
    """Weights ``(F, C/g, *K)`` as oneDNN's grouped ``(g, F/g, C/g, *K)`` (axis 0 split)."""
    if groups == 1:
        return dims, strides
    return (groups, dims[0] // groups) + dims[1:], (strides[0] * (dims[0] // groups),) + strides


def _user_md(array_shape, channel_last, groups=1, block=0):
    """The descriptor of the user's array: plain (channel-first or ``channel_last``), or with
    ``block`` the channel-blocked layout of ``library.blocked_tag`` (channel-first shape)."""
    if block:
        return L.MemoryDesc(array_shape, tag=L.blocked_tag(len(array_shape), block))
    dims, strides = _cf(array_shape, channel_last)
    dims, strides = _grouped(dims, strides, groups)
    return L.MemoryDesc(dims, strides)


def _any(md):
    return L.MemoryDesc(md.shape, tag=L.TAG_ANY)


def _spatial(geom):
    return (L.dims(geom.stride), L.dims([d - 1 for d in geom.dilate]), L.dims(geom.pad_l), L.dims(geom.pad_r))


def _hint(src, weights, dst, geom):
    """A forward primitive descriptor of any layouts: the hint backward descriptors need."""
    a_src, a_w, a_dst = _any(src), _any(weights), _any(dst)      # kept alive through the call
    return L.Primitive("dnnl_convolution_forward_primitive_desc_create", L.engine(), L.FORWARD_TRAINING,
                       L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, None, a_dst.handle,
                       *_spatial(geom), None, detail=_detail("forward hint", src, weights, dst, geom))


def _detail(kind, src, weights, dst, geom):
    return f"(convolution {kind}: src {src.shape}, weights {weights.shape}, dst {dst.shape}, {geom})"


def _build(kind, shapes, channel_last, geom, with_bias, post=(), blocks=(0, 0)):
    src, dst = _user_md(shapes[0], channel_last, block=blocks[0]), _user_md(shapes[2], channel_last, block=blocks[1])
    weights = _user_md(shapes[1], channel_last, geom.groups)
    bias = L.MemoryDesc((shapes[1][0],)) if with_bias else None
    bias_handle = bias.handle if bias is not None else None
    detail = _detail(kind, src, weights, dst, geom) + (f" post-ops {post}" if post else "")
    a_src, a_w, a_dst = _any(src), _any(weights), _any(dst)      # "any": the primitive picks the layouts
    if kind == "forward":
        # post-ops: per-channel vectors (1, F, 1, ...) for the binary ones, ReLU as an eltwise one
        channel = (1, shapes[1][0]) + (1,) * (len(shapes[0]) - 2)
        steps = [(p,) if p == "relu" else (p, L.MemoryDesc(channel)) for p in post]
        attr = L.PostOps(steps) if steps else None
        prop = _forward_kind(shapes, channel_last, geom.groups)
        prim = L.Primitive("dnnl_convolution_forward_primitive_desc_create", L.engine(), prop,
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, bias_handle, a_dst.handle, *_spatial(geom),
                           attr.handle if attr is not None else None, detail=detail, keep=(attr,)).create()
        args = [Arg(L.ARG_SRC, src, L.query_md(prim, L.QUERY_SRC_MD), False),
                Arg(L.ARG_WEIGHTS, weights, L.query_md(prim, L.QUERY_WEIGHTS_MD), False)]
        if bias is not None:
            args.append(Arg(L.ARG_BIAS, bias, bias.handle, False))
        args += [Arg(L.post_op_arg(i), step[1], step[1].handle, False) for i, step in enumerate(steps)
                 if len(step) == 2]
        args.append(Arg(L.ARG_DST, dst, L.query_md(prim, L.QUERY_DST_MD), True))
    elif kind == "backward_data":
        hint = _hint(src, weights, dst, geom)
        prim = L.Primitive("dnnl_convolution_backward_data_primitive_desc_create", L.engine(),
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, a_dst.handle,
                           *_spatial(geom), hint.pd, None, detail=detail, keep=(hint,)).create()
        args = [Arg(L.ARG_DIFF_DST, dst, L.query_md(prim, L.QUERY_DIFF_DST_MD), False),
                Arg(L.ARG_WEIGHTS, weights, L.query_md(prim, L.QUERY_WEIGHTS_MD), False),
                Arg(L.ARG_DIFF_SRC, src, L.query_md(prim, L.QUERY_DIFF_SRC_MD), True)]
    else:
        hint = _hint(src, weights, dst, geom)
        prim = L.Primitive("dnnl_convolution_backward_weights_primitive_desc_create", L.engine(),
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, bias_handle, a_dst.handle, *_spatial(geom),
                           hint.pd, None, detail=detail, keep=(hint,)).create()
        args = [Arg(L.ARG_SRC, src, L.query_md(prim, L.QUERY_SRC_MD), False),
                Arg(L.ARG_DIFF_DST, dst, L.query_md(prim, L.QUERY_DIFF_DST_MD), False),
                Arg(L.ARG_DIFF_WEIGHTS, weights, L.query_md(prim, L.QUERY_DIFF_WEIGHTS_MD), True)]
        if bias is not None:
            args.append(Arg(L.ARG_DIFF_BIAS, bias, bias.handle, True))
    return Plan(kind, prim, args)


SMALL_IMAGE = 49        # output pixels: up to 7x7, forward_inference's kernels are the faster ones
WIDE = 32               # input channels: from 32, forward_inference's kernels are the faster ones


def _forward_kind(shapes, channel_last, groups):
    """The propagation kind a forward convolution of ``shapes`` is created with (its values are the
    same), which decides the kernels oneDNN picks. Measured on AVX2: forward_training gets the jit
    kernels (on the channel-blocked layout the layout plan keeps); forward_inference the brgconv
    ones (on channel-last data), 2x slower for 1x1 convolutions, no faster on 28x28 images, slower on
    larger ones and for 16 input channels; faster, their reorders in and out included, for larger
    ungrouped kernels on small images with 32 input channels or more: ResNet's 3x3 ones at batch 1 on
    7x7 3.8 -> 2.9 ms, (64, 128, 4, 4) 5.2 -> 3.2 ms; those on 7x7 images and smaller get it. (On
    14x14 too: 2.70 -> 2.47 ms, but ResNet-18's training gradients on test_conv_paths' small images
    then differed from the NumPy path's by more than its tolerance, 0.2% of the scale: not taken.)

    >>> from hybridlab.ops.dnnl import library as L
    >>> _forward_kind(((1, 512, 7, 7), (512, 512, 3, 3), (1, 512, 7, 7)), False, 1) == L.FORWARD_INFERENCE
    True
    >>> _forward_kind(((1, 64, 56, 56), (64, 64, 3, 3), (1, 64, 56, 56)), False, 1) == L.FORWARD_TRAINING
    True
    """
    w, out = shapes[1], shapes[2]
    channels, kernel, image = (w[-1], w[1:-1], out[1:-1]) if channel_last else (w[1], w[2:], out[2:])
    if groups == 1 and channels >= WIDE and math.prod(image) <= SMALL_IMAGE and any(k > 1 for k in kernel):
        return L.FORWARD_INFERENCE
    return L.FORWARD_TRAINING


def _key_and_build(kind, shapes, channel_last, geom, with_bias, post=(), blocks=(0, 0)):
    """The plan cache's key of a convolution and the function that builds its plan."""
    key = ("convolution " + kind, tuple(shapes), bool(channel_last), geom, with_bias, post, blocks)

    def build():
        g = Geometry(*(tuple(int(v) for v in x) for x in geom[:4]), int(geom.groups))
        return _build(kind, tuple(shapes), bool(channel_last), g, with_bias, post, blocks)
    return key, build


def _run(kind, shapes, arrays, geom, channel_last, with_bias, post=(), blocks=(0, 0), cache_weights=False):
    key, build = _key_and_build(kind, shapes, channel_last, geom, with_bias, post, blocks)
    return run(key, build, arrays, weight_cache.ready_weights if cache_weights else None)


def forward(src, weights, bias, dst, geom, channel_last=False, scale=None, shift=None, relu=False, blocks=(0, 0),
            cache_weights=False):
    """``dst = conv(src, weights) + bias`` (``bias`` may be ``None``); see the module docstring.
    ``blocks``: ``(src, dst)`` channel blocks, 0 for the plain layout: an array of a blocked
    layout (``library.blocked_tag``) holds its values in that order under its channel-first shape.
    ``cache_weights``: keep the weights in the primitive's layout between calls while they are not
    written (``weight_cache.py``: the parameters of a predict program). Post-ops run inside the primitive on each output value before it is stored: ``* scale`` and
    ``+ shift`` (arrays of one value per filter, either may be ``None``), then ``max(., 0)`` when
    ``relu`` (a folded BatchNorm and a relu: ``ops/conv_fused.py``).

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((2, 1, 3, 3), np.float32)
    >>> y = np.empty((1, 2, 1, 1), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> s, t = np.array([1.0, -1.0], np.float32), np.array([1.0, 2.0], np.float32)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g, scale=s, shift=t, relu=True)
    ...                          and y.ravel().tolist() == [10.0, 0.0])
    True
    """
    post = tuple(name for name, v in (("mul", scale), ("add", shift)) if v is not None) + (("relu",) if relu else ())
    return _run("forward", (src.shape, weights.shape, dst.shape), (src, weights, bias, scale, shift, dst), geom,
                channel_last, bias is not None, post, tuple(blocks), cache_weights)


def backward_data(diff_dst, weights, diff_src, geom, channel_last=False):
    """``diff_src``: the gradient of a convolution of ``diff_src``'s shape w.r.t. its input."""
    return _run("backward_data", (diff_src.shape, weights.shape, diff_dst.shape), (diff_dst, weights, diff_src),
                geom, channel_last, False)


def backward_weights(src, diff_dst, diff_weights, diff_bias, geom, channel_last=False):
    """``diff_weights`` (and ``diff_bias`` unless ``None``): the gradients of a convolution of
    ``src`` w.r.t. its weights and bias, for the output gradient ``diff_dst``."""
    return _run("backward_weights", (src.shape, diff_weights.shape, diff_dst.shape),
                (src, diff_dst, diff_weights, diff_bias), geom, channel_last, diff_bias is not None)


def plan_info(kind, shapes, geom, channel_last=False, with_bias=False):
    """The cached :class:`Plan` for these shapes (``(src, weights, dst)`` in the user's layout),
    built when missing: ``repr`` names oneDNN's implementation and the reordered arguments."""
    return plan_of(*_key_and_build(kind, shapes, channel_last, geom, with_bias))
