"""The graph JSON contract for the JupyterLab frontend (ARCHITECTURE.md contract 4; every field is
documented in docs/graph-json.md and typed in src/tokens.ts).

``graph_json(symbol_or_block)`` returns a plain dict (``json.dumps`` works on it)::

    {"version": 1,
     "nodes": [{"id", "name", "op", "family", "attrs", "inputs": [[node_id, output_index]],
                "outputs": [{"name", "shape", "dtype"}], "scope": [...],
                "source": {"file", "line", "code"} | None, "is_param", "is_aux", "is_input"}],
     "heads": [[node_id, output_index]],
     "passes": [{"name", "graph"}],
     "source_code": str | None}

Node ids are positions in MXNet's node order (the order of ``Symbol.tojson()``), so every input
refers to a smaller id. Names and attributes are model text, passed through as plain strings: the
frontend must escape them (model files are untrusted).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.lab.graph_json import graph_json
    >>> from hybridlab.symbol import provenance
    >>> with provenance.scope('net0'), provenance.scope('dense0'):
    ...     y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    >>> g = graph_json(y)
    >>> [(n["id"], n["name"], n["op"], n["is_input"], n["is_param"]) for n in g["nodes"]]
    [(0, 'data', 'null', True, False), (1, 'fc_weight', 'null', False, True), (2, 'fc_bias', 'null', False, True), (3, 'fc', 'FullyConnected', False, False)]
    >>> g["nodes"][3]["inputs"], g["nodes"][3]["scope"], g["nodes"][3]["attrs"]
    ([[0, 0], [1, 0], [2, 0]], ['net0', 'dense0'], {'num_hidden': '4'})
"""
import numpy as np

from ..symbol.graph import topo_order
from ..symbol.infer import annotate
from ..symbol.symbol import Symbol
from ..viz import variable_kinds

__all__ = ["graph_json", "stages_json", "GRAPH_JSON_VERSION"]

GRAPH_JSON_VERSION = 1


def _flatten_symbols(items):
    if isinstance(items, Symbol):
        yield items
    elif isinstance(items, (list, tuple)):
        for item in items:
            yield from _flatten_symbols(item)


def _resolve(obj):
    """(symbol, input names or None, hybridization state or None) for a Symbol or a hybridized block."""
    if isinstance(obj, Symbol):
        return obj, None, None
    state = getattr(obj, "hybridization", None)
    if state is not None:
        if state.graph is None:
            raise ValueError(f"graph_json: {type(obj).__name__} {getattr(obj, 'name', '')!r} has no cached graph "
                             f"yet: expected a hybridized block that has been called once (net.hybridize(); "
                             f"net(x))")
        out = state.graph
        if not isinstance(out, Symbol):
            out = Symbol([e for s in _flatten_symbols(out) for e in s.entries])
        inputs = [n for s in _flatten_symbols(state.inputs) for n in s.list_inputs()]
        return out, inputs, state
    raise TypeError(f"graph_json: expected a Symbol or a hybridized block (a HybridBlock), "
                    f"got {type(obj).__name__}")


def stages_json(stages):
    """The graph JSON ``"passes"`` field for a pass pipeline's ``[(pass name, Symbol)]`` stages
    (``compiler.passes.run_pipeline``, ``block.hybridization.pipeline``): ``[{"name", "graph"}]``.

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import run_pipeline
    >>> _, stages = run_pipeline(mx.sym.exp(mx.sym.var('x')) + 1)
    >>> [p["name"] for p in stages_json(stages)]
    ['dce', 'cse', 'constant_folding', 'pool_first', 'fusion', 'inplace']
    """
    return [{"name": name, "graph": graph_json(snapshot)} for name, snapshot in stages]


def _backward(state):
    """The graph of the latest compiled backward of a hybridized block (``null`` before a recorded
    call needed one): its variables are the saved forward values and the ``*_head_grad`` inputs, its
    outputs the input gradients; ``source_code`` holds the backward program."""
    plan = state.backward_plan() if state is not None else None
    if plan is None or plan.symbol is None:
        return None
    # the backward program's inferred shapes/dtypes (saved values, parameters, head gradients and
    # every gradient op), keyed by node: the backward graph's own nodes carry none
    prog = plan.backward
    known = (getattr(prog, "shapes", None) or {}, getattr(prog, "dtypes", None) or {})
    graph = _graph(plan.symbol, None, known)
    graph["source_code"] = getattr(prog, "source", None)
    return graph


def _annotate(symbol, shapes, dtypes):
    """Graph-level inference from the given input shapes/dtypes, stored in ``node.meta`` (unknown
    entries stay ``None``)."""
    if dtypes is None:      # MXNet's default: the inputs given a shape are float32
        arguments = set(symbol.list_arguments())
        dtypes = {name: "float32" for name in shapes or {} if name in arguments}
    annotate(symbol, shapes=shapes, dtypes=dtypes)


def _shape(value):
    if value is None:
        return None
    return [int(d) for d in value]


def _dtype(value):
    if value is None:
        return None
    try:
        return np.dtype(value).name
    except TypeError:
        return str(value)


def _source(meta):
    src = meta.get("source")
    if not src:
        return None
    return {"file": str(src.get("file", "")), "line": int(src.get("line", 0) or 0), "code": str(src.get("code", ""))}


def _outputs(node, known=None):
    outs = []
    shapes, dtypes = node.meta.get("shapes") or (), node.meta.get("dtypes") or ()
    if known is not None:        # inferred by the compiler for this node (the backward graph)
        shapes = shapes or known[0].get(id(node)) or ()
        dtypes = dtypes or known[1].get(id(node)) or ()
    for i in range(node.num_visible()):
        shape = shapes[i] if i < len(shapes) else None
        dtype = dtypes[i] if i < len(dtypes) else None
        outs.append({"name": node.output_name(i), "shape": _shape(shape), "dtype": _dtype(dtype)})
    return outs


def graph_json(symbol_or_block, shapes=None, dtypes=None, inputs=None):
    """The graph JSON dict (docs/graph-json.md) of a Symbol or of a hybridized block.

    A block is a HybridBlock after its first hybridized call (``block.hybridization``: the traced
    graph); its inputs are the graph's inputs, ``passes`` its cached op's pass pipeline,
    ``backward`` its compiled backward and ``source_code`` its generated Python
    (``block.hybridization.program()``) when one is compiled. For a Symbol,
    ``inputs`` (names) says which variables are data inputs; by default a variable is a parameter
    when it is named like one (``*_weight``, ``*_bias``, ``*_gamma``...) or only feeds parameter
    slots, and an input otherwise.

    Output shapes and dtypes are what the nodes carry (``node.meta["shapes"]``/``["dtypes"]``: from
    tracing or an earlier inference). Given ``shapes``/``dtypes`` (input name -> shape tuple/dtype),
    graph-level inference runs first and stores its results there (inputs given a shape default to
    float32). Unknown ones are ``None``; a 0 inside a shape is an unknown dimension.

    >>> import json
    >>> import hybridlab as mx
    >>> from hybridlab.lab.graph_json import graph_json
    >>> a, b = mx.sym.var('a'), mx.sym.var('b')
    >>> g = graph_json(mx.sym.Group([mx.sym.broadcast_add(a, b, name='add'), mx.sym.exp(a, name='e')]))
    >>> [(n["name"], n["op"], n["family"], n["inputs"]) for n in g["nodes"]]
    [('a', 'null', 'variable', []), ('b', 'null', 'variable', []), ('add', 'broadcast_add', 'broadcast', [[0, 0], [1, 0]]), ('e', 'exp', 'elemwise', [[0, 0]])]
    >>> g["heads"], g["passes"], g["source_code"]
    ([[2, 0], [3, 0]], [], None)
    >>> json.loads(json.dumps(g)) == g
    True
    """
    symbol, block_inputs, state = _resolve(symbol_or_block)
    if inputs is None:
        inputs = block_inputs
    if shapes is not None or dtypes is not None:
        _annotate(symbol, shapes, dtypes)
    graph = _graph(symbol, inputs, guards=_guards(state, symbol) if state is not None else None)
    if state is not None:
        graph["passes"] = stages_json(state.pipeline)
        graph["backward"] = _backward(state)
        if graph["backward"] is not None:
            _scope_backward(graph["backward"], graph["nodes"])
        graph["source_code"] = state.program()
    return graph


def _scope_backward(backward, forward_nodes):
    """Give each backward node the Block scope of the forward node it belongs to, so the backward
    graph folds by Block as the forward one does: the compiler names gradient ops and saved values
    after their forward node (``<forward name>_backward_mul0``, ``<forward name>_columns``), so the
    longest forward name that prefixes a backward name (at a ``_``) is its node."""
    scope_of = {n["name"]: n["scope"] for n in forward_nodes if n["scope"]}
    for node in backward["nodes"]:
        if node["scope"]:
            continue
        parts = node["name"].split("_")
        for end in range(len(parts), 0, -1):
            scope = scope_of.get("_".join(parts[:end]))
            if scope is not None:
                node["scope"] = list(scope)
                break


def _guards(state, symbol):
    """``{id(node): [guard JSON]}``: the nodes whose attributes bake in a shape (dtype, device) the
    block's forward read while tracing (``block.hybridization.shape_reads``, the shape guards)."""
    out = {}
    nodes = topo_order(symbol.entries)
    for read in state.shape_reads:
        for node, attrs in read.baked_into(nodes):
            out.setdefault(id(node), []).append({
                "what": str(read.what), "array": str(read.label), "value": str(read.value),
                "attrs": [str(a) for a in attrs], "source": _source({"source": read.source})})
    return out


def _graph(symbol, inputs, known=None, guards=None):
    """The graph JSON dict of ``symbol`` (no passes, backward or source: a block's are added by
    ``graph_json``); ``known``: ``({id(node): shapes}, {id(node): dtypes})`` filling what the nodes
    do not carry."""
    heads = symbol.entries
    nodes = topo_order(heads)
    ids = {id(n): k for k, n in enumerate(nodes)}
    kinds = variable_kinds(symbol, inputs=None if inputs is None else set(inputs))
    out_nodes = []
    for k, node in enumerate(nodes):
        kind = kinds.get(id(node))
        out_nodes.append({
            "id": k,
            "name": str(node.name),
            "op": node.op_name,
            "family": "variable" if node.is_variable else node.op.family,
            "attrs": {str(key): str(value) for key, value in node.attrs.items()},
            "inputs": [[ids[id(src)], int(i)] for src, i in node.inputs],
            "outputs": _outputs(node, known),
            "scope": [str(s) for s in node.meta.get("scope") or []],
            "source": _source(node.meta),
            "is_param": kind == "param",
            "is_aux": kind == "aux",
            "is_input": kind == "input",
            "guards": (guards or {}).get(id(node), []),
        })
    return {
        "version": GRAPH_JSON_VERSION,
        "nodes": out_nodes,
        "heads": [[ids[id(node)], int(i)] for node, i in heads],
        "passes": [],
        "backward": None,
        "source_code": None,
    }
