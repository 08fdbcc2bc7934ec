"""Helpers every pass shares: copying a graph, counting consumers, substituting entries, and the
op questions passes ask (by family and flags, never by op name)."""
from ...symbol.graph import Node, topo_order
from ...symbol.symbol import Symbol

__all__ = ["clone", "op_nodes", "consumers", "substitute", "is_pure", "count_ops", "gradient_path",
           "backward_nodes"]


def clone(symbol):
    """A copy of ``symbol``'s graph that passes may rewrite in place: new nodes (attrs, inputs and
    meta copied; a meta list or dict is copied one level, which is as deep as passes write), the
    parsed attributes shared (a rewrite of a node's attrs resets them, see ``retarget``).

    Not ``copy.deepcopy``: that walks every meta value (sources, shapes, folded constants) and was
    most of a build's time (a pipeline copies the graph once, and once per pass for the graph view).

    >>> import hybridlab as mx
    >>> y = mx.sym.relu(mx.sym.var('x'), name='r')
    >>> c = clone(y)
    >>> c._outputs[0][0] is y._outputs[0][0], c.list_outputs() == y.list_outputs()
    (False, True)
    """
    clones = {}
    for n in topo_order(symbol._outputs):
        c = Node(n.op, n.name, n.attrs, [(clones[id(src)], i) for src, i in n.inputs])
        c.meta = {k: v.copy() if type(v) in (list, dict) else v for k, v in n.meta.items()}
        c._parsed = n._parsed
        clones[id(n)] = c
    return Symbol([(clones[id(n)], i) for n, i in symbol._outputs])


def op_nodes(symbol):
    return [n for n in topo_order(symbol._outputs) if not n.is_variable]


def count_ops(symbol):
    """Number of op (non-variable) nodes."""
    return len(op_nodes(symbol))


def consumers(symbol):
    """``{(id(node), output): number of reads}``, graph outputs counted as reads too."""
    uses = {}
    for node in topo_order(symbol._outputs):
        for src, i in node.inputs:
            uses[(id(src), i)] = uses.get((id(src), i), 0) + 1
    for node, i in symbol._outputs:
        uses[(id(node), i)] = uses.get((id(node), i), 0) + 1
    return uses


def heads(symbol):
    return {(id(n), i) for n, i in symbol._outputs}


def substitute(symbol, replace):
    """Rewrite every input and output through ``replace`` (``{id(old node): new node}``, same output
    indices); returns the new Symbol."""
    if not replace:
        return symbol
    for node in topo_order(symbol._outputs):
        if any(id(src) in replace for src, _ in node.inputs):
            node.inputs = [(replace.get(id(src), src), i) for src, i in node.inputs]
    return Symbol([(replace.get(id(n), n), i) for n, i in symbol._outputs])


def gradient_path(outputs, inputs, need):
    """``(requires, active)``: the entries ``(id(node), output)`` whose value depends on an input
    (variable node) with ``need[k]`` true, and the differentiable op nodes on such paths, in
    topological order (what a backward differentiates)."""
    requires = {(id(n), 0) for n, k in zip(inputs, need) if k}
    active = []
    for node in topo_order(outputs):
        if node.is_variable or node.op.grad is None:
            continue
        if any((id(s), i) in requires for s, i in node.inputs):
            requires.update((id(node), i) for i in range(node.num_outputs()))
            active.append(node)
    return requires, active


def backward_nodes(outputs, inputs, need):
    """``(differentiated, non_differentiable)``: the op nodes a backward of ``outputs`` w.r.t. the
    ``inputs`` (variable nodes) with ``need[k]`` true goes through: nodes fed by a value that
    depends on such an input and whose outputs get a gradient from ``outputs`` (not only through
    zero-gradient ops, ``zero_grad``: comparisons, ``BlockGrad``...). ``differentiated``: those
    with a gradient; ``non_differentiable``: those without one that are not zero-gradient ops,
    which MXNet's executor refuses to bind ("Operator batch_take is non-differentiable because it
    didn't register FGradient attribute"; a ``BlockGrad`` after them makes the graph fine). Both
    in topological order; a graph whose ``differentiated`` is empty needs no backward.

    >>> import hybridlab as mx
    >>> x, idx = mx.sym.var('x'), mx.sym.var('idx')
    >>> y = mx.sym.batch_take(mx.sym.exp(x, name='e'), idx, name='bt')
    >>> [[n.name for n in part] for part in backward_nodes(y._outputs, [x._outputs[0][0]], [True])]
    [[], ['bt']]
    >>> backward_nodes(mx.sym.BlockGrad(y)._outputs, [x._outputs[0][0]], [True])
    ([], [])
    >>> [[n.name for n in part] for part in backward_nodes(mx.sym.exp(y, name='f')._outputs,
    ...                                                    [x._outputs[0][0]], [False])]
    [[], []]
    """
    requires, _ = gradient_path(outputs, inputs, need)
    receives = {id(n) for n, _ in outputs}
    differentiated, refused = [], []
    for node in reversed(topo_order(outputs)):
        if node.is_variable or id(node) not in receives:
            continue
        if not any((id(s), i) in requires for s, i in node.inputs):
            continue
        if node.op.grad is None:
            if not node.op.zero_grad:
                refused.append(node)
            continue
        differentiated.append(node)
        receives.update(id(s) for s, _ in node.inputs)
    return differentiated[::-1], refused[::-1]


def is_pure(node):
    """An op whose result depends only on its inputs and attributes: no random numbers, no
    training-mode behaviour, no mutated (auxiliary) inputs, a static output shape."""
    op = node.op
    return (op is not None and not op.needs_rng and not op.needs_train and op.family != "random"
            and not op.aux and not op.dynamic_shape)


def retarget(node, op, attrs, inputs):
    """Turn ``node`` into a call of ``op`` in place (its name and meta stay: the graph view and
    output names still find it)."""
    node.op = op
    node.attrs = dict(attrs)
    node.inputs = list(inputs)
    node._parsed = None
    return node
