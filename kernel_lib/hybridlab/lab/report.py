"""The debugging tools, drawn: ``mx.lab.precheck``, ``mx.lab.compare``, ``mx.lab.find_nonfinite`` and
``mx.lab.check_export``.

Each runs the kernel's tool on ``(block, *inputs)`` (``hybridlab.gluon.precheck``,
``.consistency.compare``, ``.nonfinite.find_nonfinite``, ``.export_check.check_export``, with the
same keyword arguments) and returns a ``DebugReport`` widget. ``report.result`` is the tool's own
report (``print(report.result)``, its fields); the widget's synced ``report`` trait is its report
JSON (``hybridlab.lab.report_json``, docs/report-json.md). JupyterLab draws it as the graph with
the nodes marked (badges, the error heat, the node to look at first outlined) above the table of
findings; clicking a row reveals its node and shows the user's line, and the node to look at
first is selected when the report opens. ``repr(report)`` is the text report, so the widget also
reads well outside JupyterLab; displayed, its output carries a static snapshot (``text/html``:
the verdict, the table and the graph) for saved notebooks (``hybridlab.lab.fallback``).

Example::

    >>> import hybridlab as mx
    >>> class Net(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         if x.sum() > 0:
    ...             x = x * 2
    ...         return x.reshape((x.shape[0], -1))
    >>> report = precheck(Net(), mx.np.ones((2, 3, 4)))
    >>> report.report["verdict"]
    'fails when hybridized: 1 problem(s) fail, 1 value(s) frozen'
    >>> [row["cells"][:2] for row in report.report["rows"]]
    [['fails', 'branch'], ['frozen', 'shape read']]
    >>> report.result.ok
    False
    >>> report.close()
"""
import html

from traitlets import Dict, Unicode

from ..gluon import consistency, export_check, nonfinite
from ..gluon import precheck as precheck_module
from . import fallback
from .snapshot import SnapshotWidget
from .report_json import report_json
from .widgets import MODULE_NAME, MODULE_VERSION

__all__ = ["DebugReport", "precheck", "compare", "find_nonfinite", "check_export"]


class DebugReport(SnapshotWidget):
    """A debugging tool's report drawn in JupyterLab (see the module docstring); ``result`` is the
    tool's report object."""

    _model_name = Unicode("DebugReportModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("DebugReportView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    report = Dict().tag(sync=True)

    def __init__(self, result, **kwargs):
        super().__init__(report=report_json(result), **kwargs)
        self.result = result

    def _static(self):
        r = self.report
        rows = [row["cells"] for row in r["rows"]]
        table = fallback.table(r["columns"], rows) if rows else ""
        page = fallback.box(f"report hl-static-{r['tool']}", r["title"], f"<p>{html.escape(r['verdict'])}</p>", table,
                            fallback.svg_img(r.get("graph"), r["title"]))
        return page, {}

    def __repr__(self):
        return str(self.result)


def precheck(block, *inputs):
    """``block.precheck(*inputs)`` drawn: every construct that fails or is frozen when hybridizing,
    badged on the traced graph (``hybridlab.gluon.precheck``)."""
    return DebugReport(precheck_module.precheck(block, *inputs))


def compare(block, *inputs, backward=False, flags=None, passes=None, rtol=1e-4, atol=1e-5):
    """Eager vs hybridized node by node, drawn: the error heat on the graph, the first diverging
    node outlined, the nodes sorted by error (``hybridlab.gluon.consistency.compare``)."""
    return DebugReport(consistency.compare(block, *inputs, backward=backward, flags=flags, passes=passes, rtol=rtol,
                                           atol=atol))


def find_nonfinite(block, *inputs, backward=False):
    """The first node making a NaN/Inf, drawn: the origin outlined, its values' statistics and the
    user's line (``hybridlab.gluon.nonfinite.find_nonfinite``)."""
    return DebugReport(nonfinite.find_nonfinite(block, *inputs, backward=backward))


def check_export(block, *inputs, files=None, epoch=0, mxnet_python=None, rtol=1e-5, atol=1e-6):
    """The export round trip, drawn: each mismatch listed and marked on the exported graph
    (``hybridlab.gluon.export_check.check_export``)."""
    return DebugReport(export_check.check_export(block, *inputs, files=files, epoch=epoch, mxnet_python=mxnet_python,
                                                 rtol=rtol, atol=atol))
