"""``expand``: a Symbol with every node of an op declaring ``subgraph_inputs`` (``_CachedOp``)
replaced by a copy of the graph it carries, that graph's variables bound to the node's inputs in
order. The one place where such nodes go away: inference (``symbol.infer``) and compilation
(``compiler.CachedOp``, behind ``bind``, ``simple_bind``, ``eval`` and hybridized blocks) call it
on the Symbol they are given, so no pass, program or executor ever meets a ``_CachedOp`` node.
Nested ``_CachedOp`` nodes (a hybridized block inside a graph that is itself one) are expanded
too. A Symbol without such nodes is returned as it is.

It also registers how the ``_CachedOp`` op reads the ``subgraph`` attribute of a direct call
(symbol JSON text, read like a file: ``json_load.from_json``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import get_op
    >>> from hybridlab.symbol.graph import Node
    >>> sub = mx.sym.relu(mx.sym.elemwise_add(mx.sym.var('a'), mx.sym.var('b'), name='sum'), name='act')
    >>> x, w = mx.sym.var('x'), mx.sym.var('w')
    >>> node = Node(get_op('_CachedOp'), 'call', inputs=[x._outputs[0], w._outputs[0]], subgraphs=[sub])
    >>> s = mx.sym.Symbol([(node, 0)])
    >>> s.list_arguments(), s.list_outputs()
    (['x', 'w'], ['call_act_output'])
    >>> [n.name for n in expand(s).get_internals()]
    ['x', 'w', 'sum', 'act']
    >>> s.eval(x=mx.nd.array([1, -3]), w=mx.nd.array([1, 1]))[0].asnumpy().tolist()
    [2.0, 0.0]
"""
from collections import OrderedDict

from ..base import MXNetError
from ..ops import cached_op as _cached_op
from .graph import copy_graph, topo_order

__all__ = ["expand", "has_subgraph_nodes"]

_PARSED = OrderedDict()      # subgraph JSON text -> Symbol (direct calls repeat the same text)
_PARSED_MAX = 64


def has_subgraph_nodes(outputs):
    """Whether the graph of ``outputs`` (``(node, index)`` entries) has a node to expand."""
    return any(n.op is not None and n.op.subgraph_inputs for n in topo_order(outputs))


def expand(symbol):
    """``symbol`` with its ``_CachedOp`` nodes replaced by their graphs (see the module docstring)."""
    if not has_subgraph_nodes(symbol._outputs):
        return symbol
    return type(symbol)(_expand_outputs(symbol._outputs))


def _expand_outputs(outputs):
    made = {}        # node -> list of entries its outputs became (a _CachedOp's) or the copy
    for node in topo_order(outputs):
        if node.is_variable:
            continue
        inputs = [_entry(made, e) for e in node.inputs]
        if not node.op.subgraph_inputs:
            copy = type(node)(node.op, node.name, node.attrs, inputs, node.subgraphs)
            copy.meta = dict(node.meta)
            made[node] = copy
            continue
        sub = _cached_op.graph_of(node.parsed_attrs())
        variables = [n for n in topo_order(sub._outputs) if n.is_variable]
        if len(variables) != len(inputs):
            raise MXNetError(f"{node.op.name} node {node.name!r}: expected {len(variables)} inputs (its "
                             f"graph's: {', '.join(v.name for v in variables)}), got {len(inputs)}")
        bound = dict(zip(variables, inputs))
        made[node] = copy_graph(_expand_outputs(sub._outputs), lambda v: bound.get(v))
    return [_entry(made, e) for e in outputs]


def _entry(made, entry):
    node, index = entry
    if node.is_variable:
        return entry
    out = made[node]
    return out[index] if out.__class__ is list else (out, index)


def _graph_from_text(text):
    from .json_load import from_json
    sym = _PARSED.get(text)
    if sym is None:
        sym = from_json(text, source="_CachedOp attribute subgraph")
        _PARSED[text] = sym
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return sym


_cached_op.hooks["graph"] = _graph_from_text
