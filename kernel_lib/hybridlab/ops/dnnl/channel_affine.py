"""A per-channel affine map ``relu?(x * scale + shift)`` in one oneDNN pass (a binary ``mul``
primitive with a binary ``add`` and an eltwise ReLU as post-ops), on the plain channel-first
layout or a channel-blocked one (``layout.py``): BatchNorm in predict programs
(``ops/channel_affine.py``), on values the layout plan keeps blocked.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> from hybridlab.ops.dnnl import channel_affine
    >>> x = np.array([[[[1.0]], [[-2.0]]]], np.float32)
    >>> y = np.empty_like(x)
    >>> s, t = np.array([2.0, 1.0], np.float32), np.array([1.0, 0.5], np.float32)
    >>> not dnnl.available() or (channel_affine.forward(x, s, t, y, block=0, relu=True)
    ...                          and y.ravel().tolist() == [3.0, 0.0])
    True
"""
from . import library as L
from .plan import Arg, Plan, run

__all__ = ["forward"]


def _build(shape, axis, block, relu):
    tag = L.blocked_tag(len(shape), block) if block else None
    data = L.MemoryDesc(shape, tag=tag)
    out = L.MemoryDesc(shape, tag=tag)
    # one value per channel as a (1, .., C, .., 1) tensor in the data's layout (the same bytes as the
    # plain vector: the blocked order of one pixel is the channel order); a plain descriptor next to
    # blocked data got oneDNN's reference implementation, 20x slower
    channel = L.MemoryDesc(tuple(n if k == axis else 1 for k, n in enumerate(shape)), tag=tag)
    shift = L.MemoryDesc(channel.shape, tag=tag)
    attr = L.PostOps([("add", shift)] + ([("relu",)] if relu else []))
    prim = L.Primitive("dnnl_binary_primitive_desc_create", L.engine(), L.BINARY_MUL, data.handle,
                       channel.handle, out.handle, attr.handle, keep=(attr,),
                       detail=f"(channel affine map of shape {shape}, block {block})").create()
    return Plan("channel affine", prim, [Arg(L.ARG_SRC, data, data.handle, False),
                                         Arg(L.ARG_SRC_1, channel, channel.handle, False),
                                         Arg(L.post_op_arg(0), shift, shift.handle, False),
                                         Arg(L.ARG_DST, out, out.handle, True)])


def forward(data, scale, shift, out, block, relu, axis=1):
    """``out = data * scale + shift`` per channel along ``axis`` (``scale`` and ``shift`` hold one value
    per channel), then ``max(., 0)`` when ``relu``; ``data`` and ``out`` are C-contiguous float32 arrays
    of one shape, in layout ``block`` (0: plain; a blocked layout has its channels on axis 1).
    ``False`` when oneDNN cannot."""
    shape, axis, block, relu = tuple(data.shape), int(axis), int(block), bool(relu)
    if not block and len(shape) > axis + 1 and shape[-1] == 1:
        # oneDNN 3.2's binary broadcast the per-channel vector wrongly over plain (N, C, 1, 1) data with
        # N > 1 (found by benchmarks/inference_passes.py at 32x32): trailing size-1 axes are dropped
        while len(shape) > axis + 1 and shape[-1] == 1:
            shape = shape[:-1]
        data, out = data.reshape(shape), out.reshape(shape)
    return run(("channel affine", shape, axis, block, relu), lambda: _build(shape, axis, block, relu),
               (data, scale, shift, out))
