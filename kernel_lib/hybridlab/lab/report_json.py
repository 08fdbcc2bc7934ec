"""The report JSON of the debugging tools (docs/report-json.md): what a ``DebugReport`` widget draws.

``report_json(result)`` turns the result of one of the kernel's debugging tools into one plain-JSON
dict the frontend draws the same way whatever the tool: a verdict, a table (``columns``, ``rows``:
each row's cells as text, its ``level``, the graph ``node`` it is about, the user's ``source``
line and a longer ``detail``), the graph the rows name (graph JSON, docs/graph-json.md) and the
``marks`` to draw on its nodes (``{node name: {level, label, heat, first, badge}}``):

* ``PrecheckReport`` (``gluon.precheck``): a row per problem (fails: ``error``, frozen: ``warn``,
  note: ``info``); the nodes a problem names, or else the nodes built at its line, are badged;
* ``ConsistencyReport`` (``gluon.consistency.compare``): a row per compared node, largest error
  first, then outputs and gradients; every compared node gets a heat (its relative error on a
  log scale, 1 for the largest), the first diverging node is ``first``;
* ``NonfiniteReport`` (``gluon.nonfinite``): the origin node's outputs and inputs with their
  statistics; the origin (for a backward node: the forward node whose gradient it is) is ``first``;
* ``ExportReport`` (``gluon.export_check``): a row per mismatch; the nodes and parameters named
  are marked.

Every string is model or user text: the frontend shows it as text, never as HTML.

Example::

    >>> import json
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.precheck import precheck
    >>> class Net(mx.gluon.HybridBlock):
    ...     def forward(self, x):
    ...         return x.reshape((x.shape[0], -1))
    >>> r = report_json(precheck(Net(), mx.np.ones((2, 3))))
    >>> r["tool"], r["verdict"], r["columns"]
    ('precheck', 'hybridizes, with numbers frozen: 1 value(s) frozen', ['severity', 'problem', 'where', 'code'])
    >>> [(m["level"], m["first"]) for m in r["marks"].values()]
    [('warn', True)]
    >>> json.loads(json.dumps(r)) == r
    True
"""
import math

from ..gluon.consistency import ConsistencyReport
from ..gluon.export_check import ExportReport
from ..gluon.nonfinite import NonfiniteReport
from ..gluon.precheck import PrecheckReport
from .graph_json import graph_json

__all__ = ["report_json", "report_symbol", "REPORT_VERSION"]

REPORT_VERSION = 1
_LEVEL = {"fails": "error", "frozen": "warn", "note": "info"}
_RANK = {"error": 0, "warn": 1, "info": 2, "ok": 3}


def report_json(result):
    """The report JSON dict of a debugging tool's ``result`` (see the module docstring)."""
    for kind, build in _BUILDERS:
        if isinstance(result, kind):
            report = build(result)
            report.update(version=REPORT_VERSION, text=str(result))
            return report
    raise TypeError(f"report_json: expected a PrecheckReport, ConsistencyReport, NonfiniteReport or ExportReport, "
                    f"got {type(result).__name__}")


def report_symbol(result):
    """The graph (a Symbol, or None) a debugging tool's ``result`` names its nodes in."""
    return result.symbol if isinstance(result, ExportReport) else getattr(result, "graph", None)


def _row(cells, level, node=None, source=None, detail=""):
    return {"cells": [str(c) for c in cells], "level": level, "node": node, "source": _source(source),
            "detail": detail}


def _source(src):
    if not src:
        return None
    return {"file": str(src.get("file", "")), "line": int(src.get("line", 0) or 0), "code": str(src.get("code", ""))}


def _mark(marks, node, level, label, heat=None, first=False, badge=True):
    """Add a mark on ``node``; a node marked twice keeps the more severe level and both labels."""
    old = marks.get(node)
    if old is not None:
        level = level if _RANK.get(level, 2) < _RANK.get(old["level"], 2) else old["level"]
        label = f"{old['label']}\n{label}"
        first = first or old["first"]
        badge = badge or old["badge"]
        heat = old["heat"] if heat is None else heat
    marks[node] = {"level": level, "label": label, "heat": heat, "first": first, "badge": badge}


def _graph(result):
    symbol = report_symbol(result)
    return graph_json(symbol) if symbol is not None else {}


def _names(graph):
    return {n["name"] for n in graph.get("nodes", [])}


def _precheck(report):
    graph = _graph(report)
    names = _names(graph)
    by_line = {}
    for n in graph.get("nodes", []):
        src = n.get("source")
        if src and n["op"] != "null":
            by_line.setdefault((src["file"], src["line"]), []).append(n["name"])
    rows, marks = [], {}
    for p in report.problems:
        level = _LEVEL[p.severity]
        nodes = [n for n in p.nodes if n in names]
        if not nodes and p.source:          # no node named: the ops built at its line
            nodes = by_line.get((str(p.source.get("file")), p.source.get("line")), [])
        for n in nodes:
            _mark(marks, n, level, f"{p.severity}: {p.kind} at {p.where}")
        code = p.source.get("code", "") if p.source else ""
        detail = f"{p.why}." + (f" Rewrite: {p.rewrite}" if p.rewrite else "")
        rows.append(_row([p.severity, p.kind, p.where, code], level, nodes[0] if nodes else None, p.source, detail))
    first = next((r["node"] for r in rows if r["node"]), None)
    if first is not None:
        marks[first]["first"] = True
    title = f"pre-check of '{report.block_name}' ({report.style} style)"
    verdict = report.verdict + ("" if report.complete else " (the trace stopped early: later problems are not known)")
    return {"tool": "precheck", "block": report.block_name, "title": title, "verdict": verdict, "ok": report.ok,
            "columns": ["severity", "problem", "where", "code"], "rows": rows, "marks": marks, "graph": graph}


def _err(x):
    return "" if x is None else f"{x:.3g}"


def _compare(report):
    graph = _graph(report)
    names = _names(graph)
    tol = max(report.rtol, 1e-12)
    worst = max([d.max_rel for d in report.nodes if d.max_rel is not None and math.isfinite(d.max_rel)] + [0.0])
    first = report.first_divergence
    rows, marks = [], {}
    for d in report.by_error():
        node = d.name if d.name in names else d.name.split("[")[0] if d.name.split("[")[0] in names else None
        level = "ok" if d.ok else "error"
        if node is not None and d.max_rel is not None:
            heat = 1.0 if not math.isfinite(d.max_rel) else (
                math.log1p(d.max_rel / tol) / math.log1p(worst / tol) if worst > 0 else 0.0)
            label = f"max rel err {_err(d.max_rel)}, max abs err {_err(d.max_abs)}" + ("" if d.ok else " (DIFFERS)")
            _mark(marks, node, level, label, heat=round(heat, 4), first=d is first, badge=not d.ok)
        detail = d.note or ("hybridized value differs from the eager one beyond tolerance" if not d.ok else "")
        rows.append(_row([d.name, d.op, "" if d.shape is None else str(tuple(d.shape)), _err(d.max_abs),
                          _err(d.max_rel), d.note if d.note else "differs" if not d.ok else ""], level, node,
                         d.source, detail))
    for group, prefix in ((report.outputs, "output "), (report.gradients, "grad ")):
        for d in group:
            rows.append(_row([prefix + d.name, d.op, "" if d.shape is None else str(tuple(d.shape)), _err(d.max_abs),
                              _err(d.max_rel), d.note if d.note else "differs" if not d.ok else ""],
                             "ok" if d.ok else "error", detail=d.note))
    if report.ok:
        verdict = "eager and hybridized agree"
    elif first is not None:
        verdict = f"eager and hybridized DIFFER: first at node '{first.name}' ({first.op})"
    else:
        verdict = "eager and hybridized DIFFER"
    verdict += f" (rtol {report.rtol:g}, atol {report.atol:g})"
    return {"tool": "compare", "block": "", "title": f"eager vs hybridized: {report.setting}", "verdict": verdict,
            "ok": report.ok, "columns": ["node", "op", "shape", "max abs err", "max rel err", ""], "rows": rows,
            "marks": marks, "graph": graph}


def _stats_cells(label, s):
    def num(v):
        return "" if v is None else f"{v:.4g}"
    return [label, f"{tuple(s.shape)} {s.dtype}", num(s.min), num(s.max), num(s.mean), str(s.nan), str(s.inf)]


def _nonfinite(report):
    graph = _graph(report)
    names = _names(graph)
    columns = ["value", "shape, dtype", "min", "max", "mean", "NaN", "Inf"]
    if not report.found:
        return {"tool": "nonfinite", "block": "", "title": f"NaN/Inf origin: {report.setting}",
                "verdict": str(report), "ok": True, "columns": columns, "rows": [], "marks": {}, "graph": graph}
    focus = report.forward_node if report.phase == "backward" else report.node
    focus = focus if focus in names else None
    marks = {}
    if focus is not None:
        what = (f"its gradient makes the first NaN/Inf (backward node '{report.node}')" if report.phase == "backward"
                else f"first NaN/Inf ({report.phase})")
        _mark(marks, focus, "error", what, first=True)
    if report.phase == "input":
        verdict = f"non-finite input: '{report.node}' already holds NaN/Inf before any node runs"
    else:
        verdict = f"first non-finite value ({report.phase}): node '{report.node}' ({report.op})" + (
            f", gradient of {report.backward_of}" if report.backward_of else "") + (
            f", inside the fused node '{report.fused_into}'" if report.fused_into else "")
    if report.source:
        verdict += f", created at {report.where()}"
    detail = "; ".join(x for x in (report.note, f"inside the fused node '{report.fused_into}'" if report.fused_into
                                   else "") if x)
    rows = [_row(_stats_cells(f"output {i}", s), "error" if not s.finite else "ok", focus, report.source, detail)
            for i, s in enumerate(report.outputs)]
    rows += [_row(_stats_cells(f"input {label}", s), "error" if not s.finite else "ok", focus, report.source)
             for label, s in report.inputs]
    return {"tool": "nonfinite", "block": "", "title": f"NaN/Inf origin: {report.setting}", "verdict": verdict,
            "ok": False, "columns": columns, "rows": rows, "marks": marks, "graph": graph}


def _export(report):
    graph = _graph(report)
    names = _names(graph)
    rows, marks = [], {}
    for m in report.mismatches:
        node = m.name if m.name in names else None
        if node is not None:
            _mark(marks, node, "error", f"{m.part}: {m.what}")
        rows.append(_row([m.part, m.name, m.what], "error", node, detail=str(m)))
    first = next((r["node"] for r in rows if r["node"]), None)
    if first is not None:
        marks[first]["first"] = True
    head = f"export round trip of '{report.block_name}': "
    verdict = str(report).splitlines()[0][len(head):]
    return {"tool": "export", "block": report.block_name, "title": f"export round trip of '{report.block_name}'",
            "verdict": verdict, "ok": report.ok, "columns": ["part", "name", "what"], "rows": rows, "marks": marks,
            "graph": graph}


_BUILDERS = ((PrecheckReport, _precheck), (ConsistencyReport, _compare), (NonfiniteReport, _nonfinite),
             (ExportReport, _export))
