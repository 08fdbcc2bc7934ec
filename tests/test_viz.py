"""mx.viz: plot_network builds MXNet 1.9's Digraph (labels, colours, hidden weights, edge shapes);
print_summary prints MXNet's layer table with exact parameter counts."""
import json
import os
import re
import shutil
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import viz



def tutorial_mlp():
    """The hybridize tutorial's MLP: Dense(256, relu), Dense(128, relu), Dense(2)."""
    net = mx.sym.var("data")
    net = mx.sym.FullyConnected(net, num_hidden=256, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=128, name="fc2")
    net = mx.sym.Activation(net, act_type="relu", name="relu2")
    return mx.sym.FullyConnected(net, num_hidden=2, name="fc3")


def conv_net():
    net = mx.sym.var("data")
    net = mx.sym.Convolution(net, kernel=(3, 3), stride=(1, 1), num_filter=32, name="conv1")
    net = mx.sym.BatchNorm(net, name="bn1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.Flatten(net, name="flatten1")
    return mx.sym.FullyConnected(net, num_hidden=10, name="fc1")


def declared_nodes(dot):
    """{node id: attribute text} for every node statement of the DOT body."""
    out = {}
    for line in dot.body:
        m = re.match(r'\t("(?:[^"\\]|\\.)*"|\S+) \[(.*)\]\n$', line)
        if m and " -> " not in line:
            out[m.group(1)] = m.group(2)
    return out


def edges(dot):
    """[(tail, head, attribute text)] of the DOT body."""
    out = []
    for line in dot.body:
        m = re.match(r'\t("(?:[^"\\]|\\.)*"|\S+) -> ("(?:[^"\\]|\\.)*"|\S+)(?: \[(.*)\])?\n$', line)
        if m:
            out.append((m.group(1), m.group(2), m.group(3) or ""))
    return out


def test_mlp_nodes_labels_and_hidden_weights():
    dot = viz.plot_network(tutorial_mlp(), title="mlp")
    nodes = declared_nodes(dot)
    assert list(nodes) == ["data", "fc1", "relu1", "fc2", "relu2", "fc3"]
    assert 'label="FullyConnected\\n256"' in nodes["fc1"]       # a literal \n: graphviz's line break
    assert 'label="FullyConnected\\n2"' in nodes["fc3"]
    assert 'label="Activation\\nrelu"' in nodes["relu1"]
    assert "shape=oval" in nodes["data"] and 'fillcolor="#8dd3c7"' in nodes["data"]
    assert 'fillcolor="#fb8072"' in nodes["fc1"] and 'fillcolor="#ffffb3"' in nodes["relu1"]
    assert [(t, h) for t, h, _ in edges(dot)] == [("fc1", "data"), ("relu1", "fc1"), ("fc2", "relu1"),
                                                   ("relu2", "fc2"), ("fc3", "relu2")]
    assert all("dir=back" in a and "arrowtail=open" in a and "label" not in a for _, _, a in edges(dot))
    assert dot.name == "mlp" and dot.format == "pdf"
    assert "weight" not in dot.source and "bias" not in dot.source


def test_hide_weights_false_keeps_weight_edges():
    dot = viz.plot_network(tutorial_mlp(), hide_weights=False, save_format="svg")
    assert dot.format == "svg"
    # weights are not declared as boxes (MXNet draws them as plain ovals through their edges)
    assert "fc1_weight" not in declared_nodes(dot)
    pairs = [(t, h) for t, h, _ in edges(dot)]
    assert ("fc1", "fc1_weight") in pairs and ("fc1", "fc1_bias") in pairs
    assert len(pairs) == 5 + 3 * 2


def test_conv_net_labels_and_colours():
    dot = viz.plot_network(conv_net())
    nodes = declared_nodes(dot)
    assert list(nodes) == ["data", "conv1", "bn1", "relu1", "pool1", "flatten1", "fc1"]
    assert 'label="Convolution\\n3x3/1x1, 32"' in nodes["conv1"]
    assert 'label="Pooling\\nmax, 2x2/2x2"' in nodes["pool1"]
    assert "label=bn1" in nodes["bn1"] and 'fillcolor="#bebada"' in nodes["bn1"]
    assert 'fillcolor="#80b1d3"' in nodes["pool1"] and 'fillcolor="#fdb462"' in nodes["flatten1"]
    assert "moving" not in dot.source and "gamma" not in dot.source    # aux states and BN params hidden
    # without a stride attribute, MXNet writes a stride of 1
    no_stride = mx.sym.Convolution(mx.sym.var("x"), kernel=(5, 5), num_filter=8, name="c")
    assert 'label="Convolution\\n5x5/1, 8"' in declared_nodes(viz.plot_network(no_stride))["c"]


def test_other_ops_get_the_last_colour_and_their_name():
    x = mx.sym.var("x")
    y = mx.sym.softmax(mx.sym.exp(x, name="e"), name="sm")
    nodes = declared_nodes(viz.plot_network(y))
    assert "label=e" in nodes["e"] and 'fillcolor="#fccde5"' in nodes["e"]


def test_node_attrs_override_defaults():
    dot = viz.plot_network(tutorial_mlp(), node_attrs={"shape": "oval", "fixedsize": "false"})
    nodes = declared_nodes(dot)
    assert "shape=oval" in nodes["fc1"] and "fixedsize=false" in nodes["fc1"]
    assert "width=1.3" in nodes["fc1"]


def test_untrusted_names_are_plain_text():
    x = mx.sym.var("<b>x</b>")
    y = mx.sym.relu(x, name='a:b"c\\')
    dot = viz.plot_network(y)
    src = dot.source
    assert '"<b>x</b>" [label="<b>x</b>"' in src              # quoted: never an HTML-like label
    assert '"a:b\\"c\\\\" -> "<b>x</b>"' in src               # ':' is part of the name, not a port
    assert len(edges(dot)) == 1


def test_repeated_names_warn():
    a = mx.sym.var("x")
    b = mx.sym.var("x")
    with pytest.warns(RuntimeWarning, match="Repeated names: x"):
        viz.plot_network(a + b)


def test_errors():
    with pytest.raises(TypeError, match="symbol must be a Symbol, got int"):
        viz.plot_network(3)
    with pytest.raises(TypeError, match="symbol must be Symbol"):
        viz.print_summary("net")


def edge_labels(dot):
    """{(tail, head): edge label text or None}."""
    out = {}
    for tail, head, attrs in edges(dot):
        m = re.search(r'label=("(?:[^"\\]|\\.)*"|\S+)', attrs)
        out[(tail, head)] = m.group(1).strip('"') if m else None
    return out


def test_edges_carry_shapes():
    labels = edge_labels(viz.plot_network(tutorial_mlp(), shape={"data": (1, 512)}))
    assert labels[("fc1", "data")] == "512"
    assert labels[("relu1", "fc1")] == "256"
    assert labels[("fc3", "relu2")] == "128"
    labels = edge_labels(viz.plot_network(conv_net(), shape={"data": (2, 1, 28, 28)}))
    assert labels[("conv1", "data")] == "1x28x28"
    assert labels[("bn1", "conv1")] == "32x26x26"
    assert labels[("flatten1", "pool1")] == "32x13x13"
    assert labels[("fc1", "flatten1")] == "5408"


def test_edge_shapes_follow_the_output_index():
    x = mx.sym.var("x")
    parts = mx.sym.split(x, num_outputs=2, axis=1, name="sp")
    y = mx.sym.broadcast_add(mx.sym.relu(parts[0], name="r0"), mx.sym.sum(parts[1], axis=2, keepdims=True, name="s1"),
                            name="out")
    labels = edge_labels(viz.plot_network(y, shape={"x": (1, 4, 6)}))
    assert labels[("r0", "sp")] == "2x6" and labels[("s1", "sp")] == "2x6"
    assert labels[("out", "s1")] == "2x1"


def test_edges_carry_shapes_and_types():
    labels = edge_labels(viz.plot_network(tutorial_mlp(), shape={"data": (1, 512)}, dtype={"data": "float32"}))
    assert labels[("fc1", "data")] == "512(float32)"
    labels = edge_labels(viz.plot_network(tutorial_mlp(), dtype={"data": "float16"}))
    assert labels[("fc1", "data")] == "(float16)"


def test_render_svg_only_when_dot_is_installed():
    dot = viz.plot_network(conv_net())
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed: the Digraph is built, rendering is not possible")
    svg = dot.pipe(format="svg").decode()
    assert "<svg" in svg and "conv1" in svg


def summary_rows(text):
    """{layer: (output shape, params, previous)} from print_summary's default 120-column table
    (columns end at 52, 76, 88, 120)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\(\w+\)", line)
        if m and not line.startswith("Layer (type)"):
            rows[m.group(1)] = (line[52:76].strip(), int(line[76:88]), line[88:].strip())
    return rows


def test_print_summary_mlp_param_counts(capsys):
    viz.print_summary(tutorial_mlp(), shape={"data": (1, 512)})
    out = capsys.readouterr().out
    rows = summary_rows(out)
    assert rows["data"] == ("512", 0, "")
    assert rows["fc1"] == ("256", 512 * 256 + 256, "data")
    assert rows["relu1"] == ("256", 0, "fc1")
    assert rows["fc2"] == ("128", 256 * 128 + 128, "relu1")
    assert rows["fc3"] == ("2", 128 * 2 + 2, "relu2")
    total = 512 * 256 + 256 + 256 * 128 + 128 + 128 * 2 + 2
    assert f"Total params: {total}" in out


def test_print_summary_conv_net(capsys):
    viz.print_summary(conv_net(), shape={"data": (2, 1, 28, 28)})
    out = capsys.readouterr().out
    rows = summary_rows(out)
    assert rows["conv1"] == ("32x26x26", 1 * 32 * 3 * 3 + 32, "data")
    assert rows["bn1"] == ("32x26x26", 32 * 2, "conv1")     # gamma and beta; moving stats are not params
    assert rows["fc1"] == ("10", 32 * 13 * 13 * 10 + 10, "flatten1")


def test_print_summary_table_layout_without_shapes(capsys):
    viz.print_summary(tutorial_mlp())
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "_" * 120
    assert lines[1].startswith("Layer (type)") and lines[1][52:].startswith("Output Shape")
    assert lines[1][76:].startswith("Param #") and lines[1][88:].startswith("Previous Layer")
    assert lines[2] == "=" * 120
    rows = summary_rows("\n".join(lines))
    assert list(rows) == ["data", "fc1", "relu1", "fc2", "relu2", "fc3"]
    # without shapes only MXNet's attribute formula is available: the biases
    assert rows["fc1"] == ("", 256, "data") and rows["fc3"] == ("", 2, "relu2")
    assert lines[-3] == "=" * 120 and lines[-2] == "Total params: 386" and lines[-1] == "_" * 120


def test_print_summary_lists_every_previous_layer(capsys):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.elemwise_add(mx.sym.relu(a, name="ra"), mx.sym.relu(b, name="rb"), name="sum")
    viz.print_summary(s, line_length=100, positions=[40, 60, 70, 100])
    lines = capsys.readouterr().out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("sum(elemwise_add)"))
    assert lines[i][70:].strip() == "ra" and lines[i + 1].strip() == "rb"
    assert [line[:2] for line in lines if line.startswith(("a(", "b("))] == ["a(", "b("]


def test_weight_like_names_and_variable_kinds():
    assert viz.looks_like_weight("dense0_weight") and viz.looks_like_weight("bn_running_var")
    assert not viz.looks_like_weight("data")
    net = conv_net()
    kinds = {n.name: viz.variable_kinds(net)[id(n)] for n in net._nodes() if n.is_variable}
    assert kinds["data"] == "input" and kinds["conv1_weight"] == "param"
    assert kinds["bn1_moving_mean"] == "aux" and kinds["bn1_gamma"] == "param"
    # a variable with any name is a parameter when it only feeds parameter slots
    w = mx.sym.var("w")
    fc = mx.sym.FullyConnected(mx.sym.var("x"), w, no_bias=True, num_hidden=3)
    kinds = {n.name: viz.variable_kinds(fc)[id(n)] for n in fc._nodes() if n.is_variable}
    assert kinds == {"x": "input", "w": "param"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        viz.plot_network(fc)


DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
FIXTURES = ["mlp", "lenet", "mobilenet0.25", "bn_dropout", "attention"]


def load_fixture(name):
    with open(os.path.join(DATA, f"{name}-meta.json")) as f:
        meta = json.load(f)
    shapes = {i["name"]: tuple(i["shape"]) for i in meta["inputs"]}
    return mx.sym.load(os.path.join(DATA, f"{name}-symbol.json")), shapes


@pytest.mark.parametrize("name", FIXTURES)
def test_print_summary_counts_every_parameter_of_real_mxnet_models(name, capsys):
    sym, shapes = load_fixture(name)
    viz.print_summary(sym, shape=shapes)
    out = capsys.readouterr().out
    total = int(re.search(r"^Total params: (\d+)$", out, re.M).group(1))
    params = mx.nd.load(os.path.join(DATA, f"{name}-0000.params"))
    assert total == sum(int(np.prod(v.shape)) for k, v in params.items() if k.startswith("arg:"))


@pytest.mark.parametrize("name", FIXTURES)
def test_plot_network_draws_real_mxnet_models(name):
    sym, shapes = load_fixture(name)
    dot = viz.plot_network(sym, shape=shapes)
    drawn = declared_nodes(dot)
    ops = [n for n in sym._nodes() if not n.is_variable]
    assert len(drawn) == len(ops) + len(shapes)            # every op and every data input; no weights
    labels = edge_labels(dot)
    assert labels and all(label for label in labels.values())


def test_incomplete_shapes_are_a_clear_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # infer_shape's own "Cannot decide shape" warning
        with pytest.raises(ValueError, match=r"Input shape is incomplete.*\['data'\]"):
            viz.plot_network(tutorial_mlp(), shape={})
        with pytest.raises(ValueError, match="Input shape is incomplete"):
            viz.print_summary(tutorial_mlp(), shape={"fc1_bias": (256,)})
