"""The graph JSON contract (docs/graph-json.md): fields, consistent ids, provenance, blocks."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.lab.graph_json import GRAPH_JSON_VERSION, graph_json
from hybridlab.symbol import provenance

NODE_KEYS = {"id", "name", "op", "family", "attrs", "inputs", "outputs", "scope", "source", "is_param", "is_aux",
             "is_input", "guards"}



def mlp():
    net = mx.sym.var("data")
    net = mx.sym.FullyConnected(net, num_hidden=256, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    return mx.sym.FullyConnected(net, num_hidden=2, name="fc2")


def check_contract(g):
    """Every documented field with its type; ids are positions and inputs point backwards."""
    assert set(g) == {"version", "nodes", "heads", "passes", "backward", "source_code"}
    assert g["version"] == GRAPH_JSON_VERSION == 1
    assert isinstance(g["passes"], list)
    assert g["source_code"] is None or isinstance(g["source_code"], str)
    for k, node in enumerate(g["nodes"]):
        assert set(node) == NODE_KEYS
        assert node["id"] == k
        assert isinstance(node["name"], str) and isinstance(node["op"], str) and isinstance(node["family"], str)
        assert all(isinstance(key, str) and isinstance(v, str) for key, v in node["attrs"].items())
        for src, idx in node["inputs"]:
            assert 0 <= src < k and 0 <= idx < len(g["nodes"][src]["outputs"])
        assert node["outputs"] and all(set(o) == {"name", "shape", "dtype"} for o in node["outputs"])
        assert all(isinstance(s, str) for s in node["scope"])
        assert node["source"] is None or set(node["source"]) == {"file", "line", "code"}
        flags = [node["is_param"], node["is_aux"], node["is_input"]]
        assert sum(flags) == (1 if node["op"] == "null" else 0)
        assert (node["family"] == "variable") == (node["op"] == "null")
    for src, idx in g["heads"]:
        assert 0 <= src < len(g["nodes"]) and 0 <= idx < len(g["nodes"][src]["outputs"])
    assert json.loads(json.dumps(g)) == g


def by_name(g):
    return {n["name"]: n for n in g["nodes"]}


def test_composed_mlp_fields():
    g = graph_json(mlp())
    check_contract(g)
    nodes = by_name(g)
    assert [n["name"] for n in g["nodes"]] == ["data", "fc1_weight", "fc1_bias", "fc1", "relu1", "fc2_weight",
                                              "fc2_bias", "fc2"]
    assert g["heads"] == [[7, 0]]
    assert nodes["fc1"]["op"] == "FullyConnected" and nodes["fc1"]["family"] == "nn"
    assert nodes["fc1"]["attrs"] == {"num_hidden": "256"}
    assert nodes["fc1"]["inputs"] == [[0, 0], [1, 0], [2, 0]]
    assert nodes["relu1"]["attrs"] == {"act_type": "relu"} and nodes["relu1"]["inputs"] == [[3, 0]]
    assert nodes["fc1"]["outputs"] == [{"name": "fc1_output", "shape": None, "dtype": None}]
    assert nodes["data"]["outputs"][0]["name"] == "data"
    assert nodes["data"]["is_input"] and nodes["fc1_weight"]["is_param"] and nodes["fc2_bias"]["is_param"]
    assert g["passes"] == [] and g["source_code"] is None


def test_ids_match_the_mxnet_node_order():
    sym = mlp()
    g = graph_json(sym)
    mxnet = json.loads(sym.tojson())
    assert [n["name"] for n in mxnet["nodes"]] == [n["name"] for n in g["nodes"]]
    assert [[i[:2] for i in n["inputs"]] for n in mxnet["nodes"]] == [n["inputs"] for n in g["nodes"]]
    assert [h[:2] for h in mxnet["heads"]] == g["heads"]


def test_scope_and_source_inside_provenance_scope():
    here = os.path.abspath(__file__)
    x = mx.sym.var("data")
    with provenance.scope("net0"):
        with provenance.scope("dense0"):
            y = mx.sym.FullyConnected(x, num_hidden=4, name="fc")   # the line the node records
        z = mx.sym.relu(y, name="act")
    top = mx.sym.sigmoid(z, name="out")
    g = graph_json(top)
    check_contract(g)
    nodes = by_name(g)
    assert nodes["fc"]["scope"] == ["net0", "dense0"]
    assert nodes["act"]["scope"] == ["net0"]
    assert nodes["out"]["scope"] == []
    src = nodes["fc"]["source"]
    assert os.path.abspath(src["file"]) == here
    assert isinstance(src["line"], int) and src["line"] > 0
    assert src["code"] == 'y = mx.sym.FullyConnected(x, num_hidden=4, name="fc")   # the line the node records'
    assert nodes["act"]["source"]["line"] == src["line"] + 1
    assert nodes["data"]["source"] is None and nodes["data"]["scope"] == []


def test_aux_states_and_input_override():
    x = mx.sym.var("data")
    y = mx.sym.BatchNorm(mx.sym.Convolution(x, kernel=(3, 3), num_filter=8, name="conv"), name="bn")
    g = graph_json(y)
    check_contract(g)
    nodes = by_name(g)
    assert nodes["bn_moving_mean"]["is_aux"] and nodes["bn_moving_var"]["is_aux"]
    assert nodes["bn_gamma"]["is_param"] and nodes["conv_weight"]["is_param"] and nodes["data"]["is_input"]
    assert nodes["bn"]["family"] == "norm" and nodes["conv"]["family"] == "conv"
    # inputs= decides which variables are data inputs
    g2 = by_name(graph_json(y, inputs=["data", "conv_weight"]))
    assert g2["conv_weight"]["is_input"] and g2["bn_gamma"]["is_param"] and g2["bn_moving_var"]["is_aux"]


def test_multi_output_nodes_and_groups():
    x = mx.sym.var("x")
    parts = mx.sym.split(x, num_outputs=3, axis=1, name="sp")
    g = graph_json(mx.sym.Group([parts[2], mx.sym.relu(parts[1], name="r")]))
    check_contract(g)
    nodes = by_name(g)
    assert [o["name"] for o in nodes["sp"]["outputs"]] == ["sp_output0", "sp_output1", "sp_output2"]
    assert nodes["r"]["inputs"] == [[nodes["sp"]["id"], 1]]
    assert g["heads"] == [[nodes["sp"]["id"], 2], [nodes["r"]["id"], 0]]


def test_shapes_and_dtypes_from_node_meta():
    """Traced graphs carry their shapes on the nodes; graph_json reports them without inference."""
    sym = mlp()
    for node in sym._nodes():
        if node.name == "fc1":
            node.meta["shapes"] = [(1, 256)]
            node.meta["dtypes"] = [np.dtype("float16")]
    nodes = by_name(graph_json(sym))
    assert nodes["fc1"]["outputs"] == [{"name": "fc1_output", "shape": [1, 256], "dtype": "float16"}]
    assert nodes["fc2"]["outputs"][0]["shape"] is None


def test_shapes_from_inference():
    g = graph_json(mlp(), shapes={"data": (4, 512)})
    check_contract(g)
    nodes = by_name(g)
    assert nodes["data"]["outputs"][0] == {"name": "data", "shape": [4, 512], "dtype": "float32"}
    assert nodes["fc1_weight"]["outputs"][0]["shape"] == [256, 512]
    assert nodes["fc1"]["outputs"][0] == {"name": "fc1_output", "shape": [4, 256], "dtype": "float32"}
    assert nodes["fc2"]["outputs"][0]["shape"] == [4, 2]
    g16 = by_name(graph_json(mlp(), shapes={"data": (4, 512)}, dtypes={"data": "float16"}))
    assert g16["fc2"]["outputs"][0]["dtype"] == "float16"


def test_untrusted_names_pass_through_as_plain_strings():
    x = mx.sym.var("<img src=x onerror=alert(1)>")
    y = mx.sym.relu(x, name='r"\\')
    g = graph_json(y)
    check_contract(g)
    assert [n["name"] for n in g["nodes"]] == ["<img src=x onerror=alert(1)>", 'r"\\']


class FakeState:
    """What the graph contract reads of a block's hybridization state (``gluon.hybridization``)."""

    def __init__(self, cached_graph, source=None):
        self.inputs, self.graph = cached_graph if cached_graph else (None, None)
        self.pipeline = []
        self.shape_reads = []       # the shape guards (none here)
        self.source = source

    def program(self, kind="forward"):
        return self.source          # None: nothing compiled yet

    def backward_plan(self):
        return None


class FakeBlock:
    """A hybridized block as the graph contract sees it: its ``hybridization`` state."""

    def __init__(self, cached_graph, source=None, name="mlp0"):
        self.hybridization = FakeState(cached_graph, source)
        self.name = name


def test_hybridized_block_like_object():
    data = mx.sym.var("data")
    with provenance.scope("mlp0"), provenance.scope("dense0"):
        out = mx.sym.FullyConnected(data, num_hidden=3, name="mlp0_dense0_fwd")
    for node in out._nodes():                # MXNet 1.x export names: <prefix>weight, <prefix>bias
        if node.is_variable and node.name != "data":
            node.name = "mlp0_dense0_" + ("kernel" if node.name.endswith("weight") else "bias")
    block = FakeBlock(([data], out), "def forward(data, w, b):\n    return ...\n")
    g = graph_json(block)
    check_contract(g)
    nodes = by_name(g)
    assert nodes["data"]["is_input"]
    assert nodes["mlp0_dense0_kernel"]["is_param"] and nodes["mlp0_dense0_bias"]["is_param"]
    assert nodes["mlp0_dense0_fwd"]["scope"] == ["mlp0", "dense0"]
    assert g["source_code"].startswith("def forward(")
    # nothing compiled yet, or no cached op at all: the graph is still there
    assert graph_json(FakeBlock(([data], out), None))["source_code"] is None
    # several outputs given as a list of Symbols
    two = graph_json(FakeBlock(([data], [out, mx.sym.relu(out, name="r")])))
    assert len(two["heads"]) == 2


def test_errors_name_what_was_expected():
    with pytest.raises(ValueError, match="no cached graph yet.*net.hybridize"):
        graph_json(FakeBlock((), name="net0"))
    with pytest.raises(TypeError, match="expected a Symbol or a hybridized block.*got int"):
        graph_json(3)


DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


@pytest.mark.parametrize("name", ["mobilenet0.25", "bn_dropout", "attention"])
def test_real_mxnet_models(name):
    """Flags and parameter shapes agree with what real MXNet wrote (the .params file: arg:/aux: keys)."""
    with open(os.path.join(DATA, f"{name}-meta.json")) as f:
        meta = json.load(f)
    shapes = {i["name"]: tuple(i["shape"]) for i in meta["inputs"]}
    sym = mx.sym.load(os.path.join(DATA, f"{name}-symbol.json"))
    g = graph_json(sym, shapes=shapes)
    check_contract(g)
    params = mx.nd.load(os.path.join(DATA, f"{name}-0000.params"))
    for node in g["nodes"]:
        if node["op"] != "null":
            assert all(o["shape"] is not None and o["dtype"] == "float32" for o in node["outputs"]), node["name"]
            continue
        if node["is_input"]:
            assert node["name"] in shapes
            continue
        key = ("aux:" if node["is_aux"] else "arg:") + node["name"]
        assert key in params, f"{node['name']} flagged {'aux' if node['is_aux'] else 'param'}"
        assert node["outputs"][0]["shape"] == list(params[key].shape)
    assert [n["name"] for n in g["nodes"] if n["is_aux"]] == sym.list_auxiliary_states()


def test_a_hybridized_gluon_block_publishes_its_graph():
    """End to end with the real Gluon layer: the cache_built event carries this contract."""
    from hybridlab import events
    from hybridlab.gluon import HybridBlock, nn

    class Net(HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.fc = nn.Dense(3)

        def hybrid_forward(self, F, x):
            return F.relu(self.fc(x))   # the user line the relu node records

    net = Net()
    net.initialize()
    net.hybridize()
    got = []
    with events.subscribe("cache_built", got.append):
        net(mx.nd.ones((2, 5)))
    assert [e["reason"] for e in got] == ["first call"] and got[0]["block"] == net.name
    e = got[0]
    assert isinstance(e["graph"], mx.sym.Symbol) and e["inputs"] == ["data"] and e["shapes"] == {"data": (2, 5)}
    g = graph_json(net, shapes=e["shapes"], dtypes=e["dtypes"])      # what a graph view draws of it
    check_contract(g)
    inputs = [n for n in g["nodes"] if n["is_input"]]
    assert [n["name"] for n in inputs] == ["data"]
    params = sorted(n["name"] for n in g["nodes"] if n["is_param"])
    assert len(params) == 2 and params[0].endswith("bias") and params[1].endswith("weight")
    fc = next(n for n in g["nodes"] if n["op"] == "FullyConnected")
    assert fc["scope"][0] == net.name and len(fc["scope"]) == 2
    act = next(n for n in g["nodes"] if n["op"] == "relu")
    assert act["scope"] == [net.name]
    assert os.path.abspath(act["source"]["file"]) == os.path.abspath(__file__)
    assert act["source"]["code"].startswith("return F.relu(self.fc(x)")
    # after the call the cached op is compiled: its generated source is part of the graph
    assert isinstance(graph_json(net)["source_code"], str)
    again = graph_json(net, shapes={"data": (2, 5)})
    assert again["nodes"][act["id"]]["outputs"][0] == {"name": act["outputs"][0]["name"], "shape": [2, 3],
                                                      "dtype": "float32"}


def test_block_graph_carries_the_pass_pipeline_and_the_backward_graph():
    import json as _json
    from hybridlab.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((3, 5))
    net(x)
    g = graph_json(net)
    assert [p["name"] for p in g["passes"]] == ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
    assert g["backward"] is None
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    back = graph_json(net)["backward"]
    heads = [back["nodes"][i]["name"] for i, _ in back["heads"]]
    assert heads and "def backward(" in back["source_code"]
    assert any(n["name"].endswith("_head_grad") for n in back["nodes"] if n["op"] == "null")
    _json.dumps(graph_json(net))


def test_backward_graph_of_a_lenet_has_every_shape_and_dtype():
    """The backward view labels its edges with shapes: every node of the backward graph (saved
    forward values, weights, head gradients, gradient ops) carries its inferred shape and dtype."""
    from hybridlab.gluon import nn
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(channels=16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    net.initialize()
    net.hybridize()
    x = mx.nd.random.uniform(shape=(4, 1, 28, 28))
    with mx.autograd.record():
        y = net(x)
    y.backward()
    back = graph_json(net)["backward"]
    outs = {o["name"]: o for n in back["nodes"] for o in n["outputs"]}
    missing = [name for name, o in outs.items() if o["shape"] is None or o["dtype"] is None]
    assert not missing
    assert outs["lenet_dense2_weight"]["shape"] == [10, 84] and outs["lenet_dense2_weight"]["dtype"] == "float32"
    assert outs["lenet_dense2_fwd_output_head_grad"]["shape"] == [4, 10]
    # (max pooling runs before the relu it commutes with; relu's gradient reads its output, conv1's input)
    assert outs["lenet_conv0_relu_fwd_output"]["shape"] == [4, 6, 12, 12]
    edges = [back["nodes"][src]["outputs"][k] for n in back["nodes"] for src, k in n["inputs"]]
    assert edges and all(e["shape"] is not None for e in edges)
