"""oneDNN's max and average pooling (forward inference) on float32 NumPy arrays in the plain
channel-first layout or a channel-blocked one (``layout.py``): the pooling of predict programs
whose values the layout plan keeps blocked (``ops/pool_blocked.py``); and the gradient of max
pooling (``max_backward``: training programs' ``_backward_Pooling``), computed in the blocked layout
oneDNN's jit kernels need (its plain-layout kernels were slower than NumPy), with the reorders in
and out. oneDNN routes each window's gradient to its first maximum, as MXNet.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> from hybridlab.ops.dnnl import pooling
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> y = np.empty((1, 1, 2, 2), np.float32)
    >>> not dnnl.available() or (pooling.forward(x, y, "max", (2, 2), (2, 2), (0, 0), (0, 0), block=0)
    ...                          and y.ravel().tolist() == [5.0, 7.0, 13.0, 15.0])
    True
"""
import numpy as np

from . import library as L
from .plan import Arg, Plan, plan_of, run

__all__ = ["forward", "max_backward", "KINDS"]

KINDS = {"max": L.POOLING_MAX, "avg": L.POOLING_AVG_INCLUDE_PADDING, "avg_exclude_pad": L.POOLING_AVG_EXCLUDE_PADDING}


def _build(src_shape, dst_shape, kind, kernel, stride, pad_l, pad_r, block):
    tag = L.blocked_tag(len(src_shape), block) if block else None
    src, dst = L.MemoryDesc(src_shape, tag=tag), L.MemoryDesc(dst_shape, tag=tag)
    prim = L.Primitive("dnnl_pooling_forward_primitive_desc_create", L.engine(), L.FORWARD_INFERENCE, KINDS[kind],
                       src.handle, dst.handle, L.dims(stride), L.dims(kernel), L.dims([0] * len(kernel)),
                       L.dims(pad_l), L.dims(pad_r), None,
                       detail=f"(pooling {kind}: src {src_shape}, dst {dst_shape}, kernel {kernel}, "
                              f"stride {stride}, pad {pad_l} {pad_r})").create()
    return Plan("pooling", prim, [Arg(L.ARG_SRC, src, src.handle, False), Arg(L.ARG_DST, dst, dst.handle, True)])


def forward(src, dst, kind, kernel, stride, pad_l, pad_r, block):
    """``dst``: the ``kind`` pooling (``"max"``, ``"avg"`` dividing by the kernel size, or
    ``"avg_exclude_pad"`` by the real elements) of ``src`` over windows ``kernel`` moved by ``stride``
    over ``src`` padded by ``pad_l`` before and ``pad_r`` after each spatial dimension; both C-contiguous
    float32 arrays, channel-first shapes, in layout ``block`` (0: plain). ``False`` when oneDNN cannot."""
    key = ("pooling", tuple(src.shape), tuple(dst.shape), kind, tuple(kernel), tuple(stride), tuple(pad_l),
           tuple(pad_r), int(block))
    return run(key, lambda: _build(*key[1:]), (src, dst))


def _backward_plans(src_shape, dst_shape, kernel, stride, pad_l, pad_r, block):
    """``(forward plan, backward plan, workspace bytes)`` of max pooling in layout ``block`` for plain
    user arrays: the forward (training: it writes the workspace of maxima positions) reads the plain
    data, the backward reads the plain output gradient and writes the plain data gradient."""
    tag = L.blocked_tag(len(src_shape), block)
    src, dst = L.MemoryDesc(src_shape, tag=tag), L.MemoryDesc(dst_shape, tag=tag)
    plain_src, plain_dst = L.MemoryDesc(src_shape), L.MemoryDesc(dst_shape)
    geometry = (L.dims(stride), L.dims(kernel), L.dims([0] * len(kernel)), L.dims(pad_l), L.dims(pad_r))
    detail = f"(max pooling gradient: src {src_shape}, dst {dst_shape}, kernel {kernel}, stride {stride})"
    fwd = L.Primitive("dnnl_pooling_forward_primitive_desc_create", L.engine(), L.FORWARD_TRAINING, L.POOLING_MAX,
                      src.handle, dst.handle, *geometry, None, detail=detail).create()
    ws_md = L.query_md(fwd, L.QUERY_WORKSPACE_MD)
    ws = _Bytes(ws_md)
    bwd = L.Primitive("dnnl_pooling_backward_primitive_desc_create", L.engine(), L.POOLING_MAX, src.handle, dst.handle,
                      *geometry, fwd.pd, None, detail=detail, keep=(fwd,)).create()
    forward_plan = Plan("pooling max forward", fwd, [Arg(L.ARG_SRC, plain_src, src.handle, False),
                                                     Arg(L.ARG_DST, dst, dst.handle, True),
                                                     Arg(L.ARG_WORKSPACE, ws, ws_md, True)])
    backward_plan = Plan("pooling max backward", bwd, [Arg(L.ARG_DIFF_DST, plain_dst, dst.handle, False),
                                                       Arg(L.ARG_WORKSPACE, ws, ws_md, False),
                                                       Arg(L.ARG_DIFF_SRC, plain_src, src.handle, True)])
    return forward_plan, backward_plan, L.md_size(ws_md), L.md_size(dst.handle)


class _Bytes:
    """A primitive's own descriptor (the workspace's) where ``Arg`` expects a ``MemoryDesc``."""

    def __init__(self, handle):
        self.handle, self.shape = handle, ()


def max_backward(src, diff_dst, diff_src, kernel, stride, pad_l, pad_r, block):
    """``diff_src``: the gradient of max pooling ``src`` (windows ``kernel``, ``stride``, padding
    ``pad_l``/``pad_r``) for the output gradient ``diff_dst``, all plain C-contiguous float32 arrays;
    computed in layout ``block`` (the channels of ``src`` must fit it). ``False`` when oneDNN cannot."""
    key = ("pooling max backward", tuple(src.shape), tuple(diff_dst.shape), tuple(kernel), tuple(stride),
           tuple(pad_l), tuple(pad_r), int(block))
    plans = plan_of(key, lambda: _backward_plans(*key[1:]))
    if plans is None:
        return False
    forward_plan, backward_plan, ws_bytes, dst_bytes = plans
    ws = np.empty(-(-ws_bytes // 4), np.float32)            # the workspace (bytes), as float32 for the plans
    dst = np.empty(-(-dst_bytes // 4), np.float32)          # the forward's output, unused
    return run(key + ("forward",), lambda: forward_plan, (src, dst, ws)) and \
        run(key + ("backward",), lambda: backward_plan, (diff_dst, ws, diff_src))
