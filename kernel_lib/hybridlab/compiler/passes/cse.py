"""Common-subexpression elimination: two nodes calling the same op with the same attributes on
the same inputs compute the same value once.

Only pure ops are merged (``_graph.is_pure``): not random ops, not ops that draw random numbers or
behave differently in training (Dropout, BatchNorm), not ops that mutate an input. Variables are
never merged. The surviving node is the first in graph order; it lists the names it absorbed in
``meta["merged"]`` (so the graph view can show where a name went).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import cse, count_ops
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.exp(x, name='a') + mx.sym.exp(x, name='b')
    >>> count_ops(y), count_ops(cse.eliminate_common_subexpressions(y))
    (3, 2)
"""
from ...symbol.graph import Node
from ._graph import clone, is_pure, substitute

__all__ = ["eliminate_common_subexpressions"]


def _key(node, replace):
    inputs = tuple((id(replace.get(id(src), src)), i) for src, i in node.inputs)
    return node.op.name, tuple(sorted(node.attrs.items())), inputs


def eliminate_common_subexpressions(symbol, copy=True, unique_outputs=False):
    """``symbol`` with duplicate pure computations merged. ``copy=False`` rewrites in place.
    ``unique_outputs``: as MXNet's pass, an output that ends up the same entry as an earlier one
    becomes a ``_copy`` of it (each output its own array: ``Group([a*d, a*d])`` keeps two nodes).

    >>> import hybridlab as mx
    >>> a = mx.sym.var('a')
    >>> g = mx.sym.Group([a * 2, a * 2])
    >>> [n.op_name for n in eliminate_common_subexpressions(g, unique_outputs=True)._nodes()]
    ['null', '_mul_scalar', '_copy']
    """
    sym = clone(symbol) if copy else symbol
    seen, replace = {}, {}
    for node in sym._nodes():
        if node.is_variable or not is_pure(node):
            continue
        key = _key(node, replace)
        first = seen.get(key)
        if first is None:
            seen[key] = node
            continue
        replace[id(node)] = first
        first.meta.setdefault("merged", []).append(node.name)
    sym = substitute(sym, replace)
    if unique_outputs:
        sym._outputs = _unique_outputs(sym._outputs)
    return sym


def _unique_outputs(outputs):
    from ...ops.registry import get_op
    seen, out = set(), []
    for node, i in outputs:
        if (node, i) in seen and not node.is_variable:
            node, i = Node(get_op("_copy"), f"{node.name}_copy", {}, [(node, i)]), 0
        seen.add((node, i))
        out.append((node, i))
    return out
