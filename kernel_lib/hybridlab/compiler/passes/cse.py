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
from ._graph import clone, is_pure, substitute

__all__ = ["eliminate_common_subexpressions"]


def _key(node, replace):
    inputs = tuple((id(replace.get(id(src), src)), i) for src, i in node.inputs)
    return node.op.name, tuple(sorted(node.attrs.items())), inputs


def eliminate_common_subexpressions(symbol, copy=True):
    """``symbol`` with duplicate pure computations merged. ``copy=False`` rewrites in place."""
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
    return substitute(sym, replace)
