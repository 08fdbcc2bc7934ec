"""``split_dynamic``: a graph with dynamic-shape ops (``OpDef.dynamic_shape``: boolean_mask,
nonzero-like ops, whose output shape depends on values) split around them, so the static parts can
still be compiled once per signature while each dynamic op runs imperatively (``partition_if_dynamic``;
``compiler.partitioned`` runs the pieces).

``split_dynamic(symbol)`` gives ``(segments, outputs)``: the ``Segment`` s in execution order, and
the value keys of the graph's outputs. Each segment holds a Symbol whose variables are the values it
reads, named by their keys: graph inputs by name, values of earlier segments by their output name
``<node>_output``. A ``"dynamic"`` segment is one dynamic op; a ``"static"`` one holds the static
nodes of one level, where a node's level counts the dynamic ops on its longest path from the inputs:
static segment ``L`` runs before the dynamic ops of level ``L``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import split_dynamic
    >>> x, m = mx.sym.var('x'), mx.sym.var('m')
    >>> y = mx.sym.sum(mx.sym.exp(mx.sym.boolean_mask(mx.sym.relu(x, name='r'), m, name='mask'), name='e'), name='s')
    >>> segments, outputs = split_dynamic(y)
    >>> for s in segments: print(s)
    static  [r] reads x -> r_output
    dynamic mask (boolean_mask) reads r_output, m -> mask_output
    static  [e, s] reads mask_output -> s_output
    >>> outputs
    ['s_output']
"""
from ...symbol.graph import Node, topo_order
from ...symbol.symbol import Symbol

__all__ = ["Segment", "split_dynamic", "has_dynamic"]


def has_dynamic(symbol):
    """Whether ``symbol`` contains an op with a value-dependent output shape."""
    return any(not n.is_variable and n.op.dynamic_shape for n in topo_order(symbol._outputs))


def _key(node, i):
    return node.name if node.is_variable else node.output_name(i)


class Segment:
    """One piece of a split graph: ``kind`` (``"static"`` or ``"dynamic"``), ``symbol`` (its nodes,
    reading variables named by value keys), ``inputs`` and ``outputs`` as value keys."""

    def __init__(self, kind, inputs, outputs, symbol):
        self.kind, self.inputs, self.outputs, self.symbol = kind, inputs, outputs, symbol

    @property
    def op_names(self):
        return [n.name for n in topo_order(self.symbol._outputs) if not n.is_variable]

    def __repr__(self):
        if self.kind == "dynamic":
            node = self.symbol._outputs[0][0]
            head = f"dynamic {node.name} ({node.op.name})"
        else:
            head = f"static  [{', '.join(self.op_names)}]"
        return f"{head} reads {', '.join(self.inputs) or 'nothing'} -> {', '.join(self.outputs)}"


def split_dynamic(symbol):
    """Split ``symbol`` around its dynamic-shape ops: ``(segments, output keys)`` (see the module
    docstring)."""
    order = [n for n in topo_order(symbol._outputs) if not n.is_variable]
    level = {}
    for n in order:
        level[n] = max([level[s] + (1 if s.op.dynamic_shape else 0)
                        for s, _ in n.inputs if not s.is_variable] or [0])
    needed = set()   # (node, i) read across a segment boundary or a graph output
    for n in order:
        for s, i in n.inputs:
            if not s.is_variable and ((level[s], s.op.dynamic_shape) != (level[n], n.op.dynamic_shape)
                                      or s.op.dynamic_shape):
                needed.add((s, i))
    needed.update((n, i) for n, i in symbol._outputs if not n.is_variable)
    segments = []
    for lv in range(max(level.values(), default=-1) + 1):
        static = [n for n in order if level[n] == lv and not n.op.dynamic_shape]
        if static:
            segments.append(_segment("static", static, lambda n, i: (n, i) in needed))
        for n in order:
            if level[n] == lv and n.op.dynamic_shape:
                segments.append(_segment("dynamic", [n], lambda n, i: True))
    return segments, [_key(n, i) for n, i in symbol._outputs]


def _segment(kind, nodes, keep):
    """A segment of copies of ``nodes``, reading what they take from outside as variables named by
    value keys; its outputs are the visible outputs ``keep(node, i)`` selects."""
    clones, variables = {}, {}
    for n in nodes:
        ins = []
        for s, i in n.inputs:
            if s in clones:
                ins.append((clones[s], i))
                continue
            key = _key(s, i)
            if key not in variables:
                variables[key] = Node(None, key)
            ins.append((variables[key], 0))
        c = Node(n.op, n.name, n.attrs, ins)
        c.meta = dict(n.meta)
        clones[n] = c
    outs = [(n, i) for n in nodes for i in range(n.num_visible()) if keep(n, i)]
    sym = Symbol([(clones[n], i) for n, i in outs])
    return Segment(kind, sym.list_inputs(), [_key(n, i) for n, i in outs], sym)
