"""Constant folding: a subgraph with no variable inputs (``_ones``/``_full`` chains, arithmetic on
them) is computed once at compile time and embedded as a ``_constant`` node.

Only pure ops fold (``_graph.is_pure``), single-output ones, and only subgraphs that compute
something (a lone ``_zeros`` stays: it is as cheap to make as to copy). Values are computed by an
``Interpreter`` whose step is each op's own ``compute`` on the CPU; the ``_constant`` node takes the name and meta of the node it
replaces, records the names it absorbed in ``meta["folded_from"]``, and holds the value in
``meta["constant"]`` (see ``ops/fused.py``). Creation ops pinned to another device (``ctx=gpu(0)``)
are left alone.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> from hybridlab.compiler.passes import constant_folding, count_ops
    >>> x = mx.sym.var('x')
    >>> c = mx.sym._mul_scalar(mx.sym._ones(shape=(2,)), scalar=3.0, name='three')
    >>> y = mx.sym.broadcast_add(x, c, name='y')
    >>> folded = constant_folding.fold_constants(y)
    >>> count_ops(y), count_ops(folded), [n.op_name for n in folded._nodes()]
    (3, 2, ['null', '_constant', 'broadcast_add'])
    >>> CachedOp(folded)(mx.nd.array([1.0, 2.0])).asnumpy().tolist()
    [4.0, 5.0]
"""
import numpy as np

from ...device import cpu
from ...ops.context import op_context
from ...ops.fused import add_constant
from ...ops.registry import get_op
from ..interpreter import Interpreter
from ._graph import clone, is_pure, retarget

__all__ = ["fold_constants"]

_CONSTANT = get_op("_constant")


class _ConstantValues(Interpreter):
    """The value (a NumPy array) of every foldable node, ``None`` for every other value: variables
    have none, and a node folds only when all its inputs have one. ``absorbed[node]``: the names of
    the nodes its value was computed from, itself last."""

    def __init__(self, symbol, order=None):
        super().__init__(symbol, order)
        self.ctx = op_context(cpu(), False)
        self.absorbed = {}

    def variable(self, node, feed):
        return None

    def step(self, node, inputs):
        if any(v is None for v in inputs) or not _foldable(node):    # most nodes read a variable
            return [None] * node.num_outputs()
        value = node.op.compute(self.ctx, node.parsed_attrs(), *inputs)
        self.absorbed[node] = [n for src, _ in node.inputs for n in self.absorbed[src]] + [node.name]
        return [np.asarray(value[0] if type(value) is tuple else value)]


def _foldable(node):
    if not is_pure(node) or node.num_outputs() != 1 or node.op is _CONSTANT:
        return False
    if not node.inputs and _shape_from_graph(node):
        return False
    if node.op.device_attr:
        dev = node.parsed_attrs().get(node.op.device_attr)
        if dev is not None and dev.is_gpu:
            return False
    return True


def _shape_from_graph(node):
    """Whether a creation node's shape comes from the graph's inference, not from its attributes
    (``arange(infer_range=True)`` without stop, a legacy unknown 0 dim): it cannot run alone."""
    try:
        return any(s is None or 0 in s for s in node.op.infer_shape(node.parsed_attrs(), []))
    except Exception:           # attributes the op refuses: left to the run, which reports them
        return True


def fold_constants(symbol, copy=True):
    """``symbol`` with its variable-free computed subgraphs replaced by ``_constant`` nodes."""
    sym = clone(symbol) if copy else symbol
    order = sym._nodes()
    if not any(not n.is_variable and not n.inputs for n in order):
        return sym                 # every value starts at a variable: nothing is constant
    folder = _ConstantValues(sym, order)
    folder.run(feed=None)
    const = folder.absorbed
    readers = {}
    for node in folder.order:
        for src, _ in node.inputs:
            readers.setdefault(src, []).append(node)
    frontier = [n for n in folder.order if n in const and n.inputs and (
        any(r not in const for r in readers.get(n, ())) or any(h is n for h, _ in sym._outputs))]
    for node in frontier:
        value = folder.values[(node, 0)]
        key, holder = add_constant(value)
        retarget(node, _CONSTANT, {"key": key, "shape": str(tuple(value.shape)), "dtype": value.dtype.name}, [])
        node.meta["constant"] = holder
        node.meta["folded_from"] = list(dict.fromkeys(const[node]))
    return sym
