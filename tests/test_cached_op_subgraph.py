"""A hybridized call in ``mx.autograd.get_symbol``: inlined while its graph has at most
``inline_limit`` ops, else one ``_CachedOp`` node carrying the graph as its subgraph (MXNet 1.9.1's
counts, from test_gluon.py::test_inline and real MXNet); that symbol evaluates, binds, backprops,
exports and round-trips through MXNet's JSON ("subgraphs"), and hostile files are refused."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd, gluon

DATA = os.path.join(os.path.dirname(__file__), "data")


def _net():
    net = gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(gluon.nn.Dense(3, in_units=2), gluon.nn.Dense(2, in_units=3), gluon.nn.Dense(2, in_units=2))
    net.initialize(mx.init.Xavier())
    return net


def _record(net, **flags):
    net.hybridize(**flags)
    x = mx.nd.array([[1.0, 2.0]])
    x.attach_grad()
    with autograd.record():
        y = net(x)
    return x, y, mx.autograd.get_symbol(y)


def _n_nodes(sym):
    return len(json.loads(sym.tojson())["nodes"])


def test_inline_limit_counts_as_mxnet():
    # MXNet 1.9.1 (same net): inline_limit=3 -> 10 nodes, 0 -> 8, default 2 -> 8 (7 variables + _CachedOp)
    net = _net()
    assert _n_nodes(_record(net, inline_limit=3)[2]) == 10
    sym = _record(net, inline_limit=0)[2]
    assert _n_nodes(sym) == 8
    assert _n_nodes(_record(net)[2]) == 8
    nodes = json.loads(sym.tojson())["nodes"]
    assert nodes[-1]["op"] == "_CachedOp" and len(nodes[-1]["subgraphs"]) == 1
    assert [n["op"] for n in nodes[-1]["subgraphs"][0]["nodes"]].count("FullyConnected") == 3
    # MXNet: leaves keep their var<k> names, the outputs are named after the call's node
    assert sym.list_arguments() == [f"var{k}" for k in range(7)]
    assert sym.list_outputs() == ["node_0_net_dense2_fwd_output"]


def test_static_alloc_never_inlines():
    assert _n_nodes(_record(_net(), static_alloc=True, inline_limit=10)[2]) == 8


def _args(net, sym, x):
    return dict(zip(sym.list_arguments(), [x] + [p.data() for p in net.collect_params().values()]))


def test_cached_op_symbol_evals_binds_and_backprops():
    net = _net()
    x, y, sym = _record(net, inline_limit=0)
    args = _args(net, sym, x)
    np.testing.assert_allclose(sym.eval(**args)[0].asnumpy(), y.asnumpy(), rtol=1e-6)
    arg_shapes, out_shapes, _ = sym.infer_shape(var0=(1, 2))
    assert out_shapes == [(1, 2)] and arg_shapes[1] == (3, 2)
    assert sym.infer_type(var0=np.float32)[1] == [np.float32]
    grads = {k: mx.nd.zeros_like(v) for k, v in args.items()}
    ex = sym.bind(mx.cpu(), args, args_grad=grads)
    ex.forward(is_train=True)
    head = mx.nd.array([[1.0, -2.0]])
    ex.backward(head)
    y.backward(head)
    np.testing.assert_allclose(grads["var0"].asnumpy(), x.grad.asnumpy(), rtol=1e-5)


def test_cached_op_symbol_exports_as_its_ops(tmp_path):
    net = _net()
    x, y, sym = _record(net, inline_limit=0)
    block = gluon.SymbolBlock(sym, [mx.sym.var("var0")])
    block.collect_params().initialize()
    for k, v in _args(net, sym, x).items():
        if k != "var0":
            block.collect_params()[k].set_data(v)
    block.hybridize()
    np.testing.assert_allclose(block(x).asnumpy(), y.asnumpy(), rtol=1e-6)
    block.export(str(tmp_path / "m"))
    ops = [n["op"] for n in json.load(open(tmp_path / "m-symbol.json"))["nodes"]]
    assert "_CachedOp" not in ops and ops.count("FullyConnected") == 3


def test_json_round_trip_with_subgraphs():
    net = _net()
    x, y, sym = _record(net, inline_limit=0)
    text = sym.tojson()
    again = mx.sym.fromjson(text)
    assert again.tojson() == text
    np.testing.assert_allclose(again.eval(**_args(net, sym, x))[0].asnumpy(), y.asnumpy(), rtol=1e-6)


def _doc():
    return json.loads(_record(_net(), inline_limit=0)[2].tojson())


def _refused(doc, *words):
    with pytest.raises(mx.MXNetError) as err:
        mx.sym.fromjson(json.dumps(doc))
    for w in words:
        assert w in str(err.value), str(err.value)


def test_hostile_subgraphs_are_refused():
    doc = _doc()
    sub = doc["nodes"][-1]["subgraphs"]
    # subgraphs on another op
    bad = _doc()
    fc = next(n for n in bad["nodes"][-1]["subgraphs"][0]["nodes"] if n["op"] == "FullyConnected")
    fc["subgraphs"] = sub
    _refused(bad, fc["name"], "only on a _CachedOp")
    # on a variable
    bad = _doc()
    bad["nodes"][0]["subgraphs"] = sub
    _refused(bad, "var0", "only on a _CachedOp")
    # a _CachedOp without its graph, with two, with a broken one
    for subs, words in ((None, "got none"), (sub * 2, "a list of one graph"), ([{"nodes": 3}], "subgraph 0"),
                        ([{"nodes": [{"op": "nope", "name": "z", "inputs": []}], "heads": [[0, 0, 0]]}],
                         "unknown operator")):
        bad = _doc()
        if subs is None:
            del bad["nodes"][-1]["subgraphs"]
        else:
            bad["nodes"][-1]["subgraphs"] = subs
        _refused(bad, "node_0", words)
    # input count that does not match the subgraph's inputs
    bad = _doc()
    bad["nodes"][-1]["inputs"].pop()
    _refused(bad, "node_0", "expected 7 inputs")
    # nested deeper than MAX_SUBGRAPH_DEPTH
    from hybridlab.symbol.json_load import MAX_SUBGRAPH_DEPTH
    inner = {"nodes": [{"op": "null", "name": "a", "inputs": []},
                       {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 0, 0]]}
    for _ in range(MAX_SUBGRAPH_DEPTH + 1):
        inner = {"nodes": [{"op": "null", "name": "a", "inputs": []},
                           {"op": "_CachedOp", "name": "c", "inputs": [[0, 0, 0]], "subgraphs": [inner]}],
                 "arg_nodes": [0], "heads": [[1, 0, 0]]}
    _refused(inner, "nested at most", "'c'")


def test_nested_within_limit_loads_and_runs():
    inner = {"nodes": [{"op": "null", "name": "a", "inputs": []},
                       {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 0, 0]]}
    for _ in range(3):
        inner = {"nodes": [{"op": "null", "name": "a", "inputs": []},
                           {"op": "_CachedOp", "name": "c", "inputs": [[0, 0, 0]], "subgraphs": [inner]}],
                 "arg_nodes": [0], "heads": [[1, 0, 0]]}
    sym = mx.sym.fromjson(json.dumps(inner))
    assert sym.eval(a=mx.nd.array([-1.0, 2.0]))[0].asnumpy().tolist() == [0.0, 2.0]


def test_mxnet_written_cached_op_is_refused_clearly():
    # MXNet 1.9.1's get_symbol(y).tojson() with inline_limit=0: the _CachedOp node has no graph in
    # the file (MXNet keeps it in memory only; MXNet itself cannot load the file back)
    with pytest.raises(mx.MXNetError, match=r"node 7 \('node_0'\): a _CachedOp node expected its graph"):
        mx.sym.load(os.path.join(DATA, "mxnet_cachedop_get_symbol.json"))


def test_graph_view_draws_one_node():
    from hybridlab.lab.graph_json import graph_json
    sym = _record(_net(), inline_limit=0)[2]
    g = graph_json(sym)
    ops = [n["op"] for n in g["nodes"]]
    assert ops.count("_CachedOp") == 1 and "FullyConnected" not in ops
