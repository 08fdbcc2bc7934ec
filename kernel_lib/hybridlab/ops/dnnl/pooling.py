"""oneDNN's max and average pooling (forward inference) on float32 NumPy arrays in the plain
channel-first layout or a channel-blocked one (``layout.py``): the pooling of predict programs
whose values the layout plan keeps blocked (``ops/pool_blocked.py``); and the gradient of max
pooling (``max_backward``: training programs' ``_backward_Pooling``), and the 2x2 max pooling of
compiled training steps with its workspace of maximum positions (``first_max_forward``:
``ops/pool_first_max.py``; its gradient stays NumPy's, as fast), all computed in the blocked layout
oneDNN's jit kernels need (its plain-layout kernels were 3-6x slower than NumPy), with the reorders
in and out. oneDNN routes each window's gradient to its first maximum, as MXNet.

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

__all__ = ["forward", "max_backward", "first_max_forward", "KINDS"]

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


def _train_plans(src_shape, dst_shape, kernel, stride, pad_l, pad_r, block, plain_workspace):
    """``(forward plan, backward plan, workspace bytes)`` of max pooling computed in layout
    ``block`` on plain user arrays: the forward (training: it writes the workspace of each window's
    maximum position) reads plain data and writes the plain output; the backward reads the plain
    output gradient and writes the plain data gradient. ``plain_workspace``: the workspace is a plain
    uint8 array of the output's shape (each window's position in row-major order: the code of
    ``ops/pool.first_max_2x2``), else oneDNN's own layout (bytes)."""
    tag = L.blocked_tag(len(src_shape), block)
    src, dst = L.MemoryDesc(src_shape, tag=tag), L.MemoryDesc(dst_shape, tag=tag)
    plain_src, plain_dst = L.MemoryDesc(src_shape), L.MemoryDesc(dst_shape)
    geometry = (L.dims(stride), L.dims(kernel), L.dims([0] * len(kernel)), L.dims(pad_l), L.dims(pad_r))
    detail = f"(max pooling training: src {src_shape}, dst {dst_shape}, kernel {kernel}, stride {stride})"
    fwd = L.Primitive("dnnl_pooling_forward_primitive_desc_create", L.engine(), L.FORWARD_TRAINING, L.POOLING_MAX,
                      src.handle, dst.handle, *geometry, None, detail=detail).create()
    ws_md = L.query_md(fwd, L.QUERY_WORKSPACE_MD)
    ws = L.MemoryDesc(dst_shape, dtype=L.U8) if plain_workspace else _Bytes(ws_md)
    bwd = L.Primitive("dnnl_pooling_backward_primitive_desc_create", L.engine(), L.POOLING_MAX, src.handle, dst.handle,
                      *geometry, fwd.pd, None, detail=detail, keep=(fwd,)).create()
    forward_plan = Plan("pooling max forward", fwd, [Arg(L.ARG_SRC, plain_src, src.handle, False),
                                                     Arg(L.ARG_DST, plain_dst, dst.handle, True),
                                                     Arg(L.ARG_WORKSPACE, ws, ws_md, True)])
    backward_plan = Plan("pooling max backward", bwd, [Arg(L.ARG_DIFF_DST, plain_dst, dst.handle, False),
                                                       Arg(L.ARG_WORKSPACE, ws, ws_md, False),
                                                       Arg(L.ARG_DIFF_SRC, plain_src, src.handle, True)])
    return forward_plan, backward_plan, L.md_size(ws_md)


def _training(src_shape, dst_shape, kernel, stride, pad_l, pad_r, block, plain_workspace):
    """``(key, plans)``: the cached :func:`_train_plans` of these arguments (``None`` when oneDNN has none)."""
    key = ("pooling max training", tuple(src_shape), tuple(dst_shape), tuple(kernel), tuple(stride), tuple(pad_l),
           tuple(pad_r), int(block), bool(plain_workspace))
    return key, plan_of(key, lambda: _train_plans(*key[1:]))


class _Bytes:
    """A primitive's own descriptor (the workspace's) where ``Arg`` expects a ``MemoryDesc``."""

    def __init__(self, handle):
        self.handle, self.shape = handle, ()


def max_backward(src, diff_dst, diff_src, kernel, stride, pad_l, pad_r, block):
    """``diff_src``: the gradient of max pooling ``src`` (windows ``kernel``, ``stride``, padding
    ``pad_l``/``pad_r``) for the output gradient ``diff_dst``, all plain C-contiguous float32 arrays;
    computed in layout ``block`` (the channels of ``src`` must fit it). ``False`` when oneDNN cannot."""
    key, plans = _training(src.shape, diff_dst.shape, kernel, stride, pad_l, pad_r, block, False)
    if plans is None:
        return False
    forward_plan, backward_plan, ws_bytes = plans
    ws = np.empty(ws_bytes, np.uint8)                        # the workspace, in oneDNN's own layout
    dst = np.empty(diff_dst.shape, np.float32)               # the forward's output, unused
    return run(key + ("forward",), lambda: forward_plan, (src, dst, ws)) and \
        run(key + ("backward",), lambda: backward_plan, (diff_dst, ws, diff_src))


def first_max_forward(src, dst, code, block):
    """Max pooling of ``src`` (N, C, 2H, 2W) over the 2x2 windows that tile it, into ``dst`` (float32)
    and ``code`` (uint8, N, C, H, W: each window's maximum position 0..3 in row-major order, what
    ``ops/pool.first_max_2x2`` gives), computed in layout ``block``. oneDNN ignores NaN (callers keep
    data with NaN away). ``False`` when oneDNN cannot."""
    n, c, h, w = src.shape
    key, plans = _training(src.shape, (n, c, h // 2, w // 2), (2, 2), (2, 2), (0, 0), (0, 0), block, True)
    return plans is not None and run(key + ("forward",), lambda: plans[0], (src, dst, code))
