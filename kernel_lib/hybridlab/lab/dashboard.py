"""``mx.lab.inspect(block, *inputs)``: one dashboard with the graph, the tensor inspector and the
timing panel of a block.

``Dashboard`` is a widget holding three child widgets (synced as widget references): ``graph``
(a ``GraphView``), ``inspector`` (a ``TensorInspector``) and ``timing`` (a ``TimingPanel``, or
None when no inputs are given). Its view lays them out as tabs under the graph and highlights on
the graph the node the inspector flagged for a NaN/Inf (``first_nonfinite``).

``inspect`` hybridizes the block if it is not yet, calls it once on ``inputs`` (so the graph and
the first statistics are there), and runs the timing panel on the same inputs. The inspector
checks every later call's outputs for NaN/Inf, so the first one is flagged even on a call that
was not sampled for full statistics.

``detach()`` stops the graph following the block and removes the inspector's hooks, keeping the
dashboard on screen; ``close()`` also closes it. Displayed, its output carries a static snapshot
of the three (``text/html``, see ``hybridlab.lab.fallback``) for saved notebooks.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.HybridSequential(prefix='mlp_')
    >>> with net.name_scope():
    ...     net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> board = mx.lab.inspect(net, mx.nd.ones((2, 5)), calls=3)
    >>> len(board.graph.graph["nodes"]) > 0, board.inspector.inspected, len(board.timing.results["modes"])
    (True, 1, 4)
    >>> board.close()
"""
import ipywidgets as widgets
from traitlets import Instance, Unicode

from . import fallback
from .snapshot import SnapshotWidget
from .inspector import TensorInspector
from .timing import TimingPanel
from .widgets import MODULE_NAME, MODULE_VERSION, GraphView

__all__ = ["Dashboard", "inspect"]


class Dashboard(SnapshotWidget):
    """GraphView + TensorInspector + TimingPanel of one block (see the module docstring)."""

    _model_name = Unicode("DashboardModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("DashboardView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    block = Unicode("").tag(sync=True)
    graph = Instance(GraphView).tag(sync=True, **widgets.widget_serialization)
    inspector = Instance(TensorInspector).tag(sync=True, **widgets.widget_serialization)
    timing = Instance(TimingPanel, allow_none=True).tag(sync=True, **widgets.widget_serialization)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        for child in (self.graph, self.inspector, self.timing):     # its snapshot holds theirs
            if child is not None:
                child.observe(self._state_changed, names=[n for n in child.keys if n != "snapshot"])
        if self.timing is not None:     # the graph colours by the timing panel's per-op profile
            self.graph.set_times(self.timing.results.get("ops", []))
            self.timing.observe(lambda change: self.graph.set_times(change["new"].get("ops", [])), names="results")

    def detach(self):
        """Stop following the block (graph) and remove the inspector's hooks; the views stay."""
        self.graph.detach()
        self.inspector.detach()

    def close(self):
        """Close the three widgets (the inspector removes its hook) and the dashboard."""
        for child in (self.graph, self.inspector, self.timing):
            if child is not None:
                child.close()
        super().close()

    def _static(self):
        parts = [child._static()[0].replace(fallback.NOTE_HTML, "")
                 for child in (self.graph, self.inspector, self.timing) if child is not None]
        return fallback.box("dashboard", f"{self.block}: dashboard", *parts), {}


def inspect(block, *inputs, every=None, calls=30, **timing_options):
    """A ``Dashboard`` of ``block``: its graph, a ``TensorInspector`` (``every``: its sampling)
    and, given ``inputs``, a ``TimingPanel`` (``calls`` and ``timing_options`` go to it)."""
    if not hasattr(block, "hybridize") or not hasattr(block, "hybridization"):
        raise TypeError(f"inspect: expected a HybridBlock, got {type(block).__name__}")
    if not block.hybridization.active:
        block.hybridize()
    graph = GraphView(block)
    inspector = TensorInspector(block, every=every)
    if inputs:
        block(*inputs)
    timing = TimingPanel(block, *inputs, calls=calls, **timing_options) if inputs else None
    return Dashboard(block=block.name, graph=graph, inspector=inspector, timing=timing)
