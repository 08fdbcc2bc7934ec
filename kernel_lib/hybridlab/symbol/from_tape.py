"""The Symbol of an array's autograd history (what ``mx.autograd.get_symbol`` returns): the tape
walked from the array back to its leaves, one graph node per recorded op call. It registers
``build`` with ``autograd.history`` when it loads (the autograd layer sits below the symbol layer).
The symbol layer loads while the ndarray layer is still loading, so the tape's driver and
``Function`` (which import NDArray) are imported where they are used.

What becomes what:

* a recorded ``OpDef`` call: a node of that op; its attributes are the call's (``TapeNode.attrs``,
  parsed), written as MXNet attribute strings, those equal to the op's defaults left out as MXNet
  keeps only the given ones;
* a leaf with a gradient (``attach_grad``, ``mark_variables``): a variable; an array the op read
  that needs no gradient (a constant): a variable too, since the graph needs its value;
* a hybridized block's call (one tape node whose op is its cached op's ``TapeOp``), as MXNet's
  CachedOp decides (``inlining_``): when the cached op's graph (``CachedOp.symbol``, as traced,
  before the passes) has at most ``inline_limit`` op nodes (its flags; 2 by default) and no
  ``static_alloc``, that graph inlined, its variables bound to the call's inputs; else one
  ``_CachedOp`` node (``ops/cached_op.py``) carrying a copy of the graph as its subgraph, its inputs
  the subgraph's inputs in order (leaves keep their ``var<k>`` / ``null<k>`` names, as in MXNet).
  MXNet keeps that graph in memory only (its JSON has no ``"subgraphs"``, and it cannot run the
  node from a file); here the node saves with its subgraph, and inference, binding and export run
  it as the ops of its graph (``subgraph_inline.expand``). A variable the optimized graph dropped
  (no array was passed for it) stays a free variable of its own name;
* a custom ``autograd.Function`` call: an ``MXNetError`` naming it (its forward is Python code,
  not a graph; MXNet records an opaque ``_CustomFunction`` node).

Names follow MXNet 1.9's (``Imperative::MarkVariables`` / ``RecordOp``), counted per call in graph
order (MXNet counts per process, when recording): ``var<k>`` for leaves with a gradient and
``null<k>`` for the other arrays (one counter), ``node_<k>`` for op calls. An inlined graph keeps
its node names, and a leaf that feeds one of its variables takes that variable's name (a
Parameter's, e.g. ``dense0_weight``, or the block's input name, ``data``); a name met twice gets
``_1``, ``_2``... Each call builds a new graph: two calls share no nodes.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_')
    >>> net.initialize(); net.hybridize()
    >>> x = mx.nd.ones((1, 3)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.relu(net(x))
    >>> sym = mx.autograd.get_symbol(y)
    >>> sym.list_arguments()
    ['data', 'fc_weight', 'fc_bias']
    >>> [n.name for n in sym.get_internals()]
    ['data', 'fc_weight', 'fc_bias', 'fc_fwd', 'node_0']
"""
from ..autograd import history
from ..base import MXNetError
from ..ops.registry import OpDef, get_op
from .graph import Node, copy_graph, topo_order
from .symbol import Symbol

__all__ = ["build", "segment"]

_KEPT_META = ("scope", "source")
_CACHED_OP = get_op("_CachedOp")   # what an inlined node keeps of its graph's per-node data


def build(x):
    """The Symbol of the tape history of the NDArray ``x`` (on the tape, or a variable itself)."""
    from ..autograd.backward import tape_order   # here: see the module docstring
    tape = _TapeGraph()
    if x._node is None:
        entry = (tape.variable(x, "var"), 0)
    else:
        for tnode in tape_order([x]):
            tape.add(tnode)
        entry = tape.output(*x._node)
    tape.assign_names([entry])
    return Symbol([entry])


def segment(tnodes):
    """The graph of the tape nodes ``tnodes`` (registered ops' calls, inputs before users) on their
    own: every array they read from elsewhere (another call's output, a variable, a constant) is a
    variable. Returns the graph node of each call, in order, and ``{id(array): variable node}``;
    names as ``get_symbol`` gives them (the compiled backward of the tape's imperative end,
    ``compiler.tape_backward``, differentiates this graph)."""
    tape = _TapeGraph(cut=True)
    for tnode in tnodes:
        tape.add(tnode)
    nodes = [tape.outputs[id(tnode)] for tnode in tnodes]
    tape.assign_names([(node, i) for node in nodes for i in range(node.num_outputs())])
    return nodes, tape.variables


class _TapeGraph:
    """Graph nodes made from tape nodes during one ``build``; names are given at the end
    (``assign_names``), in graph order. ``cut``: an output of a tape node not added is a variable
    (``segment``)."""

    def __init__(self, cut=False):
        self.cut = cut
        self.outputs = {}     # id(TapeNode) -> Node (an op call) or list of entries (an inlined graph)
        self.variables = {}   # id(array) -> variable Node, one per leaf or constant array
        self.pending = {}     # Node -> its name ("var"/"null"/"node_": numbered later) or a kept name
        self.keep = []        # the arrays keyed by id above, alive while their ids are in use

    # ---- nodes -------------------------------------------------------------------------------
    def variable(self, array, prefix):
        """The variable Node of ``array`` (one per array; ``array`` None: a constant the tape freed)."""
        if array is not None:
            node = self.variables.get(id(array))
            if node is not None:
                return node
        node = Node(None, None)
        self.pending[node] = prefix
        if array is not None:
            self.variables[id(array)] = node
            self.keep.append(array)
        return node

    def output(self, tnode, index):
        """The graph entry of output ``index`` of the (already added) tape node ``tnode``."""
        made = self.outputs[id(tnode)]
        return made[index] if made.__class__ is list else (made, index)

    def source_entry(self, tnode, i):
        """The graph entry of input ``i`` of ``tnode``: an earlier node's output or a variable."""
        src = tnode.sources[i]
        if src.__class__ is tuple:
            if self.cut and id(src[0]) not in self.outputs:
                return (self.variable(tnode.inputs[i], "var"), 0)
            return self.output(*src)
        if src is not None:
            return (self.variable(src, "var"), 0)
        # a constant: the array itself while the tape keeps it (backward without retain_graph frees it)
        return (self.variable(tnode.inputs[i] if i < len(tnode.inputs) else None, "null"), 0)

    def add(self, tnode):
        """Turn the tape node ``tnode`` (its inputs already added) into graph nodes."""
        from ..autograd.function import _FunctionOp   # here: see the module docstring
        op = tnode.op
        inputs = [self.source_entry(tnode, i) for i in range(len(tnode.sources))]
        if isinstance(op, OpDef):
            node = Node(op, None, _attr_strings(op, tnode.attrs), inputs)
            self.pending[node] = "node_"
            self.outputs[id(tnode)] = node
        elif isinstance(op, _FunctionOp):
            raise MXNetError(f"get_symbol: expected a history of registered ops, got a call of the custom "
                             f"autograd.Function '{op.name}', which has no symbol form (its forward is Python "
                             f"code). Record it as registered ops, or take the symbol of its inputs instead")
        else:
            cached = _cached_op(op)
            if cached is None:
                raise MXNetError(f"get_symbol: expected a history of registered ops or hybridized calls, got "
                                 f"the recorded op {op!r}, which has no graph form")
            if _inlines(cached):
                self.outputs[id(tnode)] = self.inline(cached, inputs)
            else:
                self.outputs[id(tnode)] = self.cached_call(cached, inputs)

    def cached_call(self, cached, inputs):
        """One ``_CachedOp`` node carrying a copy of the graph of ``cached`` (a CachedOp called on
        ``inputs``, one per ``cached.input_names`` entry): its inputs are the copy's inputs in
        order, a variable no array was passed for a free variable of its own name."""
        bound = dict(zip(cached.input_names, inputs))
        sub = Symbol(copy_graph(cached.symbol._outputs, lambda v: None))
        node_inputs = []
        for variable in (n for n in topo_order(sub._outputs) if n.is_variable):
            entry = bound.get(variable.name)
            if entry is None:
                entry = (Node(None, None, variable.attrs), 0)
                self.pending[entry[0]] = variable.name
            node_inputs.append(entry)
        node = Node(_CACHED_OP, None, None, node_inputs, (sub,))
        self.pending[node] = "node_"
        return node

    def inline(self, cached, inputs):
        """Copy the graph of ``cached`` (a CachedOp) with its variables bound to ``inputs`` (one per
        ``cached.input_names`` entry); returns the entries of its outputs."""
        bound = dict(zip(cached.input_names, inputs))

        def bind(variable):
            entry = bound.get(variable.name)
            if entry is None:       # dropped by the passes: no array was passed for it
                entry = (Node(None, None, variable.attrs), 0)
                self.pending[entry[0]] = variable.name
            elif entry[0].is_variable and self.pending.get(entry[0]) in ("var", "null"):
                # a leaf fed to the block: named after the variable it feeds (a Parameter's name, say)
                self.pending[entry[0]] = variable.name
                entry[0].attrs.update(variable.attrs)
            return entry

        def copy_node(gnode, node_inputs):
            node = Node(gnode.op, None, gnode.attrs, node_inputs)
            node.meta.update((k, gnode.meta[k]) for k in _KEPT_META if k in gnode.meta)
            self.pending[node] = gnode.name
            return node
        return copy_graph(cached.symbol._outputs, bind, copy_node)

    # ---- names -------------------------------------------------------------------------------
    def assign_names(self, heads):
        """Name every node reachable from ``heads``, in graph order (see the module docstring)."""
        used, counters = set(), {"var": 0, "node_": 0}
        for node in topo_order(heads):
            want = self.pending.pop(node, None)
            if want is None:
                continue
            if want in ("var", "null", "node_"):
                key = "node_" if want == "node_" else "var"      # var and null share MXNet's one counter
                while True:
                    name = f"{want}{counters[key]}"
                    counters[key] += 1
                    if name not in used:
                        break
            else:
                name, k = want, 1
                while name in used:
                    name, k = f"{want}_{k}", k + 1
            used.add(name)
            node.name = name


def _attr_strings(op, parsed):
    """MXNet attribute strings of the parsed attributes of a call, defaults left out."""
    out = {}
    for k, v in parsed.items():
        spec = op.attrs.get(k)
        if spec is None:
            if op.open_attrs:        # a free keyword (Custom's, for its property): kept as its text
                out[k] = v
            continue
        text = spec.format(v)
        if spec.required or text != spec.format(spec.default):
            out[k] = text
    return out


def _inlines(cached):
    """Whether a call of ``cached`` is recorded as the ops of its graph, as MXNet's CachedOp decides
    (``inlining_``): no ``static_alloc`` and at most ``inline_limit`` op nodes (default 2)."""
    flags = getattr(cached, "flags", None) or {}
    limit = flags.get("inline_limit", 2)
    if flags.get("static_alloc"):
        return False
    n_ops = 0
    for node in topo_order(cached.symbol._outputs):
        if not node.is_variable:
            n_ops += 1
            if n_ops > limit:
                return False
    return True


def _cached_op(op):
    """The CachedOp behind a hybridized call's tape op (``compiler.recording.TapeOp.cached_op``), or
    None. Read by what it has: this layer sits below the compiler."""
    owner = getattr(op, "cached_op", None)
    if isinstance(getattr(owner, "symbol", None), Symbol) and isinstance(getattr(owner, "input_names", None), list):
        return owner
    return None


history.builder.build = build
