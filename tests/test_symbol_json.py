"""Symbol JSON against real MXNet 1.9.1 files: byte-identical round trips, listings, graph-level shape
inference giving the stored parameter shapes, legacy files, and clear errors for malformed ones."""
import json
import os
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ops.registry import find_op

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
SYMBOL_FILES = sorted(f for f in os.listdir(DATA) if f.endswith("-symbol.json"))
HAS_RNN = find_op("RNN") is not None
LOADABLE = [f for f in SYMBOL_FILES if HAS_RNN or not f.startswith("lstm")]
SHAPE_MODELS = ["mlp", "lenet", "mobilenet0.25", "bn_dropout", "attention"] + (["lstm"] if HAS_RNN else [])


def _text(fname):
    with open(os.path.join(DATA, fname), encoding="utf-8") as f:
        return f.read()


def _meta(model):
    with open(os.path.join(DATA, f"{model}-meta.json"), encoding="utf-8") as f:
        return json.load(f)


def test_every_fixture_is_checked():
    assert len(SYMBOL_FILES) >= 9


@pytest.mark.parametrize("fname", LOADABLE)
def test_fixture_round_trip_is_byte_identical(fname, tmp_path):
    text = _text(fname)
    sym = mx.sym.fromjson(text)
    assert sym.tojson() == text
    assert mx.sym.load_json(text).tojson() == text
    assert mx.sym.load(os.path.join(DATA, fname)).tojson() == text
    out = tmp_path / fname
    sym.save(str(out))
    assert out.read_bytes() == text.encode("utf-8")
    assert os.listdir(tmp_path) == [fname]          # no temporary file left behind
    again = mx.sym.fromjson(sym.tojson())
    assert again.tojson() == text


@pytest.mark.parametrize("fname", LOADABLE)
def test_fixture_listings_match_the_file(fname):
    doc = json.loads(_text(fname))
    nodes = doc["nodes"]
    aux = {nodes[n["inputs"][i][0]]["name"] for n in nodes if n["op"] == "BatchNorm" for i in (3, 4)}
    variables = [n["name"] for n in nodes if n["op"] == "null"]
    sym = mx.sym.fromjson(_text(fname))
    assert sym.list_inputs() == variables
    assert sym.list_arguments() == [v for v in variables if v not in aux]
    assert sym.list_auxiliary_states() == [v for v in variables if v in aux]
    assert len(sym.list_outputs()) == len(doc["heads"])
    rnn_outputs = ("output", "state_output", "statecell_output")   # OPS.md: RNN's visible output names
    for (nid, idx, _), name in zip(doc["heads"], sym.list_outputs()):
        node = nodes[nid]
        suffix = rnn_outputs[idx] if node["op"] == "RNN" else "output"
        assert name.startswith(node["name"] + "_" + suffix)
    model = fname[:-len("-symbol.json")]
    if os.path.exists(os.path.join(DATA, f"{model}-meta.json")):
        meta = _meta(model)
        inputs = [i["name"] for i in meta["inputs"]]
        assert [a for a in sym.list_arguments() if a in inputs] == inputs
        assert {"arg:" + a for a in sym.list_arguments() if a not in inputs} | \
            {"aux:" + a for a in sym.list_auxiliary_states()} == set(meta["params"])
        assert len(sym.list_outputs()) == len(meta["outputs"])


@pytest.mark.parametrize("model", SHAPE_MODELS)
def test_infer_shape_gives_the_stored_parameter_shapes(model):
    meta = _meta(model)
    sym = mx.sym.load(os.path.join(DATA, f"{model}-symbol.json"))
    params = mx.nd.load(os.path.join(DATA, f"{model}-0000.params"))
    shapes = {i["name"]: tuple(i["shape"]) for i in meta["inputs"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**shapes)
        arg_types, out_types, aux_types = sym.infer_type(**{i["name"]: i["dtype"] for i in meta["inputs"]})
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        assert shape == (shapes[name] if name in shapes else params["arg:" + name].shape), name
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        assert shape == params["aux:" + name].shape, name
    assert out_shapes == [tuple(o["shape"]) for o in meta["outputs"]]
    assert out_types == [np.dtype(o["dtype"]) for o in meta["outputs"]]
    for name, dt in zip(sym.list_arguments(), arg_types):
        if name not in shapes:
            assert dt == params["arg:" + name].dtype
    assert all(dt == np.float32 for dt in aux_types)
    # every node carries its inferred output shapes and dtypes for the graph view
    for node in mx.sym.topo_order(sym._outputs):
        assert node.meta["shapes"][0] is not None and node.meta["dtypes"][0] is not None, node.name


@pytest.mark.skipif(HAS_RNN, reason="the RNN operator is registered: the lstm file loads")
def test_lstm_needs_the_rnn_operator():
    with pytest.raises(mx.MXNetError, match=r"node 20 \('lstm0_rnn0'\): unknown operator 'RNN'"):
        mx.sym.load(os.path.join(DATA, "lstm-symbol.json"))


# ---- composed symbols ---------------------------------------------------------------------------
def _roundtrip(sym):
    text = sym.tojson()
    again = mx.sym.fromjson(text)
    assert again.tojson() == text
    assert again.list_arguments() == sym.list_arguments()
    assert again.list_outputs() == sym.list_outputs()
    assert again.list_auxiliary_states() == sym.list_auxiliary_states()
    return text, json.loads(text)


def test_composed_graph_round_trip_and_format():
    with mx.name.NameManager():
        _check_composed_graph()


def _check_composed_graph():
    data = mx.sym.var("data", shape=(0, 4), dtype="float32", lr_mult=2.0)
    fc = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, name="bn1")
    parts = mx.sym.split(bn, num_outputs=3, axis=1, name="split")
    out = mx.sym.Group([parts[0] + parts[2], mx.sym.relu(parts[1], name="r") * 2])
    text, doc = _roundtrip(out)
    names = [n["name"] for n in doc["nodes"]]
    assert names[:4] == ["data", "fc1_weight", "fc1_bias", "fc1"]
    assert doc["nodes"][0]["attrs"] == {"__dtype__": "0", "__lr_mult__": "2.0", "__shape__": "(0, 4)"}
    assert "attrs" not in doc["nodes"][names.index("r")]          # left out when empty
    bn_node = doc["nodes"][names.index("bn1")]
    assert [e[2] for e in bn_node["inputs"]] == [0, 0, 0, 1, 1]     # mutated inputs are versioned
    assert doc["arg_nodes"] == [i for i, n in enumerate(doc["nodes"]) if n["op"] == "null"]
    counts = np.diff(doc["node_row_ptr"]).tolist()
    assert counts[names.index("bn1")] == 3 and counts[names.index("split")] == 3
    assert doc["attrs"] == {"mxnet_version": ["int", 10901]}
    assert [doc["nodes"][h[0]]["name"] for h in doc["heads"]] == ["_plus0", "_mulscalar0"]
    # dmlc's layout: keys sorted, ", " + newline + 2 spaces per scope, short POD arrays on one line
    assert text.startswith('{\n  "nodes": [\n    {\n      "op": "null", \n      "name": "data", \n')
    assert '"attrs": {\n        "__dtype__": "0", \n        "__lr_mult__": "2.0", ' in text
    assert '"node_row_ptr": [\n    0, \n    1, \n' in text                   # more than 10 numbers
    assert text.endswith('\n  "attrs": {"mxnet_version": ["int", 10901]}\n}')


def test_long_input_lists_and_escapes():
    xs = [mx.sym.var(f"x{i}") for i in range(11)]
    cat = mx.sym.concat(*xs, dim=1, name='cat "q"\n\\é')
    text, doc = _roundtrip(cat)
    assert '"inputs": [\n        [0, 0, 0], \n        [1, 0, 0], ' in text    # 11 entries: one per line
    assert '"name": "cat \\"q\\"\\n\\\\é"' in text                            # dmlc escapes, raw UTF-8
    assert doc["nodes"][-1]["name"] == 'cat "q"\n\\é'
    assert doc["arg_nodes"] == list(range(11)) and '"arg_nodes": [\n    0, \n' in text


def test_shared_variables_and_internal_outputs():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    a = mx.sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="a")
    b = mx.sym.FullyConnected(a, w, num_hidden=3, no_bias=True, name="b")
    internals = b.get_internals()
    _, doc = _roundtrip(internals)
    assert [n["name"] for n in doc["nodes"]] == ["x", "w", "a", "b"]
    assert doc["heads"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
    _roundtrip(internals["a_output"])


def test_remove_amp_cast():
    text = json.dumps({"nodes": [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "amp_cast", "name": "c", "attrs": {"dtype": "float16"}, "inputs": [[0, 0, 0]]},
        {"op": "relu", "name": "r", "inputs": [[1, 0, 0]]}],
        "arg_nodes": [0], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]}})
    sym = mx.sym.fromjson(text)
    kept = json.loads(sym.tojson(remove_amp_cast=False))
    assert [n["op"] for n in kept["nodes"]] == ["null", "amp_cast", "relu"]
    removed = json.loads(sym.tojson())
    assert [n["op"] for n in removed["nodes"]] == ["null", "relu"]
    assert removed["nodes"][1]["inputs"] == [[0, 0, 0]]
    assert [n["op"] for n in json.loads(sym.tojson())["nodes"]] == ["null", "relu"]


# ---- legacy files -------------------------------------------------------------------------------
def test_legacy_keys_missing_versions_and_graph_attrs():
    text = json.dumps({"nodes": [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "null", "name": "fc_weight", "attr": {"__lr_mult__": "0.5"}, "inputs": []},
        {"op": "FullyConnected", "name": "fc", "param": {"num_hidden": "2", "no_bias": "True"},
         "inputs": [[0, 0], [1, 0]], "backward_source_id": -1}],
        "arg_nodes": [0, 1], "heads": [[2, 0]], "attrs": {"mxnet_version": ["int", 10901],
                                                         "is_np_shape": ["int", 1]}})
    sym = mx.sym.fromjson(text)
    assert sym.list_arguments() == ["x", "fc_weight"]
    assert sym.attr_dict() == {"fc_weight": {"__lr_mult__": "0.5"}, "fc": {"num_hidden": "2", "no_bias": "True"}}
    doc = json.loads(sym.tojson())
    assert doc["nodes"][2]["inputs"] == [[0, 0, 0], [1, 0, 0]]
    # as MXNet 1.9.1: is_np_shape is written from the current mode, not kept from the file
    assert doc["attrs"] == {"mxnet_version": ["int", 10901]}
    with mx.util.np_shape(True):
        assert json.loads(sym.tojson())["attrs"] == {"is_np_shape": ["int", 1], "mxnet_version": ["int", 10901]}


def test_files_older_than_1_9_are_upgraded():
    text = json.dumps({"nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "fc_weight", "inputs": []},
        {"op": "null", "name": "fc_bias", "attr": {"lr_mult": "2"}, "inputs": []},
        {"op": "FullyConnected", "name": "fc", "attr": {"num_hidden": "4", "weight_lr_mult": "0.1",
                                                        "ctx_group": "dev1"},
         "inputs": [[0, 0], [1, 0], [2, 0]]},
        {"op": "null", "name": "bn_gamma", "inputs": []},
        {"op": "null", "name": "bn_beta", "inputs": []},
        {"op": "BatchNorm", "name": "bn", "inputs": [[3, 0], [4, 0], [5, 0]]},
        {"op": "argmax", "name": "am", "param": {"axis": "-1"}, "inputs": [[6, 0]]}],
        "arg_nodes": [0, 1, 2, 4, 5], "heads": [[7, 0]]})       # no mxnet_version: 0.8.0
    sym = mx.sym.fromjson(text)
    attrs = sym.attr_dict()
    assert attrs["fc_weight"] == {"__lr_mult__": "0.1"}               # weight_lr_mult moved to the weight
    assert attrs["fc_bias"] == {"__lr_mult__": "2"}                   # lr_mult -> __lr_mult__
    assert attrs["fc"] == {"num_hidden": "4", "__ctx_group__": "dev1"}
    assert "axis" not in attrs.get("am", {})                          # 0.9.5: axis=-1 meant no axis
    assert sym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]   # 0.9.0: aux added


# ---- malformed files: MXNetError naming the node -------------------------------------------------
def _graph(*nodes, heads=None):
    return json.dumps({"nodes": list(nodes), "arg_nodes": [], "heads": heads or [[len(nodes) - 1, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})


X = {"op": "null", "name": "x", "inputs": []}


@pytest.mark.parametrize("text, pattern", [
    ("{not json", r"not valid JSON"),
    ("[1, 2]", r"expected an object with \"nodes\""),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[5, 0, 0]]}),
     r"node 1 \('r'\) input 0: refers to node 5, but the graph has 2 nodes"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 1, 0]]}),
     r"node 1 \('r', op relu\) input 0 \(data\): refers to output 1 of node 'x', which has 1 output"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [["a", 0, 0]]}),
     r"node 1 \('r'\) input 0: expected \[node_id, output_index, version\]"),
    (_graph(X, {"op": "NoSuchOp", "name": "bad", "inputs": [[0, 0, 0]]}),
     r"node 1 \('bad'\): unknown operator 'NoSuchOp'"),
    (_graph(X, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "4"}, "inputs": [[0, 0, 0]]}),
     r"node 1 \('fc', op FullyConnected\): expected 3 inputs \(data, weight, bias\), got 1"),
    (_graph(X, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "many"},
                "inputs": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}),
     r"node 1 \('fc', op FullyConnected\): FullyConnected: attribute 'num_hidden' expected int.*got 'many'"),
    (_graph(X, {"op": "relu", "name": "r", "attrs": {"x": 3}, "inputs": [[0, 0, 0]]}),
     r"node 1 \('r'\): \"attrs\" expected an object of strings"),
    (_graph({"op": "null", "name": "v", "inputs": [[0, 0, 0]]}),
     r"node 0 \('v'\): a variable \(op \"null\"\) expected no inputs, got 1"),
    (_graph({"op": "relu", "name": "a", "inputs": [[1, 0, 0]]},
            {"op": "relu", "name": "b", "inputs": [[0, 0, 0]]}),
     r"a cycle"),
    (_graph(X, heads=[[3, 0, 0]]), r"head 0: refers to node 3, but the graph has 1 nodes"),
    (json.dumps({"nodes": [X], "heads": [[0, 0, 0]], "attrs": {"mxnet_version": 10901}}),
     r"graph attribute 'mxnet_version' expected \[type, value\]"),
    (_graph(X, {"op": "relu", "name": "r", "inputs": [[0, 0, 0]], "control_deps": [0]}),
     r"node 1 \('r'\): \"control_deps\" is not supported"),
])
def test_malformed_json_names_the_node(text, pattern):
    with pytest.raises(mx.MXNetError, match=pattern):
        mx.sym.fromjson(text)


def test_load_and_save_errors(tmp_path):
    with pytest.raises(mx.MXNetError, match="cannot load symbol file"):
        mx.sym.load(str(tmp_path / "missing.json"))
    with pytest.raises(mx.MXNetError, match="cannot save symbol file"):
        mx.sym.var("x").save(str(tmp_path / "no" / "dir.json"))
    bad = tmp_path / "bad-symbol.json"
    bad.write_text("{}")
    with pytest.raises(mx.MXNetError, match="bad-symbol.json"):
        mx.sym.load(str(bad))
    with pytest.raises(TypeError):
        mx.sym.var("x").save(3)


def test_save_replaces_atomically(tmp_path):
    path = tmp_path / "net-symbol.json"
    path.write_text("old")
    sym = mx.sym.relu(mx.sym.var("x"), name="r")
    sym.save(str(path))
    assert path.read_text() == sym.tojson()
    assert sorted(os.listdir(tmp_path)) == ["net-symbol.json"]
