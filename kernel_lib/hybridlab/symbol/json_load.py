"""Reading MXNet 1.9's symbol JSON (``mx.sym.load`` / ``fromjson`` / ``load_json``) into a Symbol.

Model files are untrusted: whatever the bytes, reading one either gives a Symbol every later stage
can use (listing, saving, inference, binding) or raises ``MXNetError`` naming the file, the node or
entry and what was expected vs got, in time and memory linear in the file. The checks are MXNet's
(``nnvm::LoadJSON``: entries point at existing nodes, ``arg_nodes`` are variables, the graph is
acyclic; each op's attribute parser) plus what hybridlab relies on (the registry knows the op, an
op gets the inputs its attributes imply, an entry names an output the op has, a variable's
``__shape__`` / ``__dtype__`` read as a shape / type flag; ``"subgraphs"`` only on a ``_CachedOp``
node, exactly one graph, read with the same checks and nested at most ``MAX_SUBGRAPH_DEPTH``
levels, its errors naming the node that carries it). Nothing is allocated from what a file
declares: a ``__shape__`` is only parsed here.

Strings: MXNet's writer (dmlc ``JSONWriter::WriteString``) escapes only ``\\r \\n \\t \\\\ \\"``
and writes every other character as it is, control characters included, so the reader accepts
control characters inside strings (``json.loads(strict=False)``) and reads back whatever name
MXNet or hybridlab wrote. The text must be UTF-8 (what MXNet's Python API writes), nested at most
``MAX_DEPTH`` levels (a symbol file needs 6).

Example::

    >>> import hybridlab as mx
    >>> s = mx.sym.relu(mx.sym.var('a\\x01b'), name='r')
    >>> mx.sym.fromjson(s.tojson()).list_arguments()
    ['a\\x01b']
    >>> try:
    ...     mx.sym.fromjson('{"nodes": [' * 5000)
    ... except mx.MXNetError as err:
    ...     print(err)
    symbol JSON: expected JSON nested at most 100 levels deep (a real file needs 6), got one nested more than 100 levels deep
"""
import os
import reprlib

from ..attribute import HIDDEN_KEYS
from ..base import MXNetError, dtype_from_flag
from ..fileio import parse_json, read_file
from ..ops.attrs import Attr
from .graph import Node

__all__ = ["from_json", "load", "describe", "MAX_DEPTH", "MAX_SUBGRAPH_DEPTH", "MAX_OUTPUTS"]

MXNET_VERSION = 10901
MAX_DEPTH = 100                 # nesting levels a file may have (nodes -> node -> inputs -> entry is 4)
MAX_SUBGRAPH_DEPTH = 8          # _CachedOp subgraphs inside subgraphs (get_symbol makes 1)
MAX_OUTPUTS = 1 << 16           # outputs one node may declare (a split into more is refused)
_UINT32 = 1 << 32               # node ids, output indices and versions are uint32 in nnvm
_SHAPE_ATTR = Attr("shape")
# what an op's own code may raise on attribute values it cannot work with (reported, not leaked)
_ATTR_ERRORS = (MXNetError, ValueError, TypeError, KeyError, IndexError, OverflowError, ZeroDivisionError,
                RecursionError)
_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxlist, _BRIEF.maxdict, _BRIEF.maxstring, _BRIEF.maxother = 3, 6, 6, 60, 60
_BRIEF.maxlong = 40


# ---- reading -------------------------------------------------------------------------------------
def load(fname):
    """The Symbol stored in the JSON file ``fname`` (``mx.sym.load``).

    >>> import os, tempfile, hybridlab as mx
    >>> path = os.path.join(tempfile.mkdtemp(), "bad-symbol.json")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b'\\xff\\xfe{"')
    >>> try:
    ...     mx.sym.load(path)
    ... except mx.MXNetError as err:
    ...     print(str(err).split(": ", 1)[1])
    expected UTF-8 text, got byte 0xff at offset 0 (invalid start byte)
    """
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"fname required to be a string, got {type(fname).__name__}")
    raw = read_file(fname, "symbol file")
    return from_json(raw, source=f"symbol file {os.fspath(fname)!r}")


def from_json(text, source="symbol JSON"):
    """The Symbol described by MXNet JSON ``text`` (a str, or UTF-8 bytes) (``mx.sym.fromjson`` /
    ``load_json``); ``source`` names it in errors.

    >>> import hybridlab as mx
    >>> mx.sym.fromjson('{"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[0, 0, 0]]}')
    <Symbol x>
    """
    doc = parse_json(text, source, MAX_DEPTH, needs=6)
    return _read_graph(doc, source, None, 0)


def _read_graph(doc, source, version, depth):
    """The Symbol of the parsed JSON graph ``doc``: the file's (``version`` None: read from its
    attributes) or, at ``depth`` > 0, a node's subgraph (the file's ``version``)."""
    from .symbol import Symbol
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list) or "heads" not in doc:
        raise MXNetError(f"{source}: expected an object with \"nodes\" (a list) and \"heads\", "
                         f"got {describe(doc)}")
    file_version, extra_attrs = _graph_attrs(doc.get("attrs", {}), source)
    if version is None:
        version = file_version
    raw = doc["nodes"]
    nodes = [_make_node(i, jn, source, version, depth) for i, jn in enumerate(raw)]
    for i, (node, jn) in enumerate(zip(nodes, raw)):
        versions = []
        for k, e in enumerate(jn.get("inputs", ())):
            src, idx, ver = _entry(e, nodes, source, i, k)
            node.inputs.append((src, idx))
            versions.append(ver)
            if src.op is None:
                src.meta["version"] = max(src.meta.get("version", 0), ver)
        if any(versions):
            node.meta["input_versions"] = versions
    if version < MXNET_VERSION:
        _upgrade(nodes, version)
    _check_nodes(nodes, source)
    _check_arg_nodes(doc.get("arg_nodes"), nodes, source)
    _saved_output_counts(doc.get("node_row_ptr"), nodes)
    _check_acyclic(nodes, source)
    heads = doc["heads"]
    if not isinstance(heads, list) or not heads:
        raise MXNetError(f"{source}: \"heads\" expected a non-empty list of [node, index, version], "
                         f"got {describe(heads)}")
    outputs = []
    for k, e in enumerate(heads):
        src, idx, _ = _entry(e, nodes, source, None, k)
        _check_index(src, idx, lambda: f"{source}: head {k}")
        outputs.append((src, idx))
    if extra_attrs and depth == 0:
        outputs[0][0].meta["graph_attrs"] = extra_attrs
    return Symbol(outputs)


def _clip_text(text, n=80):
    return text if len(text) <= n else f"{text[:n]}... ({len(text)} characters)"


def _clip(name, n=80):
    """A name for a message: quoted, control characters visible, long names shortened."""
    return repr(name) if len(name) <= n else repr(name[:n]) + f"... ({len(name)} characters)"


def describe(v):
    """A value read from a file, for a message: its type and a shortened repr."""
    return f"{type(v).__name__} {_BRIEF.repr(v)}"



def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _graph_attrs(attrs, source):
    if not isinstance(attrs, dict):
        raise MXNetError(f"{source}: graph \"attrs\" expected an object, got {describe(attrs)}")
    version, extra = 800, {}   # a file without mxnet_version counts as 0.8.0
    for k, v in attrs.items():
        if not (isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)):
            raise MXNetError(f"{source}: graph attribute {_clip(k)} expected [type, value], got {describe(v)}")
        if k == "mxnet_version":
            if v[0] != "int" or not _is_int(v[1]) or not 0 <= v[1] < _UINT32:
                raise MXNetError(f"{source}: mxnet_version expected [\"int\", N] (N = major*10000 + minor*100 + "
                                 f"patch), got {describe(v)}")
            version = v[1]
        else:
            extra[k] = v
    return version, extra


def _make_node(i, jn, source, version, depth):
    from ..ops.registry import find_op
    if not isinstance(jn, dict):
        raise MXNetError(f"{source}: node {i} expected an object, got {describe(jn)}")
    name, op_name = jn.get("name"), jn.get("op")
    if not isinstance(name, str) or not isinstance(op_name, str):
        raise MXNetError(f"{source}: node {i} expected string \"op\" and \"name\", "
                         f"got op={_BRIEF.repr(op_name)}, name={_BRIEF.repr(name)}")
    where = _Where(source, i, name)
    attrs = {}
    for key in ("param", "attr", "attrs"):         # "param"/"attr": written by MXNet before 0.9
        d = jn.get(key)
        if d is None and key not in jn:
            continue
        if not isinstance(d, dict) or not all(v.__class__ is str for v in d.values()):
            raise MXNetError(f"{where}: \"{key}\" expected an object of strings, got {describe(d)}")
        attrs.update(d)
    inputs = jn.get("inputs", [])
    if not isinstance(inputs, list):
        raise MXNetError(f"{where}: \"inputs\" expected a list, got {describe(inputs)}")
    if jn.get("control_deps"):
        raise MXNetError(f"{where}: \"control_deps\" is not supported by hybridlab (control flow "
                         f"operators are not implemented)")
    if op_name == "null":
        if jn.get("subgraphs"):
            raise MXNetError(f"{where}: \"subgraphs\" expected only on a _CachedOp node, got them on a "
                             f"variable (op \"null\")")
        if inputs:
            raise MXNetError(f"{where}: a variable (op \"null\") expected no inputs, got {len(inputs)}")
        _check_variable_attrs(attrs, where)
        return Node(None, name, attrs)
    op = find_op(op_name)
    if op is None:
        raise MXNetError(f"{where}: unknown operator {_clip(op_name)}: hybridlab does not implement it"
                         + _close_names(op_name))
    if op.subgraph_inputs:
        node = Node(op, name, attrs, subgraphs=_subgraphs(jn, attrs, where, version, depth))
    elif jn.get("subgraphs"):
        raise MXNetError(f"{where}: \"subgraphs\" expected only on a _CachedOp node, got them on a node "
                         f"of op {_clip(op_name)} (control flow and other subgraph operators are not "
                         f"implemented)")
    else:
        node = Node(op, name, attrs)
    if op_name != op.name:
        node.meta["saved_op_name"] = op_name        # written back as in the file (amp_cast is not Cast)
    return node


def _subgraphs(jn, attrs, where, version, depth):
    """The one graph a ``_CachedOp`` node carries under ``"subgraphs"``, read like the file
    (nested at most ``MAX_SUBGRAPH_DEPTH`` levels)."""
    subs = jn.get("subgraphs")
    if "subgraph" in attrs:
        raise MXNetError(f"{where}: expected the graph of a _CachedOp under \"subgraphs\", got the "
                         f"attribute \"subgraph\"")
    if subs is None:
        raise MXNetError(f"{where}: a _CachedOp node expected its graph under \"subgraphs\", got none "
                         f"(MXNet's get_symbol writes a hybridized call without its graph; such a file "
                         f"cannot be run: record it with hybridize(inline_limit=...) at least its op count)")
    if not isinstance(subs, list) or len(subs) != 1:
        raise MXNetError(f"{where}: \"subgraphs\" of a _CachedOp expected a list of one graph, got "
                         f"{describe(subs)}")
    if depth >= MAX_SUBGRAPH_DEPTH:
        raise MXNetError(f"{where}: expected subgraphs nested at most {MAX_SUBGRAPH_DEPTH} levels deep, "
                         f"got one nested deeper")
    return (_read_graph(subs[0], f"{where} subgraph 0", version, depth + 1),)


class _Where:
    """``<source>: node <i> (<name>)`` for a message, built only when one is raised."""

    __slots__ = ("source", "i", "name")

    def __init__(self, source, i, name):
        self.source, self.i, self.name = source, i, name

    def __format__(self, spec):
        return f"{self.source}: node {self.i} ({_clip(self.name)})"


def _close_names(op_name):
    if len(op_name) > 64:
        return ""
    import difflib
    from ..ops.registry import all_names
    close = difflib.get_close_matches(op_name, list(all_names()), n=3)
    return f" (close names: {', '.join(close)})" if close else ""


def _check_variable_attrs(attrs, where):
    """A variable's ``__shape__`` / ``__dtype__`` read as a shape / type flag (parsed, nothing allocated)."""
    text = attrs.get("__shape__")
    if text is not None:
        try:
            _SHAPE_ATTR.parse(text)
        except _ATTR_ERRORS:
            raise MXNetError(f"{where}: attribute __shape__ expected a shape such as '(256, 0)', "
                             f"got {_clip(text)}") from None
    text = attrs.get("__dtype__")
    if text is not None:
        try:
            dtype_from_flag(int(text))
        except (MXNetError, ValueError) as err:
            reason = f" ({err})" if isinstance(err, MXNetError) else ""
            raise MXNetError(f"{where}: attribute __dtype__ expected a type flag such as '0' (float32), "
                             f"got {_clip(text)}{reason}") from None


def _entry(e, nodes, source, i, k):
    """``(node, output index, version)`` of entry ``k`` of node ``i``'s inputs (``i`` None: of the heads)."""
    if (e.__class__ is list and 2 <= len(e) <= 3          # exact ints: True is not a node id
            and all(x.__class__ is int and 0 <= x < _UINT32 for x in e) and e[0] < len(nodes)):
        return nodes[e[0]], e[1], e[2] if len(e) == 3 else 0
    where = f"{source}: head {k}" if i is None else f"{source}: node {i} ({_clip(nodes[i].name)}) input {k}"
    if e.__class__ is not list or len(e) not in (2, 3) or not all(_is_int(x) and 0 <= x < _UINT32 for x in e):
        raise MXNetError(f"{where}: expected [node_id, output_index, version] of non-negative ints "
                         f"(below 2**32), got {describe(e)}")
    raise MXNetError(f"{where}: refers to node {e[0]}, but the graph has {len(nodes)} nodes "
                     f"(expected node_id < {len(nodes)})")


def _check_index(src, idx, where):
    """Entry ``idx`` names an output ``src`` has (``where``: a callable giving the message's place)."""
    n = src.num_outputs()
    if idx >= n:
        raise MXNetError(f"{where()}: refers to output {idx} of node {_clip(src.name)}, which has "
                         f"{n} output(s) (expected index < {n})")


def _check_nodes(nodes, source):
    def where(i, node):
        return f"{source}: node {i} ({_clip(node.name)}, op {node.op_name})"

    for i, node in enumerate(nodes):      # attributes first: output counts depend on them
        if node.op is None:
            continue
        try:
            a = node.parsed_attrs()
            if node.op.variadic and a["num_args"] != len(node.inputs):   # before naming num_args inputs
                raise MXNetError(f"expected num_args={a['num_args']} inputs, got {len(node.inputs)}")
            n_out = node.num_outputs()
            if not _is_int(n_out) or not node.num_visible() <= n_out <= MAX_OUTPUTS:
                raise MXNetError(f"its attributes give {n_out} outputs, expected at most {MAX_OUTPUTS}")
        except _ATTR_ERRORS as err:
            raise MXNetError(f"{where(i, node)}: {_attr_error(err)}") from None
    for i, node in enumerate(nodes):
        try:
            names = node.input_names()
        except _ATTR_ERRORS as err:
            raise MXNetError(f"{where(i, node)}: {_attr_error(err)}") from None
        if node.op is not None and len(node.inputs) != len(names):
            raise MXNetError(f"{where(i, node)}: expected {len(names)} inputs ({', '.join(names) or 'none'}), "
                             f"got {len(node.inputs)}")
        for k, (src, idx) in enumerate(node.inputs):
            _check_index(src, idx, lambda: f"{where(i, node)} input {k} ({names[k]})")


def _attr_error(err):
    if isinstance(err, MXNetError):
        return str(err)
    return f"its attributes cannot be used ({type(err).__name__}: {_clip_text(str(err), 200)})"


def _check_arg_nodes(arg_nodes, nodes, source):
    """nnvm's consistency check: every ``arg_nodes`` entry is a variable node."""
    if arg_nodes is None:
        return
    if not isinstance(arg_nodes, list):
        raise MXNetError(f"{source}: \"arg_nodes\" expected a list of node ids, got {describe(arg_nodes)}")
    for k, nid in enumerate(arg_nodes):
        if not _is_int(nid) or not 0 <= nid < len(nodes):
            raise MXNetError(f"{source}: arg_nodes[{k}] expected a node id below {len(nodes)}, got {describe(nid)}")
        if nodes[nid].op is not None:
            raise MXNetError(f"{source}: arg_nodes[{k}] = {nid} expected a variable (op \"null\"), got node "
                             f"{_clip(nodes[nid].name)} of op {nodes[nid].op_name}")


def _saved_output_counts(row_ptr, nodes):
    """Keep the file's per-node output counts (they depend on MXNet's build, e.g. MKLDNN max
    pooling has a hidden workspace output) so that saving again gives the same bytes. A table that
    does not fit the nodes is ignored, as MXNet does (it recomputes it)."""
    if (not isinstance(row_ptr, list) or len(row_ptr) != len(nodes) + 1
            or not all(_is_int(x) and 0 <= x < _UINT32 for x in row_ptr)):
        return
    for k, node in enumerate(nodes):
        n = row_ptr[k + 1] - row_ptr[k]
        if n != node.num_outputs() and node.num_visible() <= n <= MAX_OUTPUTS:
            node.meta["saved_num_outputs"] = n


def _check_acyclic(nodes, source):
    state = {}
    for root in nodes:
        if id(root) in state:
            continue
        stack = [(root, iter(root.inputs))]
        state[id(root)] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[id(node)] = 2
                stack.pop()
                continue
            child = nxt[0]
            if state.get(id(child)) == 1:
                raise MXNetError(f"{source}: node {_clip(child.name)} is its own input "
                                 f"(a cycle through {_clip(node.name)}); a symbol graph must be acyclic")
            if id(child) not in state:
                state[id(child)] = 1
                stack.append((child, iter(child.inputs)))


# ---- files older than 1.9.1 ------------------------------------------------------------------------
def _upgrade(nodes, version):
    """MXNet's ``LoadLegacyJSON`` upgrades for files older than 1.9.1. Nodes whose attributes do
    not parse are left as they are: ``_check_nodes`` reports them."""
    for node in nodes:
        _fix_hidden_keys(node)
    if version < 905:       # 0.9.5: argmax/argmin axis=-1 meant "no axis"
        for node in nodes:
            if node.op is not None and node.op.name in ("argmax", "argmin") and node.attrs.get("axis") == "-1":
                del node.attrs["axis"]
    if version < 900:       # 0.9.0: auxiliary states were not stored; add them as <node>_<input>
        for node in nodes:
            if node.op is None or node.op.variadic:
                continue
            try:
                names = node.op.input_names(node.parsed_attrs())
            except _ATTR_ERRORS:
                continue
            for name in names[len(node.inputs):]:
                node.inputs.append((Node(None, f"{node.name}_{name}", dict(node.attrs)), 0))
    for node in nodes:
        node._parsed = None


def _fix_hidden_keys(node):
    """``lr_mult`` -> ``__lr_mult__``; ``weight_lr_mult`` on an op -> ``__lr_mult__`` on its weight."""
    for k in list(node.attrs):
        for hk in HIDDEN_KEYS:
            if k == hk:
                node.attrs[f"__{hk}__"] = node.attrs.pop(k)
                break
            if k.endswith(hk) and len(k) > len(hk) + 1 and node.op is not None:
                if node.op.variadic:
                    break
                try:
                    names = node.op.input_names(node.op.parse_attrs(
                        {a: v for a, v in node.attrs.items() if not a.endswith(HIDDEN_KEYS)}))
                except _ATTR_ERRORS:
                    break
                arg = k[:-len(hk) - 1]
                if arg in names and names.index(arg) < len(node.inputs):
                    src = node.inputs[names.index(arg)][0]
                    if src.op is None:
                        src.attrs[f"__{hk}__"] = node.attrs.pop(k)
                break
