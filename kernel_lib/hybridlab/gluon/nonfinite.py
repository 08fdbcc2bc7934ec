"""Where a NaN or an Inf comes from: the first node of a hybridized block's program that makes one.

``find_nonfinite(block, *inputs, backward=False)`` runs ``block``'s compiled forward program on
``inputs`` with a monitor (``CachedOp.probe``: the very statements the program runs, fused kernels
and static_alloc buffers included) and stops at the FIRST node, in program order, whose output has
a NaN or an Inf. It returns a ``NonfiniteReport``: that node, its op, its outputs' statistics,
each input's statistics (``TensorStats``: shape, dtype, min, max and mean of the finite entries,
NaN count, Inf count) and the user's source line that created the node (``node.meta["source"]``),
or "all finite". A node the fusion pass made (``_fused_elemwise``) is opened: its steps run one by
one (``compiler.interpreter``) on the same inputs, and the first step that makes the NaN is named,
with the fused node in ``fused_into``.

With ``backward=True`` and a finite forward, the block's compiled backward program
(``compiler.backward.BackwardPlan``, with ones as head gradients) runs with the same monitor: the
first backward node producing a NaN/Inf is named, with the forward node whose gradient it computes
(``backward_of``) and that node's user line.

The block is hybridized with its own ``hybridize`` flags (the default ones when it is not
hybridized) inside ``gluon.hybridization.trial``, and its parameters (BatchNorm's statistics
included) are put back afterwards: the block is left as it was. NumPy's floating-point warnings are
silenced while it runs (the report says it all). A graph split around dynamic-shape ops has no
single program to probe (``MXNetError``, as ``CachedOp.probe`` says).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(2, in_units=2, use_bias=False, prefix="fc_"), mx.gluon.nn.Activation("relu"))
    >>> net.initialize(mx.init.One()); net.hybridize()
    >>> report = find_nonfinite(net, mx.nd.array([[3e38, 3e38]]))       # float32 overflows
    >>> report.node, report.op, report.outputs[0].inf, report.inputs[0][1].inf
    ('fc_fwd', 'FullyConnected', 2, 0)
    >>> print(report)        # doctest: +ELLIPSIS
    first non-finite value (forward, hybridize()): node 'fc_fwd' (FullyConnected)
      created at <doctest ...>:1: report = find_nonfinite(...
      output 0: (1, 2) float32  min - max - mean -  NaN 0  Inf 2
      input data <- data: (1, 2) float32  min 3e+38 max 3e+38 mean 3e+38  NaN 0  Inf 0
      input weight <- fc_weight: (2, 2) float32  min 1 max 1 mean 1  NaN 0  Inf 0
    >>> print(find_nonfinite(net, mx.nd.ones((1, 2)), backward=True))
    all finite (forward and backward, hybridize())
"""
import os

import numpy as np

from .. import autograd, random
from ..base import MXNetError
from ..compiler.instrument import Monitor
from ..compiler.interpreter import Interpreter
from ..compiler.passes.fusion import fused_members
from ..device import cpu
from ..ndarray.ndarray import NDArray
from .hybridization import ParameterValues, trial
from .utils import flatten

_CPU = cpu()      # _CPU.put(value): the value as a NumPy array (copied from a GPU)

__all__ = ["find_nonfinite", "NonfiniteReport", "TensorStats"]


_HYBRIDIZE_DEFAULTS = {"static_alloc": False, "static_shape": False, "inline_limit": 2, "partition_if_dynamic": True,
                       "shape_guards": True}     # what the setting line leaves out


class TensorStats:
    """Statistics of one value: ``shape``, ``dtype``, ``min``/``max``/``mean`` of its finite entries
    (``None`` when there are none), ``nan`` and ``inf`` counts."""

    __slots__ = ("shape", "dtype", "min", "max", "mean", "nan", "inf")

    def __init__(self, value):
        a = np.asarray(value)
        self.shape, self.dtype = a.shape, a.dtype
        if a.dtype.kind in "fc":
            finite = np.isfinite(a)
            self.nan, self.inf = int(np.isnan(a).sum()), int(np.isinf(a).sum())
            a = a[finite]
        else:
            self.nan = self.inf = 0
        a = a.real.astype(np.float64).ravel() if a.dtype.kind in "fcbiu" else np.zeros(0)
        self.min, self.max, self.mean = ((float(a.min()), float(a.max()), float(a.mean())) if a.size
                                         else (None, None, None))

    @property
    def finite(self):
        return self.nan == 0 and self.inf == 0

    def __str__(self):
        def num(v):
            return "-" if v is None else f"{v:.4g}"
        return (f"{self.shape} {self.dtype}  min {num(self.min)} max {num(self.max)} mean {num(self.mean)}  "
                f"NaN {self.nan}  Inf {self.inf}")

    def __repr__(self):
        return f"<TensorStats {self}>"


class NonfiniteReport:
    """What ``find_nonfinite`` found. ``found``: whether a NaN/Inf was made; ``phase``:
    ``"input"`` (a graph input already had one), ``"forward"`` or ``"backward"``; ``node`` and
    ``op``; ``outputs``: ``[TensorStats]`` per visible output; ``inputs``: ``[(label, TensorStats)]``
    (label ``"<input name> <- <value name>"``); ``source``: ``{"file", "line", "code"}`` of the user
    line that created the node (for a backward node: its forward node's); ``fused_into``: the fused
    node holding it; ``backward_of``: the forward node (and op) whose gradient the backward node
    computes (``forward_node``: its name); ``setting``: the hybridize call; ``note``: anything else worth
    saying; ``graph``: the traced Symbol of the block (its forward nodes)."""

    def __init__(self, setting, backward, phase=None, node=None, op=None, outputs=(), inputs=(), source=None,
                 fused_into=None, backward_of=None, forward_node=None, note=""):
        self.setting, self.backward, self.phase = setting, backward, phase
        self.node, self.op, self.source = node, op, source
        self.outputs, self.inputs = list(outputs), list(inputs)
        self.fused_into, self.backward_of, self.forward_node, self.note = fused_into, backward_of, forward_node, note
        self.graph = None

    @property
    def found(self):
        return self.phase is not None

    def where(self):
        """``file:line: code`` of the user line (``""`` when unknown)."""
        src = self.source
        return f"{src['file']}:{src['line']}: {src['code']}" if src else ""

    def __str__(self):
        if not self.found:
            what = "forward and backward" if self.backward else "forward"
            return f"all finite ({what}, {self.setting})" + (f"; {self.note}" if self.note else "")
        if self.phase == "input":
            lines = [f"non-finite input ({self.setting}): '{self.node}' already holds NaN/Inf before any node runs"]
        else:
            lines = [f"first non-finite value ({self.phase}, {self.setting}): node '{self.node}' ({self.op})"]
        if self.fused_into:
            lines.append(f"  inside the fused node '{self.fused_into}'")
        if self.backward_of:
            lines.append(f"  gradient of forward node {self.backward_of}")
        if self.source:
            lines.append(f"  created at {os.path.basename(str(self.source['file']))}:{self.source['line']}: "
                         f"{self.source['code']}")
        lines += [f"  {'value' if self.phase == 'input' else f'output {i}'}: {s}" for i, s in enumerate(self.outputs)]
        lines += [f"  input {label}: {s}" for label, s in self.inputs]
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)

    def __repr__(self):
        if not self.found:
            return f"<NonfiniteReport all finite ({self.setting})>"
        return f"<NonfiniteReport {self.phase} node '{self.node}' ({self.op})>"


class _Found(Exception):
    """Stops a monitored run at the first non-finite node (``k``: its index, values copied)."""

    def __init__(self, k, inputs, outputs):
        super().__init__(k)
        self.k, self.inputs, self.outputs = k, inputs, outputs


class _FirstNonfinite(Monitor):
    """Copies each node's inputs before it runs (a planned buffer or an in-place op may overwrite
    them) and stops the run with ``_Found`` after the first node whose output is not finite."""

    def __init__(self):
        self._inputs = ()

    def enter(self, k, inputs):
        self._inputs = [None if x is None else np.array(_CPU.put(x)) for x in inputs]

    def exit(self, k, outputs):
        outs = [None if o is None else np.array(_CPU.put(o)) for o in outputs]
        if any(o is not None and not _finite(o) for o in outs):
            raise _Found(k, self._inputs, outs)


class _FirstNonfiniteStep(Interpreter):
    """The steps of a fused node, one by one: the first step whose output is not finite."""

    found = None

    def step(self, node, inputs):
        outs = super().step(node, inputs)
        if self.found is None and any(not _finite(_CPU.put(o._data)) for o in outs):
            self.found = (node, [_CPU.put(x._data) for x in inputs], [_CPU.put(o._data) for o in outs])
        return outs


def _finite(a):
    a = np.asarray(a)
    return a.dtype.kind not in "fc" or bool(np.isfinite(a).all())


def find_nonfinite(block, *inputs, backward=False):
    """The first node of ``block``'s compiled program (forward; with ``backward=True`` then the
    backward) that produces a NaN or an Inf on ``inputs``: a ``NonfiniteReport`` (see the module
    docstring). The block is left as it was."""
    if not inputs:
        raise MXNetError("find_nonfinite: expected at least one input array")
    if not hasattr(block, "hybridization"):
        raise MXNetError(f"find_nonfinite: expected a HybridBlock, got {type(block).__name__} (a Block's forward "
                         f"is Python code, not a compiled program)")
    own = block.hybridization
    flags = dict(own.flags) if own.active else {}
    if own.active:
        flags.update(partition_if_dynamic=own.partition_if_dynamic, shape_guards=own.shape_guards)
    passes = own.passes if own.active else None
    chosen = {k: v for k, v in flags.items() if _HYBRIDIZE_DEFAULTS.get(k, not v) != v}
    setting = f"hybridize({', '.join(f'{k}={v!r}' for k, v in chosen.items())})"
    with np.errstate(all="ignore"):
        if any(p._deferred_init for p in block.collect_params().values()):
            saved = ParameterValues(block)
            block(*inputs)                # finishes deferred initialisation, in the block's own mode
            saved.restore()
        saved = ParameterValues(block)
        try:
            with trial(block, block.name):
                block.hybridize(**flags)
                block.hybridization.passes = passes
                report = _forward(block, inputs, backward, setting)
                saved.restore()
                if backward and not report.found:
                    report = _backward(block, inputs, setting)
                report.graph = block.hybridization.graph
        finally:
            saved.restore()
    return report


def _data(inputs):
    return [a for a in flatten(list(inputs), "input")[0] if a is not None]


def _forward(block, inputs, backward, setting):
    random.seed(0)
    block(*inputs)                                        # builds the cached op
    state = block.hybridization
    cop = state.cached_op
    args = state.arguments(_data(inputs))
    for name, x in zip(cop.input_names, args):
        if not _finite(_CPU.put(x._data)):
            return NonfiniteReport(setting, backward, "input", name, "null", [TensorStats(_CPU.put(x._data))])
    monitor = _FirstNonfinite()
    with autograd.pause(train_mode=backward):
        random.seed(0)
        try:
            cop.probe(args, monitor)
        except _Found as hit:
            node = monitor.nodes[hit.k]
            members = fused_members(node)
            if members is not None:                 # made by the fusion pass: open it
                inner = _inside_fused(members, hit.inputs, args[0])
                if inner is not None:
                    return _report(setting, backward, "forward", *inner, fused_into=node.name)
            note = f"folded from {node.meta['folded_from']}" if node.meta.get("folded_from") else ""
            return _report(setting, backward, "forward", node, hit.inputs, hit.outputs, note=note)
    return NonfiniteReport(setting, backward)


def _inside_fused(members, inputs, like):
    """``(step node, inputs, outputs)`` of the first member of a fused node (``fused_members``) that
    makes a NaN/Inf, run on the fused node's ``inputs``."""
    stand_ins, steps = members
    run = _FirstNonfiniteStep([(steps[-1], 0)])
    run.run({v.name: NDArray._wrap(like._device.put(x), like._device, like._np) for v, x in zip(stand_ins, inputs)})
    return run.found


def _backward(block, inputs, setting):
    """The first backward node making a NaN/Inf: the compiled backward of one recorded call, run
    with ones as head gradients."""
    ins = [x.copy() for x in _data(inputs)]
    for x in ins:
        x.attach_grad()
    random.seed(0)
    with autograd.record():
        block(*ins)
    state = block.hybridization
    plan = state.backward_plan()
    if plan is None:
        fallbacks = state.cached_op.fallbacks if state.cached_op is not None else {}
        why = "; ".join(fallbacks.values()) or "no gradient needed"
        return NonfiniteReport(setting, True, note=f"the forward is finite; the backward has no compiled program "
                                                   f"to probe ({why})")
    datas = [a._data for a in state.arguments(ins)]
    outs, saved = plan.split(plan.forward.fn(*datas))
    xp = ins[0]._device.xp
    monitor = _FirstNonfinite()
    try:
        plan.run(saved, datas, [xp.ones_like(o) for o in outs], monitor)
    except _Found as hit:
        node = monitor.nodes[hit.k]
        forward = {n.name: n for n in plan.forward.nodes}.get(node.meta.get("backward_of"))
        of = None if forward is None else f"'{forward.name}' ({forward.op.name}{_members(forward)})"
        return _report(setting, True, "backward", node, hit.inputs, hit.outputs, backward_of=of,
                       forward_node=None if forward is None else forward.name)
    return NonfiniteReport(setting, True)


def _members(node):
    """`` of a, b`` for a fused node (its members, as the traced graph named them), else ``''``."""
    members = node.meta.get("fused_from")
    return f" of {', '.join(members)}" if members else ""


def _report(setting, backward, phase, node, inputs, outputs, **extra):
    names = node.input_names()
    labels = [f"{names[i] if i < len(names) else f'input{i}'} <- {src.output_name(j)}"
              for i, (src, j) in enumerate(node.inputs)]
    return NonfiniteReport(setting, backward, phase, node.name, node.op.name,
                           [TensorStats(o) for o in outputs if o is not None],
                           [(label, TensorStats(x)) for label, x in zip(labels, inputs) if x is not None],
                           node.meta.get("source"), **extra)


