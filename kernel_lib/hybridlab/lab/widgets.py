"""Jupyter widgets of the lab layer (ipywidgets 8; the views live in the JupyterLab extension,
``src/widgets/``).

``GraphView(block_or_symbol)`` draws a Symbol or a hybridized block's cached graph (the graph JSON
of ``hybridlab.lab.graph_json``, docs/graph-json.md) with Graphviz in the browser. For a block it
subscribes to the ``"cache_built"`` event (``hybridlab.events``), so when the block builds or
rebuilds its cached op the view updates (its graph JSON built here from the event's graph, shapes
and dtypes and the block's ``hybridization`` state) and shows why (``reason``, ``detail``). It follows that
block object only (events carry ``block_id``): a new block with the same name (a "create the
model" cell run again) has its own views. ``"hybridize_off"`` events (``hybridize(active=False)``)
set ``reason`` to ``"not hybridized: runs imperatively"`` and ``hybridized`` to False; the graph
of the last build stays.

Synced traits: ``graph`` (the graph JSON dict, ``{}`` until the block's first hybridized call),
``block`` (the block's name, ``""`` for a Symbol), ``reason`` and ``detail`` (why the cached op was
last built; ``detail`` is the human-readable diff: ``data: (1, 3) float32 -> (5, 3) float32``,
``static_alloc: False -> True``), ``hybridized`` (whether the block runs hybridized),
``signature`` (the input signature it was built for), ``rebuilds`` (how many builds
the block has made), ``error`` (the last hybridization error as text, ``""`` when none),
``param_stats`` (per parameter, keyed by its graph variable name: ``shape``, ``dtype``, ``mean``,
``std``, ``min``, ``max``, ``zeros`` (share of zeros); computed in the kernel, refreshed on every
build; the frontend shows them in the details panel of the parameter's node), ``status`` (the
status line, ``status_text()``: the frontend shows it as is), ``op_times`` (node name -> ms per
call from ``profile(*inputs)`` or a dashboard's timing panel; the view can colour its boxes by
it, or by output size from the graph's shapes).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> from hybridlab.lab.widgets import GraphView
    >>> net = nn.HybridSequential()
    >>> net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> net.hybridize()
    >>> view = GraphView(net)
    >>> view.graph, view.reason
    ({}, '')
    >>> _ = net(mx.nd.ones((1, 3)))
    >>> view.reason, len(view.graph["nodes"]) > 0
    ('first call', True)
    >>> _ = net(mx.nd.ones((5, 3)))
    >>> view.reason, view.detail, view.rebuilds
    ('new input signature', 'data: (1, 3) float32 -> (5, 3) float32', 2)
    >>> net.hybridize(active=False)
    >>> view.reason, view.hybridized
    ('not hybridized: runs imperatively', False)
    >>> view.close()

Displayed, a view's output also carries a static snapshot (``text/html``, the graph JSON; see
``hybridlab.lab.fallback``) so a saved notebook shows the graph without a kernel. ``detach()``
stops following the block and keeps the view on screen; ``close()`` also removes the view.
"""
import html
import math
import weakref

import numpy as np
from traitlets import Bool, Dict, Int, Unicode, observe

from .. import events
from ..symbol.symbol import Symbol
from . import fallback
from .snapshot import SnapshotWidget
from .graph_json import graph_json

__all__ = ["GraphView", "MODULE_NAME", "MODULE_VERSION", "param_stats", "is_event_of"]

MODULE_NAME = "hybridlab"        # the npm package (package.json "name")
MODULE_VERSION = "^0.1.0"       # a semver range admitting the extension's version (package.json "version")


def _finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def param_stats(block):
    """``{graph variable name: {shape, dtype, mean, std, min, max, zeros}}`` for the block's
    initialized parameters (plain JSON; non-finite values become None; parameters whose
    initialization is still deferred are left out).

    >>> from hybridlab.gluon import nn
    >>> net = nn.Dense(2, in_units=3)
    >>> net.initialize()
    >>> stats = param_stats(net)
    >>> sorted(stats), stats[net.bias.name]["zeros"], stats[net.weight.name]["shape"]
    (['dense..._bias', 'dense..._weight'], 1.0, [2, 3])
    """
    out = {}
    for param in block.collect_params().values():
        try:
            data = param.data().asnumpy()
        except Exception:  # noqa: BLE001 -- deferred initialization: nothing to show yet
            continue
        a = np.asarray(data, dtype=np.float64)
        out[param.name] = {
            "shape": [int(d) for d in data.shape], "dtype": str(data.dtype),
            "mean": _finite(a.mean()) if a.size else None, "std": _finite(a.std()) if a.size else None,
            "min": _finite(a.min()) if a.size else None, "max": _finite(a.max()) if a.size else None,
            "zeros": float((a == 0).mean()) if a.size else 0.0,
        }
    return out


def is_event_of(event, block, name):
    """Whether ``event`` (``cache_built``, ``hybridize_off``, ``hybridize_error``) is about this
    very ``block`` object (not another block of the same name) published under ``name`` (the
    name the view was made for: the timing panel's runs rename the block, so views do not follow
    them)."""
    if block is None or event.get("block") != name:
        return False
    block_id = event.get("block_id")
    return block_id is None or block_id == id(block)


def _block_graph(block):
    """The graph JSON of a built block with its data inputs' shapes and dtypes of the latest
    compiled signature (as its ``cache_built`` event carried them); without one, the shapes the
    nodes carry."""
    state = block.hybridization
    if not state.signatures:
        return graph_json(block)
    sig = state.signatures[-1]
    names = {v.name for v in state.inputs}
    shapes = {n: sh for n, sh in zip(sig.names, sig.shapes) if n in names}
    dtypes = {n: dt for n, dt in zip(sig.names, sig.dtypes) if n in names}
    return graph_json(block, shapes=shapes, dtypes=dtypes)


def _subscribe_weakly(topic, widget, method_name):
    """Subscribe ``widget.<method_name>(event)`` to ``topic`` without keeping the widget alive:
    once it is garbage-collected the subscription detaches itself."""
    ref = weakref.ref(widget)
    handle = None

    def deliver(event):
        target = ref()
        if target is None:
            handle.detach()
            return
        getattr(target, method_name)(event)

    deliver.__name__ = f"GraphView.{method_name}"
    handle = events.subscribe(topic, deliver)
    return handle


class GraphView(SnapshotWidget):
    """The graph of a Symbol or a hybridized block, drawn in JupyterLab, live for blocks.

    ``GraphView(sym, shapes={"data": (1, 4)})`` passes ``shapes``/``dtypes``/``inputs`` to
    ``graph_json`` for a Symbol. For a block, the view is empty until the block's first hybridized
    call and follows every rebuild. ``close()`` stops listening.
    """

    _model_name = Unicode("GraphViewModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("GraphView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    graph = Dict().tag(sync=True)
    block = Unicode("").tag(sync=True)
    reason = Unicode("").tag(sync=True)
    detail = Unicode("").tag(sync=True)
    signature = Unicode("").tag(sync=True)
    rebuilds = Int(0).tag(sync=True)
    error = Unicode("").tag(sync=True)
    param_stats = Dict().tag(sync=True)
    hybridized = Bool(True).tag(sync=True)
    status = Unicode("").tag(sync=True)     # ``status_text()``, kept up to date: the frontend shows it as is
    op_times = Dict().tag(sync=True)        # node name -> ms per call, for colouring by time (``profile``)

    def __init__(self, block_or_symbol, shapes=None, dtypes=None, inputs=None, **kwargs):
        super().__init__(**kwargs)
        self._subscriptions = []
        self._block_ref = lambda: None
        if isinstance(block_or_symbol, Symbol):
            self.graph = graph_json(block_or_symbol, shapes=shapes, dtypes=dtypes, inputs=inputs)
            return
        state = getattr(block_or_symbol, "hybridization", None)
        if state is None or not hasattr(block_or_symbol, "name"):
            raise TypeError(f"GraphView: expected a Symbol or a HybridBlock, got {type(block_or_symbol).__name__}")
        self.block = block_or_symbol.name
        self._block_ref = weakref.ref(block_or_symbol)
        history = list(state.history)
        if state.graph is not None:
            self.graph = _block_graph(block_or_symbol)
            if history:
                last = history[-1]
                self.reason, self.detail, self.signature = last.reason, last.detail, last.signature
        elif history and not state.active:
            self.reason, self.detail = events.NOT_HYBRIDIZED, "hybridize(active=False): calls run imperatively"
        self.hybridized = state.active
        self.rebuilds = len(history)
        self.param_stats = param_stats(block_or_symbol)
        self._subscriptions.append(_subscribe_weakly("cache_built", self, "_on_cache_built"))
        self._subscriptions.append(_subscribe_weakly("hybridize_off", self, "_on_hybridize_off"))
        self._subscriptions.append(_subscribe_weakly("hybridize_error", self, "_on_hybridize_error"))

    def _on_cache_built(self, event):
        block = self._block_ref()
        if not is_event_of(event, block, self.block):
            return
        graph = graph_json(block, shapes=event.get("shapes"), dtypes=event.get("dtypes"))
        with self.hold_sync():
            self.hybridized = True
            self.graph = graph
            self.reason = str(event.get("reason", ""))
            self.detail = str(event.get("detail", "") or "")
            self.signature = str(event.get("signature", "") or "")
            history = event.get("history")
            self.rebuilds = history + 1 if isinstance(history, int) else self.rebuilds + 1
            self.error = ""
            self.param_stats = param_stats(block)

    def profile(self, *inputs, calls=3):
        """Time each node of the block's graph on ``inputs`` (``timing.profile_ops``: profiled
        hybridized calls, the block left as it was) so the view can colour its boxes by time per
        call; returns ``op_times`` (node name -> ms).

        >>> import hybridlab as mx
        >>> from hybridlab.gluon import nn
        >>> net = nn.Dense(3, prefix='fc_')
        >>> net.initialize()
        >>> net.hybridize()
        >>> x = mx.nd.ones((2, 4))
        >>> _ = net(x)
        >>> view = GraphView(net)
        >>> sorted(view.profile(x))
        ['fc_fwd']
        >>> view.close()
        """
        block = self._block_ref()
        if block is None:
            raise TypeError("GraphView.profile: expected a view of a block, got one of a Symbol (nothing to run)")
        from .timing import profile_ops
        self.set_times(profile_ops(block, *inputs, calls=calls))
        return dict(self.op_times)

    def set_times(self, ops):
        """Per-op time rows (``ops`` of ``time_block`` / ``profile_ops``) as ``op_times``."""
        self.op_times = {str(o["node"]): float(o["avg_ms"]) for o in ops or []}

    def _on_hybridize_off(self, event):
        if not is_event_of(event, self._block_ref(), self.block):
            return
        with self.hold_sync():       # the last build's graph stays on screen
            self.hybridized = False
            self.reason = str(event.get("reason", "") or events.NOT_HYBRIDIZED)
            self.detail = str(event.get("detail", "") or "")

    def _on_hybridize_error(self, event):
        if not is_event_of(event, self._block_ref(), self.block):
            return
        err = event.get("error")
        self.error = f"{type(err).__name__}: {err}" if isinstance(err, BaseException) else str(err)

    @observe("graph", "block", "reason", "detail", "rebuilds", "hybridized", "error")
    def _update_status(self, _change):
        self.status = self.status_text()

    def status_text(self):
        """The status line as text (synced as ``status``): ``mlp0: cached op rebuilt (new input
        signature: data: (1, 3) float32 -> (5, 3) float32), build #2``."""
        who = self.block or "graph"
        if self.error and self.hybridized:     # turned off, the block no longer tries to hybridize
            return f"{who}: hybridization failed: {self.error}"
        if not self.reason:
            return f"{who}: waiting for the block's first hybridized call" if self.block and not self.graph else who
        why = f"{self.reason}: {self.detail}" if self.detail and self.reason != "first call" else self.reason
        if not self.hybridized:
            return f"{who}: {why} (the graph of build #{self.rebuilds} is shown)" if self.graph else f"{who}: {why}"
        verb = "rebuilt" if self.rebuilds > 1 else "built"
        return f"{who}: cached op {verb} ({why}), build #{self.rebuilds}" if self.rebuilds else f"{who}: {why}"

    def _static(self):
        if not self.graph:
            return fallback.box("graph", self.status_text()), {}
        from .mime import GRAPH_MIME_TYPE
        nodes = self.graph.get("nodes", [])
        n_op = sum(1 for n in nodes if n.get("op") != "null")
        summary = html.escape(f"{len(nodes)} nodes, {n_op} ops" + (f"; input signature {self.signature}"
                                                                     if self.signature else ""))
        page = fallback.box("graph", self.status_text(), f"<p>{summary}</p>",
                            fallback.svg_img(self.graph, self.block or "graph"))
        return page, {GRAPH_MIME_TYPE: self.graph}

    def detach(self):
        """Stop following the block; the view stays on screen with what it shows."""
        for sub in self._subscriptions:
            sub.detach()
        self._subscriptions = []

    def close(self):
        """Stop following the block and close the widget (its view disappears)."""
        self.detach()
        super().close()

    def __repr__(self):
        what = f"block {self.block!r}" if self.block else "symbol"
        off = ", not hybridized" if self.block and not self.hybridized else ""
        return f"<GraphView of {what}: {len(self.graph.get('nodes', []))} nodes, {self.rebuilds} build(s){off}>"
