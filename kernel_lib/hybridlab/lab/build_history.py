"""``BuildHistory(block)``: every build of a hybridized block, as a panel in JupyterLab (ipywidgets 8;
the view lives in the extension, ``src/widgets/history.ts``).

Each build of the block's cached op is a ``RebuildRecord`` in ``block.rebuild_history``
(``hybridlab.gluon.rebuild_history``): why it was built (the reason names the guard that broke:
``shape read at net.py:5 changed: data.shape[0] 2 -> 3``), what changed, the input signature, the
hybridize flags, the build time, static_alloc's planned bytes, whether the graph was traced anew,
and the traced graph. The panel lists the builds as a table; two picked builds (by default the last
two) are drawn side by side with the nodes the later one added, removed or changed marked.

The widget follows the block live: each ``"cache_built"`` event of that very block object
(``hybridlab.events``) rebuilds ``builds`` from ``block.rebuild_history``. Synced traits:
``block`` (the block's name), ``status`` (the status line, ``status_text()``: the frontend shows it
as is) and ``builds``, one plain-JSON dict per build, oldest first, the newest ``limit`` kept:
``{"index": position in rebuild_history, "time": "HH:MM:SS", "reason", "detail", "signature",
"flags": the hybridize flags that differ from hybridize()'s defaults as text (``"static_alloc=True"``;
``""`` for the defaults), "build_ms": float or None, "memory_bytes": int or None, "retraced": bool,
"nodes": the graph's node count, "graph": the graph JSON (docs/graph-json.md) or {}}``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.lab.build_history import BuildHistory
    >>> class Flatten(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         return mx.npx.relu(x.reshape((x.shape[0], -1)))
    >>> net = Flatten(prefix='flat_')
    >>> net.hybridize()
    >>> history = BuildHistory(net)
    >>> history.status
    "flat: no builds yet (waiting for the block's first hybridized call)"
    >>> _ = net(mx.np.ones((2, 3, 4)))
    >>> _ = net(mx.np.ones((3, 3, 4)))          # the batch size was read: traced again
    >>> net.hybridize(static_alloc=True)
    >>> _ = net(mx.np.ones((3, 3, 4)))
    >>> [(b["index"], b["reason"][:10], b["flags"], b["retraced"]) for b in history.builds]
    [(0, 'first call', '', True), (1, 'shape read', '', True), (2, 'hybridize ', 'static_alloc=True', True)]
    >>> history.builds[1]["reason"]                 # doctest: +ELLIPSIS
    'shape read at ...:3 changed: data.shape[0] 2 -> 3'
    >>> [n["attrs"].get("newshape") for n in history.builds[0]["graph"]["nodes"]]
    [None, '(2, -1)', None]
    >>> history
    <BuildHistory of block 'flat': 3 build(s)>
    >>> history.close()                             # stops following the block

Displayed, its output also carries a static snapshot (``text/html``: the builds as a table; see
``hybridlab.lab.fallback``) so a saved notebook shows them without a kernel. ``detach()`` stops
following the block and keeps the panel on screen; ``close()`` also removes it.
"""
import inspect
import time
import weakref

from traitlets import List, Unicode

from ..gluon import HybridBlock
from . import fallback
from .snapshot import SnapshotWidget
from .graph_json import graph_json
from .widgets import MODULE_NAME, MODULE_VERSION, _subscribe_weakly, is_event_of

__all__ = ["BuildHistory", "build_entries", "flags_text", "memory_text"]


def _hybridize_defaults():
    """``{flag: default}`` of ``HybridBlock.hybridize``'s keyword arguments."""
    params = inspect.signature(HybridBlock.hybridize).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


_DEFAULTS = _hybridize_defaults()


def flags_text(flags):
    """The hybridize flags of a build (``[(flag, value), ...]``) that differ from ``hybridize()``'s
    defaults, as text; ``""`` when all are the defaults.

    >>> flags_text([("static_alloc", True), ("static_shape", False), ("inline_limit", 2)])
    'static_alloc=True'
    >>> flags_text([("static_alloc", False), ("static_shape", False), ("inline_limit", 2)])
    ''
    """
    return ", ".join(f"{k}={v!r}" for k, v in flags if k not in _DEFAULTS or _DEFAULTS[k] != v)


def memory_text(n_bytes):
    """``288 B``, ``1.5 KiB``, ``3.0 MiB`` for a byte count; ``—`` for None.

    >>> memory_text(288), memory_text(1536), memory_text(None)
    ('288 B', '1.5 KiB', '—')
    """
    if n_bytes is None:
        return "—"
    size = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024


def build_entries(history, limit=None, graphs=None):
    """One plain-JSON dict per ``RebuildRecord`` of ``history`` (oldest first; with ``limit``, the
    newest ``limit``). ``graphs`` (``{id(symbol): (symbol, graph JSON)}``) caches the graph JSON of
    each distinct Symbol across calls: a build that kept the previous build's graph shares its dict.
    """
    graphs = {} if graphs is None else graphs
    first = max(0, len(history) - limit) if limit is not None else 0
    entries = []
    for index in range(first, len(history)):
        record = history[index]
        graph = {}
        if record.graph is not None:
            cached = graphs.get(id(record.graph))
            if cached is None or cached[0] is not record.graph:
                cached = graphs[id(record.graph)] = (record.graph, graph_json(record.graph))
            graph = cached[1]
        entries.append({
            "index": index,
            "time": time.strftime("%H:%M:%S", time.localtime(record.time)),
            "reason": str(record.reason),
            "detail": str(record.detail or ""),
            "signature": str(record.signature or ""),
            "flags": flags_text(record.flags or ()),
            "build_ms": float(record.build_ms) if record.build_ms is not None else None,
            "memory_bytes": int(record.memory_bytes) if record.memory_bytes is not None else None,
            "retraced": bool(record.retraced),
            "nodes": len(graph.get("nodes", [])),
            "graph": graph,
        })
    return entries


class BuildHistory(SnapshotWidget):
    """Every build of a hybridized block (the newest ``limit``), live; in JupyterLab two picked
    builds are drawn side by side with their graph diff marked. ``close()`` stops listening."""

    _model_name = Unicode("BuildHistoryModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("BuildHistoryView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    block = Unicode("").tag(sync=True)
    builds = List().tag(sync=True)
    status = Unicode("").tag(sync=True)     # ``status_text()``, kept up to date: the frontend shows it as is

    _subscriptions = ()                      # until __init__ subscribes (``close()`` may run on a half-made one)

    def __init__(self, block, limit=20, **kwargs):
        if not isinstance(block, HybridBlock):
            raise TypeError(f"BuildHistory: expected a HybridBlock, got {type(block).__name__}")
        if int(limit) < 1:
            raise ValueError(f"BuildHistory: expected limit >= 1 (how many builds to keep), got {limit}")
        super().__init__(**kwargs)
        self.limit = int(limit)
        self.block = block.name
        self._block_ref = weakref.ref(block)
        self._graphs = {}
        self._total = 0
        self._refresh(block)
        self._subscriptions = [_subscribe_weakly("cache_built", self, "_on_cache_built")]

    def _on_cache_built(self, event):
        block = self._block_ref()
        if is_event_of(event, block, self.block):
            self._refresh(block)

    def _refresh(self, block):
        history = block.rebuild_history
        entries = build_entries(history, self.limit, self._graphs)
        kept = {id(r.graph) for r in history[len(history) - len(entries):] if r.graph is not None}
        self._graphs = {k: v for k, v in self._graphs.items() if k in kept}
        self._total = len(history)
        with self.hold_sync():
            self.builds = entries
            self.status = self.status_text()

    def status_text(self):
        """The status line (synced as ``status``): ``net0: 3 builds; the last: shape read at
        net.py:5 changed: data.shape[0] 2 -> 3``."""
        if not self.builds:
            return f"{self.block}: no builds yet (waiting for the block's first hybridized call)"
        count = f"{self._total} build{'s' if self._total != 1 else ''}"
        if self._total > len(self.builds):
            count += f" (the last {len(self.builds)} shown)"
        return f"{self.block}: {count}; the last: {self.builds[-1]['reason']}"

    def _rows(self):
        return [[str(b["index"]), b["time"], b["reason"], b["detail"], b["flags"],
                 fallback.fmt(b["build_ms"]), memory_text(b["memory_bytes"]), "yes" if b["retraced"] else "no",
                 str(b["nodes"])] for b in self.builds]

    def _static(self):
        header = ["#", "time", "reason", "detail", "flags", "build ms", "memory", "traced again", "nodes"]
        parts = [fallback.table(header, self._rows())] if self.builds else []
        return fallback.box("history", self.status_text(), *parts), {}

    def detach(self):
        """Stop following the block; the panel stays on screen with what it shows."""
        for sub in self._subscriptions:
            sub.detach()
        self._subscriptions = []

    def close(self):
        """Stop following the block and close the widget (its view disappears)."""
        self.detach()
        super().close()

    def __repr__(self):
        return f"<BuildHistory of block {self.block!r}: {self._total} build(s)>"
