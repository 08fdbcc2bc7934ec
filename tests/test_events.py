"""The event bus: subscribe/publish/detach, isolation from failing subscribers, threads, layering."""
import logging
import os
import subprocess
import sys
import threading

import pytest

from hybridlab import events


def _cache_built(**extra):
    payload = dict(block="net0", reason="first call", graph={"version": 1}, signature="(1, 4) float32 cpu(0)")
    payload.update(extra)
    return events.publish("cache_built", **payload)


def test_subscribe_publish_detach():
    got = []
    handle = events.subscribe("cache_built", got.append)
    assert events.has_subscribers("cache_built")
    assert _cache_built() == 1
    assert len(got) == 1
    event = got[0]
    assert event.topic == "cache_built"
    assert event["block"] == "net0" and event["reason"] == "first call"
    assert event.payload["graph"] == {"version": 1} and event.get("missing", 7) == 7
    assert event.time > 0 and "cache_built" in repr(event)
    handle.detach()
    handle.detach()                      # idempotent
    assert not handle.active and "detached" in repr(handle)
    assert _cache_built() == 0
    assert len(got) == 1
    assert not events.has_subscribers("cache_built")


def test_context_manager_detaches():
    got = []
    with events.subscribe("hybridize_error", got.append) as handle:
        assert handle.active
        events.publish("hybridize_error", block="net0", error=ValueError("x"))
    assert not handle.active
    events.publish("hybridize_error", block="net0", error=ValueError("y"))
    assert [str(e["error"]) for e in got] == ["x"]


def test_subscribers_run_in_order_and_wildcard_sees_all_topics():
    order = []
    with events.subscribe("*", lambda e: order.append(("all", e.topic))), \
            events.subscribe("cache_built", lambda e: order.append(("first", e.topic))), \
            events.subscribe("cache_built", lambda e: order.append(("second", e.topic))):
        assert _cache_built() == 3
        assert events.publish("hybridize_error", block="b", error=RuntimeError()) == 1
    assert order == [("first", "cache_built"), ("second", "cache_built"), ("all", "cache_built"),
                     ("all", "hybridize_error")]


def test_raising_subscriber_does_not_break_publisher(caplog):
    got = []

    def broken(event):
        raise RuntimeError("subscriber bug")

    with events.subscribe("cache_built", broken), events.subscribe("cache_built", got.append):
        with caplog.at_level(logging.WARNING, logger="hybridlab.events"):
            delivered = _cache_built()
    assert delivered == 1                # the broken one is not counted
    assert len(got) == 1                 # the one after it still ran
    record = next(r for r in caplog.records if r.name == "hybridlab.events")
    assert record.levelno == logging.WARNING
    assert "broken" in record.getMessage() and "subscriber bug" in record.getMessage()
    assert record.exc_info is not None


def test_detach_and_subscribe_during_publish():
    got = []
    late = []

    def first(event):
        got.append("first")
        second_handle.detach()           # detached mid-publication: not called for this event
        late.append(events.subscribe("cache_built", lambda e: got.append("late")))

    with events.subscribe("cache_built", first):
        second_handle = events.subscribe("cache_built", lambda e: got.append("second"))
        _cache_built()
        assert got == ["first"]          # the late subscriber only sees later events
        late[0].detach()


def test_unknown_topics_and_bad_callbacks():
    with pytest.raises(ValueError, match="unknown topic 'cache_bulit'.*cache_built"):
        events.subscribe("cache_bulit", print)
    with pytest.raises(ValueError, match="unknown topic 'nope'"):
        events.publish("nope", x=1)
    with pytest.raises(ValueError, match="publish on a named topic"):
        events.publish("*", x=1)
    with pytest.raises(TypeError, match="callable.*got int"):
        events.subscribe("cache_built", 3)
    with pytest.raises(ValueError, match="non-empty topic name"):
        events.add_topic("*", "no")


def test_documented_topics():
    assert {"cache_built", "hybridize_off", "hybridize_error"} <= set(events.topics)
    for name in ("block", "block_id", "reason", "graph", "signature", "detail"):
        assert name in events.topics["cache_built"]
    for name in ("block", "block_id", "reason", "detail"):
        assert name in events.topics["hybridize_off"]
    events.add_topic("test_events_sample", "payload: value (int)")
    with events.subscribe("test_events_sample", lambda e: None):
        assert events.publish("test_events_sample", value=1) == 1


def test_threads_publish_and_subscribe_concurrently():
    counts = []
    lock = threading.Lock()

    def worker(k):
        seen = []
        with events.subscribe("hybridize_error", seen.append):
            for _ in range(200):
                events.publish("hybridize_error", block=f"net{k}", error=None)
        with lock:
            counts.append(sum(1 for e in seen if e["block"] == f"net{k}"))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts == [200] * 8           # each thread saw all of its own events
    assert not events.has_subscribers("hybridize_error")


def test_core_does_not_import_the_lab_layer():
    """Contract 5: no core module imports the lab layer (only the package root re-exports it as
    ``mx.lab``), and importing hybridlab does not import ipywidgets (widgets load on first use)."""
    import re
    root = os.path.join(os.path.dirname(__file__), "..", "kernel_lib", "hybridlab")
    offenders = []
    for folder, _, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        if rel == "lab" or rel.startswith("lab" + os.sep):
            continue
        for name in files:
            if name.endswith(".py") and not (rel == "." and name == "__init__.py"):
                text = open(os.path.join(folder, name), encoding="utf-8").read()
                if re.search(r"^\s*(from\s+(\.+|hybridlab\.)lab\b|import\s+hybridlab\.lab\b)", text, re.M):
                    offenders.append(os.path.join(rel, name))
    assert not offenders, f"core modules importing the lab layer: {offenders}"
    code = "import sys, hybridlab; sys.exit(1 if 'ipywidgets' in sys.modules else 0)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, f"importing hybridlab imported ipywidgets: {result.stdout}{result.stderr}"


def test_block_events_carry_the_block_identity_and_hybridize_off():
    import warnings
    import hybridlab as mx
    from hybridlab.gluon import nn
    net = nn.HybridSequential(prefix="ev_")
    with net.name_scope():
        net.add(nn.Dense(2, in_units=3))
    net.initialize()
    net.hybridize()
    got = []
    with events.subscribe("*", got.append), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net(mx.nd.ones((1, 3)))
        net.hybridize(active=False)
        net.hybridize()
        net(mx.nd.ones((1, 3)))
        net.cast("float64")                       # turns hybridization off, as in MXNet 1.x
    mine = [(e.topic, e["reason"]) for e in got if e.get("block_id") == id(net)]
    assert mine == [("cache_built", "first call"), ("hybridize_off", events.NOT_HYBRIDIZED),
                    ("cache_built", "hybridized again"), ("hybridize_off", events.NOT_HYBRIDIZED)]
    offs = [e for e in got if e.topic == "hybridize_off" and e["block_id"] == id(net)]
    assert "hybridize(active=False)" in offs[0]["detail"] and "float64" in offs[1]["detail"]
    assert all(e["block"] == net.name for e in offs)
