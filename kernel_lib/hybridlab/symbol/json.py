"""Symbol <-> MXNet 1.9's symbol JSON (the nnvm graph format, FORMATS.md section 1).

The writer reproduces MXNet's bytes (dmlc ``JSONWriter``): post-order nodes, ``attrs`` left out
when empty, keys sorted, ``[node, index, version]`` entries, ``node_row_ptr`` counting hidden
outputs, graph attrs ``{"mxnet_version": ["int", 10901]}``, and dmlc's layout (an array goes on
several lines when it has more than 10 numbers or holds objects; an object when it has more than
one key; ``", "`` then a newline and two spaces per open scope). A node carrying subgraphs
(``_CachedOp``) writes them under ``"subgraphs"`` after its inputs, each a graph object without
``"attrs"`` (nnvm's ``Symbol2JSONGraph``). Strings are escaped as dmlc's
``WriteString`` does (``\\r \\n \\t \\\\ \\"`` only; other characters, control characters
included, as they are), so the reader (``json_load``: legacy keys ``"attr"``/``"param"``, entries
without a version, files older than 1.9.1 upgraded like MXNet's ``LoadLegacyJSON``, an
``MXNetError`` naming the node for a malformed file) reads back every name; a lone surrogate,
which MXNet cannot hold, is written ``\\uXXXX`` so that the text stays valid UTF-8.

What a loaded file says that the graph does not hold otherwise is kept in ``node.meta`` so that
``fromjson(text).tojson() == text`` for every file MXNet writes: ``input_versions`` (the entries'
versions; composing also sets them), ``version`` (a variable's current version), ``saved_num_outputs``
(the file's output count when it differs from the registry's, e.g. MKLDNN max pooling),
``saved_op_name`` (the op name as written when it is an alias here, e.g. ``amp_cast``) and, on the
first head, ``graph_attrs`` (graph attributes other than ``mxnet_version``; ``is_np_shape`` is written
from the current NumPy shape mode, as MXNet does, so a file saved under it round-trips under it).

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
import math
import os

from ..fileio import write_atomic
from .graph import Node, topo_order
from .json_load import MXNET_VERSION, from_json, load   # noqa: F401  (the reader, re-exported)

__all__ = ["to_json", "from_json", "save", "load", "MXNET_VERSION"]

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
        elif v is None:                    # only in graph attributes read from a file
            self.out.append("null")
        elif isinstance(v, bool):
            self.out.append("true" if v else "false")
        elif isinstance(v, int):
            self.out.append(str(v))
        elif isinstance(v, float):         # spelled as Python's json reads them back (dmlc writes nan)
            self.out.append(repr(v) if math.isfinite(v) else
                            "NaN" if v != v else "Infinity" if v > 0 else "-Infinity")
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
_ESCAPES.update({chr(c): f"\\u{c:04x}" for c in range(0xD800, 0xE000)})   # lone surrogates: not UTF-8
_TABLE = str.maketrans(_ESCAPES)


def _string(s):
    """dmlc's ``WriteString``: only ``\\r \\n \\\\ \\t \\"`` escaped (plus lone surrogates)."""
    return '"' + s.translate(_TABLE) + '"'


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
        c = Node(n.op, n.name, n.attrs, (), n.subgraphs)
        c.meta = dict(n.meta)
        c.inputs = [entry(e) for e in n.inputs]
        new[id(n)] = c
    return [entry(e) for e in outputs]


def to_json(symbol, remove_amp_cast=True, graph_attrs=None):
    """The MXNet 1.9 JSON text of ``symbol`` (``Symbol.tojson``). ``graph_attrs`` adds graph
    attributes as ``{key: [type, value]}``. As MXNet's ``Symbol2Graph``, ``"is_np_shape": ["int", 1]``
    is written when NumPy shape semantics are on (``mx.util.is_np_shape()``) and left out otherwise,
    whatever a loaded file said.

    >>> import json, hybridlab as mx
    >>> s = mx.sym.relu(mx.sym.var('x'))
    >>> with mx.util.np_shape(True):
    ...     json.loads(s.tojson())["attrs"]
    {'is_np_shape': ['int', 1], 'mxnet_version': ['int', 10901]}
    >>> json.loads(s.tojson())["attrs"]
    {'mxnet_version': ['int', 10901]}
    """
    from ..numpy_extension import is_np_shape
    outputs = symbol._outputs
    if remove_amp_cast:
        outputs = _without_amp_cast(outputs)
    graph = _graph_object(outputs)
    attrs = {}
    for head, _ in outputs:
        attrs.update(head.meta.get("graph_attrs", {}))
    attrs.update(graph_attrs or {})
    attrs.pop("is_np_shape", None)
    if is_np_shape():
        attrs["is_np_shape"] = ["int", 1]
    attrs["mxnet_version"] = ["int", MXNET_VERSION]
    graph["attrs"] = {k: _AnyValue(v) for k, v in attrs.items()}
    w = _Writer()
    w.value(graph)
    return "".join(w.out)


def _graph_object(outputs):
    """nnvm's ``JSONGraph`` of the graph of ``outputs`` (without graph attributes): its nodes, each
    with its subgraphs under ``"subgraphs"`` (nnvm's ``Symbol2JSONGraph``, recursively)."""
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
        if n.subgraphs:
            obj["subgraphs"] = [_graph_object(sub._outputs) for sub in n.subgraphs]
        json_nodes.append(obj)
        row_ptr.append(row_ptr[-1] + n.meta.get("saved_num_outputs", n.num_outputs()))
    return _Object(nodes=json_nodes, arg_nodes=[i for i, n in enumerate(nodes) if n.op is None],
                   node_row_ptr=row_ptr, heads=[_Entry((nid[id(n)], i, 0)) for n, i in outputs])


def save(symbol, fname, remove_amp_cast=True):
    """Write ``symbol``'s JSON to ``fname`` atomically (a temporary file, then ``os.replace``)."""
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"fname need to be string, got {type(fname).__name__}")
    text = to_json(symbol, remove_amp_cast).encode("utf-8")
    write_atomic(fname, text, "symbol file")
