"""Model files are untrusted: the JSON loaders (``sym.load`` / ``fromjson``, ``SymbolBlock.imports``,
``Block.load``, ``load_parameters``, ``Module.load``) answer a bad file with an ``MXNetError`` naming
the file, the node or entry and what was expected vs got, in bounded time, and leave the model as
it was; shape errors (``InferError``) are ``MXNetError``s with a readable text; every name round-trips
through the writer, which keeps MXNet's bytes."""
import json
import os
import pickle
import time
import tracemalloc
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.ops.infer import InferError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
X = {"op": "null", "name": "x", "inputs": []}


def _graph(*nodes, heads=None, **extra):
    doc = {"nodes": list(nodes), "heads": heads or [[len(nodes) - 1, 0, 0]],
           "attrs": {"mxnet_version": ["int", 10901]}}
    doc.update(extra)
    return json.dumps(doc)


def _chain(n, op="relu"):
    nodes = [X] + [{"op": op, "name": f"r{i}", "inputs": [[i, 0, 0]]} for i in range(n)]
    return _graph(*nodes, arg_nodes=[0], node_row_ptr=list(range(n + 2)))


# ---- JSON text: nesting, encoding, size ------------------------------------------------------------
@pytest.mark.parametrize("text", ['{"nodes": [' * 5000, "[" * 200000, '{"a": ' * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_refused_without_recursion(text):
    with pytest.raises(mx.MXNetError, match="nested more than 100 levels"):
        mx.sym.fromjson(text)


def test_the_nesting_scan_is_linear_for_hostile_strings():
    t0 = time.perf_counter()
    for text in ['"' + '\\"' * 200000, '"' + '\\"' * 200000 + "\\", '["' + "a" * 10 ** 6]:
        with pytest.raises(mx.MXNetError, match="not valid JSON"):
            mx.sym.fromjson(text)
    assert time.perf_counter() - t0 < 5


def test_bytes_that_are_not_utf8_are_refused(tmp_path):
    path = tmp_path / "bad-symbol.json"
    path.write_bytes(b'\xff\xfe{"')
    with pytest.raises(mx.MXNetError, match=r"bad-symbol.json.*expected UTF-8 text, got byte 0xff at offset 0"):
        mx.sym.load(str(path))
    with pytest.raises(mx.MXNetError, match="expected UTF-8 text"):
        mx.sym.fromjson(b'\xff\xfe{"')
    assert mx.sym.fromjson(_graph(X).encode("utf-8")).name == "x"


def test_a_missing_symbol_file_is_both_mxnet_error_and_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        mx.sym.load(str(tmp_path / "none-symbol.json"))
    assert isinstance(info.value, mx.MXNetError) and "none-symbol.json" in str(info.value)


def test_a_long_chain_loads_saves_and_infers_without_recursion():
    text = _chain(20000)
    t0 = time.perf_counter()
    sym = mx.sym.fromjson(text)
    again = mx.sym.fromjson(sym.tojson())
    assert again.tojson() == sym.tojson() and len(mx.sym.topo_order(again._outputs)) == 20001
    assert sym.infer_shape(x=(2, 3))[1] == [(2, 3)]
    assert sym.infer_type(x="float16")[1] == [np.float16]
    assert time.perf_counter() - t0 < 30


def test_a_chain_imports_and_runs(tmp_path):
    path = tmp_path / "chain-symbol.json"
    path.write_text(_chain(3000))
    net = mx.gluon.SymbolBlock.imports(str(path), ["x"])
    x = mx.nd.array([[-1.0, 2.0]])
    assert net(x).asnumpy().tolist() == [[0.0, 2.0]]


def test_graph_inference_is_linear_when_shapes_flow_back():
    """Each K_i fills e_i from M_(i-1), whose other user came earlier: a sweep-until-stable loop
    needs one sweep per link (quadratic); the worklist revisits only the nodes whose inputs changed."""
    prev, heads = mx.sym.var("b", shape=(2, 3)), []
    for i in range(3000):
        e = mx.sym.relu(mx.sym.var(f"a{i}"), name=f"e{i}")
        heads.append(mx.sym.elemwise_add(e, prev, name=f"k{i}"))
        prev = mx.sym.relu(e, name=f"m{i}")
    t0 = time.perf_counter()
    _, out_shapes, _ = mx.sym.Group(heads[::-1]).infer_shape_partial()
    assert time.perf_counter() - t0 < 10
    assert len(out_shapes) == 3000 and all(s == (2, 3) for s in out_shapes)


# ---- graph structure -------------------------------------------------------------------------------
R = {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}


@pytest.mark.parametrize("text, pattern", [
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[True, 0, 0]]}), r"node 1 \('r'\) input 0: expected \[node_id"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 0.0, 0]]}), r"node 1 \('r'\) input 0: expected \[node_id"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[10 ** 400, 0, 0]]}), r"input 0: expected .*got list \[1000"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 2 ** 32, 0]]}), r"below 2\*\*32"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 0, 0, 0]]}), r"got list \[0, 0, 0, 0\]"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 1, 0]]}),
     r"input 0 \(data\): refers to output 1 of node 'x'"),
    (_graph(X, R, heads=[[1, 5, 0]]), r"head 0: refers to output 5 of node 'r', which has 1 output"),
    (json.dumps({"nodes": [X], "heads": []}), r"\"heads\" expected a non-empty list"),
    (_graph(X, R, arg_nodes=[1]), r"arg_nodes\[0\] = 1 expected a variable"),
    (_graph(X, R, arg_nodes=[7]), r"arg_nodes\[0\] expected a node id below 2"),
    (_graph(X, R, arg_nodes="x"), r"\"arg_nodes\" expected a list"),
    (json.dumps({"nodes": [X], "heads": [[0, 0, 0]], "attrs": {"mxnet_version": ["int", True]}}), r"mxnet_version"),
    (_graph(X, {"op": "relu", "name": 3, "inputs": [[0, 0, 0]]}), r"node 1 expected string \"op\" and \"name\""),
    (_graph(X, {"op": "relu", "name": "r", "attrs": {"a": None}, "inputs": [[0, 0, 0]]}), r"expected an object of str"),
    (_graph(X, {"op": "x" * 5000, "name": "r", "inputs": [[0, 0, 0]]}), r"unknown operator 'xxx.*\(5000 characters\)"),
    (_graph({"op": "null", "name": "w", "attrs": {"__shape__": "(a, b)"}, "inputs": []}),
     r"node 0 \('w'\): attribute __shape__"),
    (_graph({"op": "null", "name": "w", "attrs": {"__dtype__": "99"}, "inputs": []}),
     r"__dtype__ expected a type flag.*99"),
    (_graph(X, {"op": "Concat", "name": "c", "attrs": {"num_args": "1000000000"}, "inputs": [[0, 0, 0]]}),
     r"node 1 \('c', op Concat\): expected num_args=1000000000 inputs, got 1"),
    (_graph(X, {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "1000000000"}, "inputs": [[0, 0, 0]]}),
     r"node 1 \('s', op SliceChannel\): its attributes give 1000000000 outputs, expected at most 65536"),
    (_graph({"op": "relu", "name": "a", "inputs": [[0, 0, 0]]}), r"'a' is its own input"),
])
def test_malformed_graphs_name_the_node(text, pattern):
    t0 = time.perf_counter()
    with pytest.raises(mx.MXNetError, match=pattern):
        mx.sym.fromjson(text)
    assert time.perf_counter() - t0 < 10   # a hang bound (num_args=1e9 must not build 1e9 names), not a speed test


def test_what_mxnet_ignores_is_ignored():
    """A wrong node_row_ptr is recomputed (as nnvm does); duplicated names are allowed."""
    sym = mx.sym.fromjson(_graph(X, R, node_row_ptr="x"))
    assert sym.list_arguments() == ["x"] and '"node_row_ptr": [0, 1, 2]' in sym.tojson()
    twice = mx.sym.fromjson(_graph(X, dict(X), {"op": "elemwise_add", "name": "x", "inputs": [[0, 0, 0], [1, 0, 0]]}))
    assert twice.list_arguments() == ["x", "x"]


def test_a_declared_huge_shape_is_not_allocated_on_import(tmp_path):
    doc = json.load(open(os.path.join(DATA, "mlp-symbol.json")))
    weight = next(n for n in doc["nodes"] if n["name"].endswith("dense0_weight"))
    weight["attrs"]["__shape__"] = "(100000000000, 100000000000)"
    path = tmp_path / "m-symbol.json"
    path.write_text(json.dumps(doc))
    tracemalloc.start()
    try:
        net = mx.gluon.SymbolBlock.imports(str(path), ["data"], os.path.join(DATA, "mlp-0000.params"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    assert net(mx.nd.ones((1, 512))).shape == (1, 2)     # the file's weights win, as in MXNet 1.9.1
    with pytest.raises(mx.MXNetError, match="cannot allocate") as info:
        mx.nd.zeros((10 ** 6, 10 ** 6))
    assert isinstance(info.value, MemoryError)


# ---- names round-trip ------------------------------------------------------------------------------
def test_every_code_point_round_trips(tmp_path):
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    sym = mx.sym.relu(mx.sym.var(every, attr={"__note__": every}), name="r\n\t\"\\\x00\u2028")
    back = mx.sym.fromjson(sym.tojson())
    assert back.list_arguments() == [every] and back.name == "r\n\t\"\\\x00\u2028"
    assert back.get_children().attr("__note__") == every
    sym.save(str(tmp_path / "s.json"))
    assert mx.sym.load(str(tmp_path / "s.json")).tojson() == sym.tojson()


@pytest.mark.parametrize("name", ["a\x01b", "\n", "\r", "\t", "\x00", "\x1f", "\u2028", '"', "\\", "\\u0041",
                                  "é\U0001F600", "", "\ud800", "a\udfffb"])
def test_names_round_trip(name):
    sym = mx.sym.relu(mx.sym.var(name), name=name + "r")
    text = sym.tojson()
    text.encode("utf-8")                       # lone surrogates are escaped: always valid UTF-8
    back = mx.sym.fromjson(text)
    assert back.list_arguments() == [name] and back.name == name + "r" and back.tojson() == text


def test_mxnet_writes_only_five_escapes_and_we_read_its_raw_control_characters():
    text = mx.sym.var("a\x01\x1f\u2028b\tc").tojson()
    assert '"a\x01\x1f\u2028b\\tc"' in text       # dmlc WriteString: \r \n \t \\ \" escaped, the rest raw
    mxnet_style = '{"nodes": [{"op": "null", "name": "x\x02\\n\\r\\"\\\\y", "inputs": []}], "heads": [[0, 0, 0]]}'
    assert mx.sym.fromjson(mxnet_style).name == 'x\x02\n\r"\\y'


def test_graph_attributes_of_any_json_value_are_written_back():
    text = _graph(X, attrs={"mxnet_version": ["int", 10901], "a": ["str", None], "b": ["float", float("nan")]})
    again = mx.sym.fromjson(mx.sym.fromjson(text).tojson())
    assert '"a": ["str", null]' in again.tojson() and "NaN" in again.tojson()


# ---- InferError --------------------------------------------------------------------------------------
def test_infer_error_is_an_mxnet_error_with_a_readable_text():
    err = InferError(0, "an input with more than 99 dimensions (axis=99)", "ndim 2")
    assert isinstance(err, mx.MXNetError)
    assert str(err) == "input 0: expected an input with more than 99 dimensions (axis=99), got ndim 2"
    again = pickle.loads(pickle.dumps(err))
    assert (again.arg, again.expected, again.got, str(again)) == (0, err.expected, "ndim 2", str(err))


def test_infer_errors_name_the_op_where_they_escape():
    with pytest.raises(mx.MXNetError, match=r"^softmax: argument 'data' expected an input with more than 99 "
                                            r"dimensions \(axis=99\), got ndim 2$"):
        mx.nd.softmax(mx.nd.ones((2, 3)), axis=99)
    with pytest.raises(mx.MXNetError, match=r"elemwise_add: argument 'rhs' expected shape \(2, 3\), got \(3, 2\)"):
        mx.nd.elemwise_add(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))

    class Mixed(mx.gluon.HybridBlock):
        def forward(self, x):
            return mx.nd.FullyConnected(x, mx.nd.ones((2, 3)), num_hidden=2, no_bias=True)
    block = Mixed()
    block.hybridize()
    with pytest.raises(mx.MXNetError, match=r"FullyConnected: argument 'weight' expected float64, got float32"):
        block(mx.nd.ones((1, 3), dtype="float64"))
    net = mx.sym.FullyConnected(mx.sym.var("x"), mx.sym.var("w"), num_hidden=2, no_bias=True, name="fc")
    with pytest.raises(mx.MXNetError, match=r"Error in operator fc: Type inconsistent"):
        net.infer_type(x="float64", w="float32")


# ---- Block.load ----------------------------------------------------------------------------------------
def _net():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
    net.initialize(mx.init.Xavier())
    return net


@pytest.fixture
def saved(tmp_path):
    net = _net()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    net(x)
    prefix = str(tmp_path / "m")
    net.save(prefix)
    with open(prefix + "-model.json") as f:
        return prefix, json.load(f)


def _top(model):
    return model["hybridsequential0"]


def _set(path, value):
    def edit(model):
        target = model
        for k in path[:-1]:
            target = target[k]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return model
    return edit


T = "hybridsequential0"
BAD_MODELS = [
    (lambda m: {"foo": 1}, r"expected an entry 'hybridsequential0' for block .*got the keys \['foo'\]"),
    (lambda m: [1], r"expected an object of block entries .*got list \[1\]"),
    (lambda m: {T: 3}, r"block entry hybridsequential0: expected an object, got int 3"),
    (_set([T, "params"], KeyError), r"block entry hybridsequential0: \"params\" expected an object"),
    (_set([T, "dense1", "params"], {"nope": "x"}), r"hybridsequential0/dense1: the saved block has a parameter 'nope'"),
    (_set([T, "dense1", "params", "weight"], 5), r"parameter 'weight' expected its graph name.*got int 5"),
    (_set([T, "hybridized"], "yes"), r"\"hybridized\" expected true or false, got str 'yes'"),
    (_set([T, "symbol"], KeyError), r"a hybridized block expected the key 'symbol'"),
    (_set([T, "symbol"], 3), r"\"symbol\" expected a symbol JSON string, got int 3"),
    (_set([T, "symbol"], "{"), r"block entry hybridsequential0 \"symbol\": it is not valid JSON"),
    (_set([T, "inputs"], "data"), r"\"inputs\" expected a list of symbol JSON strings"),
    (_set([T, "inputs"], []), r"\"in_format\" .* expects 1 input\(s\), \"inputs\" has 0"),
    (_set([T, "in_format"], True), r"\"in_format\" expected a format .*got bool True"),
    (_set([T, "in_format"], [-2]), r"\"in_format\" expected a format"),
    (_set([T, "out_format"], [0, 0]), r"\"out_format\" .* expects 2 output\(s\), \"symbol\" has 1"),
    (_set([T, "out_format"], -1), r"\"out_format\" expected a format of 0 \(an array\), n > 0"),
]


@pytest.mark.parametrize("edit, pattern", BAD_MODELS)
def test_block_load_refuses_a_model_file_that_does_not_fit(saved, edit, pattern):
    prefix, model = saved
    with open(prefix + "-model.json", "w") as f:
        json.dump(edit(json.loads(json.dumps(model))), f)
    net = _net()
    before = [p.data().asnumpy().copy() for p in net.collect_params().values()]
    with pytest.raises(mx.MXNetError, match=pattern) as info:
        net.load(prefix)
    assert "m-model.json" in str(info.value)
    assert net.hybridization.graph is None and not net.hybridization.active     # nothing changed
    assert all((p.data().asnumpy() == b).all() for p, b in zip(net.collect_params().values(), before))


def test_block_load_refuses_a_graph_reading_foreign_variables(saved):
    prefix, model = saved
    graph = json.loads(_top(model)["symbol"])
    graph["nodes"][0]["name"] = "stranger"
    _top(model)["symbol"] = json.dumps(graph)
    inputs = json.loads(_top(model)["inputs"][0])
    inputs["nodes"][0]["op"] = "relu"
    with open(prefix + "-model.json", "w") as f:
        json.dump(model, f)
    with pytest.raises(mx.MXNetError, match=r"\"symbol\" reads variable\(s\) 'stranger', which are neither"):
        _net().load(prefix)
    _top(model)["inputs"] = [mx.sym.relu(mx.sym.var("data")).tojson()]
    with open(prefix + "-model.json", "w") as f:
        json.dump(model, f)
    with pytest.raises(mx.MXNetError, match=r"\"inputs\"\[0\] expected one variable, got a graph of 2 node"):
        _net().load(prefix)


def test_block_load_missing_or_undecodable_files(saved, tmp_path):
    prefix, _ = saved
    with pytest.raises(FileNotFoundError) as info:
        _net().load(str(tmp_path / "nothing"))
    assert isinstance(info.value, mx.MXNetError) and "nothing-model.json" in str(info.value)
    with open(prefix + "-model.json", "wb") as f:
        f.write(b'\xff\xfe{"')
    with pytest.raises(mx.MXNetError, match=r"m-model.json.*expected UTF-8 text"):
        _net().load(prefix)


def test_block_load_puts_the_model_back_when_the_parameters_fail(saved):
    prefix, _ = saved
    with open(prefix + "-model.params", "r+b") as f:
        f.truncate(40)
    net = _net()
    x = mx.nd.ones((2, 4))
    expected = net(x).asnumpy()
    names = [p.var().name for p in net.collect_params().values()]
    with pytest.raises(mx.MXNetError):
        net.load(prefix)
    assert net.hybridization.graph is None and [p.var().name for p in net.collect_params().values()] == names
    assert (net(x).asnumpy() == expected).all()


# ---- load_parameters / ParameterDict.load / Module.load ------------------------------------------------
def test_load_parameters_mismatches_name_the_file_and_change_nothing(tmp_path):
    path = str(tmp_path / "p.params")
    mx.nd.save(path, {"0.weight": mx.nd.ones((3, 4)), "0.bias": mx.nd.ones((3,)),
                      "1.weight": mx.nd.ones((2, 5)), "1.bias": mx.nd.ones((2,))})
    net = _net()
    before = net[0].weight.data().asnumpy().copy()
    with pytest.raises(mx.MXNetError, match=r"Parameter '.*dense\d+_weight'.*shape incompatible expected \(2, 3\) vs "
                                            r"saved \(2, 5\) \(file: .*p.params, key '1.weight'\)") as info:
        net.load_parameters(path)
    assert isinstance(info.value, AssertionError)
    assert (net[0].weight.data().asnumpy() == before).all()       # checked before anything is loaded
    mx.nd.save(path, {"0.weight": mx.nd.ones((3, 4)), "0.bias": mx.nd.ones((3,)), "1.weight": mx.nd.ones((2, 3)),
                      "1.bias": mx.nd.ones((2,)), "2.weight": mx.nd.ones(1)})
    with pytest.raises(mx.MXNetError, match=r"Parameter '2.weight' loaded from 'file: .*p.params' is not present") \
            as info:
        net.load_parameters(path)
    assert isinstance(info.value, ValueError)
    mx.nd.save(path, {"0.weight": mx.nd.ones((3, 4), dtype="float16")})
    with pytest.raises(mx.MXNetError, match=r"dtype incompatible expected float32 vs saved float16"):
        net.load_parameters(path, allow_missing=True)


def test_parameter_dict_load_mismatches(tmp_path):
    params = mx.gluon.ParameterDict("p_")
    params.get("w", shape=(2, 3))
    params.initialize()
    path = str(tmp_path / "d.params")
    mx.nd.save(path, {"p_w": mx.nd.ones((3, 2))})
    with pytest.raises(mx.MXNetError, match=r"incompatible expected \(2, 3\) vs saved \(3, 2\) \(file .*d.params"):
        params.load(path)
    mx.nd.save(path, {"p_w": mx.nd.ones((2, 3)), "p_v": mx.nd.ones(1)})
    with pytest.raises(mx.MXNetError, match="'p_v' loaded from file .* is not present"):
        params.load(path)
    mx.nd.save(path, {"p_v": mx.nd.ones(1)})
    with pytest.raises(mx.MXNetError, match="'p_w' is missing in file .*d.params"):
        params.load(path, ignore_extra=True)


def test_module_load_names_the_file(tmp_path):
    prefix = str(tmp_path / "mod")
    sym = mx.sym.FullyConnected(mx.sym.var("data", shape=(1, 3)), num_hidden=2, name="fc")
    sym.save(prefix + "-symbol.json")
    mx.nd.save(prefix + "-0000.params", {"arg:fc_weight": mx.nd.ones((2, 3)), "arg:fc_bias": mx.nd.ones(2)})
    mod = mx.mod.Module.load(prefix, 0, label_names=None)
    mod.bind(data_shapes=[("data", (1, 3))])
    mx.nd.save(prefix + "-0000.params", {"arg:fc_weight": mx.nd.ones((2, 3)), "aux:fc_bias": mx.nd.ones(2)})
    with pytest.raises(mx.MXNetError, match=r"mod-0000.params: parameter 'aux:fc_bias' is an argument"):
        mx.mod.Module.load(prefix, 0, label_names=None)
    mx.nd.save(prefix + "-0000.params", {"arg:fc_weight": mx.nd.ones((2, 3)), "arg:fc_bias": mx.nd.ones(5)})
    with pytest.raises(mx.MXNetError, match=r"mod-0000.params: the parameters do not fit the graph"):
        mx.mod.Module.load(prefix, 0, label_names=None)
    with pytest.raises(mx.MXNetError, match=r"mod-0000.params: the parameters do not fit"):
        mod.load_params(prefix + "-0000.params")
    with open(prefix + "-symbol.json", "w") as f:
        f.write('{"nodes": []')
    with pytest.raises(mx.MXNetError, match=r"mod-symbol.json.*not valid JSON"):
        mx.mod.Module.load(prefix, 0)
    sym.save(prefix + "-symbol.json")
    with pytest.raises(mx.MXNetError, match=r"Module.load: .*mod-symbol.json: .*data names \['image'\]"):
        mx.mod.Module.load(prefix, 0, data_names=["image"])


def test_symbol_block_imports_names_what_does_not_fit(tmp_path):
    with pytest.raises(mx.MXNetError, match=r"input names \['input'\] are not variables of") as info:
        mx.gluon.SymbolBlock.imports(os.path.join(DATA, "mlp-symbol.json"), ["input"])
    assert isinstance(info.value, ValueError)
    path = tmp_path / "m-symbol.json"
    path.write_text(_graph(X, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"},
                               "inputs": [[0, 0, 0], [1, 0, 0], [0, 0, 0]]}))
    with pytest.raises(mx.MXNetError, match=r"m-symbol.json': node 'fc' is its own input"):
        mx.gluon.SymbolBlock.imports(str(path), ["x"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path.write_text(_graph({"op": "null", "name": "x", "inputs": []},
                               {"op": "null", "name": "w", "attrs": {"__dtype__": "1"}, "inputs": []},
                               {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2", "no_bias": "True"},
                                "inputs": [[0, 0, 0], [1, 0, 0]]}))
        with pytest.raises(mx.MXNetError, match=r"SymbolBlock.imports: .*m-symbol.json.*Error in operator fc"):
            mx.gluon.SymbolBlock.imports(str(path), ["x"])


def test_an_empty_parameter_file_restores_nothing_and_says_so(tmp_path):
    path = str(tmp_path / "empty.params")
    mx.nd.save(path, {})
    net = _net()
    with pytest.raises(mx.MXNetError, match=r"is missing in 'file: .*empty.params', which contains parameters: \(none\)"):
        net.load_parameters(path)
    net.load_parameters(path, allow_missing=True)      # asked for: nothing to load is fine
