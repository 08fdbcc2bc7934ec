"""MXNet 1.9's whole-model files: ``Block.save(prefix)`` writes ``<prefix>-model.json`` (the block
tree; per HybridBlock its cached graph when it has one, and its parameters' graph names) and
``<prefix>-model.params`` (structural names); ``Block.load(prefix)`` restores both into an
identically constructed model.

A model file is untrusted: ``load_model`` checks the whole ``-model.json`` against the model (every
block's entry, its parameter names, each cached graph: formats, input variables, and that the graph
reads only those inputs and the block's parameters) before changing anything, and any mismatch is
an ``MXNetError`` naming the file, the block entry and what was expected vs got. When the
parameters then fail to load, the blocks get their previous graphs and parameter names back.

Example::

    >>> import os, tempfile, hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(2, in_units=3))
    >>> net.initialize(); net.hybridize(); y = net(mx.nd.ones((1, 3)))
    >>> prefix = os.path.join(tempfile.mkdtemp(), "m")
    >>> net.save(prefix)
    >>> sorted(os.listdir(os.path.dirname(prefix)))
    ['m-model.json', 'm-model.params']
    >>> other = mx.gluon.nn.HybridSequential()
    >>> other.add(mx.gluon.nn.Dense(2, in_units=3))
    >>> other.load(prefix)
    >>> bool((other(mx.nd.ones((1, 3))).asnumpy() == y.asnumpy()).all())
    True
    >>> with open(prefix + "-model.json", "w") as f:
    ...     _ = f.write('{"foo": 1}')
    >>> try:
    ...     other.load(prefix)
    ... except mx.MXNetError as err:
    ...     print(str(err).split(": ", 1)[1])
    expected an entry 'hybridsequential0' for block '...' (HybridSequential), got the keys ['foo']: the model ...
"""
import json
import os

from .. import symbol
from ..base import MXNetError
from ..fileio import parse_json, read_file, write_atomic
from ..symbol.json_load import describe

__all__ = ["save_model", "load_model"]

_MAX_DEPTH = 400     # block nesting (one object per level) and nested input/output formats


def save_model(block, prefix):
    from .hybrid_block import HybridBlock
    model = {}

    def save(blk, structure, index=0):
        mdl = {}
        structure[type(blk).__name__.lower() + str(index)] = mdl
        index += 1
        if isinstance(blk, HybridBlock):
            state = blk.hybridization
            if state.graph is not None:
                mdl["in_format"] = state.in_format
                mdl["out_format"] = state.out_format
                mdl["inputs"] = [s.tojson() for s in state.inputs]
                mdl["symbol"] = state.graph.tojson()
                mdl["hybridized"] = True
            else:
                mdl["hybridized"] = False
        mdl["params"] = {name: p.var().name for name, p in blk._reg_params.items()}
        for child in blk._children.values():
            index = save(child, mdl, index)
        return index

    save(block, model)
    write_atomic(prefix + "-model.json", json.dumps(model), "model file")
    block.save_parameters(prefix + "-model.params")


def load_model(block, prefix):
    """Restore what ``save_model`` wrote (see the module docstring); ``MXNetError`` for a file that
    does not fit ``block``."""
    from .hybrid_block import HybridBlock
    path = os.fspath(prefix) + "-model.json"
    model = _read(path)
    plan = []            # (block, key, entry, graph or None): applied only when everything checks

    def walk(blk, structure, trail, index=0):
        key = type(blk).__name__.lower() + str(index)
        where = f"{path}: block entry {'/'.join(trail + [key])}"
        if not isinstance(structure, dict) or key not in structure:
            keys = sorted(structure) if isinstance(structure, dict) else describe(structure)
            raise MXNetError(f"{path}: expected an entry {key!r} for block {blk.name!r} ({type(blk).__name__})"
                             f"{' in ' + '/'.join(trail) if trail else ''}, got the keys {_brief_keys(keys)}: the "
                             f"model must be constructed exactly as the saved one")
        mdl = structure[key]
        if not isinstance(mdl, dict):
            raise MXNetError(f"{where}: expected an object, got {describe(mdl)}")
        index += 1
        _check_params(blk, mdl, where)
        graph = None
        if isinstance(blk, HybridBlock):
            hybridized = mdl.get("hybridized")
            if not isinstance(hybridized, bool):
                raise MXNetError(f"{where}: \"hybridized\" expected true or false, got {describe(hybridized)}")
            if hybridized:
                graph = _read_graph(mdl, where)
        plan.append((blk, mdl, graph, where))
        for child in blk._children.values():
            index = walk(child, mdl, trail + [key], index)
        return index

    walk(block, model, [])
    names = {id(p): p.var().name for p in block.collect_params().values()}
    for blk, mdl, _, _ in plan:
        for name, var_name in mdl["params"].items():
            names[id(blk._reg_params[name])] = var_name
    for blk, _, graph, where in plan:
        if graph is not None:
            _check_graph_inputs(blk, graph, names, where)
    saved = [(blk, _graph_of(blk), [(p, p._var_name, p._var) for p in blk._reg_params.values()])
             for blk, _, _, _ in plan]
    for blk, mdl, graph, _ in plan:
        for name, var_name in mdl["params"].items():
            param = blk._reg_params[name]
            param._var_name, param._var = var_name, None
        if graph is not None:
            in_format, out_format, (syms, out) = graph
            blk._clear_cached_op("loaded")
            blk.hybridization.set_graph(syms, out, in_format, out_format)
            blk.hybridization.active = True
    try:
        block.load_parameters(os.fspath(prefix) + "-model.params")
    except BaseException:
        for blk, before, params in saved:     # put the model back
            if before is not None and blk.hybridization.graph is not before[1]:
                blk._clear_cached_op("load failed")
                blk.hybridization.set_graph(*before[:4])
                blk.hybridization.active = before[4]
            for p, var_name, var in params:
                p._var_name, p._var = var_name, var
        raise


def _graph_of(blk):
    """What loading may replace on a HybridBlock: (inputs, graph, in_format, out_format, active);
    None for a plain Block."""
    from .hybrid_block import HybridBlock
    if not isinstance(blk, HybridBlock):
        return None
    s = blk.hybridization
    return s.inputs, s.graph, s.in_format, s.out_format, s.active


def _read(path):
    raw = read_file(path, "model file", " (Block.save(prefix) writes <prefix>-model.json and "
                    "<prefix>-model.params)")
    model = parse_json(raw, f"model file {path!r}", _MAX_DEPTH, needs="one level per block")
    if not isinstance(model, dict):
        raise MXNetError(f"{path}: expected an object of block entries (as Block.save writes), got {describe(model)}")
    return model


def _brief_keys(keys):
    if isinstance(keys, str):
        return keys
    shown = [k if len(k) <= 60 else k[:60] + "..." for k in keys[:10]]
    return repr(shown) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")


def _check_params(blk, mdl, where):
    params = mdl.get("params")
    if not isinstance(params, dict):
        raise MXNetError(f"{where}: \"params\" expected an object {{parameter: graph name}}, got {describe(params)}")
    for name, var_name in params.items():
        if name not in blk._reg_params:
            raise MXNetError(f"{where}: the saved block has a parameter {name!r}, block {blk.name!r} has "
                             f"{sorted(blk._reg_params)}: the model must be constructed exactly as the saved one")
        if not isinstance(var_name, str) or not var_name:
            raise MXNetError(f"{where}: parameter {name!r} expected its graph name (a non-empty string), "
                             f"got {describe(var_name)}")


def _read_graph(mdl, where):
    """``(in_format, out_format, (input variables, output Symbol))`` of a hybridized entry."""
    for key in ("in_format", "out_format", "inputs", "symbol"):
        if key not in mdl:
            raise MXNetError(f"{where}: a hybridized block expected the key {key!r}, got the keys "
                             f"{_brief_keys(sorted(mdl))}")
    in_format, out_format = mdl["in_format"], mdl["out_format"]
    n_in = _leaves(in_format, where, "in_format", allow_none=True)
    n_out = _leaves(out_format, where, "out_format", allow_none=False)
    inputs, text = mdl["inputs"], mdl["symbol"]
    if not isinstance(inputs, list) or not all(isinstance(s, str) for s in inputs):
        raise MXNetError(f"{where}: \"inputs\" expected a list of symbol JSON strings, got {describe(inputs)}")
    if not isinstance(text, str):
        raise MXNetError(f"{where}: \"symbol\" expected a symbol JSON string, got {describe(text)}")
    if len(inputs) != n_in or not inputs:
        raise MXNetError(f"{where}: \"in_format\" {describe(in_format)} expects {n_in} input(s), "
                         f"\"inputs\" has {len(inputs)}")
    syms = []
    for k, s in enumerate(inputs):
        sym = symbol.fromjson(s, source=f"{where} \"inputs\"[{k}]")
        nodes = sym._nodes()
        if len(sym._outputs) != 1 or len(nodes) != 1 or not nodes[0].is_variable:
            raise MXNetError(f"{where}: \"inputs\"[{k}] expected one variable, got a graph of {len(nodes)} "
                             f"node(s) with {len(sym._outputs)} output(s)")
        syms.append(sym)
    in_names = [s.name for s in syms]
    if len(set(in_names)) != len(in_names):
        raise MXNetError(f"{where}: \"inputs\" expected distinct variables, got {in_names}")
    out = symbol.fromjson(text, source=f"{where} \"symbol\"")
    if len(out._outputs) != n_out:
        raise MXNetError(f"{where}: \"out_format\" {describe(out_format)} expects {n_out} output(s), "
                         f"\"symbol\" has {len(out._outputs)}")
    return in_format, out_format, (syms, out)


def _leaves(fmt, where, key, allow_none):
    """How many graph entries a format (``gluon.utils.flatten``'s: 0 one array, n > 0 a Symbol
    group of n, -1 None, a list for a list) stands for: inputs (``allow_none``) have one variable per
    array or group and none for None; outputs have n per group. Iterative: no recursion."""
    count, stack = 0, [fmt]
    while stack:
        f = stack.pop()
        if isinstance(f, list):
            stack.extend(f)
        elif isinstance(f, int) and not isinstance(f, bool) and (f >= 0 or (f == -1 and allow_none)):
            count += (f != -1) if allow_none else max(f, 1)
        else:
            allowed = "0 (an array), n > 0 (a group of n)" + (", -1 (None)" if allow_none else "")
            raise MXNetError(f"{where}: \"{key}\" expected a format of {allowed} or lists of them, got "
                             f"{describe(f)} in {describe(fmt)}")
        if count > 1 << 20:
            raise MXNetError(f"{where}: \"{key}\" describes more than {1 << 20} arrays; refused")
    return count


def _check_graph_inputs(blk, graph, names, where):
    """The graph may read only its input variables and the block's parameters (by graph name)."""
    syms, out = graph[2]
    allowed = {s.name for s in syms} | {names[id(p)] for p in blk.collect_params().values()}
    unknown = [n for n in out.list_inputs() if n not in allowed]
    if unknown:
        shown = ", ".join(repr(n if len(n) <= 60 else n[:60] + "...") for n in unknown[:5])
        raise MXNetError(f"{where}: \"symbol\" reads variable(s) {shown}{' ...' if len(unknown) > 5 else ''}, "
                         f"which are neither its inputs {[s.name for s in syms]} nor parameters of block "
                         f"{blk.name!r}")
