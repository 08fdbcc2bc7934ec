"""Rebuild reasons: every build of a block's cached op is recorded with why (first call, new input
signature with the diff, hybridize flags changed, child added, cast), printable, and published."""
import warnings

import numpy as np

import hybridlab as mx
from hybridlab import events
from hybridlab.gluon import nn
from hybridlab.gluon.rebuild_history import RebuildRecord


def make_net():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu", in_units=3))
    net.initialize()
    return net


def test_history_of_two_batch_sizes_new_flags_child_and_cast():
    net = make_net()
    net.hybridize()
    published = []
    with events.subscribe("cache_built", published.append), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net(mx.nd.ones((1, 3)))
        net(mx.nd.ones((1, 3)))                      # seen: no build
        net(mx.nd.ones((5, 3)))
        net.hybridize(static_alloc=True)
        net(mx.nd.ones((5, 3)))
        net.hybridize(static_alloc=True)             # same flags again after a build
        net(mx.nd.ones((5, 3)))
        with net.name_scope():
            net.add(nn.Dense(2, in_units=4, prefix="extra_"))
        net[1].initialize()
        net.hybridize(static_alloc=True)
        net(mx.nd.ones((5, 3)))
        net.cast("float64")
        net.hybridize(static_alloc=True)
        out = net(mx.nd.ones((5, 3), dtype="float64"))
    assert out.dtype == np.float64
    history = net.rebuild_history
    assert all(isinstance(r, RebuildRecord) for r in history)
    assert [r.reason for r in history] == ["first call", "new input signature", "hybridize flags changed",
                                           "hybridize called again", "child added", "cast"]
    assert history[0].detail == "data=(1, 3) float32, device=cpu(0), predict"
    assert history[1].detail == "data: (1, 3) float32 -> (5, 3) float32"
    assert history[2].detail == "static_alloc: False -> True"
    assert history[4].detail == "net_extra"
    assert history[5].detail == "float64"
    assert history[5].signature == "data=(5, 3) float64, device=cpu(0), predict"
    assert history[0].time <= history[-1].time
    # the events carry the same, with the old payload keys kept
    assert [e["reason"] for e in published] == [r.reason for r in history]
    assert [e["detail"] for e in published] == [r.detail for r in history]
    assert [e["history"] for e in published] == list(range(6))
    assert all({"block", "reason", "graph", "signature"} <= set(e.payload) for e in published)
    table = str(history)
    for r in history:
        assert r.reason in table and r.detail in table
    assert table.splitlines()[0].split() == ["#", "time", "reason", "detail", "signature"]
    assert repr(history).startswith("<RebuildHistory: 6 build(s): first call, new input signature")


def test_several_invalidations_before_a_build_are_joined():
    net = make_net()
    net.hybridize()
    net(mx.nd.ones((1, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.cast("float16")
        net.hybridize(static_alloc=True, static_shape=True)
    net(mx.nd.ones((1, 3), dtype="float16"))
    last = net.rebuild_history[-1]
    assert last.reason == "cast + hybridize flags changed"
    assert last.detail == "float16; static_alloc: False -> True, static_shape: False -> True"


def test_static_shape_signature_change_rebuilds_with_a_reason():
    net = make_net()
    net.hybridize(static_alloc=True, static_shape=True)
    x1, x2 = mx.nd.random.uniform(shape=(2, 3)), mx.nd.random.uniform(shape=(7, 3))
    y1 = net(x1)
    y2 = net(x2)                                       # a new shape under static_shape: rebuilt, no crash
    assert y1.shape == (2, 4) and y2.shape == (7, 4)
    ref = make_net()
    ref.load_dict({k: v.data() for k, v in net.collect_params().items()})
    np.testing.assert_allclose(y2.asnumpy(), ref(x2).asnumpy(), rtol=1e-5)
    last = net.rebuild_history[-1]
    assert last.reason == "new input signature"
    assert last.detail.startswith("data: (2, 3) float32 -> (7, 3) float32")
    assert "static_shape" in last.detail
    assert len(net.cached_op.signatures) == 2


def test_training_mode_is_part_of_the_signature():
    net = make_net()
    net.hybridize()
    x = mx.nd.ones((1, 3))
    net(x)
    with mx.autograd.train_mode():
        net(x)
    assert net.rebuild_history[-1].detail == "mode predict -> train"
    assert len(net.rebuild_history) == 2
