"""Symbol <-> MXNet 1.9's symbol JSON (the nnvm graph format, FORMATS.md section 1).

The writer reproduces MXNet's bytes (dmlc ``JSONWriter``): post-order nodes, ``attrs`` left out
when empty, keys sorted, ``[node, index, version]`` entries, ``node_row_ptr`` counting hidden
outputs, graph attrs ``{"mxnet_version": ["int", 10901]}``, and dmlc's layout (an array goes on
several lines when it has more than 10 numbers or holds objects; an object when it has more than
one key; ``", "`` then a newline and two spaces per open scope). The reader accepts the legacy keys
``"attr"``/``"param"``, entries without a version, and files older than 1.9.1 (upgraded like
MXNet's ``LoadLegacyJSON``); a malformed file gives an ``MXNetError`` naming the node.

What a loaded file says that the graph does not hold otherwise is kept in ``node.meta`` so that
``fromjson(text).tojson() == text`` for every file MXNet writes: ``input_versions`` (the entries'
versions; composing also sets them), ``version`` (a variable's current version), ``saved_num_outputs``
(the file's output count when it differs from the registry's, e.g. MKLDNN max pooling),
``saved_op_name`` (the op name as written when it is an alias here, e.g. ``amp_cast``) and, on the
first head, ``graph_attrs`` (graph attributes other than ``mxnet_version``).

Example::

    >>> import hybridlab as mx
    >>> s = mx.sym.Activation(mx.sym.var('x'), act_type='relu', name='r')
    >>> text = s.tojson()
    >>> print(text)  # doctest: +NORMALIZE_WHITESPACE
    {
      "nodes": [
        {
          "op": "null",
          "name": "x",
          "inputs": []
        },
        {
          "op": "Activation",
          "name": "r",
          "attrs": {"act_type": "relu"},
          "inputs": [[0, 0, 0]]
        }
      ],
      "arg_nodes": [0],
      "node_row_ptr": [0, 1, 2],
      "heads": [[1, 0, 0]],
      "attrs": {"mxnet_version": ["int", 10901]}
    }
    >>> mx.sym.fromjson(text).tojson() == text
    True
"""
import json as _json
import os

from ..fileio import write_atomic
from ..base import MXNetError
from .graph import Node, topo_order

__all__ = ["to_json", "from_json", "save", "load", "MXNET_VERSION"]

MXNET_VERSION = 10901          # 1.9.1, written as major*10000 + minor*100 + patch
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")
_AMP_OPS = ("amp_cast", "amp_multicast")


# ---- writing -------------------------------------------------------------------------------------
class _Writer:
    """dmlc::JSONWriter: the same separators, line breaks and indentation."""

    def __init__(self):
        self.out = []
        self.multi = []     # one flag per open scope: does it break lines?
        self.count = []     # items written in each open scope

    def _sep(self):
        if not self.multi or self.multi[-1]:
            self.out.append("\n" + " " * (2 * len(self.multi)))

    def begin(self, bracket, multi_line):
        self.out.append(bracket)
        self.multi.append(multi_line)
        self.count.append(0)

    def end(self, bracket):
        multi, n = self.multi.pop(), self.count.pop()
        if multi and n:
            self._sep()
        self.out.append(bracket)

    def key(self, k):
        if self.count[-1]:
            self.out.append(", ")
        self._sep()
        self.out.append(_string(k) + ": ")
        self.count[-1] += 1

    def item(self):
        if self.count[-1]:
            self.out.append(", ")
        self.count[-1] += 1
        self._sep()

    def value(self, v):
        """Write a string, an int, an ``_Entry``, a list or a dict the way dmlc's handlers do."""
        if isinstance(v, str):
            self.out.append(_string(v))
        elif isinstance(v, bool):
            self.out.append("true" if v else "false")
        elif isinstance(v, int):
            self.out.append(str(v))
        elif isinstance(v, float):
            self.out.append(repr(v))
        elif isinstance(v, (_Entry, _AnyValue)):   # POD structs: BeginArray(false)
            self.begin("[", False)
            for x in v:
                self.item()
                self.value(x)
            self.end("]")
        elif isinstance(v, list):
            pod = all(isinstance(x, (int, float, _Entry)) for x in v)   # std::string is not POD
            self.begin("[", len(v) > 10 or not pod)
            for x in v:
                self.item()
                self.value(x)
            self.end("]")
        elif isinstance(v, _Object):       # a struct written field by field (always multi-line)
            self.begin("{", True)
            for k, x in v.items():
                self.key(k)
                self.value(x)
            self.end("}")
        elif isinstance(v, dict):          # a std::map: sorted keys, one line when it has one key
            self.begin("{", len(v) > 1)
            for k in sorted(v):
                self.key(k)
                self.value(v[k])
            self.end("}")
        else:
            raise TypeError(f"cannot write {type(v).__name__} to symbol JSON")


class _Entry(tuple):
    """``[node_id, index, version]``: a POD array written on one line."""


class _AnyValue(list):
    """A dmlc ``any`` graph attribute ``[type, value]``: one line."""


class _Object(dict):
    """A JSON object written in insertion order (JSONNode / JSONGraph ``Save``)."""


_ESCAPES = {"\r": "\\r", "\n": "\\n", "\\": "\\\\", "\t": "\\t", '"': '\\"'}


def _string(s):
    return '"' + "".join(_ESCAPES.get(c, c) for c in s) + '"'


def _without_amp_cast(outputs):
    """The outputs with every amp_cast / amp_multicast node bypassed (MXSymbolRemoveAmpCast)."""
    def is_amp(node):
        return node.op is not None and node.meta.get("saved_op_name", node.op.name) in _AMP_OPS

    nodes = topo_order(outputs)
    if not any(is_amp(n) for n in nodes):
        return outputs
    new = {}

    def entry(e):
        node, idx = e
        while is_amp(node):
            node, idx = node.inputs[idx if len(node.inputs) > 1 else 0]
        return new[id(node)], idx

    for n in nodes:
        if is_amp(n):
            continue
        c = Node(n.op, n.name, n.attrs)
        c.meta = dict(n.meta)
        c.inputs = [entry(e) for e in n.inputs]
        new[id(n)] = c
    return [entry(e) for e in outputs]


def to_json(symbol, remove_amp_cast=True, graph_attrs=None):
    """The MXNet 1.9 JSON text of ``symbol`` (``Symbol.tojson``). ``graph_attrs`` adds graph
    attributes as ``{key: [type, value]}`` (e.g. ``{"is_np_shape": ["int", 1]}``)."""
    outputs = symbol._outputs
    if remove_amp_cast:
        outputs = _without_amp_cast(outputs)
    nodes = topo_order(outputs)
    nid = {id(n): i for i, n in enumerate(nodes)}
    json_nodes, row_ptr = [], [0]
    for n in nodes:
        obj = _Object(op="null" if n.op is None else n.meta.get("saved_op_name", n.op.name), name=n.name)
        if n.attrs:
            obj["attrs"] = dict(n.attrs)
        versions = n.meta.get("input_versions") or ()
        obj["inputs"] = [_Entry((nid[id(src)], idx, versions[i] if i < len(versions) else 0))
                         for i, (src, idx) in enumerate(n.inputs)]
        json_nodes.append(obj)
        row_ptr.append(row_ptr[-1] + n.meta.get("saved_num_outputs", n.num_outputs()))
    attrs = {}
    for head, _ in outputs:
        attrs.update(head.meta.get("graph_attrs", {}))
    attrs.update(graph_attrs or {})
    attrs["mxnet_version"] = ["int", MXNET_VERSION]
    graph = _Object(nodes=json_nodes, arg_nodes=[i for i, n in enumerate(nodes) if n.op is None],
                    node_row_ptr=row_ptr, heads=[_Entry((nid[id(n)], i, 0)) for n, i in outputs],
                    attrs={k: _AnyValue(v) for k, v in attrs.items()})
    w = _Writer()
    w.value(graph)
    return "".join(w.out)


def save(symbol, fname, remove_amp_cast=True):
    """Write ``symbol``'s JSON to ``fname`` atomically (a temporary file, then ``os.replace``)."""
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"fname need to be string, got {type(fname).__name__}")
    text = to_json(symbol, remove_amp_cast).encode("utf-8")
    write_atomic(fname, text, "symbol file")


# ---- reading -------------------------------------------------------------------------------------
def load(fname):
    """The Symbol stored in the JSON file ``fname`` (``mx.sym.load``)."""
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"fname required to be a string, got {type(fname).__name__}")
    try:
        with open(fname, "r", encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise MXNetError(f"cannot load symbol file {os.fspath(fname)!r}: {err.strerror or err}") from None
    return from_json(text, source=f"symbol file {os.fspath(fname)!r}")


def from_json(text, source="symbol JSON"):
    """The Symbol described by MXNet JSON ``text`` (``mx.sym.fromjson`` / ``load_json``)."""
    from .symbol import Symbol
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    if not isinstance(text, str):
        raise TypeError(f"fromjson expects the JSON text (str), got {type(text).__name__}")
    try:
        doc = _json.loads(text)
    except ValueError as err:
        raise MXNetError(f"Cannot load {source}: it is not valid JSON ({err})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list) or "heads" not in doc:
        raise MXNetError(f"Cannot load {source}: expected an object with \"nodes\" (a list) and \"heads\", "
                         f"got {_describe(doc)}")
    version, extra_attrs = _graph_attrs(doc.get("attrs", {}), source)
    raw = doc["nodes"]
    nodes = [_make_node(i, jn, source) for i, jn in enumerate(raw)]
    for i, (node, jn) in enumerate(zip(nodes, raw)):
        versions = []
        for k, e in enumerate(jn.get("inputs", [])):
            src, idx, ver = _entry(e, nodes, f"{source}: node {i} ({node.name!r}) input {k}")
            node.inputs.append((src, idx))
            versions.append(ver)
            if src.op is None:
                src.meta["version"] = max(src.meta.get("version", 0), ver)
        if any(versions):
            node.meta["input_versions"] = versions
    if version < MXNET_VERSION:
        _upgrade(nodes, version)
    _check_nodes(nodes, source)
    _saved_output_counts(doc.get("node_row_ptr"), nodes)
    _check_acyclic(nodes, source)
    heads = doc["heads"]
    if not isinstance(heads, list) or not heads:
        raise MXNetError(f"Cannot load {source}: \"heads\" expected a non-empty list of [node, index, version], "
                         f"got {_describe(heads)}")
    outputs = []
    for k, e in enumerate(heads):
        src, idx, _ = _entry(e, nodes, f"{source}: head {k}")
        _check_index(src, idx, f"{source}: head {k}")
        outputs.append((src, idx))
    if extra_attrs:
        outputs[0][0].meta["graph_attrs"] = extra_attrs
    return Symbol(outputs)


def _describe(v):
    text = _json.dumps(v)
    return f"{type(v).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _graph_attrs(attrs, source):
    if not isinstance(attrs, dict):
        raise MXNetError(f"Cannot load {source}: graph \"attrs\" expected an object, got {_describe(attrs)}")
    version, extra = 800, {}   # a file without mxnet_version counts as 0.8.0
    for k, v in attrs.items():
        if not (isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)):
            raise MXNetError(f"Cannot load {source}: graph attribute {k!r} expected [type, value], "
                             f"got {_describe(v)}")
        if k == "mxnet_version":
            if not isinstance(v[1], int):
                raise MXNetError(f"Cannot load {source}: mxnet_version expected [\"int\", N], got {_describe(v)}")
            version = v[1]
        else:
            extra[k] = v
    return version, extra


def _make_node(i, jn, source):
    from ..ops.registry import find_op
    if not isinstance(jn, dict):
        raise MXNetError(f"Cannot load {source}: node {i} expected an object, got {_describe(jn)}")
    name, op_name = jn.get("name"), jn.get("op")
    where = f"{source}: node {i} ({name!r})"
    if not isinstance(name, str) or not isinstance(op_name, str):
        raise MXNetError(f"Cannot load {source}: node {i} expected string \"op\" and \"name\", "
                         f"got op={op_name!r}, name={name!r}")
    attrs = {}
    for key in ("param", "attr", "attrs"):         # "param"/"attr": written by MXNet before 0.9
        d = jn.get(key, {})
        if not isinstance(d, dict) or not all(isinstance(v, str) for v in d.values()):
            raise MXNetError(f"{where}: \"{key}\" expected an object of strings, got {_describe(d)}")
        attrs.update(d)
    if not isinstance(jn.get("inputs", []), list):
        raise MXNetError(f"{where}: \"inputs\" expected a list, got {_describe(jn.get('inputs'))}")
    for key in ("control_deps", "subgraphs"):
        if jn.get(key):
            raise MXNetError(f"{where}: \"{key}\" is not supported by hybridlab (control flow and "
                             f"subgraph operators are not implemented)")
    if op_name == "null":
        if jn.get("inputs"):
            raise MXNetError(f"{where}: a variable (op \"null\") expected no inputs, got {len(jn['inputs'])}")
        return Node(None, name, attrs)
    op = find_op(op_name)
    if op is None:
        from ..ops.registry import all_names
        import difflib
        close = difflib.get_close_matches(op_name, list(all_names()), n=3)
        raise MXNetError(f"{where}: unknown operator {op_name!r}: hybridlab does not implement it"
                         + (f" (close names: {', '.join(close)})" if close else ""))
    node = Node(op, name, attrs)
    if op_name != op.name:
        node.meta["saved_op_name"] = op_name        # written back as in the file (amp_cast is not Cast)
    return node


def _entry(e, nodes, where):
    if (not isinstance(e, list) or len(e) not in (2, 3)
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in e)):
        raise MXNetError(f"{where}: expected [node_id, output_index, version] of non-negative ints, "
                         f"got {_describe(e)}")
    if e[0] >= len(nodes):
        raise MXNetError(f"{where}: refers to node {e[0]}, but the graph has {len(nodes)} nodes "
                         f"(expected node_id < {len(nodes)})")
    return nodes[e[0]], e[1], e[2] if len(e) == 3 else 0


def _check_index(src, idx, where):
    n = src.meta.get("saved_num_outputs", src.num_outputs())
    if idx >= max(n, src.num_outputs()):
        raise MXNetError(f"{where}: refers to output {idx} of node {src.name!r}, which has "
                         f"{src.num_outputs()} output(s) (expected index < {src.num_outputs()})")


def _check_nodes(nodes, source):
    def where(i, node):
        return f"{source}: node {i} ({node.name!r}, op {node.op_name})"

    for i, node in enumerate(nodes):      # attributes first: output counts depend on them
        if node.op is not None:
            try:
                node.parsed_attrs()
            except MXNetError as err:
                raise MXNetError(f"{where(i, node)}: {err}") from None
    for i, node in enumerate(nodes):
        names = node.input_names()
        if node.op is not None and len(node.inputs) != len(names):
            raise MXNetError(f"{where(i, node)}: expected {len(names)} inputs ({', '.join(names) or 'none'}), "
                             f"got {len(node.inputs)}")
        for k, (src, idx) in enumerate(node.inputs):
            _check_index(src, idx, f"{where(i, node)} input {k} ({names[k]})")


def _saved_output_counts(row_ptr, nodes):
    """Keep the file's per-node output counts (they depend on MXNet's build, e.g. MKLDNN max
    pooling has a hidden workspace output) so that saving again gives the same bytes."""
    if (not isinstance(row_ptr, list) or len(row_ptr) != len(nodes) + 1
            or not all(isinstance(x, int) for x in row_ptr)):
        return
    for k, node in enumerate(nodes):
        n = row_ptr[k + 1] - row_ptr[k]
        if n != node.num_outputs() and n >= node.num_visible():
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
                raise MXNetError(f"Cannot load {source}: node {child.name!r} is its own input "
                                 f"(a cycle through {node.name!r}); a symbol graph must be acyclic")
            if id(child) not in state:
                state[id(child)] = 1
                stack.append((child, iter(child.inputs)))


def _upgrade(nodes, version):
    """MXNet's ``LoadLegacyJSON`` upgrades for files older than 1.9.1."""
    for node in nodes:
        _fix_hidden_keys(node)
    if version < 905:       # 0.9.5: argmax/argmin axis=-1 meant "no axis"
        for node in nodes:
            if node.op is not None and node.op.name in ("argmax", "argmin") and node.attrs.get("axis") == "-1":
                del node.attrs["axis"]
    if version < 900:       # 0.9.0: auxiliary states were not stored; add them as <node>_<input>
        for node in nodes:
            if node.op is None:
                continue
            try:
                names = node.op.input_names(node.parsed_attrs())
            except MXNetError:
                continue
            for name in names[len(node.inputs):]:
                node.inputs.append((Node(None, f"{node.name}_{name}", dict(node.attrs)), 0))
    for node in nodes:
        node._parsed = None


def _fix_hidden_keys(node):
    """``lr_mult`` -> ``__lr_mult__``; ``weight_lr_mult`` on an op -> ``__lr_mult__`` on its weight."""
    for k in list(node.attrs):
        for hk in _HIDDEN_KEYS:
            if k == hk:
                node.attrs[f"__{hk}__"] = node.attrs.pop(k)
                break
            if k.endswith(hk) and len(k) > len(hk) + 1 and node.op is not None:
                try:
                    names = node.op.input_names(node.op.parse_attrs(
                        {a: v for a, v in node.attrs.items() if not a.endswith(_HIDDEN_KEYS)}))
                except MXNetError:
                    break
                arg = k[:-len(hk) - 1]
                if arg in names and names.index(arg) < len(node.inputs):
                    src = node.inputs[names.index(arg)][0]
                    if src.op is None:
                        src.attrs[f"__{hk}__"] = node.attrs.pop(k)
                break
