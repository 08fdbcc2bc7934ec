"""``TimingPanel(block, *inputs)``: imperative vs hybridized timings of a block, measured in the kernel.

``time_block(block, *inputs, calls=30, warmup=2, profile_calls=3, progress=None)`` runs the block
imperatively and hybridized with three flag sets (``default``, ``static_alloc``,
``static_alloc+static_shape``) and returns plain JSON: per mode the per-call latencies (ms), their
median/mean/p10/p90, the trace cost (building the graph), the build cost (the first call less a
steady call: compile and first run), the speed-up over imperative (median vs median) and after how
many calls hybridizing pays off (``breakeven_calls``: the smallest n with n imperative calls slower
than trace + build + n hybridized calls; None when it never does, i.e. the hybridized call is not
faster; ``pays_off``: the same in words, see ``payoff_text``); and the per-op breakdown of the
default hybridized mode from ``mx.profiler`` joined to the graph's nodes (``ops``: node, op,
family, scope, count, total_ms, avg_ms, share).

The user's block is left as it was: every block of its tree gets its attributes back afterwards
(hybridization flags, cached op, rebuild history, hooks), the runs publish their builds under the
name ``"<block> (timing)"`` (so a GraphView of the block does not follow them), op hooks and
forward hooks are off during the runs, and the profiler's configuration and earlier records are
kept. Parameters must be initialized (call the block once first).

``TimingPanel`` runs ``time_block`` when created (``run=True``) and again when its view's Run
button is pressed, with a progress bar (``progress`` 0..1, ``stage``). Synced traits: ``block``,
``results`` (``time_block``'s dict, ``{}`` before a run), ``progress``, ``stage``, ``running``,
``error``, ``status`` (``status_text()``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> from hybridlab.lab.timing import TimingPanel
    >>> net = nn.HybridSequential(prefix='mlp_')
    >>> with net.name_scope():
    ...     net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> x = mx.nd.ones((4, 5))
    >>> _ = net(x)
    >>> panel = TimingPanel(net, x, calls=5)
    >>> [m["name"] for m in panel.results["modes"]]
    ['imperative', 'default', 'static_alloc', 'static_alloc+static_shape']
    >>> sorted({o["node"] for o in panel.results["ops"]})
    ['mlp_dense0_fwd', 'mlp_dense0_relu_fwd', 'mlp_dense1_fwd']
    >>> net.hybridization.active, net.cached_op is None      # the user's block is untouched
    (False, True)
    >>> print(panel.text())                          # doctest: +ELLIPSIS
    mlp: 5 timed calls per mode on (4, 5) float32
    imperative                   ... ms  1.00x
    default                      ... ms  ...x  ...
    ...

A saved notebook keeps this table as a static ``text/html`` snapshot (``hybridlab.lab.fallback``).
"""
import math
import time

import numpy as np
from traitlets import Bool, Dict, Float, Unicode, observe

from .. import autograd, profiler
from ..gluon.hybridization import build, trial
from . import fallback
from .snapshot import SnapshotWidget
from .graph_json import graph_json
from .widgets import MODULE_NAME, MODULE_VERSION

__all__ = ["TimingPanel", "time_block", "profile_ops", "MODES", "payoff_text", "results_text"]

MODES = [("imperative", None), ("default", {}), ("static_alloc", {"static_alloc": True}),
         ("static_alloc+static_shape", {"static_alloc": True, "static_shape": True})]

def payoff_text(mode):
    """When hybridizing pays off, in words, for one mode of ``time_block``'s results.

    >>> payoff_text({"name": "default", "breakeven_calls": None, "speedup": 0.8})
    'never: not faster than imperative at this size (0.80x)'
    >>> payoff_text({"name": "default", "breakeven_calls": 1, "speedup": 3.0})
    'pays off from the first call'
    >>> payoff_text({"name": "default", "breakeven_calls": 12, "speedup": 3.0})
    'pays off after 12 calls'
    >>> payoff_text({"name": "imperative", "breakeven_calls": None, "speedup": 1.0})
    ''
    """
    if mode.get("name") == "imperative":
        return ""
    n = mode.get("breakeven_calls")
    if n is None:
        speed = mode.get("speedup")
        return "never: not faster than imperative at this size" + (f" ({speed:.2f}x)" if speed else "")
    return "pays off from the first call" if n <= 1 else f"pays off after {n} calls"


def results_text(results):
    """``time_block``'s results as a text table (one line per mode)."""
    if not results or not results.get("modes"):
        return "not run"
    lines = [f"{results['block']}: {results['calls']} timed calls per mode on {results['inputs']}"]
    for m in results["modes"]:
        speed = f"{m['speedup']:.2f}x" if m.get("speedup") else "—"
        lines.append(f"{m['name']:<28} {m['median_ms']:.3f} ms  {speed}  {payoff_text(m)}".rstrip())
    return "\n".join(lines)


def _sync(out):
    for o in out if isinstance(out, (list, tuple)) else [out]:
        if hasattr(o, "wait_to_read"):
            o.wait_to_read()


def _timed(fn):
    t = time.perf_counter()
    _sync(fn())
    return (time.perf_counter() - t) * 1e3


def _summary(lat):
    a = np.asarray(lat)
    return {"latencies_ms": [round(float(v), 5) for v in lat], "median_ms": float(np.median(a)),
            "mean_ms": float(a.mean()), "p10_ms": float(np.percentile(a, 10)), "p90_ms": float(np.percentile(a, 90)),
            "min_ms": float(a.min())}


def _op_breakdown(block, samples, graph):
    by_name = {n["name"]: n for n in graph.get("nodes", [])}
    rows = {}
    for name, domain, t0, t1, args, _tid in samples:
        if domain != "operator" or not isinstance(args, dict) or args.get("block") != block.name:
            continue
        node = str(args.get("node", name))
        row = rows.setdefault(node, {"node": node, "op": name, "count": 0, "total_ms": 0.0})
        row["count"] += 1
        row["total_ms"] += (t1 - t0) * 1e3
    total = sum(r["total_ms"] for r in rows.values()) or 1.0
    out = []
    for r in sorted(rows.values(), key=lambda r: -r["total_ms"]):
        g = by_name.get(r["node"], {})
        out.append({**r, "avg_ms": r["total_ms"] / r["count"], "share": r["total_ms"] / total,
                    "family": g.get("family", ""), "scope": list(g.get("scope", []))})
    return out


def _check_run(who, block, inputs, calls):
    if not hasattr(block, "hybridization"):
        raise TypeError(f"{who}: expected a HybridBlock, got {type(block).__name__}")
    if not inputs:
        raise ValueError(f"{who}: expected at least one input array, got none")
    if not isinstance(calls, int) or calls < 1:
        raise ValueError(f"{who}: calls expected an int >= 1, got {calls!r}")


def _step_fn(block, inputs, backward):
    """One timed call: the forward, or with ``backward`` a training step without the update
    (forward under ``autograd.record()``, then backward from the sum of the first output)."""
    if not backward:
        return lambda: block(*inputs)

    def train_step():
        with autograd.record():
            out = block(*inputs)
            head = (out[0] if isinstance(out, (list, tuple)) else out).sum()
        head.backward()
        return head
    return train_step


def time_block(block, *inputs, calls=30, warmup=2, profile_calls=3, progress=None, backward=False):
    """Imperative vs hybridized timings of ``block`` on ``inputs`` (see the module docstring).
    ``progress(fraction, stage)`` is called as the runs advance. ``backward=True`` times a
    training step instead of a forward (forward + backward, no parameter update: the parameters
    keep their values, their gradients are overwritten)."""
    _check_run("time_block", block, inputs, calls)
    report = progress or (lambda fraction, stage: None)
    total_steps = len(MODES) * (warmup + calls + 1) + profile_calls
    done = [0]

    def step(stage):
        done[0] += 1
        report(min(1.0, done[0] / total_steps), stage)

    modes, ops, graph = [], [], {}
    call = _step_fn(block, inputs, backward)
    with trial(block, f"{block.name} (timing)"):
        for name, flags in MODES:
            entry = {"name": name, "flags": flags or {}, "trace_ms": None, "build_ms": None, "first_ms": None}
            if flags is None:
                block.hybridize(False)
                step(f"{name}: warm-up")
            else:
                block.hybridize(True, **flags)
                t = time.perf_counter()
                build(block, *inputs)
                entry["trace_ms"] = (time.perf_counter() - t) * 1e3
                entry["first_ms"] = _timed(call)
                step(f"{name}: trace and build")
            for _ in range(warmup):
                _sync(call())
                step(f"{name}: warm-up")
            lat = []
            for i in range(calls):
                lat.append(_timed(call))
                step(f"{name}: call {i + 1} of {calls}")
            entry.update(_summary(lat))
            if entry["first_ms"] is not None:
                entry["build_ms"] = max(0.0, entry["first_ms"] - entry["median_ms"])
            modes.append(entry)
            if name == "default" and profile_calls:
                graph = graph_json(block)
                ops = _profile(block, inputs, profile_calls, graph, step)
    _user_scopes(ops, block)
    imp = modes[0]["median_ms"]
    for m in modes:
        m["speedup"] = imp / m["median_ms"] if m["median_ms"] > 0 else None
        gain = imp - m["median_ms"]
        fixed = (m["trace_ms"] or 0.0) + (m["build_ms"] or 0.0)
        m["breakeven_calls"] = None if m["name"] == "imperative" or gain <= 0 else max(1, math.ceil(fixed / gain))
        m["pays_off"] = payoff_text(m)
    report(1.0, "done")
    shapes = ", ".join(f"{tuple(getattr(x, 'shape', ()))} {getattr(x, 'dtype', '')}" for x in inputs)
    return {"block": block.name, "inputs": shapes, "calls": calls, "modes": modes, "ops": ops,
            "nodes": len(graph.get("nodes", [])), "backward": bool(backward)}


def _user_scopes(ops, block):
    """The profile rows' scopes name the user's block, not its renamed trial copy."""
    for row in ops:
        if row["scope"] and row["scope"][0] == f"{block.name} (timing)":
            row["scope"][0] = block.name


def profile_ops(block, *inputs, calls=3):
    """The time of each node of ``block``'s default hybridized graph on ``inputs``: the ``ops``
    rows of ``time_block`` (node, op, family, scope, count, total_ms, avg_ms, share), from
    ``calls`` profiled calls after one warm-up, without the imperative and static runs. The block
    is left as it was (as ``time_block`` leaves it); ``[]`` while the user's own profiler runs.

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.HybridSequential(prefix='mlp_')
    >>> with net.name_scope():
    ...     net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> x = mx.nd.ones((4, 5))
    >>> _ = net(x)
    >>> sorted(o["node"] for o in profile_ops(net, x))
    ['mlp_dense0_fwd', 'mlp_dense0_relu_fwd', 'mlp_dense1_fwd']
    """
    _check_run("profile_ops", block, inputs, calls)
    with trial(block, f"{block.name} (timing)"):
        block.hybridize(True)
        build(block, *inputs)
        _sync(block(*inputs))
        ops = _profile(block, inputs, calls, graph_json(block), lambda stage: None)
    _user_scopes(ops, block)
    return ops


def _profile(block, inputs, n, graph, step):
    was_running = profiler.is_running()
    if was_running:          # the user's own profiling session: leave it alone
        return []
    with profiler.isolated(profile_symbolic=True, profile_imperative=False) as samples:   # ours go, the user's stay
        for _ in range(n):
            _sync(block(*inputs))
            step("default: per-op profile")
    return _op_breakdown(block, samples, graph)


class TimingPanel(SnapshotWidget):
    """Imperative vs hybridized timings of ``block`` on ``inputs``, with the per-op breakdown
    (see the module docstring). ``TimingPanel(block, *inputs, calls=30, warmup=2,
    profile_calls=3, backward=False, run=True)`` (``backward=True``: training steps, see
    ``time_block``); ``run()`` measures again."""

    _model_name = Unicode("TimingPanelModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("TimingPanelView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    block = Unicode("").tag(sync=True)
    results = Dict().tag(sync=True)
    progress = Float(0.0).tag(sync=True)
    stage = Unicode("").tag(sync=True)
    running = Bool(False).tag(sync=True)
    error = Unicode("").tag(sync=True)
    status = Unicode("").tag(sync=True)     # ``status_text()``, kept up to date: the frontend shows it as is

    def __init__(self, block, *inputs, calls=30, warmup=2, profile_calls=3, backward=False, run=True, **kwargs):
        if not hasattr(block, "hybridization"):
            raise TypeError(f"TimingPanel: expected a HybridBlock, got {type(block).__name__}")
        if not inputs:
            raise ValueError("TimingPanel: expected the block's input arrays after the block, got none")
        super().__init__(**kwargs)
        self.block = block.name
        self._target, self._inputs = block, inputs
        self._opts = {"calls": calls, "warmup": warmup, "profile_calls": profile_calls, "backward": backward}
        self.on_msg(self._on_frontend_msg)
        if run:
            self.run()

    def _progress(self, fraction, stage):
        if fraction >= 1.0 or fraction - self.progress >= 0.02:
            with self.hold_sync():
                self.progress, self.stage = fraction, stage

    def run(self):
        """Measure (again); returns the results dict (also in ``results``)."""
        with self.hold_sync():
            self.running, self.error, self.progress, self.stage = True, "", 0.0, "starting"
        try:
            self.results = time_block(self._target, *self._inputs, progress=self._progress, **self._opts)
        except Exception as err:  # noqa: BLE001 -- shown in the widget, and raised
            self.error = f"{type(err).__name__}: {err}"
            raise
        finally:
            self.running = False
        return self.results

    def _on_frontend_msg(self, _widget, content, _buffers):
        if isinstance(content, dict) and content.get("event") == "run" and not self.running:
            try:
                self.run()
            except Exception:  # noqa: BLE001 -- already in ``error`` for the view
                pass

    @observe("block", "results", "progress", "stage", "running", "error")
    def _update_status(self, _change):
        self.status = self.status_text()

    def status_text(self):
        """The status line (synced as ``status``): ``mlp_: 30 timed calls per mode on data (1, 512)
        float32``, or the stage while measuring, or the error."""
        if self.error:
            return f"{self.block}: timing failed: {self.error}"
        if self.running:
            return f"{self.block}: measuring: {self.stage} ({round(100 * self.progress)}%)"
        r = self.results
        if not r.get("modes"):
            return f"{self.block}: timing not run"
        what = "training steps (forward + backward)" if r.get("backward") else "calls"
        return f"{r['block']}: {r['calls']} timed {what} per mode on {r['inputs']}"

    def text(self):
        """The results as a text table (``results_text``)."""
        return results_text(self.results)

    def _static(self):
        r = self.results
        if not r.get("modes"):
            return fallback.box("timing", self.status_text()), {}
        rows = [[m["name"], m["median_ms"], m["p10_ms"], m["p90_ms"], m["trace_ms"], m["build_ms"],
                 f"{m['speedup']:.2f}x" if m.get("speedup") else "—", payoff_text(m)] for m in r["modes"]]
        parts = [fallback.table(["mode", "median ms", "p10 ms", "p90 ms", "trace ms", "build ms", "speed-up",
                                 "pays off"], rows)]
        if r.get("ops"):
            parts.append("<p>Per-op time (default hybridized, profiler):</p>")
            parts.append(fallback.table(["node", "op", "calls", "avg ms", "share"],
                                        [[o["node"], o["op"], o["count"], o["avg_ms"], f"{100 * o['share']:.1f}%"]
                                         for o in r["ops"]]))
        return fallback.box("timing", self.status_text(), *parts), {}

    def __repr__(self):
        modes = self.results.get("modes", [])
        best = max((m for m in modes[1:]), key=lambda m: m["speedup"] or 0, default=None)
        tail = f", best {best['name']} {best['speedup']:.2f}x, {payoff_text(best)}" if best else ", not run"
        return f"<TimingPanel of block {self.block!r}{tail}>"
