"""``Interpreter``: run a graph node by node, one overridable ``step`` per op node.

The one node-by-node loop of hybridlab (torch.fx's ``Interpreter`` is the model). Everything that
needs a value per node uses it: the recorded (autograd) path of a cached op and op hooks under
``autograd.record()`` (``compiler.instrument.run_nodes``), the small and dynamic segments of a
partitioned graph (``compiler.partitioned``), constant folding (``passes.constant_folding``) and
tracing's value reads (``deferred``).

``Interpreter(graph)`` takes a ``Symbol`` (or a list of ``(node, output index)`` heads) and walks
its nodes in topological order. ``run(feed)`` gives every variable its value with
``variable(node, feed)`` (``feed``: ``{name: value}`` or a function ``name -> value``), then every op
node with ``step(node, inputs)``, which returns the node's outputs as a list. Values are kept in
``values``, keyed by ``(node, output index)``; ``run`` returns the heads' values as a list.

The default ``step`` calls the op through the imperative dispatcher on NDArrays (so autograd
records each op while recording), and names the node in its errors. A node's auxiliary inputs
(BatchNorm's moving statistics, which its gradient updates in place) are the very objects the
caller fed, so their update reaches the caller's arrays. An op run imperatively returns only its
visible outputs: reading a hidden one is an error naming both nodes.

Override ``step`` to observe or replace values (``super().step`` runs the op), or ``variable`` to
read inputs from elsewhere. ``run(feed, values=known)`` starts from (and fills in) a dict of known
values: a node whose output 0 is known is not run again.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.interpreter import Interpreter
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.relu(mx.sym.negative(x, name='neg'), name='act')
    >>> Interpreter(y).run({'x': mx.nd.array([1.0, -2.0])})[0].asnumpy().tolist()
    [0.0, 2.0]
    >>> class Trace(Interpreter):             # observe every node, replace one output
    ...     def step(self, node, inputs):
    ...         outs = super().step(node, inputs)
    ...         print(node.name, outs[0].asnumpy().tolist())
    ...         return [outs[0] * 10] if node.name == 'neg' else outs
    >>> Trace(y).run({'x': mx.nd.array([1.0, -2.0])})[0].asnumpy().tolist()
    neg [-1.0, 2.0]
    act [0.0, 20.0]
    [0.0, 20.0]
"""
from ..base import MXNetError
from ..deferred.state import tracer as tracer_state
from ..ndarray.dispatch import invoke
from ..symbol.graph import topo_order
from ..symbol.provenance import where

__all__ = ["Interpreter"]


class Interpreter:
    """Run ``graph`` (a Symbol, or ``(node, output index)`` heads) node by node (see the module
    docstring). ``outputs``: the heads; ``order``: every node in topological order (given by a
    caller that already has one, such as a cached op on every recorded call, else computed);
    ``inputs`` / ``nodes``: its variables / op nodes in that order; ``values``: the last run's values."""

    def __init__(self, graph, order=None):
        self.outputs = list(getattr(graph, "_outputs", graph))
        self.order = topo_order(self.outputs) if order is None else list(order)
        self.inputs = [n for n in self.order if n.is_variable]
        self.nodes = [n for n in self.order if not n.is_variable]
        self.values = {}

    def run(self, feed, values=None):
        """Run the graph with variables from ``feed``; returns the heads' values (a list).
        ``values``: known ``{(node, i): value}`` to start from, filled in as the run goes."""
        self.values = {} if values is None else values
        for node in self.order:
            if (node, 0) in self.values:
                continue
            if node.is_variable:
                outs = [self.variable(node, feed)]
            else:
                outs = self.step(node, [self.read(src, i, node) for src, i in node.inputs])
            for i, value in enumerate(outs):
                self.values[(node, i)] = value
        return [self.read(n, i) for n, i in self.outputs]

    def variable(self, node, feed):
        """The value of the variable ``node``: ``feed[node.name]`` (or ``feed(node.name)``)."""
        if callable(feed):
            return feed(node.name)
        if node.name not in feed:
            raise MXNetError(f"Interpreter: expected a value for the graph input '{node.name}', got values "
                             f"for {sorted(feed)}")
        return feed[node.name]

    def step(self, node, inputs):
        """Run the op node ``node`` on ``inputs`` (NDArrays, in the node's input order); returns its
        outputs as a list (the visible ones: the imperative dispatcher's result)."""
        try:
            out = invoke(node.op, inputs, node.attrs)
        except MXNetError as err:
            raise MXNetError(f"{err} [in node '{node.name}'{where(node)}]") from None
        return out if isinstance(out, list) else [out]

    def read(self, node, i, reader=None):
        """The value of output ``i`` of ``node`` (for ``reader``, the node that reads it, or a head)."""
        try:
            return self.values[(node, i)]
        except KeyError:
            who = f"node '{reader.name}' reads" if reader is not None else "the graph returns"
            raise MXNetError(f"Interpreter: {who} output {i} of node '{node.name}' ({node.op_name}), which "
                             f"that node's step did not give (an op run imperatively returns only its "
                             f"visible outputs)") from None


# tracing (deferred/, a layer below) computes the values a dynamic-shape op needs with this class
tracer_state.interpreter = Interpreter
