"""In-place marking: which nodes may write their output into an input's buffer, recorded in
``node.meta["inplace"]`` (a list of input positions) for the memory planner.

An input qualifies when the node is elementwise or broadcast (its output is computed element by
element), pure, single-output, and the input value is produced by another op (never a variable:
caller and parameter buffers are not ours; never a shape/index op, whose output may be a view of
one), is read once (by this node, once) and is not a graph
output. The planner must still check that shape and dtype of the two buffers are equal (a
broadcast input can be smaller than the output).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import inplace
    >>> x = mx.sym.var('x')
    >>> h = mx.sym._mul_scalar(mx.sym.exp(x, name='e'), scalar=2.0, name='m')
    >>> y = inplace.mark_inplace(mx.sym.relu(h, name='act'))
    >>> [(n.name, n.meta.get("inplace")) for n in y._nodes() if not n.is_variable]
    [('e', None), ('m', [0]), ('act', [0])]
"""
from ._graph import clone, consumers, is_pure

__all__ = ["mark_inplace"]

_VIEWS = ("shape", "index")   # families whose outputs may be views of their inputs (a caller's buffer)


def mark_inplace(symbol, copy=True):
    """``symbol`` with ``meta["inplace"]`` set on the nodes that may reuse an input buffer."""
    sym = clone(symbol) if copy else symbol
    uses = consumers(sym)
    for node in sym._nodes():
        node.meta.pop("inplace", None)
        if node.is_variable or node.op.family not in ("elemwise", "broadcast") or not is_pure(node):
            continue
        if node.num_outputs() != 1:
            continue
        ok = [k for k, (src, i) in enumerate(node.inputs)
              if not src.is_variable and src.op.family not in _VIEWS and src.num_outputs() == 1
              and uses.get((id(src), i)) == 1]
        if ok:
            node.meta["inplace"] = ok
    return sym
