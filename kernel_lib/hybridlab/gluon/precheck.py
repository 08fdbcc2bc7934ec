"""Pre-check: everything that fails or is silently frozen when a block is hybridized, found by one
dry trace before any hybridized call (``block.precheck(*inputs)`` / ``precheck(block, *inputs)``).

The trace runs with deferred compute on a trial state (the block is left as it was), in pre-check
mode (``deferred.precheck_reads``): a value read answers with the real value and an item assignment
is skipped, so the trace goes on past each problem; if it stops anyway, the graph traced so far is
kept. Each ``Problem`` has the user's line (file, line, code), ``severity`` (``"fails"``: the
hybridized call raises or computes something else; ``"frozen"``: a number of this call is baked
into the graph; ``"note"``: it works, and costs or surprises), why, and the rewrite in the block's
style (1.x ``F.`` ops or 2.0 ``mx.np``/``mx.npx``). Found:

* Python control flow on values, ``print``/``asnumpy``/``item``/``float`` of an array, item
  assignment (``fails``); an in-place operator (``x += 1``: rebinds the name, ``note``);
* shape reads (``x.shape[0]``, ``len(x)``, ``ndim``, ``size``) and dtype or device reads: 2.0 style
  ``frozen`` into the node attributes built on that line (named), 1.x style ``fails`` (a Symbol has
  no shape, dtype or context);
* indexing an array in a 1.x block (``x[0, 0]``, ``x[:, 1]``; ``fails``: on a Symbol an integer
  picks an output, so ``x[0]`` is ``x`` itself, and any other key raises);
* arrays from outside the graph mixed into ops (``fails``), ops with value-dependent output shapes
  (the graph is split around them), random ops, unused inputs and parameters, inputs and
  parameters on several devices (``note``), and a plain ``Block`` (or a plain child), which cannot
  be hybridized at all.

``report.verdict`` sums it up; ``print(report)`` lists every problem.

Example::

    >>> import hybridlab as mx
    >>> class Net(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         if x.sum() > 0:
    ...             x = x * 2
    ...         return x.reshape((x.shape[0], -1))
    >>> report = precheck(Net(), mx.np.ones((2, 3, 4)))
    >>> [(p.severity, p.kind) for p in report.problems]
    [('fails', 'branch'), ('frozen', 'shape read')]
    >>> report.verdict
    'fails when hybridized: 1 problem(s) fail, 1 value(s) frozen'
"""
import os

from ..base import MXNetError
from ..deferred.precheck_reads import Findings
from ..deferred.state import rewrite_advice, tracing
from ..symbol.provenance import in_package
from ..symbol.symbol import Symbol
from .hybridization import ParameterValues, trial
from .utils import flatten

__all__ = ["precheck", "PrecheckReport", "Problem"]

_SEVERITY = {"fails": 0, "frozen": 1, "note": 2}


class Problem:
    """One construct (see the module docstring): ``kind``, ``severity``, ``source`` (``{"file",
    "line", "code"}`` or ``None``), ``why``, ``rewrite`` and ``nodes`` (the names of the graph nodes it concerns)."""

    __slots__ = ("kind", "severity", "source", "why", "rewrite", "nodes")

    def __init__(self, kind, severity, source, why, rewrite="", nodes=()):
        self.kind, self.severity, self.source, self.why = kind, severity, source, why
        self.rewrite, self.nodes = rewrite, list(nodes)

    @property
    def where(self):
        src = self.source
        return f"{os.path.basename(str(src['file']))}:{src['line']}" if src else "(no line)"

    def __str__(self):
        code = f" `{self.source['code']}`" if self.source and self.source.get("code") else ""
        rewrite = f" Rewrite: {self.rewrite}" if self.rewrite else ""
        return f"[{self.severity}] {self.where}:{code} {self.why}.{rewrite}"

    def __repr__(self):
        return f"<Problem {self.severity} {self.kind} at {self.where}>"


class PrecheckReport:
    """``problems`` (graph order of discovery, failures first), ``graph`` (the traced Symbol, or
    the part traced before the trace stopped), ``complete`` (whether the trace ran to the end),
    ``style`` (``"1.x"`` or ``"2.0"``) and ``verdict``."""

    def __init__(self, block_name, style, problems, graph, complete):
        self.block_name, self.style, self.graph, self.complete = block_name, style, graph, complete
        self.problems = sorted(problems, key=lambda p: _SEVERITY[p.severity])

    @property
    def ok(self):
        return not any(p.severity in ("fails", "frozen") for p in self.problems)

    @property
    def verdict(self):
        fails = sum(p.severity == "fails" for p in self.problems)
        frozen = sum(p.severity == "frozen" for p in self.problems)
        if not fails and not frozen:
            return "hybridizes cleanly" + (f" ({len(self.problems)} note(s))" if self.problems else "")
        parts = ([f"{fails} problem(s) fail"] if fails else []) + ([f"{frozen} value(s) frozen"] if frozen else [])
        return ("fails when hybridized: " if fails else "hybridizes, with numbers frozen: ") + ", ".join(parts)

    def __str__(self):
        head = f"pre-check of '{self.block_name}' ({self.style} style): {self.verdict}"
        if not self.complete:
            head += " (the trace stopped early: problems after that line are not known)"
        return "\n".join([head] + [f"  {p}" for p in self.problems])

    def __repr__(self):
        return f"<PrecheckReport {self.block_name}: {self.verdict}>"


def precheck(block, *inputs):
    """Dry-trace ``block`` on ``inputs`` and list every construct that fails or is frozen when it
    is hybridized; returns a ``PrecheckReport`` (see the module docstring)."""
    from .hybrid_block import HybridBlock
    from .hybrid_graph import trace
    if not isinstance(block, HybridBlock):
        return _plain_block(block)
    if not inputs:
        raise MXNetError("precheck: expected the inputs of a call (the trace needs their shapes)")
    style = "1.x" if block._is_legacy() else "2.0"
    waiting = [p.name for p in block.collect_params().values() if p._data is None and not p._deferred_init]
    if waiting:           # the trace would stop at the first one: say what to do instead
        return PrecheckReport(block.name, style, [Problem(
            "not initialized", "fails", None, f"parameters {waiting} are not initialized",
            f"call `{block.name}.initialize()` (or load its parameters) before the pre-check.")], None, False)
    problems, graph, complete = [], None, True
    found = Findings(symbolic=style == "1.x")
    saved = ParameterValues(block)
    with trial(block, block.name):
        previous, tracing.precheck = tracing.precheck, found
        shape_reads = []
        try:
            graph = trace(block, *inputs, symbolic=False, shape_reads=shape_reads)[1]
        except Exception as err:      # noqa: BLE001 - the pre-check reports what stopped the trace
            complete = False
            problems.append(_stopped(err, style))
            graph = _partial(found.nodes)
        finally:
            tracing.precheck = previous
        saved.restore()
    problems += [_from_read(r, style) for r in found.reads]
    traced = graph._nodes() if graph is not None else []
    problems += [_from_shape_read(r, style, traced) for r in shape_reads]
    if graph is not None:
        problems += _graph_notes(block, graph, inputs, complete)
    return PrecheckReport(block.name, style, problems, graph, complete)


def _np(style):
    return style == "2.0"


def _from_read(read, style):
    np_words = read.np_words if read.np_words is not None else _np(style)
    if read.kind == "branch":
        return Problem("branch", "fails", read.source, "Python control flow on an array's value: the hybridized "
                       "graph has no values while it is traced, so one branch cannot be chosen per call",
                       rewrite_advice("branch", np_words))
    if read.kind == "in-place write":
        return Problem("in-place write", "fails", read.source, "an item assignment: a graph node cannot be "
                       "written in place", rewrite_advice("write", np_words))
    if read.kind == "in-place op":
        return Problem("in-place op", "note", read.source, "an in-place operator on a traced array makes a new "
                       "graph node and rebinds the name, like `x = x + y`: another name for the old array does not "
                       "see the change (it would imperatively)", "write `x = x + y` to say what happens.")
    if read.kind == "symbol indexing":
        return Problem("symbol indexing", "fails", read.source, f"{read.what} indexes a Symbol when hybridized: an "
                       f"integer picks an output (x[0] is x itself, not its first row), any other key raises",
                       "slice with F.slice_axis(x, axis=..., begin=..., end=...) or F.slice(x, begin=(...), "
                       "end=(...)); pick with F.take / F.pick for index arrays.")
    if read.kind == "outside array":
        ones = "mx.np.ones_like" if np_words else "F.ones_like"
        return Problem("outside array", "fails", read.source, f"{read.what} is an array from outside the graph "
                       f"(neither an input, a parameter nor computed by ops)",
                       f"create it with ops (`{ones}`), make it a Parameter/Constant, or pass it as an input.")
    return Problem("value read", "fails", read.source, f"reads {read.what}: the hybridized graph has no values "
                   f"while it is traced", rewrite_advice("read", np_words))


def _from_shape_read(read, style, traced):
    """A shape read: the nodes built at its line whose attributes hold the value it read."""
    baked_into = read.baked_into(traced)
    nodes = [node.name for node, _ in baked_into]
    what = f"{read.label}.{read.what if read.what != 'len' else 'len()'} = {read.value}"
    kind = {"dtype": "dtype read", "device": "device read"}.get(read.what, "shape read")
    if read.what in ("dtype", "device"):
        fix = ("decide it in the constructor (a Parameter's dtype, the block's device) or pass it in, "
               "instead of reading it from the array in the forward.")
    elif style == "1.x":
        fix = "use shape-free ops: `F.reshape(x, (0, -1))` codes, `F.flatten`, `F.shape_array`, `F.slice_axis`."
    else:
        fix = ("use shape-free ops: `mx.npx.reshape(x, (-2, -1))` codes, `mx.npx.batch_flatten(x)`, or "
               "`mx.np.reshape(x, (-1, n))` with the fixed size.")
    if style == "1.x":
        has = {"dtype": "dtype", "device": "context"}.get(read.what, "shape")
        return Problem(kind, "fails", read.source, f"reads {what}: a Symbol has no {has} in hybrid_forward", fix,
                       nodes)
    held = [f"{node.name}.{'/'.join(attrs)}" for node, attrs in baked_into]
    baked = f" in {', '.join(held)}" if held else " in the graph"
    return Problem(kind, "frozen", read.source, f"reads {what}, which is baked{baked}: a call with another "
                   f"{read.what if read.what in ('dtype', 'device') else 'shape'} traces again (shape guards; with "
                   f"hybridize(shape_guards=False) it computes with the traced value)", fix, nodes)


def _graph_notes(block, graph, inputs, complete):
    out = []
    nodes = graph._nodes()
    for node in nodes:
        if node.is_variable:
            continue
        if node.op.dynamic_shape:
            out.append(Problem("dynamic shape", "note", node.meta.get("source"), f"node '{node.name}' "
                               f"({node.op_name}) has a value-dependent output shape: the graph is split around it "
                               f"(its segments run one by one, the rest compiled)",
                               "mask instead of selecting (`where` with a mask) to keep one compiled program.",
                               [node.name]))
        elif node.op.needs_rng or node.op.family == "random":
            out.append(Problem("random op", "note", node.meta.get("source"), f"node '{node.name}' ({node.op_name}) "
                               f"draws random numbers: each call draws anew, eager and hybridized runs differ "
                               f"unless seeded alike", "", [node.name]))
    used = {n.name for n in nodes if n.is_variable}
    real = [a for a in flatten(inputs, "input")[0] if a is not None]
    params = list(block.collect_params().values())
    devices = {str(a.device) for a in real} | {str(d) for p in params if p._data is not None for d in p.list_device()}
    if len(devices) > 1:
        out.append(Problem("devices", "note", None, f"inputs and parameters are on several devices "
                           f"({', '.join(sorted(devices))}): a hybridized call needs one",
                           "move them with `as_in_context` / `reset_device` first."))
    if not complete:          # what the rest of the forward would have used is not known
        return out
    names = ["data"] if len(real) == 1 else [f"data{i}" for i in range(len(real))]
    for k, name in enumerate(names):
        if name not in used:
            out.append(Problem("unused input", "note", None, f"input {k} is not used by any computation"))
    for p in params:
        if p.var().name not in used:
            out.append(Problem("unused parameter", "note", None, f"parameter '{p.name}' is not used by any "
                               f"computation (it still gets saved and trained)"))
    return out


def _stopped(err, style):
    """The exception that stopped the trace, at the user's line of its traceback."""
    source = None
    tb = err.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not in_package(code.co_filename):
            import linecache
            source = {"file": code.co_filename, "line": tb.tb_lineno,
                      "code": linecache.getline(code.co_filename, tb.tb_lineno).strip()}
        tb = tb.tb_next
    return Problem("trace stopped", "fails", source, f"the trace stopped: {type(err).__name__}: "
                   f"{str(err).rstrip('.')}")


def _partial(nodes):
    """The graph traced before a failure: the nodes nothing read yet are its outputs."""
    if not nodes:
        return None
    read = {id(src) for n in nodes for src, _ in n.inputs}
    heads = [(n, 0) for n in nodes if id(n) not in read]
    return Symbol(heads)


def _plain_block(block):
    plain = []
    block.apply(lambda b: plain.append(b) if not hasattr(b, "_hybridization") else None)
    problems = [Problem("not hybridizable", "fails", None, f"'{b.name}' is a {type(b).__name__}, a plain Block: "
                        f"only HybridBlocks (HybridSequential, nn layers) hybridize",
                        "derive from HybridBlock (MXNet 2.0: define forward) or use HybridSequential.")
                for b in plain]
    return PrecheckReport(block.name, "1.x", problems, None, False)
