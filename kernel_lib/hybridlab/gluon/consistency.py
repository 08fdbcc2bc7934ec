"""Eager vs hybridized, node by node: where a hybridized block stops computing what it computes
imperatively, and which setting makes it so.

``compare(block, *inputs, backward=False, flags=None, passes=None)`` runs ``block`` on the same
inputs and parameters twice, imperatively and hybridized with ``flags`` (``hybridize``'s keyword
arguments) and ``passes`` (the pass pipeline; ``None``: the default one), and returns a
``ConsistencyReport``:

* ``outputs``: the block's outputs, eager vs hybridized (and with ``backward=True`` ``gradients``:
  every input's and parameter's gradient after ``backward()`` with ones as head gradients);
* ``nodes``: one row per node of the traced graph: its value when the graph is run op by op through
  the imperative dispatcher (``compiler.interpreter``) against the value the compiled program gives
  there (``CachedOp.probe``: the very statements it runs, inlined expressions, fused kernels and
  static_alloc buffers included). A node the passes removed says where it went (fused into,
  merged into, folded into, dead);
* ``first_divergence``: the first node in graph order whose values differ beyond
  ``atol + rtol * |eager|``: the node to look at.

``compare_settings(block, *inputs)`` runs ``compare`` for each hybridize setting (default,
static_alloc, static_alloc + static_shape) and with each pass left out, so a difference that only
one setting or one pass causes is named. Random ops draw anew in every run: compare blocks without
them (or with their randomness off, as in predict mode). Parameters and BatchNorm's statistics are
put back after every run.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    >>> net.initialize()
    >>> report = compare(net, mx.nd.ones((2, 3)), backward=True)
    >>> report.ok, report.first_divergence, len(report.nodes)
    (True, None, 3)
    >>> print(str(report).splitlines()[0])             # print(report): a table, a row per node
    eager vs hybridized (hybridize(), default passes): agree (rtol 0.0001, atol 1e-05)
    >>> [(d.op, d.max_abs) for d in report.nodes]
    [('FullyConnected', 0.0), ('Activation', 0.0), ('FullyConnected', 0.0)]
"""
import numpy as np

from .. import autograd, random
from ..base import MXNetError
from ..compiler.instrument import Monitor
from ..compiler.interpreter import Interpreter
from ..device import cpu
from ..compiler.passes import DEFAULT_PASSES
from .hybridization import ParameterValues, trial
from .utils import flatten

_CPU = cpu()      # _CPU.put(value): the value as a NumPy array (copied from a GPU)

__all__ = ["compare", "compare_settings", "ConsistencyReport", "Difference"]

SETTINGS = ({}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True})


class Difference:
    """One compared value: ``name`` (a node, output, input or parameter), ``op``, ``shape``, the
    largest absolute and relative error (``None`` when there is nothing to compare, ``note`` says
    why), whether it is within tolerance (``ok``) and the user's line that created the node."""

    __slots__ = ("name", "op", "shape", "max_abs", "max_rel", "ok", "note", "source")

    def __init__(self, name, op="", shape=None, max_abs=None, max_rel=None, ok=True, note="", source=None):
        self.name, self.op, self.shape, self.max_abs, self.max_rel = name, op, shape, max_abs, max_rel
        self.ok, self.note, self.source = ok, note, source

    def __repr__(self):
        err = "" if self.max_abs is None else f" abs {self.max_abs:.3g} rel {self.max_rel:.3g}"
        return f"<Difference {self.name}{err}{'' if self.ok else ' DIFFERS'}{' ' + self.note if self.note else ''}>"


class ConsistencyReport:
    """What ``compare`` found (see the module docstring); ``graph``: the traced Symbol whose nodes
    ``nodes`` names; ``print(report)`` gives a table."""

    def __init__(self, setting, outputs, nodes, gradients, rtol, atol, graph=None):
        self.setting, self.outputs, self.nodes, self.gradients = setting, outputs, nodes, gradients
        self.rtol, self.atol, self.graph = rtol, atol, graph

    @property
    def ok(self):
        return all(d.ok for d in self.outputs + self.nodes + self.gradients)

    @property
    def first_divergence(self):
        """The first node (graph order) whose hybridized value differs, or ``None``."""
        return next((d for d in self.nodes if not d.ok), None)

    def by_error(self):
        """The node rows, largest relative error first."""
        return sorted(self.nodes, key=lambda d: -1.0 if d.max_rel is None else d.max_rel, reverse=True)

    def __str__(self):
        verdict = "agree" if self.ok else f"DIFFER (first at node '{self.first_divergence.name}')" \
            if self.first_divergence else "DIFFER"
        lines = [f"eager vs hybridized ({self.setting}): {verdict} (rtol {self.rtol:g}, atol {self.atol:g})"]
        rows = [("node", "op", "shape", "max abs err", "max rel err", "")]
        for group, prefix in ((self.nodes, ""), (self.outputs, "output "), (self.gradients, "grad ")):
            for d in group:
                rows.append((prefix + d.name, d.op, "" if d.shape is None else str(tuple(d.shape)),
                             "" if d.max_abs is None else f"{d.max_abs:.3g}",
                             "" if d.max_rel is None else f"{d.max_rel:.3g}",
                             ("" if d.ok else "DIFFERS ") + d.note))
        widths = [max(len(r[c]) for r in rows) for c in range(5)]
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
        return "\n".join(line.rstrip() for line in lines)

    def __repr__(self):
        return f"<ConsistencyReport {self.setting}: {'agree' if self.ok else 'DIFFER'}>"


def compare(block, *inputs, backward=False, flags=None, passes=None, rtol=1e-4, atol=1e-5):
    """Run ``block`` on ``inputs`` eagerly and hybridized (``hybridize(**flags)``, the pass pipeline
    ``passes``) and compare outputs, gradients (``backward=True``) and every node's value; returns
    a ``ConsistencyReport`` (see the module docstring). The block itself is left as it was."""
    flags = dict(flags or {})
    if not inputs:
        raise MXNetError("compare: expected at least one input array")
    saved = ParameterValues(block)
    block(*inputs)                        # finishes deferred initialisation, in the block's own mode
    saved.restore()
    saved = ParameterValues(block)
    with trial(block, f"{block.name}"):
        eager = _run(block, inputs, backward)
        saved.restore()
        block.hybridize(**flags)
        block.hybridization.passes = None if passes is None else list(passes)
        hybrid = _run(block, inputs, backward)
        saved.restore()
        graph = block.hybridization.graph
        nodes = _compare_nodes(block, inputs, backward, rtol, atol)
        saved.restore()
    outputs = [_difference(f"{i}", e, h, rtol, atol) for i, (e, h) in enumerate(zip(eager[0], hybrid[0]))]
    gradients = [_difference(name, eager[1][name], hybrid[1].get(name), rtol, atol) for name in eager[1]]
    setting = f"hybridize({', '.join(f'{k}={v!r}' for k, v in flags.items())}), " + (
        "default passes" if passes is None else f"passes {list(passes)}")
    return ConsistencyReport(setting, outputs, nodes, gradients, rtol, atol, graph)


def compare_settings(block, *inputs, backward=False, rtol=1e-4, atol=1e-5):
    """``compare`` for each hybridize setting of ``SETTINGS`` with the default passes, then the
    default setting with each pass of the default pipeline left out: ``[ConsistencyReport]``."""
    reports = [compare(block, *inputs, backward=backward, flags=f, rtol=rtol, atol=atol) for f in SETTINGS]
    for left_out in DEFAULT_PASSES:
        passes = [p for p in DEFAULT_PASSES if p != left_out]
        reports.append(compare(block, *inputs, backward=backward, passes=passes, rtol=rtol, atol=atol))
    return reports


# ---- running -----------------------------------------------------------------------------------


def _run(block, inputs, backward):
    """``([output arrays], {input/parameter name: gradient array})`` of one call (NumPy copies)."""
    random.seed(0)
    ins = [x.copy() for x in inputs]
    grads = {}
    if not backward:
        outs = flatten(block(*ins), "output")[0]
        return [o.asnumpy() for o in outs], grads
    for x in ins:
        x.attach_grad()
    params = [p for p in block.collect_params().values() if p.grad_req != "null"]
    for p in params:
        p.zero_grad()
    with autograd.record():
        outs = flatten(block(*ins), "output")[0]
    autograd.backward(outs)                       # head gradients: ones
    grads.update((f"input {i}", x.grad.asnumpy()) for i, x in enumerate(ins))
    grads.update((p.name, p.grad().asnumpy()) for p in params)
    return [o.asnumpy() for o in outs], grads


class _Probe(Monitor):
    """Keeps a copy of every visible output of every node of a probed program, by node name."""

    def __init__(self):
        self.values = {}

    def exit(self, k, outputs):
        node = self.nodes[k]
        self.values[node.name] = [np.array(_CPU.put(o)) for o in outputs]


def _compare_nodes(block, inputs, backward, rtol, atol):
    """Rows per node of the hybridized block's traced graph: op by op vs the compiled program."""
    state = block.hybridization
    cop = state.cached_op
    real = [a for a in flatten(inputs, "input")[0] if a is not None]
    args = state.arguments(real)
    with autograd.pause(train_mode=backward):
        random.seed(0)
        eager = Interpreter(cop.symbol)
        eager.run(dict(zip(cop.input_names, args)))
        probe = _Probe()
        random.seed(0)
        cop.probe(args, probe)
    where = _where_removed(cop)
    rows = []
    for node in eager.nodes:
        src = node.meta.get("source")
        got = probe.values.get(node.name)
        if got is None:
            rows.append(Difference(node.name, node.op_name, note=where.get(node.name, "not in the compiled program"),
                                   source=src))
            continue
        for i, h in enumerate(got):
            value = eager.values.get((node, i))
            if value is None:
                continue
            name = node.name if len(got) == 1 else f"{node.name}[{i}]"
            d = _difference(name, value.asnumpy(), h, rtol, atol)
            d.op, d.source = node.op_name, src
            rows.append(d)
    return rows


def _where_removed(cop):
    """``{traced node name: where the passes put it}`` for the nodes the optimized graph lacks."""
    where = {}
    for node in cop._ops:
        for key, text in (("fused_from", "fused into"), ("merged", "merged into"), ("folded_from", "folded into")):
            for name in node.meta.get(key, ()):
                if name != node.name:
                    where[name] = f"{text} '{node.name}'"
    return where


def _difference(name, eager, hybrid, rtol, atol):
    if hybrid is None:
        return Difference(name, ok=False, note="missing when hybridized")
    eager, hybrid = np.asarray(eager), np.asarray(hybrid)
    if eager.shape != hybrid.shape:
        return Difference(name, shape=hybrid.shape, ok=False, note=f"shape {eager.shape} eager, {hybrid.shape} "
                                                                     f"hybridized")
    if eager.size == 0:
        return Difference(name, shape=eager.shape, max_abs=0.0, max_rel=0.0)
    e, h = eager.astype(np.float64), hybrid.astype(np.float64)
    both_nan = np.isnan(e) & np.isnan(h)
    diff = np.where(both_nan, 0.0, np.abs(e - h))
    diff = np.where(np.isnan(diff), np.inf, diff)
    rel = diff / np.maximum(np.abs(e), atol)      # relative to |eager|, or to atol where it is about 0
    ok = bool(np.all(diff <= atol + rtol * np.abs(np.where(np.isnan(e), 0.0, e))))
    return Difference(name, shape=eager.shape, max_abs=float(diff.max()), max_rel=float(np.where(diff == 0, 0.0,
                                                                                                    rel).max()), ok=ok)
