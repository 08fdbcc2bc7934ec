"""A hybridized block's shape guards: the shapes its 2.0-style ``forward`` read while tracing
(``deferred.shape_reads``) must still hold for a call with a new input signature, else the graph has
a stale number baked in (``x.reshape((x.shape[0], -1))`` traced with batch 2 says ``(2, -1)``).

``broken_guard(state, real, block)`` checks them when a call brings a signature the block has not
built: a guard on a graph input compares the new input's shape; a guard on an intermediate array
infers the graph up to it. The block then traces again (``hybridize(shape_guards=True)``, the
default: the rebuild reason names the read, its line and the change) or, with
``shape_guards=False`` (MXNet's behaviour: the traced numbers stay), warns once per read what
stays frozen.

Example::

    >>> import hybridlab as mx
    >>> class Flat(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         return x.reshape((x.shape[0], -1))
    >>> net = Flat(); net.hybridize()
    >>> net(mx.np.ones((2, 3, 4))).shape
    (2, 12)
    >>> net(mx.np.ones((3, 3, 4))).shape          # traced again: the read changed
    (3, 12)
    >>> print(net.hybridization.history[-1].reason)        # doctest: +ELLIPSIS
    shape read at ...:3 changed: data.shape[0] 2 -> 3
"""
import numpy as np

from ..base import MXNetError
from ..deferred.shape_reads import broken
from ..symbol.infer import infer_graph
from ..symbol.graph import topo_order

__all__ = ["broken_guard"]


def broken_guard(state, real, block):
    """``(read, new shape)`` of the first shape read of ``state`` (a ``HybridizationState``) that
    the data arrays ``real`` break, or ``None``."""
    reads = state.shape_reads
    if not reads:
        return None
    data = {v.name: a for v, a in zip(state.inputs, real)}
    inner = [r.entry for r in reads if not r.entry[0].is_variable]
    inferred = _infer(inner, data, block) if inner else {}

    def shape_of(entry):
        node, i = entry
        if node.is_variable:
            arr = data.get(node.name)
            if arr is not None:
                return arr.shape
            return _param_shapes(block).get(node.name)
        found = inferred.get(id(node))
        return found[i] if found is not None and i < len(found) else None
    return broken(reads, shape_of)


def _param_shapes(block):
    return {p.var().name: p.shape for p in block.collect_params().values()}


def _infer(entries, data, block):
    """Shapes of the nodes up to ``entries`` for the new data (``None`` where unknown, ``{}`` when
    the graph cannot be inferred for it: every such guard then counts as broken)."""
    variables = [n for n in topo_order(entries) if n.is_variable]
    params = _param_shapes(block)
    shapes, dtypes = [], []
    for v in variables:
        arr = data.get(v.name)
        shape = arr.shape if arr is not None else params.get(v.name)
        if shape is None:
            return {}
        shapes.append(shape)
        dtypes.append(arr.dtype if arr is not None else np.dtype("float32"))
    try:
        return infer_graph(entries, variables, shapes, dtypes)[0]
    except MXNetError:
        return {}
