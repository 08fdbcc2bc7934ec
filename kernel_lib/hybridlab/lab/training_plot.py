"""``TrainingPlot(*metrics)``: live curves of training metrics (loss, accuracy...) in the notebook.

Display it before the training loop and ``add`` the values as training goes: the view redraws each
curve (step on the x axis, the metric on the y axis, with their ranges and the latest value).
Synced traits: ``title``, ``series`` (``{metric: [[step, value], ...]}``, in the order the metrics
were named), ``status`` (``status_text()``). At most ``max_points`` points are kept per metric
(older ones are thinned to every other point), so a long run stays cheap to sync.

Example::

    >>> from hybridlab.lab.training_plot import TrainingPlot
    >>> plot = TrainingPlot('loss', 'accuracy', title='digits')
    >>> for step in range(3):
    ...     plot.add(loss=1.0 / (step + 1), accuracy=0.5 + 0.1 * step)
    >>> plot.series['loss']
    [[0, 1.0], [1, 0.5], [2, 0.3333333333333333]]
    >>> print(plot.status_text())
    digits: step 2: loss 0.3333, accuracy 0.7
"""
import math

from traitlets import Dict, Unicode

from . import fallback
from .snapshot import SnapshotWidget
from .widgets import MODULE_NAME, MODULE_VERSION

__all__ = ["TrainingPlot"]


class TrainingPlot(SnapshotWidget):
    """Live curves of the metrics named (see the module docstring); ``add(step=None, **values)``."""

    _model_name = Unicode("TrainingPlotModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("TrainingPlotView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    title = Unicode("").tag(sync=True)
    series = Dict().tag(sync=True)
    status = Unicode("").tag(sync=True)

    def __init__(self, *metrics, title="", max_points=2000, **kwargs):
        if not metrics or not all(isinstance(m, str) and m for m in metrics):
            raise ValueError(f"TrainingPlot: expected the metric names (e.g. 'loss', 'accuracy'), got {metrics!r}")
        if not isinstance(max_points, int) or max_points < 10:
            raise ValueError(f"TrainingPlot: max_points expected an int >= 10, got {max_points!r}")
        super().__init__(**kwargs)
        self._max_points = max_points
        self._step = -1
        self.title = str(title)
        self.series = {m: [] for m in metrics}
        self.status = self.status_text()

    def add(self, step=None, **values):
        """Record ``values`` (metric name -> number) at ``step`` (default: the last step + 1) and
        redraw. A name not given to the constructor is an error; a NaN or Inf is kept (the view
        marks it)."""
        unknown = sorted(set(values) - set(self.series))
        if unknown:
            raise KeyError(f"TrainingPlot.add: unknown metric {unknown[0]!r}; expected one of {list(self.series)}")
        step = self._step + 1 if step is None else int(step)
        self._step = step
        series = {name: list(points) for name, points in self.series.items()}
        for name, value in values.items():
            points = series[name]
            points.append([step, float(value)])
            if len(points) > self._max_points:
                series[name] = points[:-1:2] + points[-1:]      # thin older points, keep the newest
        with self.hold_sync():
            self.series = series
            self.status = self.status_text()

    def latest(self, name):
        """The last value recorded for ``name`` (None before the first)."""
        points = self.series.get(name) or []
        return points[-1][1] if points else None

    def status_text(self):
        """``title: step 40: loss 0.1234, accuracy 0.95`` (``no values yet`` before the first add)."""
        head = f"{self.title}: " if self.title else ""
        last = [(name, points[-1]) for name, points in self.series.items() if points]
        if not last:
            return f"{head}no values yet"
        step = max(p[0] for _, p in last)
        return head + f"step {step}: " + ", ".join(f"{name} {_num(p[1])}" for name, p in last)

    def _static(self):
        rows = [[name, len(points), fallback.fmt(points[0][1]) if points else "—",
                 fallback.fmt(points[-1][1]) if points else "—"] for name, points in self.series.items()]
        return fallback.box("training", self.status_text(), fallback.table(["metric", "points", "first", "last"], rows)), {}

    def __repr__(self):
        return f"<TrainingPlot {self.status_text()}>"


def _num(x):
    return f"{x:.4g}" if math.isfinite(x) else str(x)
