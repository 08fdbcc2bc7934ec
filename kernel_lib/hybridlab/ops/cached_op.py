"""``_CachedOp``: a hybridized block's call as one graph node (MXNet's ``_CachedOp``, which
``mx.autograd.get_symbol`` shows for a call whose graph has more ops than ``inline_limit``).

The node carries the block's graph as its one subgraph (``Node.subgraphs[0]``, a Symbol; MXNet's
JSON writes it under the node's ``"subgraphs"`` key). Its inputs are the subgraph's inputs in
``list_inputs`` order and its outputs the subgraph's outputs, named ``<node>_<subgraph output>``
as MXNet's ``FListOutputNames`` does. The op has no computation of its own that the compiler
runs: ``symbol.subgraph_inline.expand`` replaces every node of an op declaring
``subgraph_inputs`` by a copy of its graph before inference and compilation, so a bound or
hybridized ``_CachedOp`` runs (and differentiates) as the ops it contains.

Called through the dispatcher (the op checker), the graph comes as MXNet's
``subgraph`` attribute, symbol JSON text (``CachedOpConfig::subgraph``); the symbol layer
registers ``graph`` (attributes -> Symbol) and the compiler ``run`` (runs it on raw arrays),
which this layer cannot import.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import get_op
    >>> sub = mx.sym.relu(mx.sym.var('x') * mx.sym.var('w'), name='act')
    >>> op = get_op('_CachedOp')
    >>> a = op.parse_attrs({'subgraph': sub.tojson()})
    >>> op.input_names(a), op.output_names(a), op.infer_shape(a, [(2, 3), (2, 3)])
    (('x', 'w'), ('act_output',), [(2, 3)])
    >>> from hybridlab.ndarray.dispatch import invoke
    >>> invoke(op, [mx.nd.array([1, -2]), mx.nd.array([3, 3])], {'subgraph': sub.tojson()}).asnumpy()
    array([3., 0.], dtype=float32)
"""
from ..base import MXNetError
from .attrs import Attr
from .registry import OpDef, register

__all__ = ["hooks", "graph_of"]

#: ``graph(a)``: the Symbol of the parsed attributes ``a`` (symbol layer); ``run(ctx, symbol,
#: arrays)``: the graph's output arrays for raw input arrays (compiler layer)
hooks = {}


def graph_of(a):
    """The subgraph Symbol of a ``_CachedOp`` call's parsed attributes (a node's own subgraph, or
    the ``subgraph`` JSON text given to a direct call)."""
    sub = a.get("subgraph")
    if sub is None:
        raise MXNetError("_CachedOp: expected its graph (a node's subgraphs, or the attribute subgraph= "
                         "with symbol JSON), got none")
    if not isinstance(sub, str):
        return sub
    if "graph" not in hooks:
        raise MXNetError("_CachedOp: no symbol reader is registered (import hybridlab.symbol)")
    return hooks["graph"](sub)


def _inputs(a):
    return tuple(graph_of(a).list_inputs())


def _n_outputs(a):
    return len(graph_of(a)._outputs)


def _output_names(a):
    return tuple(graph_of(a).list_outputs())


def _aux(a):
    return tuple(graph_of(a).list_auxiliary_states())


def _infer_shape(a, in_shapes):
    sub = graph_of(a)
    known = {n: s for n, s in zip(sub.list_inputs(), in_shapes) if s is not None}
    _, outs, _ = sub.infer_shape_partial(**known)
    return [tuple(s) if s is not None and all(s) else None for s in outs]


def _infer_type(a, in_dtypes):
    sub = graph_of(a)
    known = {n: d for n, d in zip(sub.list_inputs(), in_dtypes) if d is not None}
    _, outs, _ = sub.infer_type_partial(**known)
    return list(outs)


def _compute(ctx, a, *arrays):
    if "run" not in hooks:
        raise MXNetError("_CachedOp: no graph runner is registered (import hybridlab.compiler)")
    return tuple(hooks["run"](ctx, graph_of(a), arrays))


register(OpDef(
    "_CachedOp", family="internal", hidden=True, inputs=_inputs, aux=_aux, num_outputs=_n_outputs,
    output_names=_output_names, attrs={"subgraph": Attr("str?", None, doc="symbol JSON of the graph")},
    compute=_compute, infer_shape=_infer_shape, infer_type=_infer_type, subgraph_inputs=True,
    no_grad_reason="expanded into the ops of its graph before a graph is compiled or differentiated",
    doc="A hybridized call as one node: runs its subgraph (see ops/cached_op.py)."))
