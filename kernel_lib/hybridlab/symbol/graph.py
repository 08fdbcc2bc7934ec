"""The graph IR behind ``Symbol``: ``Node`` (an op call or a variable) and graph walks.

A node keeps MXNet's view of itself: ``op`` (an ``OpDef``; ``None`` for a variable), ``name``,
``attrs`` as MXNet attribute strings (exactly what symbol JSON stores), and ``inputs`` as
``(node, output_index)`` entries. ``meta`` is a free dict that stages fill in (Block scope, user
source line, inferred shapes...), like torch.fx's ``node.meta``. ``subgraphs`` is a tuple of
Symbols the node carries (MXNet's ``NodeAttrs::subgraphs``; only ops declaring ``subgraph_inputs``,
``_CachedOp``, have one): its op reads the first as the parsed attribute ``subgraph``.
"""
__all__ = ["Node", "topo_order", "copy_graph"]


class Node:
    __slots__ = ("op", "name", "attrs", "inputs", "meta", "_parsed", "subgraphs")

    def __init__(self, op, name, attrs=None, inputs=(), subgraphs=()):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self.meta = {}
        self._parsed = None
        self.subgraphs = tuple(subgraphs)

    @property
    def is_variable(self):
        return self.op is None

    @property
    def op_name(self):
        return "null" if self.op is None else self.op.name

    def parsed_attrs(self):
        """The op's attributes as Python values (parsed once from the strings, defaults filled)."""
        if self._parsed is None:
            parsed = self.op.parse_attrs(self.attrs)
            if self.subgraphs:
                parsed = dict(parsed, subgraph=self.subgraphs[0])
            self._parsed = parsed
        return self._parsed

    def num_outputs(self):
        """All outputs, hidden ones included (what node_row_ptr counts)."""
        return 1 if self.op is None else self.op.n_outputs(self.parsed_attrs())

    def num_visible(self):
        return 1 if self.op is None else self.op.n_visible(self.parsed_attrs())

    def output_name(self, index):
        """MXNet's name of output ``index``: the variable's name, ``<node>_output``, ``<node>_output1``
        (just ``output`` for a node without a name, as nnvm's ``ListOutputNames``)."""
        if self.op is None:
            return self.name
        names = self.op.output_names(self.parsed_attrs())
        out = names[index] if index < len(names) else f"output{index}"
        return f"{self.name}_{out}" if self.name else out

    def input_names(self):
        return self.op.input_names(self.parsed_attrs()) if self.op is not None else ()

    def aux_input_indices(self):
        """Indices of inputs this op mutates (auxiliary states such as BatchNorm's moving stats)."""
        if self.op is None or not self.op.aux:
            return ()
        aux = self.op.aux_names(self.parsed_attrs())
        return tuple(i for i, n in enumerate(self.input_names()) if n in aux)

    def __repr__(self):
        return f"<Node {self.op_name} {self.name}>"


def topo_order(heads):
    """Nodes reachable from ``heads`` ((node, index) entries) in MXNet's order: a post-order DFS
    from the heads that visits inputs in order (so every input precedes its users).

    Every pass, inference and code generation walks the graph: the stack holds each node's input
    iterator, and nodes are their own set keys (identity hash), which keeps the walk cheap."""
    order, seen = [], set()
    append, add = order.append, seen.add
    for head, _ in heads:
        if head in seen:
            continue
        add(head)
        stack = [(head, iter(head.inputs))]
        while stack:
            node, pending = stack[-1]
            for child, _ in pending:
                if child not in seen:
                    add(child)
                    stack.append((child, iter(child.inputs)))
                    break
            else:
                stack.pop()
                append(node)
    return order


def copy_graph(outputs, bind, copy_node=None):
    """A copy of the graph of ``outputs`` (``(node, index)`` entries) with its variables replaced:
    ``bind(variable)`` gives the entry that stands for it (``None``: the variable itself, shared).
    Op nodes are new: ``copy_node(node, inputs)`` makes each (default: same op, name, attributes,
    ``meta`` copied one level). Returns the copy's outputs (MXNet's composition: a SymbolBlock
    called on Symbols, a hybridized call inlined into a recorded graph).

    >>> import hybridlab as mx
    >>> y = mx.sym.relu(mx.sym.var('x'), name='r')
    >>> z = mx.sym.var('z')
    >>> out = copy_graph(y._outputs, lambda v: z._outputs[0] if v.name == 'x' else None)
    >>> [(n.name, [s.name for s, _ in n.inputs]) for n, _ in out]
    [('r', ['z'])]
    """
    made = {}
    for node in topo_order(outputs):
        if node.is_variable:
            entry = bind(node)
            made[node] = entry if entry is not None else (node, 0)
            continue
        inputs = [_copied(made, e) for e in node.inputs]
        if copy_node is None:
            copy = Node(node.op, node.name, node.attrs, inputs, node.subgraphs)
            copy.meta = dict(node.meta)
        else:
            copy = copy_node(node, inputs)
        made[node] = copy
    return [_copied(made, e) for e in outputs]


def _copied(made, entry):
    node, index = entry
    return made[node] if node.is_variable else (made[node], index)
