"""oneDNN's max and average pooling (forward inference) on float32 NumPy arrays in the plain
channel-first layout or a channel-blocked one (``layout.py``): the pooling of predict programs
whose values the layout plan keeps blocked (``ops/pool_blocked.py``).

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
from . import library as L
from .plan import Arg, Plan, run

__all__ = ["forward", "KINDS"]

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
