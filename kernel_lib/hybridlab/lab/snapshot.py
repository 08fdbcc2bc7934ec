"""Static snapshots that follow the widget: the ``text/html`` a saved notebook shows without a kernel
is the widget's last state, not the state it had when its cell displayed it.

Every hybridlab widget is a ``SnapshotWidget``: it says what its static snapshot is (``_static()``:
the HTML of ``hybridlab.lab.fallback`` and extra MIME types, e.g. the graph JSON) and keeps it in the
synced trait ``snapshot``: taken when it is displayed, then refreshed once after each cell in which
its state changed (IPython's ``post_execute``; ``refresh_snapshot()`` does it at once). Its output is not rewritten by the
kernel (an ``update_display_data`` makes JupyterLab build a second live view); the one who saves
the notebook copies the snapshot into the output:

* JupyterLab: the hybridlab extension, on every save (``src/saved_state.ts``);
* a notebook executed headless (nbclient, ``jupyter nbconvert --execute``), whose widget state
  nbclient stores in the metadata: ``refresh_notebook(nb)``, the nbconvert preprocessor
  ``RefreshSnapshots`` (``--Exporter.preprocessors=hybridlab.lab.snapshot.RefreshSnapshots``) or
  ``python -m hybridlab.lab.snapshot lesson.ipynb`` (rewrites the file atomically).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.Dense(2, prefix='fc_')
    >>> net.initialize()
    >>> net.hybridize()
    >>> view = mx.lab.GraphView(net)
    >>> view.refresh_snapshot()
    >>> 'waiting for the block' in view.snapshot
    True
    >>> _ = net(mx.nd.ones((1, 3)))
    >>> view.refresh_snapshot()
    >>> 'cached op built' in view.snapshot
    True
    >>> view.close()
"""
import json
import os
import sys
import tempfile
import warnings
import weakref

import ipywidgets as widgets
from traitlets import Unicode

from . import fallback

__all__ = ["SnapshotWidget", "refresh_all", "refresh_notebook", "RefreshSnapshots",
           "WIDGET_VIEW_MIME", "WIDGET_STATE_MIME"]

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE_MIME = "application/vnd.jupyter.widget-state+json"

_changed = weakref.WeakSet()        # widgets whose state changed since their snapshot was taken
_hooked = [False]


def _after_each_cell():
    """Register ``refresh_all`` after every cell, once, when running in IPython."""
    if _hooked[0]:
        return
    ip = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    if ip is not None:
        ip.events.register("post_execute", refresh_all)
        _hooked[0] = True


def refresh_all():
    """Refresh the ``snapshot`` of every widget whose state changed (run after each cell)."""
    while _changed:
        widget = _changed.pop()
        try:
            widget.refresh_snapshot()
        except Exception as err:  # noqa: BLE001 -- a snapshot must not break the user's cell
            warnings.warn(f"hybridlab: the static snapshot of a {type(widget).__name__} was not refreshed: "
                          f"{type(err).__name__}: {err}", RuntimeWarning)


class SnapshotWidget(widgets.DOMWidget):
    """A DOMWidget whose output carries a static snapshot that follows its state (module docstring).

    Subclasses implement ``_static()``: ``(html, extra)``, the snapshot's HTML (``fallback.box``)
    and a dict of extra MIME types for the output (``{}`` when none)."""

    snapshot = Unicode("").tag(sync=True)     # the text/html of the last state, for whoever saves

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._displayed = False
        self.observe(self._state_changed)

    def _state_changed(self, change):
        # only a displayed widget has an output to keep current
        if change["name"] != "snapshot" and getattr(self, "_displayed", False):
            _changed.add(self)
            _after_each_cell()

    def _static(self):
        raise NotImplementedError

    def refresh_snapshot(self):
        """Take the snapshot of the current state now (into ``snapshot``); a closed widget keeps its last."""
        _changed.discard(self)
        if self.comm is None:
            return
        html_text, _extra = self._static()
        if html_text != self.snapshot:
            self.snapshot = html_text

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        html_text, extra = self._static()
        if bundle is not None:          # displayed: from now on its snapshot follows its state
            self._displayed = True
            self.snapshot = html_text
        return fallback.widget_bundle(bundle, html_text, extra)


def refresh_notebook(nb):
    """Copy each hybridlab widget's saved ``snapshot`` (the widget state in the notebook's metadata,
    as nbclient stores it) into the ``text/html`` of the outputs that display it, and a graph
    view's saved ``graph`` into its graph JSON output; returns how many outputs changed. ``nb`` is
    the notebook as a dict (nbformat 4) and is changed in place."""
    from .mime import GRAPH_MIME_TYPE
    from .widgets import MODULE_NAME
    saved = ((nb.get("metadata") or {}).get("widgets") or {}).get(WIDGET_STATE_MIME) or {}
    models = saved.get("state") or {}
    changed = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data") or {}
            view = data.get(WIDGET_VIEW_MIME)
            model = models.get(view.get("model_id")) if isinstance(view, dict) else None
            if not isinstance(model, dict) or model.get("model_module") != MODULE_NAME:
                continue
            state = model.get("state") or {}
            fresh = {}
            if isinstance(state.get("snapshot"), str) and state["snapshot"]:
                fresh["text/html"] = state["snapshot"]
            if GRAPH_MIME_TYPE in data and isinstance(state.get("graph"), dict) and state["graph"]:
                fresh[GRAPH_MIME_TYPE] = state["graph"]
            if any(data.get(k) != v for k, v in fresh.items()):
                data.update(fresh)
                changed += 1
    return changed


def _atomic_write(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".snapshot-", suffix=".ipynb", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


try:
    from nbconvert.preprocessors import Preprocessor
except ImportError:      # nbconvert is optional: refresh_notebook and the command line work without it
    Preprocessor = None

if Preprocessor is not None:
    class RefreshSnapshots(Preprocessor):
        """nbconvert preprocessor: ``refresh_notebook`` after the notebook is executed."""

        def preprocess(self, nb, resources):
            refresh_notebook(nb)
            return nb, resources
else:
    RefreshSnapshots = None


def main(argv=None):
    """``python -m hybridlab.lab.snapshot NOTEBOOK [OUT]``: ``refresh_notebook`` on a saved file."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (1, 2):
        print("usage: python -m hybridlab.lab.snapshot NOTEBOOK.ipynb [OUT.ipynb]", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        nb = json.load(f)
    n = refresh_notebook(nb)
    _atomic_write(args[-1], json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    print(f"{args[-1]}: {n} widget output{'s' if n != 1 else ''} refreshed from the saved widget state")
    return 0


if __name__ == "__main__":
    sys.exit(main())
