"""Symbol: a handle on one or more outputs of a graph of ``Node``s (MXNet's ``mx.sym.Symbol``).

Example::

    >>> import hybridlab as mx
    >>> data = mx.sym.var('data')
    >>> net = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    >>> net = mx.sym.Activation(net, act_type='relu', name='relu1')
    >>> net.list_arguments()
    ['data', 'fc1_weight', 'fc1_bias']
    >>> net.list_outputs()
    ['relu1_output']
    >>> net
    <Symbol relu1>
"""
import copy as _copy

from ..base import MXNetError, dtype_flag
from .. import attribute as _attribute, name as _name
from . import debug as _debug, errors as _errors, infer as _infer, json as _json
from .graph import Node, topo_order
from .provenance import annotate

__all__ = ["Symbol", "var", "Variable", "Group", "compose"]


class Symbol:
    """Outputs ``(node, index)`` of a graph. Build with ``mx.sym.var`` and the ``mx.sym`` ops."""

    __slots__ = ("_outputs", "__weakref__")
    __array_priority__ = 1000.0      # NumPy scalars defer to Symbol's operators

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # ---- structure --------------------------------------------------------------------------
    @property
    def name(self):
        """The head node's name (``None`` for a group of several outputs)."""
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    @property
    def entries(self):
        """The graph entries this Symbol stands for, ``[(Node, output index)]`` (a new list), for
        tools that walk the graph (``symbol.graph.topo_order(sym.entries)``); ``Symbol(entries)``
        makes a Symbol of them.

        >>> import hybridlab as mx
        >>> [(node.name, i) for node, i in mx.sym.relu(mx.sym.var('x'), name='r').entries]
        [('r', 0)]
        """
        return list(self._outputs)

    def _nodes(self):
        return topo_order(self._outputs)

    def _aux_nodes(self):
        aux = set()
        for node in self._nodes():
            for i in node.aux_input_indices():
                aux.add(id(node.inputs[i][0]))
        return aux

    def list_arguments(self):
        """Names of the variables that are not auxiliary states, in graph order."""
        aux = self._aux_nodes()
        return [n.name for n in self._nodes() if n.is_variable and id(n) not in aux]

    def list_auxiliary_states(self):
        """Names of the variables ops mutate (BatchNorm's moving_mean / moving_var)."""
        aux = self._aux_nodes()
        return [n.name for n in self._nodes() if n.is_variable and id(n) in aux]

    def list_inputs(self):
        """Names of all variables (arguments and auxiliary states), in graph order."""
        return [n.name for n in self._nodes() if n.is_variable]

    def list_outputs(self):
        """Names of the outputs: ``<node>_output`` (or ``_output<i>``; a variable's own name)."""
        return [node.output_name(i) for node, i in self._outputs]

    def get_internals(self):
        """A group of every visible output of every node (variables included)."""
        outs = []
        for node in self._nodes():
            outs.extend((node, i) for i in range(node.num_visible()))
        return Symbol(outs)

    def get_children(self):
        """The inputs of the head node(s) as a group (each head node once, as nnvm's
        ``GetChildren``), or ``None`` when there are none (variables).

        >>> import hybridlab as mx
        >>> parts = mx.sym.SliceChannel(mx.sym.var('data'), num_outputs=3, name='slice')
        >>> parts.get_children().list_outputs()
        ['data']
        """
        outs, seen = [], set()
        for node, _ in self._outputs:
            if node not in seen:
                seen.add(node)
                outs.extend(node.inputs)
        return Symbol(outs) if outs else None

    def _gen_atomic_symbol(self):
        """MXNet's atomic symbol of the head op: a node with the same op and attributes, no
        inputs and no name, whose outputs are all of the op's visible outputs (what MXNet's
        subgraph and custom-op code compose anew).

        >>> import hybridlab as mx
        >>> fc = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3, name='fc')
        >>> atom = fc._gen_atomic_symbol()
        >>> atom.list_arguments(), atom.list_outputs(), atom.list_attr()
        ([], ['output'], {'num_hidden': '3'})
        """
        node = self._outputs[0][0]
        if node.is_variable:
            raise MXNetError(f"_gen_atomic_symbol: expected a symbol whose head is an operator, got the variable "
                             f"{node.name!r}")
        atom = Node(node.op, "", node.attrs, (), node.subgraphs)
        return Symbol([(atom, i) for i in range(atom.num_visible())])

    def __len__(self):
        return len(self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index or n == index + "_output"]
            if not matches:
                raise ValueError(f"There is no output named {index!r}; outputs are {names}")
            if len(matches) > 1:
                raise ValueError(f"There are multiple outputs with name {index!r}")
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not isinstance(index, int) or isinstance(index, bool):
            raise _errors.symbol_indexing_error(index)
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(f"Symbol index {index} out of range: it has {len(self._outputs)} outputs")
        return Symbol([self._outputs[index]])

    # ---- attributes -------------------------------------------------------------------------
    def attr(self, key):
        """The head node's attribute ``key`` (a string), or ``None``; ``attr('lr_mult')`` reads
        ``__lr_mult__`` (``attribute.HIDDEN_KEYS``), as in MXNet."""
        if len(self._outputs) != 1:
            return None
        attrs = self._outputs[0][0].attrs
        return attrs.get(key, attrs.get(_attribute.stored_key(key)))

    def list_attr(self, recursive=False):
        """The head node's attributes (``recursive``: every node's, keyed ``<node>$<key>``)."""
        if recursive:
            return {f"{n.name}${k}": v for n in self._nodes() for k, v in n.attrs.items()}
        return dict(self._outputs[0][0].attrs) if len(self._outputs) == 1 else {}

    def attr_dict(self):
        """``{node name: {key: value}}`` for every node that has attributes."""
        return {n.name: dict(n.attrs) for n in self._nodes() if n.attrs}

    def _set_attr(self, **kwargs):
        for node, _ in self._outputs:
            node.attrs.update({k: str(v) for k, v in kwargs.items()})
            node._parsed = None

    # ---- copies -----------------------------------------------------------------------------
    def __copy__(self):
        return Symbol(self._outputs)

    def __deepcopy__(self, memo):
        nodes = self._nodes()
        clones = {}
        for n in nodes:
            c = Node(n.op, n.name, n.attrs, [(clones[id(i)], k) for i, k in n.inputs], n.subgraphs)
            c.meta = _copy.deepcopy(n.meta, memo)
            clones[id(n)] = c
        return Symbol([(clones[id(n)], i) for n, i in self._outputs])

    # ---- pickling: as MXNet, through the symbol JSON ---------------------------------------------
    def __getstate__(self):
        """``{'handle': JSON}``, as MXNet pickles a Symbol (the graph's JSON, amp casts kept):
        ``pickle.loads(pickle.dumps(sym)).tojson() == sym.tojson()``.

        >>> import pickle, hybridlab as mx
        >>> s = mx.sym.relu(mx.sym.var('x'), name='r')
        >>> pickle.loads(pickle.dumps(s)).tojson() == s.tojson()
        True
        """
        return {"handle": self.tojson(remove_amp_cast=False)}

    def __setstate__(self, state):
        """Rebuild from ``__getstate__``'s ``{'handle': JSON}`` (read by the symbol JSON reader,
        with its checks)."""
        text = state.get("handle") if isinstance(state, dict) else None
        if not isinstance(text, (str, bytes)):
            raise MXNetError(f"Symbol.__setstate__: expected {{'handle': symbol JSON text}}, got {type(state).__name__}"
                             f" {sorted(state) if isinstance(state, dict) else ''}".rstrip())
        self._outputs = _json.from_json(text, source="pickled Symbol")._outputs

    # ---- inference ----------------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """Shapes of all arguments, outputs and auxiliary states from the known ones (positional in
        list_arguments order, or by name): ``(arg_shapes, out_shapes, aux_shapes)``, or
        ``(None, None, None)`` with a warning when some stay unknown.

        >>> import hybridlab as mx
        >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
        >>> net.infer_shape(data=(2, 4))
        ([(2, 4), (3, 4), (3,)], [(2, 3)], [])
        """
        return _infer.infer_shape(self, args, kwargs)

    def infer_shape_partial(self, *args, **kwargs):
        """Like ``infer_shape`` but returns what is known: ``()`` for an unknown shape, 0 for an
        unknown dimension."""
        return _infer.infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        """NumPy dtypes of all arguments, outputs and auxiliary states from the known ones:
        ``(arg_types, out_types, aux_types)``, or ``(None, None, None)`` with a warning.

        >>> import hybridlab as mx
        >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
        >>> net.infer_type(data='float16')
        ([dtype('float16'), dtype('float16'), dtype('float16')], [dtype('float16')], [])
        """
        return _infer.infer_type(self, args, kwargs)

    def infer_type_partial(self, *args, **kwargs):
        """Like ``infer_type`` but returns what is known (``None`` for unknown dtypes)."""
        return _infer.infer_type(self, args, kwargs, partial=True)

    # ---- binding to arrays (MXNet 1.x's executor API) ------------------------------------------
    # ``bind``, ``simple_bind`` and ``eval`` run the graph with the compiler, a layer above this
    # one: ``hybridlab.compiler.executor.attach`` adds them to Symbol when the compiler loads.

    def __call__(self, *args, name=None, **kwargs):
        """A copy of this graph with variables replaced by symbols: positionally in
        ``list_arguments`` order, or by name (MXNet's composition, ``net2 = net(data=other)``).

        >>> import hybridlab as mx
        >>> fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
        >>> fc(data=mx.sym.relu(mx.sym.var('x'), name='act')).list_arguments()
        ['x', 'fc_weight', 'fc_bias']
        """
        if args and kwargs:
            raise MXNetError("compose: expected symbols positionally or by name, not both")
        names = self.list_arguments()
        if len(args) > len(names):
            raise MXNetError(f"compose: expected at most {len(names)} symbols (for {names}), got {len(args)}")
        replace = dict(zip(names, args)) if args else dict(kwargs)
        unknown = sorted(set(replace) - set(names))
        if unknown:
            raise MXNetError(f"compose: {unknown} are not arguments of the symbol; expected some of {names}")
        for key, value in replace.items():
            if not isinstance(value, Symbol) or len(value._outputs) != 1:
                raise MXNetError(f"compose: argument {key!r} expected a single-output Symbol, got {value!r}")
        clone = _copy.deepcopy(self)
        entries = {n.name: s._outputs[0] for n, s in ((n, replace.get(n.name)) for n in clone._nodes()
                                                      if n.is_variable) if s is not None}
        for node in clone._nodes():
            node.inputs = [entries.get(src.name, (src, i)) if src.is_variable else (src, i) for src, i in node.inputs]
        outputs = [entries.get(n.name, (n, i)) if n.is_variable else (n, i) for n, i in clone._outputs]
        if name is not None and len(outputs) == 1 and not outputs[0][0].is_variable:
            outputs[0][0].name = name
        return Symbol(outputs)

    # ---- files --------------------------------------------------------------------------------
    def as_np_ndarray(self):
        """MXNet's conversion to its NumPy-style symbol class: one Symbol class here, so this is
        the symbol itself (the graph is the same; ``mx.sym.np`` builds on it)."""
        return self

    def as_nd_ndarray(self):
        """MXNet's conversion back to the legacy symbol class: the symbol itself."""
        return self

    def tojson(self, remove_amp_cast=True):
        """The graph as MXNet 1.9 symbol JSON (``mx.sym.fromjson`` reads it back).

        >>> import hybridlab as mx
        >>> s = mx.sym.relu(mx.sym.var('x'), name='r')
        >>> mx.sym.fromjson(s.tojson()).list_outputs()
        ['r_output']
        """
        return _json.to_json(self, remove_amp_cast)

    def save(self, fname, remove_amp_cast=True):
        """Write ``tojson()`` to ``fname`` (atomically); ``mx.sym.load(fname)`` reads it back."""
        _json.save(self, fname, remove_amp_cast)

    # ---- printing ---------------------------------------------------------------------------
    def debug_str(self):
        """MXNet's debug text: the outputs, then every variable and op with inputs and attributes."""
        return _debug.debug_str(self)

    def graph_str(self):
        """A readable listing of the graph, one line per node (with shapes/dtypes once inferred)."""
        return _debug.graph_str(self)

    def __repr__(self):
        if len(self._outputs) == 1:
            return f"<Symbol {self.name}>"
        return f"<Symbol group [{', '.join(n.name for n, _ in self._outputs)}]>"

    # ---- what a Symbol cannot do (MXNet's errors, with the rewrite to use) ---------------------
    def __bool__(self):
        raise _errors.symbol_bool_error()

    def __setitem__(self, index, value):
        raise _errors.symbol_item_assignment_error()

    def __getattr__(self, name):
        if name.startswith("_"):      # protocols and private names: the plain error, fast
            raise AttributeError(f"'Symbol' object has no attribute '{name}'")
        raise _errors.symbol_attribute_error(name, _PUBLIC_METHODS)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    __hash__ = object.__hash__

    # ---- arithmetic: MXNet 1.x's Symbol operators (element-wise, no broadcasting; names _plus0...) ---
    def __add__(self, o):
        return _binary(self, o, "_Plus", "_PlusScalar")

    __radd__ = __add__

    def __sub__(self, o):
        return _binary(self, o, "_Minus", "_MinusScalar")

    def __rsub__(self, o):
        return _binary(self, o, "_Minus", "_RMinusScalar", reflected=True)

    def __mul__(self, o):
        return _binary(self, o, "_Mul", "_MulScalar")

    __rmul__ = __mul__

    def __truediv__(self, o):
        return _binary(self, o, "_Div", "_DivScalar")

    def __rtruediv__(self, o):
        return _binary(self, o, "_Div", "_RDivScalar", reflected=True)

    def __mod__(self, o):
        return _binary(self, o, "_Mod", "_ModScalar")

    def __rmod__(self, o):
        return _binary(self, o, "_Mod", "_RModScalar", reflected=True)

    def __pow__(self, o):
        return _binary(self, o, "_Power", "_PowerScalar")

    def __rpow__(self, o):
        return _binary(self, o, "_Power", "_rpower_scalar", reflected=True)

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return compose("abs", [self], {})

    def __matmul__(self, o):
        return compose("_np_matmul", [self, o], {})

    def __eq__(self, o):
        return _binary(self, o, "_equal", "_equal_scalar")

    def __ne__(self, o):
        return _binary(self, o, "_not_equal", "_not_equal_scalar")

    def __gt__(self, o):
        return _binary(self, o, "_greater", "_greater_scalar")

    def __ge__(self, o):
        return _binary(self, o, "_greater_equal", "_greater_equal_scalar")

    def __lt__(self, o):
        return _binary(self, o, "_lesser", "_lesser_scalar")

    def __le__(self, o):
        return _binary(self, o, "_lesser_equal", "_lesser_equal_scalar")

    def reshape(self, *shape, **kwargs):
        """``Reshape`` with MXNet's special codes (0, -1, -2, -3, -4); ``reverse=True`` matches them
        from the right. Only the keywords given are stored, as in MXNet."""
        shape = kwargs.pop("shape", shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
        return compose("Reshape", [self], dict(shape=tuple(shape), **kwargs))

    def astype(self, dtype):
        return compose("Cast", [self], {"dtype": dtype})


class _PublicMethods:
    """Symbol's public method names, listed when an error message asks for them."""

    def __iter__(self):
        return iter([m for m in dir(Symbol) if not m.startswith("_")])


_PUBLIC_METHODS = _PublicMethods()


def _binary(lhs, rhs, array_op, scalar_op, reflected=False):
    """``array_op`` / ``scalar_op`` are the names MXNet's Symbol operators call (``_internal._Plus``):
    the node is named after them, lower-cased (``_plus0``, ``_mulscalar0``)."""
    if isinstance(rhs, Symbol):
        return compose(array_op, [rhs, lhs] if reflected else [lhs, rhs], {}, hint=array_op.lower())
    if isinstance(rhs, (int, float, bool)) or type(rhs).__module__ == "numpy":
        return compose(scalar_op, [lhs], {"scalar": rhs}, hint=scalar_op.lower())
    return NotImplemented


def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None, **kwargs):
    """A variable (data input, parameter or auxiliary state).

    >>> import hybridlab as mx
    >>> v = mx.sym.var('w', shape=(3, 0), dtype='float32', lr_mult=2.0)
    >>> sorted(v.list_attr().items())
    [('__dtype__', '0'), ('__lr_mult__', '2.0'), ('__shape__', '(3, 0)')]
    """
    if not isinstance(name, str):
        raise TypeError(f"Expect a string for variable `name`, got {type(name).__name__}")
    attrs = _attribute.node_attrs(attr)
    if shape is not None:       # an int is a 1-d shape, as MXNet reads "1"
        attrs["__shape__"] = str((int(shape),) if isinstance(shape, int) else tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)        # as MXNet writes it: lr_mult=1 is "1"
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(dtype_flag(dtype))
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs["__storage_type__"] = str({"default": 0, "row_sparse": 1, "csr": 2}.get(stype, stype))
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attrs[k] = str(v)
        else:
            raise ValueError(f"Attribute name={k} is not supported. Additional attributes must start and "
                             f"end with double underscores, e.g, __yourattr__")
    return Symbol([(Node(None, name, attrs), 0)])


Variable = var


def Group(symbols):
    """One symbol with the outputs of all ``symbols``.

    >>> import hybridlab as mx
    >>> mx.sym.Group([mx.sym.var('a'), mx.sym.var('b')]).list_outputs()
    ['a', 'b']
    """
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([o for s in symbols for o in s._outputs])


def compose(op, inputs, kwargs, name=None, attr=None, hint=None):
    """A new node applying ``op`` (an OpDef or a name) to ``inputs`` (Symbols, or ``None`` for an
    input to create as the variable ``<name>_<input>``), with keyword attributes ``kwargs``.
    Unnamed nodes are named ``<hint><count>``; ``hint`` defaults to the op name lower-cased (MXNet
    uses the name the op was called by: ``mx.sym.split`` gives ``split0``, not ``slicechannel0``)."""
    from ..ops.registry import get_op
    if isinstance(op, str):
        op = get_op(op)
    kwargs = dict(kwargs)
    hidden = _hidden_keywords(op, kwargs)          # lr_mult=0 etc.: node attributes, not op ones
    if op.variadic:
        kwargs.setdefault("num_args", len(inputs))
    a = op.parse_attrs(kwargs)                     # validates names and values now, like MXNet
    node_name = _name.current().get(name, hint or op.name.lower())
    attrs = op.format_attrs({k: v for k, v in kwargs.items()})
    attrs.update(_attribute.node_attrs(attr))           # an AttrScope's, then the call's own
    attrs.update(hidden)
    names = op.input_names(a)
    inputs = list(inputs) + [None] * (len(names) - len(inputs))
    if len(inputs) > len(names):
        raise MXNetError(f"{op.name}: expected {len(names)} inputs ({', '.join(names)}), got {len(inputs)}")
    entries = []
    for input_name, x in zip(names, inputs):
        if x is None:   # MXNet creates missing inputs as variables that carry the op's attributes
            x = var(f"{node_name}_{input_name}",
                    attr={k: v for k, v in attrs.items() if not k.startswith("__") or k in hidden})
        if not isinstance(x, Symbol):
            raise TypeError(f"{op.name}: input '{input_name}' expected a Symbol, got {type(x).__name__}")
        if len(x._outputs) != 1:
            raise MXNetError(f"{op.name}: input '{input_name}' expected a single-output Symbol, got a group of "
                             f"{len(x._outputs)}")
        init = op.var_init.get(input_name)
        if init is not None and x._outputs[0][0].is_variable and "__init__" not in x._outputs[0][0].attrs:
            x._outputs[0][0].attrs["__init__"] = init
        entries.append(x._outputs[0])
    node = annotate(Node(op, node_name, attrs, entries))
    _update_versions(node)
    n = op.n_visible(a)
    return Symbol([(node, i) for i in range(n)])


def _hidden_keywords(op, kwargs):
    """Take MXNet's hidden keys given as op keywords (``FullyConnected(..., lr_mult=0)``) out of
    ``kwargs``: ``{"__lr_mult__": "0"}``, for the node and the variables it creates (its weight then
    trains with that multiplier, as in MXNet). ``weight_lr_mult=`` is refused with MXNet's advice."""
    hidden = {}
    for key in list(kwargs):
        if key in _attribute.HIDDEN_KEYS:
            hidden[_attribute.stored_key(key)] = str(kwargs.pop(key))
        elif key not in op.attrs and key.endswith(tuple("_" + k for k in _attribute.HIDDEN_KEYS)):
            base = next(k for k in _attribute.HIDDEN_KEYS if key.endswith("_" + k))
            raise MXNetError(f"{op.name}: setting variable attributes with {key} is not supported (deprecated "
                             f"in MXNet): expected w = mx.sym.Variable(..., {base}={kwargs[key]!r}) passed as "
                             f"{key[:-len(base) - 1]}=w")
    return hidden


def _update_versions(node):
    """nnvm's ``UpdateNodeVersion``: an input variable is read at its current version; composing it
    into an op that mutates it (BatchNorm's moving stats) increments the version. Versions are
    written in the JSON entries ``[node, index, version]``."""
    aux = set(node.aux_input_indices())
    versions = []
    for i, (src, _) in enumerate(node.inputs):
        v = 0
        if src.is_variable:
            v = src.meta.get("version", 0) + (i in aux)
            if i in aux:
                src.meta["version"] = v
        versions.append(v)
    if any(versions):
        node.meta["input_versions"] = versions
