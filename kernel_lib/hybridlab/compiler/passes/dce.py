"""Dead-code elimination: keep only what the graph's outputs need.

A Symbol is defined by its outputs, so nodes nothing reads are dropped by walking from the heads
(other passes leave such nodes behind: the duplicates CSE merged, the subgraphs constant folding
replaced). The pass also removes pure identity copies (``_copy``: an elementwise op the registry
marks ``identity``) that are not graph outputs, and ``keep`` selects a subset of the outputs (a
backward graph computing gradients nobody asked for).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import dce, count_ops
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.Group([mx.sym.exp(mx.sym.identity(x), name='e'), mx.sym.sin(x, name='s')])
    >>> count_ops(y), count_ops(dce.eliminate_dead_code(y, keep=[0]))
    (3, 1)
"""
from ...ops.registry import find_op
from ...symbol.symbol import Symbol
from ._graph import clone, heads, substitute

__all__ = ["eliminate_dead_code"]

_IDENTITY = find_op("_copy")


def eliminate_dead_code(symbol, keep=None, copy=True):
    """``symbol`` without dead nodes and non-output identity copies; ``keep``: indices of the
    outputs to keep (default all). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    if keep is not None:
        n = len(sym._outputs)
        bad = [k for k in keep if not -n <= k < n]
        if bad:
            raise IndexError(f"eliminate_dead_code: keep expected output indices in [0, {n}), got {bad}")
        sym = Symbol([sym._outputs[k] for k in keep])
    outs = heads(sym)
    replace = {}
    for node in sym._nodes():
        if node.op is _IDENTITY and (id(node), 0) not in outs:
            src, i = node.inputs[0]
            if i == 0:
                replace[id(node)] = replace.get(id(src), src)
    return substitute(sym, replace)
