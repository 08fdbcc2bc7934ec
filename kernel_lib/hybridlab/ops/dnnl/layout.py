"""Channel-blocked layouts: which one oneDNN's convolutions prefer here, and reorders between it
and the plain channel-first layout.

oneDNN's CPU convolutions compute on activations blocked by channels: ``(N, C, H, W)`` stored as
``(N, C/8, H, W, 8)`` (``'aBcd8b'``, AVX2) or by 16 (AVX-512). The layout plan of predict
programs (``compiler/passes/layout.py``) keeps values in that layout between convolutions instead
of reordering every convolution's input and output. :func:`preferred_block` asks oneDNN which block
it picks on this CPU; :func:`reorder` moves values between layouts (block 0 is the plain layout).

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> from hybridlab.ops.dnnl import layout
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1)
    >>> blocked, back = np.empty_like(x), np.empty_like(x)
    >>> not dnnl.available() or (layout.reorder(x, blocked, 0, 8) and layout.reorder(blocked, back, 8, 0)
    ...                          and bool((back == x).all()))
    True
"""
from . import library as L
from .plan import Arg, Plan, plan_of, run

__all__ = ["preferred_block", "reorder", "BLOCKS"]

BLOCKS = (16, 8)        # the channel blocks oneDNN's x86 convolutions use (AVX-512, AVX2)

_preferred = {}
# the convolution asked: 64 channels, on an image large enough for the blocked kernels (``convolution._forward_kind``)
PROBE = ((1, 64, 56, 56), (64, 64, 3, 3), (1, 64, 56, 56))


def _md(shape, block):
    return L.MemoryDesc(shape, tag=L.blocked_tag(len(shape), block) if block else None)


def preferred_block():
    """The channel block oneDNN's convolutions choose for their activations on this CPU (16 or 8),
    or 0 when they keep a plain layout. Asked once of a typical 3x3 convolution (:data:`PROBE`)."""
    if "block" not in _preferred:
        shapes = PROBE
        from .convolution import Geometry, plan_info
        conv = plan_info("forward", shapes, Geometry((1, 1), (1, 1), (1, 1), (1, 1), 1))
        chosen = L.query_md(conv.prim, L.QUERY_DST_MD) if conv is not None else None
        candidates = {b: _md(shapes[2], b) for b in BLOCKS}       # kept alive while compared
        _preferred["block"] = next((b for b, md in candidates.items() if chosen is not None
                                    and L.md_equal(chosen, md.handle)), 0)
    return _preferred["block"]


def _build(shape, from_block, to_block):
    src, dst = _md(shape, from_block), _md(shape, to_block)
    prim = L.reorder(src.handle, dst.handle)
    return Plan("reorder", prim, [Arg(L.ARG_FROM, src, src.handle, False), Arg(L.ARG_TO, dst, dst.handle, True)])


def reorder(src, dst, from_block, to_block):
    """Copy the values of ``src`` (layout ``from_block``) into ``dst`` (layout ``to_block``): two
    C-contiguous float32 arrays of one channel-first shape. ``False`` when oneDNN cannot."""
    shape = tuple(src.shape)
    return run(("reorder", shape, int(from_block), int(to_block)),
               lambda: _build(shape, int(from_block), int(to_block)), (src, dst))


def reorder_plan(shape, from_block, to_block):
    """The cached reorder plan (``repr`` names oneDNN's implementation)."""
    return plan_of(("reorder", tuple(shape), int(from_block), int(to_block)),
                   lambda: _build(tuple(shape), int(from_block), int(to_block)))
