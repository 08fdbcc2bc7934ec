"""Static fallbacks of the lab widgets, saved with the notebook's outputs.

A widget's output holds ``application/vnd.jupyter.widget-view+json`` (a reference to a live widget
model in the kernel) and ``text/plain``. Without a kernel (a saved notebook reopened, a handed-out
executed lesson, nbconvert, GitHub) the model does not exist. How frontends choose:

* JupyterLab renders the highest-ranked MIME type it has a renderer for; for an untrusted output
  (a notebook executed elsewhere) only *safe* renderers count. The widget renderer (rank -10) is
  not safe: an untrusted saved output shows the next type, here the graph JSON
  (``application/vnd.hybridlab.graph+json``, rank 10, drawn by the hybridlab extension) or
  ``text/html``. For a trusted output the widget renderer wins and, with no model, shows "Error
  displaying widget: model not found" unless the widget state was saved in the notebook metadata
  (JupyterLab's *Save Widget State Automatically* setting; ``nbclient`` stores it by default), in
  which case the saved state is drawn by the live views.
* nbconvert, nbviewer and GitHub render ``text/html`` (or ``image/svg+xml``).

``widget_bundle(widget, html, extra)`` adds a ``text/html`` snapshot (names escaped: model text
is never HTML) and extra MIME types to the widget's own bundle. The output gets the snapshot of the
moment it is displayed; ``hybridlab.lab.snapshot`` keeps it following the widget's state until the
notebook is saved. ``svg_img(graph)`` is the graph as
an ``<img>`` with an SVG data URL (JupyterLab's sanitizer keeps ``img`` with a data URL in
untrusted HTML; inline ``<svg>`` would be stripped); ``""`` when Graphviz's ``dot`` is missing.

Example::

    >>> from hybridlab.lab.fallback import table
    >>> print(table(["node", "mean"], [["<b>x</b>", 0.5]]))
    <table class="hl-static-table"><tr><th>node</th><th>mean</th></tr><tr><td>&lt;b&gt;x&lt;/b&gt;</td><td>0.5</td></tr></table>
"""
import base64
import html

__all__ = ["widget_bundle", "svg_img", "table", "fmt", "box", "NOTE_HTML"]

NOTE = "Static snapshot of the widget's last state, saved with the notebook; run the cell for the live widget."


def fmt(x):
    """A number for a table cell: 4 significant digits, ``—`` for None."""
    if x is None:
        return "—"
    if isinstance(x, float):
        if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
            return f"{x:.2e}"
        return f"{x:.4g}"
    return str(x)


def table(header, rows):
    """An HTML table of text cells (every cell escaped)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(fmt(c) if not isinstance(c, str) else c)}</td>"
                                    for c in row) + "</tr>" for row in rows)
    return f'<table class="hl-static-table"><tr>{head}</tr>{body}</table>'


def svg_img(graph, title=""):
    """The graph JSON ``graph`` drawn as the live view draws it (``static_graph``), as
    ``<img src="data:image/svg+xml;base64,...">`` with alt text saying what it shows; ``""``
    without Graphviz's ``dot``."""
    if not graph:
        return ""
    from .mime import has_dot
    from .static_graph import alt_text, graph_svg
    if not has_dot():
        return ""
    svg = graph_svg(graph)
    if not svg:
        return ""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f'<img class="hl-static-graph" alt="{html.escape(alt_text(graph, title or "graph"), quote=True)}" '
            f'style="max-width:100%" src="data:image/svg+xml;base64,{data}"/>')


NOTE_HTML = f'<p style="opacity:0.7"><i>{html.escape(NOTE)}</i></p>'


def box(kind, title, *parts, note=True):
    """The snapshot's outer ``<div>``: a title line, the parts (HTML), the note (``note=True``)."""
    return (f'<div class="hl-static hl-static-{kind}"><p><b>{html.escape(title)}</b></p>'
            + "".join(parts) + (NOTE_HTML if note else "") + "</div>")


def widget_bundle(bundle, html_text, extra=None):
    """``bundle`` (a widget's ``_repr_mimebundle_`` result, or None) with ``text/html`` and the
    ``extra`` MIME types added (the widget view MIME type and ``text/plain`` are kept)."""
    if bundle is None:
        return None
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, None)
    data = dict(data)
    for mime, value in (extra or {}).items():
        data.setdefault(mime, value)
    data["text/html"] = html_text
    return (data, metadata) if metadata is not None else data
