"""Running a cached op's graph with a monitor: op hooks and per-op profiling.

A *monitor* has two methods the instrumented program variant calls around every node
(``codegen.generate(..., instrument=True)``): ``enter(k, inputs)`` before node ``k`` runs and
``exit(k, outputs)`` after (``k`` indexes ``nodes``, the graph's op nodes in program order; the
values are raw NumPy/CuPy arrays). Two monitors exist:

* ``HookMonitor(callback, monitor_all)``: MXNet's op hook. ``callback(name, op_name, array)`` gets
  every visible output as ``<node>_<output name>`` (``<node>_output``; multi-output ops name theirs,
  e.g. ``<node>_mean``, or ``<node>_output<i>``) and, with ``monitor_all``, first every input as
  ``<node>_<input name>`` (``<node>_data``, ``<node>_weight``...). The array is an NDArray sharing the
  value's memory (as MXNet's hook gets it: copy it to keep it). A callback that raises stops the
  run with an ``MXNetError`` naming the node, its op and the tensor; nothing of the cached op is
  changed, so the next call works.
* ``ProfileMonitor``: times each node (``time.perf_counter``; the device is synchronised first on a
  GPU) into ``hybridlab.profiler`` (through ``monitor_state.record``).

``run_program(cached_op, args, monitor)`` runs a ``CachedOp`` on NDArray ``args`` through the
instrumented variant of the program compiled for their signature (compiling it if needed); the
plain program is left as it is. ``run_nodes(cached_op, args, monitor)`` runs the graph node by node
through the imperative dispatcher instead (autograd records each op), for calls under
``autograd.record()``: a ``MonitoredInterpreter`` (``compiler.interpreter``) calls the monitor
around each node.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> from hybridlab.compiler.instrument import HookMonitor, run_program
    >>> x = mx.sym.var('x')
    >>> op = CachedOp(mx.sym.relu(mx.sym.exp(x, name='e'), name='act'))
    >>> seen = []
    >>> out = run_program(op, [mx.nd.zeros((2,))], HookMonitor(lambda n, o, a: seen.append((n, o))))
    >>> out.asnumpy().tolist(), seen
    ([1.0, 1.0], [('e_output', 'exp'), ('act_output', 'relu')])
"""
import time

from .. import monitor_state
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..symbol.provenance import where
from .interpreter import Interpreter

__all__ = ["Monitor", "HookMonitor", "ProfileMonitor", "MonitorChain", "run_program", "run_nodes", "MonitoredInterpreter"]


class Monitor:
    """Base: binds the node list and the device of one run (``start``)."""

    nodes = ()
    device = None

    def start(self, nodes, device):
        self.nodes, self.device = nodes, device
        return self

    def enter(self, k, inputs):
        pass

    def exit(self, k, outputs):
        pass


# Ops MXNet 1.9.1 registers without FListInputNames: its monitor names their inputs ``input<i>``
# (recorded with MXNET_SUBGRAPH_BACKEND=NONE from every op hybridlab also has).
UNLISTED_INPUTS = frozenset("""
    Activation BlockGrad Cast Flatten Reshape SoftmaxActivation _copy _sample_multinomial _shuffle
    _div_scalar _equal_scalar _greater_equal_scalar _greater_scalar _hypot_scalar _lesser_equal_scalar
    _lesser_scalar _logical_and_scalar _logical_or_scalar _logical_xor_scalar _maximum_scalar _minimum_scalar
    _minus_scalar _mod_scalar _mul_scalar _not_equal_scalar _plus_scalar _power_scalar _rdiv_scalar
    _rminus_scalar _rmod_scalar _rpower_scalar abs arccos arccosh arcsin arcsinh arctan arctanh argmax
    argmax_channel argmin argsort broadcast_axis broadcast_to cbrt ceil clip cos cosh degrees erf erfinv exp
    expand_dims expm1 fix floor gamma gammaln hard_sigmoid log log10 log1p log2 logical_not make_loss max mean
    min nanprod nansum negative norm ones_like prod radians rcbrt reciprocal relu rint round rsqrt shape_array
    sigmoid sign sin sinh size_array slice_axis smooth_l1 softsign sort sqrt square sum tan tanh topk
    transpose trunc zeros_like
""".split())



def input_label(op, names, i):
    """MXNet's name for input ``i`` of ``op`` in monitor and op-hook tensor names: the op's input
    name (``data``, ``weight``), or ``input<i>`` for the ops registered without input names."""
    unlisted = op.name in UNLISTED_INPUTS or any(a in UNLISTED_INPUTS for a in op.aliases)
    return f"input{i}" if unlisted or i >= len(names) else names[i]


class HookMonitor(Monitor):
    """Calls ``callback(name, op_name, NDArray)`` for each node's outputs (and inputs when
    ``monitor_all``), with MXNet's tensor names (see the module docstring)."""

    def __init__(self, callback, monitor_all=False):
        self.callback = callback
        self.monitor_all = bool(monitor_all)

    def _call(self, node, tensor, value):
        if value is None:
            return
        try:
            self.callback(tensor, node.op.name, NDArray._wrap(value, self.device))
        except Exception as err:
            name = getattr(self.callback, "__name__", type(self.callback).__name__)
            raise MXNetError(f"op hook {name!r} raised {type(err).__name__}: {err} (on tensor '{tensor}' of node "
                             f"'{node.name}', op {node.op.name}{where(node)}); the cached op is unchanged and "
                             f"the next call runs normally") from err

    def enter(self, k, inputs):
        if self.monitor_all:
            node = self.nodes[k]
            names = node.input_names()
            for i, value in enumerate(inputs):
                self._call(node, f"{node.name}_{input_label(node.op, names, i)}", value)

    def exit(self, k, outputs):
        node = self.nodes[k]
        names = node.op.output_names(node.parsed_attrs())
        for i, value in enumerate(outputs):
            self._call(node, f"{node.name}_{names[i] if i < len(names) else f'output{i}'}", value)


class ProfileMonitor(Monitor):
    """Times every node of one run into ``hybridlab.profiler`` (category ``operator``, mode
    ``hybridized``, the block's name in ``args``)."""

    def __init__(self, block=""):
        self.block = block
        self._t0 = 0.0
        self._sync = None

    def start(self, nodes, device):
        super().start(nodes, device)
        self._sync = _synchronizer(device)
        return self

    def enter(self, k, inputs):
        if self._sync is not None:
            self._sync()
        self._t0 = time.perf_counter()

    def exit(self, k, outputs):
        if self._sync is not None:
            self._sync()
        t1 = time.perf_counter()
        node = self.nodes[k]
        monitor_state.record(node.op.name, self._t0, t1, "operator",
                             {"mode": "hybridized", "node": node.name, "block": self.block})


class MonitorChain(Monitor):
    """Several monitors as one (hooks first, timing last, so a hook's time is not the op's)."""

    def __init__(self, monitors):
        self.monitors = list(monitors)

    def start(self, nodes, device):
        for m in self.monitors:
            m.start(nodes, device)
        return self

    def enter(self, k, inputs):
        for m in self.monitors:
            m.enter(k, inputs)

    def exit(self, k, outputs):
        for m in reversed(self.monitors):
            m.exit(k, outputs)


def _synchronizer(device):
    if device is None or not getattr(device, "is_gpu", False):
        return None
    return device.xp.cuda.Device(device.device_id).synchronize


def run_program(cached_op, args, monitor):
    """Run ``cached_op`` on the NDArrays ``args`` through the instrumented variant of its program,
    with ``monitor``; returns what ``cached_op(*args)`` would (an NDArray or a list)."""
    if len(args) != len(cached_op.input_names) or not args:
        return cached_op(*args)           # its own error messages (or a graph without inputs)
    for x in args:
        if not isinstance(x, NDArray):
            return cached_op(*args)
    prog = cached_op.program_for(args).instrumented()
    x0 = args[0]
    monitor.start(prog.nodes, x0._device)
    with monitor_state.quiet():      # its ops are reported by the monitor, not as imperative calls
        res = prog.fn(*[x._data for x in args], monitor)
    if prog.n_outputs == 1:
        return NDArray._wrap(res, x0._device, x0._np)
    return [NDArray._wrap(r, x0._device, x0._np) for r in res]


def run_nodes(cached_op, args, monitor):
    """Run ``cached_op``'s graph node by node through the imperative dispatcher (so autograd records
    every op, under ``autograd.record()``), calling ``monitor`` around each node."""
    interpreter = MonitoredInterpreter(cached_op.symbol, monitor)
    if len(args) != len(interpreter.inputs):
        return cached_op(*args)
    monitor.start(interpreter.nodes, args[0]._device if args else None)
    with monitor_state.quiet():
        outs = interpreter.run({n.name: x for n, x in zip(interpreter.inputs, args)})
    return outs[0] if len(outs) == 1 else outs


class MonitoredInterpreter(Interpreter):
    """An ``Interpreter`` that calls ``monitor.enter(k, inputs)`` / ``monitor.exit(k, outputs)``
    (raw arrays) around op node ``k`` of ``nodes``; call ``monitor.start`` before ``run``."""

    def __init__(self, graph, monitor):
        super().__init__(graph)
        self.monitor = monitor
        self._index = {n: k for k, n in enumerate(self.nodes)}

    def step(self, node, inputs):
        k = self._index[node]
        self.monitor.enter(k, [x._data for x in inputs])
        outs = super().step(node, inputs)
        self.monitor.exit(k, [o._data for o in outs])
        return outs
