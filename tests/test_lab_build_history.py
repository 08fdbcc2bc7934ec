"""The kernel side of the build history panel (``hybridlab.lab.build_history``); the panel itself is
tested by jest (src/__tests__/history.spec.ts) and end to end (tests/ui/test_build_history_story.py)."""
import json
import re

import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.lab.build_history import BuildHistory, flags_text, memory_text
from hybridlab.lab.widgets import MODULE_NAME, MODULE_VERSION

HOSTILE = "<img src=x onerror=alert(1)>"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class Flatten(mx.gluon.HybridBlock):
    """A 2.0-style block reading the batch size: a new batch breaks its shape guard."""

    def forward(self, x):
        return mx.npx.relu(x.reshape((x.shape[0], -1)))


def _dense(prefix="hist_"):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu", in_units=3))
    net.initialize()
    return net


def _three_builds(history_limit=20):
    """Batch 2, batch 3 (the shape guard breaks), then static_alloc: three builds."""
    net = Flatten(prefix="flat_")
    net.hybridize()
    history = BuildHistory(net, limit=history_limit)
    net(mx.np.ones((2, 3, 4)))
    net(mx.np.ones((3, 3, 4)))
    net.hybridize(static_alloc=True)
    net(mx.np.ones((3, 3, 4)))
    return net, history


def test_widget_protocol_matches_the_extension():
    net = _dense()
    history = BuildHistory(net)
    state = history.get_state()
    assert state["_model_name"] == "BuildHistoryModel" and state["_view_name"] == "BuildHistoryView"
    assert state["_model_module"] == state["_view_module"] == MODULE_NAME
    assert state["_model_module_version"] == state["_view_module_version"] == MODULE_VERSION
    assert state["block"] == "hist" and state["builds"] == []
    assert state["status"] == "hist: no builds yet (waiting for the block's first hybridized call)"
    history.close()


def test_builds_appear_live_with_their_fields():
    net, history = _three_builds()
    builds = history.get_state()["builds"]
    json.dumps(builds)                                  # plain JSON, as synced
    assert [b["index"] for b in builds] == [0, 1, 2]
    assert [b["reason"] for b in builds] == [r.reason for r in net.rebuild_history]
    first, guard, flags = builds
    assert first["reason"] == "first call" and first["signature"] == net.rebuild_history[0].signature
    assert re.fullmatch(r"shape read at .+:\d+ changed: data\.shape\[0\] 2 -> 3", guard["reason"])
    assert "x.reshape((x.shape[0], -1))" in guard["detail"]
    assert flags["reason"] == "hybridize flags changed" and flags["detail"] == "static_alloc: False -> True"
    assert [b["flags"] for b in builds] == ["", "", "static_alloc=True"]
    assert [b["memory_bytes"] for b in builds][:2] == [None, None]
    assert isinstance(flags["memory_bytes"], int) and flags["memory_bytes"] == net.rebuild_history[2].memory_bytes
    assert all(isinstance(b["build_ms"], float) and b["build_ms"] >= 0 for b in builds)
    assert [b["retraced"] for b in builds] == [r.retraced for r in net.rebuild_history]
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d", b["time"]) for b in builds)
    reshapes = [[n for n in b["graph"]["nodes"] if n["op"] == "_np_reshape"][0] for b in builds]
    assert [n["attrs"]["newshape"] for n in reshapes] == ["(2, -1)", "(3, -1)", "(3, -1)"]
    assert [b["nodes"] for b in builds] == [len(b["graph"]["nodes"]) for b in builds] == [3, 3, 3]
    assert history.status.startswith("flat: 3 builds; the last: hybridize flags changed")
    history.close()


def test_the_status_names_the_guard_that_broke():
    net = Flatten(prefix="guard_")
    net.hybridize()
    net(mx.np.ones((2, 3, 4)))
    history = BuildHistory(net)                          # made after a build: it shows it
    assert history.status == "guard: 1 build; the last: first call"
    net(mx.np.ones((3, 3, 4)))
    assert re.fullmatch(r"guard: 2 builds; the last: shape read at .+:\d+ changed: data\.shape\[0\] 2 -> 3",
                        history.status)
    history.close()


def test_a_build_that_kept_its_graph_shares_the_graph_json():
    net = _dense("same_")
    net.hybridize()
    history = BuildHistory(net)
    net(mx.nd.ones((1, 3)))
    net(mx.nd.ones((5, 3)))                              # a new signature, the same traced graph
    records = net.rebuild_history
    assert records[1].graph is records[0].graph and not records[1].retraced
    first, second = history.builds
    assert second["reason"] == "new input signature" and second["retraced"] is False
    assert second["graph"] is first["graph"]             # computed once per distinct Symbol
    history.close()


def test_limit_keeps_the_newest_builds():
    net = _dense("lim_")
    net.hybridize()
    history = BuildHistory(net, limit=2)
    for batch in (1, 2, 3, 4):
        net(mx.nd.ones((batch, 3)))
    assert [b["index"] for b in history.builds] == [2, 3]
    assert history.builds[-1]["detail"] == "data: (3, 3) float32 -> (4, 3) float32"
    assert history.status.startswith("lim: 4 builds (the last 2 shown); the last: new input signature")
    assert repr(history) == "<BuildHistory of block 'lim': 4 build(s)>"
    history.close()


def test_detach_and_close_stop_following():
    net = _dense("stop_")
    net.hybridize()
    kept, closed = BuildHistory(net), BuildHistory(net)
    net(mx.nd.ones((1, 3)))
    kept.detach()
    closed.close()
    net(mx.nd.ones((2, 3)))
    assert len(net.rebuild_history) == 2
    assert len(kept.builds) == len(closed.builds) == 1
    assert kept.status == "stop: 1 build; the last: first call"
    kept.close()


def test_follows_that_block_object_only():
    old = _dense("same_name_")
    old.hybridize()
    history = BuildHistory(old)
    new = _dense("same_name_")                           # the "create the model" cell run again
    assert new.name == old.name
    new.hybridize()
    new(mx.nd.ones((1, 3)))
    assert history.builds == []
    old(mx.nd.ones((1, 3)))
    assert len(history.builds) == 1
    history.close()


def test_rejects_what_is_not_a_hybrid_block():
    with pytest.raises(TypeError, match="BuildHistory: expected a HybridBlock, got Symbol"):
        BuildHistory(mx.sym.var("x"))
    with pytest.raises(TypeError, match="expected a HybridBlock, got Block"):
        BuildHistory(mx.gluon.Block())
    with pytest.raises(ValueError, match="expected limit >= 1"):
        BuildHistory(_dense("zero_"), limit=0)


def test_snapshot_lists_the_builds_and_escapes_a_hostile_name():
    net = nn.HybridSequential(prefix=HOSTILE)
    with net.name_scope():
        net.add(nn.Dense(2, in_units=3))
    net.initialize()
    net.hybridize()
    history = BuildHistory(net)
    net(mx.nd.ones((1, 3)))
    net.hybridize(static_alloc=True)
    net(mx.nd.ones((1, 3)))
    assert history.block == HOSTILE
    data = history._repr_mimebundle_()
    assert WIDGET_VIEW in data and data["text/plain"].startswith("<BuildHistory")
    page = data["text/html"]
    assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;: 2 builds" in page
    assert page.count("<tr>") == 3                       # the header and two builds
    assert "first call" in page and "hybridize flags changed" in page and "static_alloc=True" in page
    assert 'class="hl-static hl-static-history"' in page
    history.close()


def test_flags_and_memory_as_text():
    assert flags_text([("static_alloc", True), ("static_shape", True), ("inline_limit", 2)]) == \
        "static_alloc=True, static_shape=True"
    assert flags_text([("inline_limit", 4), ("forward_bulk_size", 8)]) == "inline_limit=4, forward_bulk_size=8"
    assert flags_text(()) == ""
    assert [memory_text(n) for n in (0, 1023, 1024, 5 * 2 ** 20, None)] == ["0 B", "1023 B", "1.0 KiB", "5.0 MiB", "—"]
