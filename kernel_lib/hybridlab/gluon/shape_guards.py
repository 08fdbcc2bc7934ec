"""A hybridized block's shape guards: the shapes (and dtypes, devices) its 2.0-style ``forward``
read while tracing (``deferred.shape_reads``) must still hold for a call with a new input
signature, else the graph has a stale number baked in (``x.reshape((x.shape[0], -1))`` traced with
batch 2 says ``(2, -1)``).

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
import warnings

import numpy as np

from ..base import MXNetError
from ..deferred.shape_reads import ArrayInfo, broken
from ..symbol.infer import infer_graph
from ..symbol.provenance import user_stacklevel
from ..symbol.graph import topo_order

__all__ = ["guard_broken", "broken_guard"]


def guard_broken(block, real):
    """A call of ``block`` on the data arrays ``real`` brings a new signature: whether it breaks a
    shape its forward read while tracing. With ``shape_guards`` on, the graph is then dropped (the
    rebuild reason names the read) and the caller traces again; off (MXNet's behaviour), the graph
    stays and a warning at the user's line says what stays frozen, once per read."""
    state = block.hybridization
    found = broken_guard(state, real, block)
    if found is None:
        return False
    read, info = found
    if state.shape_guards:
        block._clear_cached_op(read.reason(info), read.source["code"] if read.source else "")
        return True
    if id(read) not in state.frozen_reads_said:
        state.frozen_reads_said.add(id(read))
        warnings.warn(f"HybridBlock '{block.name}': {read.reason(info)}; the graph keeps the traced value "
                      f"{read.value} (hybridize(shape_guards=False): MXNet's behaviour; the result may have "
                      f"the wrong shape). hybridize() re-traces on such a change.", stacklevel=user_stacklevel())
    return False


def broken_guard(state, real, block):
    """``(read, new ArrayInfo)`` of the first shape read of ``state`` (a ``HybridizationState``)
    that the data arrays ``real`` break, or ``None``."""
    reads = state.shape_reads
    if not reads:
        return None
    data = {v.name: a for v, a in zip(state.inputs, real)}
    device = real[0].device
    inner = [r.entry for r in reads if not r.entry[0].is_variable]
    inferred = _infer(inner, data, block) if inner else ({}, {})

    def info_of(entry):
        node, i = entry
        if node.is_variable:
            arr = data.get(node.name)
            if arr is not None:
                return ArrayInfo(arr.shape, arr.dtype, arr.device)
            p = _params(block).get(node.name)
            return ArrayInfo(p.shape, p.dtype, device) if p is not None else None
        shapes, dtypes = inferred[0].get(id(node)), inferred[1].get(id(node))
        if shapes is None or i >= len(shapes) or shapes[i] is None:
            return None
        return ArrayInfo(shapes[i], dtypes[i] if dtypes and i < len(dtypes) else None, device)
    return broken(reads, info_of)


def _params(block):
    return {p.var().name: p for p in block.collect_params().values()}


def _infer(entries, data, block):
    """``({id(node): shapes}, {id(node): dtypes})`` of the nodes up to ``entries`` for the new
    data (``({}, {})`` when the graph cannot be inferred for it: every such guard then counts as
    broken)."""
    variables = [n for n in topo_order(entries) if n.is_variable]
    params = _params(block)
    shapes, dtypes = [], []
    for v in variables:
        arr, p = data.get(v.name), params.get(v.name)
        if arr is None and p is None:
            return {}, {}
        shapes.append(arr.shape if arr is not None else p.shape)
        dtypes.append(np.dtype(arr.dtype if arr is not None else p.dtype))
    try:
        return infer_graph(entries, variables, shapes, dtypes)
    except MXNetError:
        return {}, {}
