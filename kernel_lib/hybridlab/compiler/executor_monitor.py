"""The monitor of a bound ``Executor`` (``Executor.set_monitor_callback``, what ``mx.mon.Monitor``
installs): MXNet 1.9.1's graph-executor names for every tensor of a forward and its backward.

* Outputs of each op node: ``<node>_output`` (``<node>_output<i>``, or the op's output names), as
  ``HookMonitor`` names them.
* With ``monitor_all``, before a node runs, each of its inputs: first the variable's own name when
  the input is a variable of the graph (``data``, ``fc_weight``), then ``<node>_<input name>``, where
  the input name is ``input<i>`` for the ops MXNet registers without input names
  (``instrument.input_label``: ``act_input0``, ``relu0_input0``) and the op's input name otherwise
  (``fc_data``, ``concat_arg0``).
* In ``backward``, after each node's gradient (reverse topological order), its input gradients as
  ``<node>_backward_output`` (one input) or ``<node>_backward_output<i>`` (``<node>_backward_<input
  name>`` for ``LEGACY_BACKWARD``, MXNet's operators of the old interface); a gradient an input does
  not get is reported as zeros (MXNet reports its buffer). Ops whose gradient MXNet passes through
  without a backward node (``PASS_THROUGH``: elemwise_add, add_n) report nothing. Not reported: the
  inputs of backward nodes (MXNet's order of them differs from op to op) and MXNet's ``sum_grad``
  nodes (the sum of the gradients of a value read by several nodes).

A forward that records for a backward runs node by node (``run_monitored``); the tape node of each
graph node is then wrapped (``_ReportingOp``) so that the backward driver, asking it for its
gradient, reports the result under the node's name.

Example::

    >>> import hybridlab as mx
    >>> net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'),
    ...                         act_type='relu', name='act')
    >>> ex = net.simple_bind(mx.cpu(), data=(1, 3))
    >>> seen = []
    >>> ex.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    >>> _ = ex.forward(is_train=True)
    >>> ex.backward(mx.nd.ones((1, 2)))
    >>> seen    # doctest: +NORMALIZE_WHITESPACE
    ['data', 'fc_data', 'fc_weight', 'fc_weight', 'fc_bias', 'fc_bias', 'fc_output', 'act_input0',
     'act_output', 'act_backward_output', 'fc_backward_output0', 'fc_backward_output1', 'fc_backward_output2']
"""
from .. import monitor_state
from ..autograd.state import flags, needs_record
from .instrument import HookMonitor, MonitoredInterpreter, input_label

__all__ = ["ExecutorMonitor", "run_monitored", "PASS_THROUGH", "LEGACY_BACKWARD"]

# Ops whose gradient MXNet 1.9.1 hands on as it is (CloneGradient): no backward node to report.
PASS_THROUGH = frozenset(("elemwise_add", "_plus", "_add", "add_n", "ElementWiseSum", "_grad_add"))
# Operators of MXNet's legacy interface (OperatorProperty): their backward outputs carry the forward's input names.
LEGACY_BACKWARD = frozenset(("SliceChannel", "split"))


def _named(op, names):
    return op.name in names or any(a in names for a in op.aliases)


class ExecutorMonitor(HookMonitor):
    """``HookMonitor`` with the graph executor's names (see the module docstring); ``callback(name,
    op_name, NDArray)``."""

    def enter(self, k, inputs):
        if not self.monitor_all:
            return
        node = self.nodes[k]
        names = node.input_names()
        for i, value in enumerate(inputs):
            src = node.inputs[i][0] if i < len(node.inputs) else None
            if src is not None and src.is_variable:
                self._call(node, src.name, value)
            self._call(node, f"{node.name}_{input_label(node.op, names, i)}", value)

    def report_gradient(self, node, inputs, in_grads):
        """Report the input gradients of ``node``'s backward (NDArrays; ``None``: zeros)."""
        if _named(node.op, PASS_THROUGH):
            return
        single = len(inputs) == 1
        legacy = node.input_names() if _named(node.op, LEGACY_BACKWARD) else None
        for i, x in enumerate(inputs):
            g = in_grads[i] if i < len(in_grads) else None
            value = g._data if g is not None else x._device.xp.zeros(x.shape, dtype=x.dtype)
            label = legacy[i] if legacy and i < len(legacy) else f"output{'' if single else i}"
            self._call(node, f"{node.name}_backward_{label}", value)


class _ReportingOp:
    """An op of a tape node whose gradient is reported to an ``ExecutorMonitor`` under the graph
    node's name; everything else is the op's own."""

    def __init__(self, op, node, monitor):
        self._op, self._node, self._monitor = op, node, monitor

    def __getattr__(self, name):
        return getattr(self._op, name)

    def gradient(self, F, a, inputs, outputs, ograds, training=True):
        in_grads = self._op.gradient(F, a, inputs, outputs, ograds, training)
        self._monitor.report_gradient(self._node, inputs, list(in_grads))
        return in_grads


class _TapeRecorder(MonitoredInterpreter):
    """A monitored node-by-node run that remembers each graph node's tape node."""

    def __init__(self, graph, monitor):
        super().__init__(graph, monitor)
        self.tape = []

    def step(self, node, inputs):
        outs = super().step(node, inputs)
        entry = outs[0]._node if outs else None
        if entry is not None:
            self.tape.append((node, entry[0]))
        return outs


def run_monitored(cached_op, args, monitor):
    """Run ``cached_op`` on ``args`` with ``monitor``; when the call is recorded for a backward, node
    by node, with each node's gradient reported to the monitor when the backward runs."""
    if not (flags.recording and needs_record(args)) or not args:
        return cached_op.call_monitored(args, monitor)
    run = _TapeRecorder(cached_op.symbol, monitor)
    if len(args) != len(run.inputs):
        return cached_op.call_monitored(args, monitor)
    monitor.start(run.nodes, args[0]._device)
    with monitor_state.quiet():
        outs = run.run({n.name: x for n, x in zip(run.inputs, args)})
    for node, tape_node in run.tape:
        tape_node.op = _ReportingOp(tape_node.op, node, monitor)
    return outs[0] if len(outs) == 1 else outs
