"""``_LayoutReorder``: a value moved between the plain channel-first layout and a channel-blocked
one (``ops/blocked.py``), as the layout plan of predict programs inserts it at the edges of the
region it keeps blocked (``compiler/passes/layout.py``). oneDNN's reorder on the oneDNN path
(``ops/conv_path.py``), NumPy's transpose otherwise: the same values.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.ops.context import op_context
    >>> from hybridlab.ops.registry import get_op
    >>> op = get_op("_LayoutReorder")
    >>> x = np.arange(8, dtype=np.float32).reshape(1, 4, 1, 2)
    >>> op.compute(op_context(mx.cpu(), False), op.parse_attrs({"to_block": "2"}), x).ravel().tolist()
    [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0]
"""
import numpy as np

from ..base import MXNetError
from . import conv_path
from .attrs import Attr
from .blocked import expected, fits, from_block, to_block
from .dnnl import layout as dnnl_layout
from .infer import InferError
from .registry import OpDef, OutKernel, register

__all__ = []


def _compute(ctx, a, x, out=None):
    src, dst = a["from_block"], a["to_block"]
    if not (fits(x.shape, src) and fits(x.shape, dst)):
        raise MXNetError(f"_LayoutReorder from block {src} to {dst}: expected {expected(max(src, dst))}, "
                         f"got {x.shape}")
    if conv_path.onednn_covers(ctx.xp, x, out) and src != dst and (out is None or out.flags.c_contiguous):
        target = np.empty(x.shape, np.float32) if out is None else out
        if dnnl_layout.reorder(np.ascontiguousarray(x), target, src, dst):
            return target
    moved = x if src == dst else to_block(ctx.xp, from_block(ctx.xp, x, src), dst)
    if out is None:
        return moved
    out[...] = moved
    return out


def _compute_out(ctx, a, out, x):
    return _compute(ctx, a, x, out)


def _infer(a, s):
    block = max(a["from_block"], a["to_block"])
    if s[0] is not None and not fits(s[0], block):
        raise InferError(0, expected(block), s[0])
    return [s[0]]


register(OpDef(
    "_LayoutReorder", inputs=("data",), family="internal", hidden=True,
    attrs={"from_block": Attr("int", 0, doc="the channel block of the input's layout (0: plain channel-first)"),
           "to_block": Attr("int", 0, doc="the channel block of the output's layout (0: plain channel-first)")},
    compute=_compute, infer_shape=_infer, out_kernel=OutKernel(_compute_out),
    no_grad_reason="used only in predict programs (the layout plan); training runs the unplanned graph",
    doc="""The input's values in another layout of the same channel-first shape: ``from_block`` -> ``to_block``
(0 is the plain layout, ``b`` the layout blocked by ``b`` channels, stored as (N, C/b, *spatial, b)); inserted by
the layout plan of predict programs."""))
