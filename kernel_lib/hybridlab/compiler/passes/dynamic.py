"""``partition_if_dynamic``: a graph with dynamic-shape ops (``OpDef.dynamic_shape``: boolean_mask,
nonzero-like ops, whose output shape depends on values) is split around them, so the static parts
can still be compiled once per signature while each dynamic op runs imperatively.

``partition_dynamic(symbol)`` gives a ``Partition``: ``segments`` in execution order, each either
static (a Symbol whose variables are the values it reads: graph inputs by name, values of earlier
segments by their output name ``<node>_output``) or dynamic (one node). A node's level counts the
dynamic ops on its longest path from the inputs; static segment ``L`` holds the static nodes of
level ``L`` and runs before the dynamic ops of level ``L``.

``partition(feed)`` (``run_partitioned``) runs it: a static segment with more than ``inline_limit``
ops runs as a ``CachedOp`` (MXNet's meaning of ``inline_limit``: smaller subgraphs run inline, op
by op), the rest op by op through the imperative dispatcher.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import partition_dynamic
    >>> x, m = mx.sym.var('x'), mx.sym.var('m')
    >>> y = mx.sym.sum(mx.sym.exp(mx.sym.boolean_mask(mx.sym.relu(x, name='r'), m, name='mask'), name='e'), name='s')
    >>> part = partition_dynamic(y)
    >>> print(part)
    Partition: 3 segments
      static  [r] reads x -> r_output
      dynamic mask (boolean_mask) reads r_output, m -> mask_output
      static  [e, s] reads mask_output -> s_output
    >>> out = part({'x': mx.nd.array([-1.0, 0.0, 2.0]), 'm': mx.nd.array([1, 0, 1])})
    >>> round(float(out[0].asscalar()), 4)
    8.3891
"""
from ...base import MXNetError
from ...symbol.graph import Node, topo_order
from ...symbol.symbol import Symbol

__all__ = ["Segment", "Partition", "partition_dynamic", "run_partitioned", "has_dynamic"]


def has_dynamic(symbol):
    """Whether ``symbol`` contains an op with a value-dependent output shape."""
    return any(not n.is_variable and n.op.dynamic_shape for n in topo_order(symbol._outputs))


def _key(node, i):
    return node.name if node.is_variable else node.output_name(i)


class Segment:
    """One piece of a ``Partition``: ``kind`` ``"static"`` (``symbol``) or ``"dynamic"`` (``node``),
    ``inputs`` and ``outputs`` as value keys."""

    def __init__(self, kind, inputs, outputs, symbol=None, node=None):
        self.kind, self.inputs, self.outputs, self.symbol, self.node = kind, inputs, outputs, symbol, node
        self._cached_op = None

    @property
    def op_names(self):
        if self.kind == "dynamic":
            return [self.node.name]
        return [n.name for n in topo_order(self.symbol._outputs) if not n.is_variable]

    def __repr__(self):
        if self.kind == "dynamic":
            head = f"dynamic {self.node.name} ({self.node.op.name})"
        else:
            head = f"static  [{', '.join(self.op_names)}]"
        return f"{head} reads {', '.join(self.inputs) or 'nothing'} -> {', '.join(self.outputs)}"


class Partition:
    """Segments in execution order and the keys of the graph's outputs; call with ``{input name:
    NDArray}`` to run (see ``run_partitioned``)."""

    def __init__(self, segments, outputs, inline_limit=2):
        self.segments, self.outputs, self.inline_limit = segments, outputs, inline_limit

    def __call__(self, feed):
        return run_partitioned(self, feed)

    def __repr__(self):
        return "\n".join([f"Partition: {len(self.segments)} segments"] + [f"  {s!r}" for s in self.segments])


def partition_dynamic(symbol, inline_limit=2):
    """Split ``symbol`` around its dynamic-shape ops (see the module docstring)."""
    order = topo_order(symbol._outputs)
    level = {}
    for n in order:
        if n.is_variable:
            continue
        level[id(n)] = max([level[id(s)] + (1 if s.op.dynamic_shape else 0)
                            for s, _ in n.inputs if not s.is_variable] or [0])
    needed = {}   # (id(node), i) -> True when read across a segment boundary or a graph output
    seg_of = {id(n): (level[id(n)], n.op.dynamic_shape) for n in order if not n.is_variable}
    for n in order:
        for s, i in n.inputs:
            if not s.is_variable and (seg_of[id(s)] != seg_of.get(id(n)) or s.op.dynamic_shape):
                needed[(id(s), i)] = True
    for n, i in symbol._outputs:
        if not n.is_variable:
            needed[(id(n), i)] = True
    segments = []
    for lv in range(max(level.values(), default=-1) + 1):
        static = [n for n in order if not n.is_variable and level[id(n)] == lv and not n.op.dynamic_shape]
        if static:
            segments.append(_static_segment(static, needed))
        for n in order:
            if not n.is_variable and level[id(n)] == lv and n.op.dynamic_shape:
                segments.append(Segment("dynamic", [_key(s, i) for s, i in n.inputs],
                                        [_key(n, i) for i in range(n.num_visible())], node=n))
    return Partition(segments, [_key(n, i) for n, i in symbol._outputs], inline_limit)


def _static_segment(nodes, needed):
    clones, variables, inputs = {}, {}, []
    for n in nodes:
        ins = []
        for s, i in n.inputs:
            if id(s) in clones:
                ins.append((clones[id(s)], i))
                continue
            key = _key(s, i)
            if key not in variables:
                variables[key] = Node(None, key)
                inputs.append(key)
            ins.append((variables[key], 0))
        c = Node(n.op, n.name, n.attrs, ins)
        c.meta = dict(n.meta)
        clones[id(n)] = c
    outs = [(clones[id(n)], i) for n in nodes for i in range(n.num_visible()) if (id(n), i) in needed]
    sym = Symbol(outs)
    return Segment("static", sym.list_inputs(), [_key(n, i) for n, i in outs], symbol=sym)


def run_partitioned(partition, feed):
    """Run ``partition`` on ``feed`` (``{input name: NDArray}``); returns the list of outputs."""
    from ...ndarray.dispatch import invoke
    from ..cached_op import CachedOp
    values = dict(feed)

    def read(keys, where):
        missing = [k for k in keys if k not in values]
        if missing:
            raise MXNetError(f"partition_if_dynamic: {where} expected values for {missing}, got only "
                             f"{sorted(values)} (feed every graph input by name)")
        return [values[k] for k in keys]

    for seg in partition.segments:
        args = read(seg.inputs, f"segment {seg!r}")
        if seg.kind == "dynamic":
            outs = invoke(seg.node.op, args, seg.node.attrs)
        elif len(seg.op_names) > partition.inline_limit:
            if seg._cached_op is None:
                seg._cached_op = CachedOp(seg.symbol)
            outs = seg._cached_op(*args)
        else:
            outs = _run_inline(seg.symbol, dict(zip(seg.inputs, args)), invoke)
        values.update(zip(seg.outputs, outs if isinstance(outs, list) else [outs]))
    return read(partition.outputs, "the graph outputs")


def _run_inline(symbol, feed, invoke):
    vals = {}
    for n in topo_order(symbol._outputs):
        if n.is_variable:
            vals[(id(n), 0)] = feed[n.name]
            continue
        out = invoke(n.op, [vals[(id(s), i)] for s, i in n.inputs], n.attrs)
        for i, o in enumerate(out if isinstance(out, list) else [out]):
            vals[(id(n), i)] = o
    return [vals[(id(n), i)] for n, i in symbol._outputs]
