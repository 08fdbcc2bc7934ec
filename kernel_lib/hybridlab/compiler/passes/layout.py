"""The layout plan: predict programs on the oneDNN path keep values in oneDNN's channel-blocked
layout between the ops that can read it, instead of reordering every convolution's input and
output (MXNet's oneDNN build keeps its NDArrays blocked the same way).

oneDNN's CPU convolutions compute on activations stored as ``(N, C/8, H, W, 8)`` on AVX2
(``ops/dnnl/layout.py`` asks which block this CPU uses). Called with plain arrays, each
convolution reorders its input into that layout and its output back, two passes over the data
per convolution (a fifth of a ResNet-50 forward at batch 32). This pass decides, once per input
signature (the shapes must be known), which values are blocked:

* an op that declares a ``BlockedLayout`` (Convolution and its fused form, ``_ChannelAffine``,
  Pooling: the registry says, ``ops/op_fields.py``) reads its data blocked when the value arrives
  blocked, and writes its output blocked when the channels fit the block (or, ``out_attr=None``, in
  the data's layout); Convolution becomes ``_FusedConvolution`` and Pooling ``_BlockedPooling``,
  which take the blocks as attributes;
* an elementwise op whose inputs all have its output's shape (a residual sum, a relu, a fused
  elementwise kernel) computes on any layout: its output is blocked when an input is, and its
  plain inputs are reordered to the block;
* every other reader of a blocked value (flatten, a dense layer, a graph output) gets it through
  one ``_LayoutReorder`` node back to the plain layout, shared by all such readers.

Nodes that already read or write a block (a graph planned before) keep their attributes.

A convolution whose weight is a graph input (a parameter) is also told so (``BlockedLayout
.weight_cache_attr``): oneDNN then keeps the weight in its own layout between calls until it is
written (``ops/dnnl/weight_cache.py``), instead of reordering it on every call.

Blocked values keep their channel-first shape (the array's elements are in the blocked order), so
shapes, type inference, memory plans and buffers are the graph's own; the nodes reading them carry
the block as an attribute, and ``meta["layout"]`` names it for the graph view. Values whose
channels the block does not divide (the 3 colours of an image) stay plain. Each node keeps its
name; reorder nodes are named ``<value>_to_block8`` / ``<value>_to_plain``.

The cached op runs the plan for predict signatures on the CPU while the oneDNN convolution path is
selected and the graph has a convolution; ``HYBRIDLAB_LAYOUT_PLAN=0`` (read at import) turns it
off. Off the oneDNN path the same programs still compute the same values (the ops move blocked
values through NumPy), only slower.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import layout
    >>> x = mx.sym.var('x')
    >>> c1 = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name='c1')
    >>> c2 = mx.sym.Convolution(mx.sym.relu(c1, name='r'), kernel=(3, 3), pad=(1, 1), num_filter=8, name='c2')
    >>> s = mx.sym.elemwise_add(c2, c1, name='sum')
    >>> y = mx.sym.Pooling(s, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool')
    >>> planned = layout.plan_symbol(y, {'x': (1, 3, 8, 8)}, block=8)
    >>> for n in planned._nodes():
    ...     if not n.is_variable:
    ...         print(n.name, n.op_name, n.meta.get("layout", "-"))
    c1 _FusedConvolution blocked by 8
    r relu blocked by 8
    c2 _FusedConvolution blocked by 8
    sum elemwise_add blocked by 8
    pool _BlockedPooling blocked by 8
    pool_to_plain _LayoutReorder plain
"""
import os

import numpy as np

from ...ops.blocked import fits
from ...ops.fused import lowerable
from ...ops.registry import get_op
from ...symbol.graph import Node, topo_order
from ...symbol.symbol import Symbol
from ._graph import is_pure

__all__ = ["plan_layouts", "plan_symbol", "applies", "USE_LAYOUT_PLAN"]

USE_LAYOUT_PLAN = os.environ.get("HYBRIDLAB_LAYOUT_PLAN", "1").strip() != "0"     # read at import

_REORDER = get_op("_LayoutReorder")
_FUSED = get_op("_fused_elemwise")
_F32 = np.dtype(np.float32)


def applies(ops, device):
    """The channel block the plan would use for a predict program of ``ops`` on ``device``, or 0:
    the CPU, the oneDNN convolution path selected, a block preferred there, a convolution in the
    graph (an op with a ``BlockedLayout`` whose output can be blocked)."""
    from ...ops import conv_path
    from ...ops.dnnl import layout as dnnl_layout
    if not USE_LAYOUT_PLAN or device.is_gpu or not conv_path.onednn_selected():
        return 0
    if not any(n.op.blocked_layout is not None and n.op.blocked_layout.out_attr for n in ops):
        return 0
    return dnnl_layout.preferred_block()


def _float32(node, dtypes):
    return all(d == _F32 for d in dtypes.get(id(node)) or [None])


def _layout_free(node, shapes):
    """An elementwise op whose inputs all have its output's shape: it computes on any layout."""
    if node.num_outputs() != 1 or not is_pure(node):
        return False
    op = node.op
    if not (lowerable(op) or op is _FUSED or op.activation_kind(node.parsed_attrs()) is not None):
        return False
    out = shapes[id(node)][0]
    return all(shapes[id(src)][i] == out for src, i in node.inputs)


def _given(node, spec):
    """``(data block, output block)`` a node already runs with (a ``_LayoutReorder``, or an op whose
    block attributes are set: a graph planned before), else ``None``."""
    a = node.parsed_attrs()
    if node.op is _REORDER:
        return a["from_block"], a["to_block"]
    if spec is not None and node.op.name == (spec.op or node.op.name):
        in_b = a.get(spec.in_attr, 0)
        out_b = in_b if spec.out_attr is None else a.get(spec.out_attr, 0)
        if in_b or out_b:
            return in_b, out_b
    return None


def _decide(order, shapes, dtypes, block):
    """``(layout, blocks)``: the block of every value ``{(id(node), i): block}`` (absent: plain)
    and, per node that reads or writes a block, ``{id(node): (data block, output block, rewrite)}``
    (``"free"`` for a layout-free elementwise node; ``rewrite``: the node's attributes change)."""
    layout, blocks = {}, {}
    for node in order:
        if node.is_variable or not node.inputs:
            continue
        spec = node.op.blocked_layout
        given = _given(node, spec)
        if given is not None:
            blocks[id(node)] = given + (False,)
            layout[(id(node), 0)] = given[1]
            continue
        if not _float32(node, dtypes):
            continue
        out_shape = shapes[id(node)][0]
        src, i = node.inputs[0]
        if spec is not None and spec.applies(node.parsed_attrs(), len(shapes[id(src)][i])):
            in_b = layout.get((id(src), i), 0)
            out_b = in_b if spec.out_attr is None else (block if fits(out_shape, block) else 0)
            if in_b or out_b:
                blocks[id(node)] = (in_b, out_b, True)
                layout[(id(node), 0)] = out_b
        elif _layout_free(node, shapes) and fits(out_shape, block) and \
                any(layout.get((id(s), k)) for s, k in node.inputs):
            blocks[id(node)] = "free"
            layout[(id(node), 0)] = block
    return layout, blocks


def _copy_meta(node):
    return {k: v.copy() if type(v) in (list, dict) else v for k, v in node.meta.items()}


def plan_layouts(outputs, shapes, dtypes, block):
    """The graph of ``outputs`` ((node, index) entries) with the layout plan for channel block
    ``block`` (``shapes``/``dtypes``: ``{id(node): [per output]}`` of that graph, from
    ``Signature.infer``), as ``(new outputs, number of reorder nodes)``; ``None`` when no value
    would be blocked. The given graph is not modified."""
    order = topo_order(outputs)
    layout, blocks = _decide(order, shapes, dtypes, block)
    if not any(d == "free" or d[2] for d in blocks.values()):
        return None
    clones, reorders = {}, {}

    def entry(src, i, want):
        have = layout.get((id(src), i), 0)
        if have == want:
            return clones[id(src)], i
        key = (id(src), i, want)
        if key not in reorders:
            suffix = f"_output{i}" if i else ""
            r = Node(_REORDER, f"{src.name}{suffix}_to_{f'block{want}' if want else 'plain'}",
                     {"from_block": str(have), "to_block": str(want)}, [(clones[id(src)], i)])
            r.meta = {k: v for k, v in src.meta.items() if k in ("scope", "source")}
            r.meta["layout"] = f"blocked by {want}" if want else "plain"
            reorders[key] = r
        return reorders[key], 0

    for node in order:
        decision = blocks.get(id(node))
        op, attrs = node.op, node.attrs
        if decision is None:
            wants = [0] * len(node.inputs)
        elif decision == "free":
            wants = [block] * len(node.inputs)
        else:
            if decision[2]:
                spec = node.op.blocked_layout
                op = get_op(spec.op) if isinstance(spec.op, str) else (spec.op or node.op)
                attrs = dict(attrs, **{spec.in_attr: str(decision[0])})
                if spec.out_attr is not None:
                    attrs[spec.out_attr] = str(decision[1])
                if spec.weight_cache_attr is not None and len(node.inputs) > 1 and node.inputs[1][0].is_variable:
                    attrs[spec.weight_cache_attr] = "True"
            wants = [decision[0]] + [0] * (len(node.inputs) - 1)
        c = Node(op, node.name, attrs, [entry(s, i, w) for (s, i), w in zip(node.inputs, wants)], node.subgraphs)
        c.meta = _copy_meta(node)
        if op is node.op and attrs is node.attrs:
            c._parsed = node._parsed
        if layout.get((id(node), 0)):
            c.meta["layout"] = f"blocked by {layout[(id(node), 0)]}"
        clones[id(node)] = c
    return [entry(n, i, 0) for n, i in outputs], len(reorders)


def plan_symbol(symbol, input_shapes, block, dtype="float32"):
    """:func:`plan_layouts` on a Symbol given its input shapes (``{name: shape}``, every input of one
    ``dtype``): the planned Symbol (the symbol itself when nothing would be blocked). For tests and
    the docs; the cached op calls :func:`plan_layouts` with the shapes it inferred."""
    from ..signature import Signature
    from ...device import cpu
    arg_shapes, _, aux_shapes = symbol.infer_shape(**input_shapes)
    known = dict(zip(symbol.list_arguments() + symbol.list_auxiliary_states(), arg_shapes + aux_shapes))
    names = symbol.list_inputs()
    inputs = {n.name: n for n in topo_order(symbol._outputs) if n.is_variable}
    sig = Signature(names, [tuple(known[n]) for n in names], [np.dtype(dtype)] * len(names), cpu(), False)
    shapes, dtypes = sig.infer(symbol._outputs, [inputs[n] for n in names])
    planned = plan_layouts(symbol._outputs, shapes, dtypes, block)
    return symbol if planned is None else Symbol(planned[0])
