"""The debugging tools drawn (hybridlab.lab.report, report_json): what the JupyterLab report panel
gets for each tool: the rows a user reads, the nodes marked on the graph, the node to look at first,
and a saved-notebook snapshot that keeps model text as text."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.lab.report import DebugReport
from hybridlab.lab.report_json import report_json
from hybridlab.ops.registry import InlineRule, get_op
from test_precheck import Messy, _line


def _marked(report, level=None):
    return sorted(n for n, m in report["marks"].items() if level is None or m["level"] == level)


def _first(report):
    firsts = [n for n, m in report["marks"].items() if m["first"]]
    assert len(firsts) <= 1
    return firsts[0] if firsts else None


def test_precheck_lists_every_problem_and_badges_the_nodes_at_their_lines(capsys):
    net = Messy()
    net.initialize()
    widget = mx.lab.precheck(net, mx.np.ones((2, 4)), mx.np.ones((2,)))
    capsys.readouterr()
    r = widget.report
    problems = widget.result.problems
    assert [row["cells"][1] for row in r["rows"]] == [p.kind for p in problems]
    assert [row["level"] for row in r["rows"][:6]] == ["error"] * 5 + ["warn"]
    assert r["verdict"] == widget.result.verdict and not r["ok"]
    names = {n["name"]: n for n in r["graph"]["nodes"]}
    by_kind = {row["cells"][1]: row for row in r["rows"]}
    # the branch's `x.sum() > 0` feeds nothing the graph returns: a row with its line, no node
    branch = by_kind["branch"]
    assert branch["source"]["line"] == _line(Messy, "if x.sum() > 0:") and branch["node"] is None
    # a problem that names no node badges the ops built at its line: the first such is looked at first
    outside = by_kind["outside array"]
    assert names[outside["node"]]["op"] == "broadcast_add"
    assert names[outside["node"]]["source"]["line"] == outside["source"]["line"] == _line(Messy, "mx.np.array(")
    assert r["marks"][outside["node"]]["level"] == "error" and _first(r) == outside["node"]
    # the frozen shape read badges the reshape node whose newshape holds it
    shape = by_kind["shape read"]
    assert names[shape["node"]]["op"] == "_np_reshape" and r["marks"][shape["node"]]["level"] == "warn"
    assert "Rewrite: use shape-free ops" in shape["detail"]
    # the dropout and the boolean mask are noted on their nodes
    assert r["marks"][by_kind["random op"]["node"]]["level"] == "info"
    assert names[by_kind["dynamic shape"]["node"]]["op"] == "boolean_mask"
    assert json.loads(json.dumps(r)) == r
    assert repr(widget) == str(widget.result)
    widget.close()


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Activation("relu"), nn.Dense(2, in_units=4))
    net.initialize()
    return net


@pytest.fixture
def wrong_relu_inline(monkeypatch):
    """Activation's inline rule made wrong (max(x, 0.5)): only compiled CPU programs run it."""
    op = get_op("Activation")
    rule = op.inline
    wrong = InlineRule(lambda a, site: f"maximum({site.args[0]}, 0.5{site.out_arg})"
                       if rule.expression(a, site) is not None else None, functions=rule.functions)
    monkeypatch.setattr(op, "inline", wrong)


def test_compare_outlines_the_first_divergence_and_heats_every_node(wrong_relu_inline):
    net = _mlp()
    widget = mx.lab.compare(net, mx.nd.array(np.random.RandomState(1).normal(size=(4, 3))))
    r = widget.report
    relu = next(n["name"] for n in r["graph"]["nodes"] if n["op"] == "Activation")
    assert _first(r) == relu and r["marks"][relu]["level"] == "error"
    assert f"first at node '{relu}'" in r["verdict"]
    node_rows = [row for row in r["rows"] if row["node"] is not None]
    rel = [float(row["cells"][4]) for row in node_rows]
    assert rel == sorted(rel, reverse=True)                       # largest error first
    heats = {n: m["heat"] for n, m in r["marks"].items()}
    assert max(heats.values()) == 1.0 and min(heats.values()) == 0.0    # the first Dense agrees
    assert [m["badge"] for m in r["marks"].values()].count(True) == 2   # the relu and the Dense after it
    widget.close()


def test_compare_of_a_correct_block_agrees():
    widget = mx.lab.compare(_mlp(), mx.nd.ones((2, 3)), backward=True)
    r = widget.report
    assert r["ok"] and r["verdict"].startswith("eager and hybridized agree") and _first(r) is None
    assert {m["level"] for m in r["marks"].values()} == {"ok"}
    assert any(row["cells"][0].startswith("grad ") for row in r["rows"])
    widget.close()


class LogNet(mx.gluon.HybridBlock):
    def forward(self, x):
        return mx.np.log(x) * 2


def test_nonfinite_names_the_log_node_and_the_users_line():
    net = LogNet()
    net.initialize()
    widget = mx.lab.find_nonfinite(net, mx.np.array([1.0, -1.0, 2.0]))
    r = widget.report
    log = next(n["name"] for n in r["graph"]["nodes"] if n["op"] == "log")
    assert _first(r) == log and _marked(r) == [log]
    assert f"node '{log}' (log)" in r["verdict"] and f"test_lab_report.py:{_line(LogNet, 'mx.np.log')}" in r["verdict"]
    output = r["rows"][0]
    assert output["cells"][0] == "output 0" and output["cells"][5] == "1" and output["level"] == "error"
    assert output["source"]["line"] == _line(LogNet, "mx.np.log") and output["node"] == log
    assert r["rows"][1]["cells"][0].startswith("input ") and r["rows"][1]["level"] == "ok"
    widget.close()


def test_nonfinite_of_a_finite_block_says_so():
    net = LogNet()
    net.initialize()
    r = mx.lab.find_nonfinite(net, mx.np.ones((2,)), backward=True).report
    assert r["ok"] and r["rows"] == [] and r["verdict"].startswith("all finite")


def test_check_export_marks_a_renamed_parameter(tmp_path):
    net = _mlp()
    x = mx.nd.ones((2, 3))
    net.hybridize()
    net(x)
    sym_file, params_file = net.export(str(tmp_path / "m"))
    weight = net[0].weight.var().name
    saved = mx.nd.load(params_file)
    saved[f"arg:{weight}_renamed"] = saved.pop(f"arg:{weight}")
    mx.nd.save(params_file, saved)
    # the hybridlab round trip alone (real MXNet's refusal of the same file adds a row: test_export_check)
    widget = mx.lab.check_export(net, x, files=(sym_file, params_file), mxnet_python="")
    r = widget.report
    assert not r["ok"] and r["verdict"] == "2 mismatch(es)"
    assert [row["cells"][:2] for row in r["rows"]] == [["parameters", weight], ["parameters", f"arg:{weight}_renamed"]]
    assert _marked(r) == [weight] and _first(r) == weight
    assert mx.lab.check_export(_mlp(), x, mxnet_python="").report["ok"]
    widget.close()


def test_the_snapshot_is_escaped_text_with_the_table():
    hostile = "<img src=x onerror=alert(1)>"
    net = nn.HybridSequential(prefix=hostile)
    net.add(nn.Dense(2, in_units=3))
    net.initialize()
    widget = mx.lab.check_export(net, mx.nd.ones((1, 3)))
    bundle = widget._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    page = data["text/html"]
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "everything matches" in page and data["text/plain"].startswith("export round trip of")
    widget.close()


def test_report_json_names_what_it_expected():
    with pytest.raises(TypeError, match="expected a PrecheckReport.*got int"):
        report_json(3)
    assert isinstance(DebugReport(mx.gluon.precheck.precheck(LogNet(), mx.np.ones(2))), DebugReport)
