"""``mx.viz``: draw a Symbol as a graphviz ``Digraph`` and print a layer summary, as MXNet 1.9's
``mxnet.visualization`` does.

``plot_network`` builds the ``graphviz.Digraph`` only (no ``dot`` binary needed); rendering it
(``digraph.render()``, a notebook's SVG display) needs Graphviz's ``dot`` installed. Node and edge
text comes from model files, which are untrusted: it is always written as plain text (never an
HTML-like label), with backslashes and quotes escaped.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab import viz
    >>> net = mx.sym.var('data')
    >>> net = mx.sym.FullyConnected(net, num_hidden=128, name='fc1')
    >>> net = mx.sym.Activation(net, act_type='relu', name='relu1')
    >>> dot = viz.plot_network(net)
    >>> print(dot.source)   # doctest: +NORMALIZE_WHITESPACE
    digraph plot {
        data [label=data fillcolor="#8dd3c7" fixedsize=true height=0.8034 shape=oval style=filled width=1.3]
        fc1 [label="FullyConnected\\n128" fillcolor="#fb8072" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
        relu1 [label="Activation\\nrelu" fillcolor="#ffffb3" fixedsize=true height=0.8034 shape=box style=filled width=1.3]
        fc1 -> data [arrowtail=open dir=back]
        relu1 -> fc1 [arrowtail=open dir=back]
    }
"""
import copy
import re
import warnings

import numpy as np

from .symbol.symbol import Symbol

__all__ = ["plot_network", "print_summary", "looks_like_weight", "variable_kinds", "entry_shapes", "entry_types"]

# MXNet's colour map: inputs, conv/fc, activations, BatchNorm, pooling, reshaping, softmax, the rest
_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")
_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean", "_running_var",
                    "_running_mean")
# input slots that hold learned parameters (a variable used only there is a parameter, whatever its name)
_PARAM_SLOTS = frozenset(("weight", "bias", "gamma", "beta", "parameters", "alpha"))


def looks_like_weight(name):
    """MXNet's rule for ``hide_weights``: a variable named ``*_weight``, ``*_bias``, ``*_gamma``... .

    >>> from hybridlab.viz import looks_like_weight
    >>> looks_like_weight('dense0_weight'), looks_like_weight('bn0_running_var'), looks_like_weight('data')
    (True, True, False)
    """
    return name.endswith(_WEIGHT_SUFFIXES)


def variable_kinds(symbol, inputs=None):
    """``{id(node): "input" | "param" | "aux"}`` for the variables of ``symbol``. With ``inputs``
    (names), exactly those are inputs; otherwise a variable is a parameter when its name looks like a
    weight or it only feeds parameter slots (an op's ``weight``, ``bias``, ``gamma``...)."""
    aux = symbol._aux_nodes()
    slots = {}
    for node in symbol._nodes():
        if node.is_variable:
            continue
        names = node.input_names()
        for i, (src, _) in enumerate(node.inputs):
            if src.is_variable:
                slots.setdefault(id(src), set()).add(names[i] if i < len(names) else f"arg{i}")
    kinds = {}
    for node in symbol._nodes():
        if not node.is_variable:
            continue
        if id(node) in aux:
            kinds[id(node)] = "aux"
        elif inputs is not None:
            kinds[id(node)] = "input" if node.name in inputs else "param"
        elif looks_like_weight(node.name) or (slots.get(id(node)) and slots[id(node)] <= _PARAM_SLOTS):
            kinds[id(node)] = "param"
        else:
            kinds[id(node)] = "input"
    return kinds


def entry_shapes(symbol, shape):
    """``{(id(node), output_index): shape}`` for every visible output of ``symbol``'s graph, from
    ``get_internals().infer_shape(**shape)`` as MXNet does (a ValueError when it is incomplete).

    >>> import hybridlab as mx
    >>> from hybridlab.viz import entry_shapes
    >>> y = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=4, name='fc')
    >>> sorted(entry_shapes(y, {'x': (2, 3)}).values())
    [(2, 3), (2, 4), (4,), (4, 3)]
    """
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None or any(s is None for s in out_shapes):
        kinds = variable_kinds(symbol)
        missing = [n.name for n in symbol._nodes() if kinds.get(id(n)) == "input" and n.name not in shape]
        raise ValueError(f"Input shape is incomplete: expected the shapes of the inputs {missing or '(all given)'} "
                         f"(parameter shapes follow from them), got {dict(shape)}")
    return {(id(node), i): tuple(s) for (node, i), s in zip(internals._outputs, out_shapes)}


def entry_types(symbol, dtype):
    """``{(id(node), output_index): np.dtype}`` from ``get_internals().infer_type(**dtype)``.

    >>> import hybridlab as mx
    >>> from hybridlab.viz import entry_types
    >>> y = mx.sym.relu(mx.sym.var('x'), name='r')
    >>> sorted(t.name for t in entry_types(y, {'x': 'float16'}).values())
    ['float16', 'float16']
    """
    internals = symbol.get_internals()
    _, out_types, _ = internals.infer_type(**dtype)
    if out_types is None or any(t is None for t in out_types):
        raise ValueError(f"Input type is incomplete: got {dict(dtype)}")
    return {(id(node), i): np.dtype(t) for (node, i), t in zip(internals._outputs, out_types)}


def _digits(text):
    return re.findall(r"\d+", text)


def _text(value):
    """Model-provided text as DOT-safe literal text (backslashes and quotes escaped)."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def _label_and_color(node):
    """MXNet 1.9's node label (with a literal ``\\n`` graphviz turns into a line break) and colour."""
    op, attrs = node.op_name, node.attrs
    a = node.parsed_attrs() if node.op is not None else {}
    name = _text(node.name)
    if op == "Convolution":
        stride = "x".join(_digits(attrs["stride"])) if "stride" in attrs else "1"
        return (f"Convolution\\n{'x'.join(_digits(attrs.get('kernel', '')))}/{stride}, "
                f"{_text(attrs.get('num_filter', ''))}", _COLORS[1])
    if op == "FullyConnected":
        return f"FullyConnected\\n{_text(attrs.get('num_hidden', ''))}", _COLORS[1]
    if op == "BatchNorm":
        return name, _COLORS[3]
    if op in ("Activation", "LeakyReLU"):
        return f"{op}\\n{_text(attrs.get('act_type', a.get('act_type', '')))}", _COLORS[2]
    if op == "Pooling":
        stride = "x".join(_digits(attrs["stride"])) if "stride" in attrs else "1"
        pool_type = _text(attrs.get("pool_type", a.get("pool_type", "max")))
        return f"Pooling\\n{pool_type}, {'x'.join(_digits(attrs.get('kernel', '')))}/{stride}", _COLORS[4]
    if op in ("Concat", "Flatten", "Reshape"):
        return name, _COLORS[5]
    if op == "Softmax":
        return name, _COLORS[6]
    return name, _COLORS[7]


def _dims(shape):
    return "x".join(str(d) for d in shape[1:])


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs={},
                 hide_weights=True):
    """A ``graphviz.Digraph`` of the graph computing ``symbol`` (MXNet 1.9's ``mx.viz.plot_network``).

    ``shape`` (input name -> shape) labels each edge with the shape flowing along it, batch axis
    dropped (``256``, ``32x12x12``); ``dtype`` (input name -> dtype) adds ``(float32)``.
    ``node_attrs`` override graphviz node attributes (default: filled boxes 1.3 x 0.8034).
    ``hide_weights`` drops ``*_weight``/``*_bias``/``*_gamma``... variables and their edges; with
    ``hide_weights=False`` their edges stay and graphviz draws them as plain ovals (as MXNet does).
    Building the Digraph needs only the ``graphviz`` Python package; ``dot.render()`` needs Graphviz.

    >>> import hybridlab as mx
    >>> from hybridlab import viz
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.Convolution(x, kernel=(3, 3), stride=(1, 1), num_filter=32, name='conv1')
    >>> y = mx.sym.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
    >>> dot = viz.plot_network(y, title='convnet', node_attrs={'fixedsize': 'false'})
    >>> [line.split('[')[0].strip() for line in dot.body]
    ['data', 'conv1', 'pool1', 'conv1 -> data', 'pool1 -> conv1']
    >>> 'label="Convolution\\\\n3x3/1x1, 32"' in dot.source, 'label="Pooling\\\\nmax, 2x2/2x2"' in dot.source
    (True, True)
    """
    try:
        from graphviz import Digraph, nohtml
        from graphviz.quoting import attr_list, quote
    except ImportError:
        raise ImportError("Draw network requires graphviz library (pip install graphviz; rendering also "
                          "needs the Graphviz 'dot' program)") from None
    if not isinstance(symbol, Symbol):
        raise TypeError(f"symbol must be a Symbol, got {type(symbol).__name__}")
    shapes = entry_shapes(symbol, shape) if shape is not None else None
    types = entry_types(symbol, dtype) if dtype is not None else None
    nodes = symbol._nodes()
    names = [n.name for n in nodes]
    if len(names) != len(set(names)):
        seen, repeated = set(), set()
        for n in names:
            (repeated if n in seen else seen).add(n)
        warnings.warn("There are multiple variables with the same name in your graph, this may result in "
                      "cyclic graph. Repeated names: " + ",".join(sorted(repeated)), RuntimeWarning)
    node_attr = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034", "style": "filled"}
    node_attr.update(node_attrs)
    dot = Digraph(name=title, format=save_format)

    def ident(name):
        return quote(nohtml(_text(name)))

    hidden = set()
    for node in nodes:
        attr = copy.deepcopy(node_attr)
        if node.is_variable:
            if looks_like_weight(node.name):
                if hide_weights:
                    hidden.add(id(node))
                continue            # not drawn as a box: graphviz shows it as a plain oval via its edge
            attr["shape"] = "oval"
            label, attr["fillcolor"] = _text(node.name), _COLORS[0]
        else:
            label, attr["fillcolor"] = _label_and_color(node)
        dot.node(name=nohtml(_text(node.name)), label=nohtml(label), **attr)

    for node in nodes:
        if node.is_variable:
            continue
        for src, index in node.inputs:
            if id(src) in hidden:
                continue
            attr = {"dir": "back", "arrowtail": "open"}
            label = ""
            if shapes is not None:
                label = _dims(shapes[(id(src), index)])
            if types is not None:
                label += "(" + types[(id(src), index)].name + ")"
            if shapes is not None or types is not None:
                attr["label"] = label
            # written directly: names may hold ':' which graphviz's edge() would read as a port
            dot.body.append(f"\t{ident(node.name)} -> {ident(src.name)}{attr_list(attributes=attr)}\n")
    # for the notebook display (hybridlab.lab registers a formatter): the graph behind the drawing
    dot.hybridlab_symbol, dot.hybridlab_shape = symbol, dict(shape) if shape else None
    return dot


def _layer_params(node, kinds, shapes):
    """Parameter count of one layer: the elements of its parameter inputs when their shapes are
    known, else MXNet's formula from the attributes (which needs the input width: 0 when unknown)."""
    params = [(src, i) for src, i in node.inputs if kinds.get(id(src)) == "param"]
    if shapes is not None and params and all((id(s), i) in shapes for s, i in params):
        return sum(int(np.prod(shapes[(id(s), i)], dtype=np.int64)) for s, i in params)
    attrs = node.attrs
    no_bias = attrs.get("no_bias", "False") == "True"
    if node.op_name == "Convolution":
        return 0 if no_bias else int(attrs["num_filter"])
    if node.op_name == "FullyConnected":
        return 0 if no_bias else int(attrs["num_hidden"])
    if node.op_name == "Embedding":
        return int(attrs["input_dim"]) * int(attrs["output_dim"])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=[.44, .64, .74, 1.]):
    """Print MXNet 1.9's layer table: ``Layer (type)``, ``Output Shape`` (batch axis dropped),
    ``Param #``, ``Previous Layer``, then ``Total params``. ``positions`` are the column ends, as
    fractions of ``line_length`` (or absolute when the last is > 1). Parameter counts are exact
    (the elements of each layer's weight, bias, gamma, beta...) when ``shape`` is given; without
    it, MXNet's attribute formula (``num_hidden`` / ``num_filter`` biases only) is all there is.

    >>> import hybridlab as mx
    >>> from hybridlab import viz
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc1')
    >>> viz.print_summary(net, shape={'data': (1, 4)}, line_length=80)
    ________________________________________________________________________________
    Layer (type)                       Output Shape    Param # Previous Layer
    ================================================================================
    data(null)                         4               0
    ________________________________________________________________________________
    fc1(FullyConnected)                10              50      data
    ================================================================================
    Total params: 50
    ________________________________________________________________________________
    >>> viz.print_summary(net, line_length=80)     # no shapes: only the biases are known
    ________________________________________________________________________________
    Layer (type)                       Output Shape    Param # Previous Layer
    ================================================================================
    data(null)                                         0
    ________________________________________________________________________________
    fc1(FullyConnected)                                10      data
    ================================================================================
    Total params: 10
    ________________________________________________________________________________
    """
    if not isinstance(symbol, Symbol):
        raise TypeError(f"symbol must be Symbol, got {type(symbol).__name__}")
    shapes = entry_shapes(symbol, shape) if shape is not None else None
    kinds = variable_kinds(symbol)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def print_row(fields):
        line = ""
        for field, end in zip(fields, positions):
            line += str(field)
            line = line[:end]
            line += " " * (end - len(line))
        print(line)

    print("_" * line_length)
    print_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    rows = [n for n in symbol._nodes() if not n.is_variable or kinds[id(n)] == "input"]
    total = 0
    for k, node in enumerate(rows):
        out_shape = shapes.get((id(node), 0), ()) if shapes is not None else ()
        previous = [src.name for src, _ in node.inputs if not src.is_variable or kinds[id(src)] == "input"]
        params = 0 if node.is_variable else _layer_params(node, kinds, shapes)
        total += params
        print_row([f"{node.name}({node.op_name})", _dims(out_shape) if out_shape else "", params,
                   previous[0] if previous else ""])
        for name in previous[1:]:
            print_row(["", "", "", name])
        print(("=" if k == len(rows) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)
