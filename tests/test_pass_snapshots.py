"""Pass snapshots on demand: a build copies the graph after each pass only when someone asked
(``keep_pipeline``, a ``cache_built`` listener such as a GraphView); otherwise nothing is copied and
``cached_op.pipeline`` computes the same stages when first read."""
import copy

import pytest

import hybridlab as mx
from hybridlab import events
from hybridlab.compiler import CachedOp
from hybridlab.compiler.passes import run_pipeline
from hybridlab.compiler.passes._graph import clone
from hybridlab.lab.graph_json import graph_json
from hybridlab.gluon import nn


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def _shape_of(stages):
    return [(name, [(n.name, n.op_name, [(s.name, i) for s, i in n.inputs]) for n in snap._nodes()])
            for name, snap in stages]


@pytest.fixture
def no_deepcopy(monkeypatch):
    """Count copy.deepcopy calls (the snapshots used to be deep copies: 588 for one MLP build)."""
    calls = []
    real = copy.deepcopy

    def counting(obj, memo=None, _nil=[]):  # noqa: B006 -- copy.deepcopy's own signature
        calls.append(type(obj).__name__)
        return real(obj, memo)
    monkeypatch.setattr(copy, "deepcopy", counting)
    return calls


def test_a_build_with_nobody_watching_copies_nothing(no_deepcopy):
    net = _mlp()
    x = mx.nd.ones((1, 3))
    net(x)
    net.hybridize()
    assert not events.has_subscribers("cache_built")
    net(x)
    assert net.cached_op._pipeline is None          # no snapshot was taken
    assert no_deepcopy == []                        # and no deep copy of any kind


def test_the_pipeline_read_later_equals_the_one_kept_at_build():
    x = mx.nd.ones((1, 3))
    lazy, kept = _mlp(), _mlp()
    lazy.hybridize()
    kept.hybridize(keep_pipeline=True)
    lazy(x), kept(x)
    assert kept.cached_op._pipeline is not None and lazy.cached_op._pipeline is None
    assert [name for name, _ in lazy.cached_op.pipeline] == \
        ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
    # same graphs, node for node (names differ only by the blocks' prefixes)
    strip = lambda stages: [(name, [(op, len(ins)) for _, op, ins in nodes]) for name, nodes in _shape_of(stages)]
    assert strip(lazy.cached_op.pipeline) == strip(kept.cached_op.pipeline)
    assert lazy.cached_op.pipeline is lazy.cached_op.pipeline      # computed once, then kept
    # the graph JSON of a block built with nobody watching still has every pass
    assert [p["name"] for p in graph_json(lazy)["passes"]] == [name for name, _ in kept.cached_op.pipeline]


def test_a_cache_built_listener_asks_for_the_snapshots():
    net = _mlp()
    net.hybridize()
    got = []
    with events.subscribe("cache_built", got.append):
        net(mx.nd.ones((1, 3)))
    assert net.cached_op._pipeline is not None and len(net.cached_op._pipeline) == 6
    assert [p["name"] for p in graph_json(net, shapes=got[0]["shapes"])["passes"]][-1] == "inplace"


def test_a_graph_view_gets_the_passes():
    widgets = pytest.importorskip("hybridlab.lab.widgets")
    net = _mlp()
    net.hybridize()
    view = widgets.GraphView(net)
    try:
        net(mx.nd.ones((1, 3)))
        assert net.cached_op._pipeline is not None
        assert [p["name"] for p in view.graph["passes"]] == \
            ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
        fused = view.graph["passes"][4]["graph"]["nodes"]
        assert any(n["op"] == "_fused_elemwise" or n["op"] == "FullyConnected" for n in fused)
    finally:
        view.close()


def test_cached_op_keep_pipeline_and_results_do_not_depend_on_it():
    x = mx.sym.var("x")
    y = mx.sym.relu(mx.sym.exp(x, name="a") + mx.sym.exp(x, name="b"), name="act")
    plain, kept = CachedOp(y), CachedOp(y, keep_pipeline=True)
    a = mx.nd.array([[0.5, -1.0]])
    assert plain(a).asnumpy().tolist() == kept(a).asnumpy().tolist()
    assert plain._pipeline is None and [n for n, _ in kept._pipeline] == [n for n, _ in plain.pipeline]
    assert plain.source() == kept.source()


def test_snapshots_are_independent_of_later_passes():
    x = mx.sym.var("x")
    y = mx.sym.tanh(mx.sym.exp(x, name="e"), name="t")
    _, stages = run_pipeline(y)
    ops = {name: [n.op_name for n in s._nodes()] for name, s in stages}
    assert ops["cse"] == ["null", "exp", "tanh"]                 # before fusion rewrote the nodes in place
    assert ops["fusion"] == ["null", "_fused_elemwise"]
    assert [n.op_name for n in y._nodes()] == ["null", "exp", "tanh"]   # the input graph is untouched


def test_clone_copies_nodes_and_meta_one_level():
    x = mx.sym.var("x")
    y = mx.sym.exp(x, name="e")
    y._outputs[0][0].meta["merged"] = ["e2"]
    c = clone(y)
    node, orig = c._outputs[0][0], y._outputs[0][0]
    assert node is not orig and node.inputs[0][0] is not orig.inputs[0][0]
    node.meta["merged"].append("e3")
    node.attrs["x"] = "1"
    assert orig.meta["merged"] == ["e2"] and "x" not in orig.attrs


def test_a_partitioned_graph_has_an_empty_pipeline():
    x = mx.sym.var("x")
    y = mx.sym.contrib.boolean_mask(x, x > 0) if hasattr(mx.sym, "contrib") else None
    if y is None:
        pytest.skip("no boolean_mask")
    op = CachedOp(y)
    assert op.pipeline == []
