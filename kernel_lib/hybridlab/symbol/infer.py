"""Graph-level shape and dtype inference, with no data: ONE engine (``propagate``), a walk over the
nodes in topological order that asks each op's own ``infer_shape(a, in_shapes)`` /
``infer_type(a, in_dtypes)``, repeated until nothing changes. Two conventions use it:

* the symbolic API (``Symbol.infer_shape`` / ``infer_type``, the partial variants, ``annotate``):
  unknown shapes are ``None`` and unknown dimensions ``0`` (MXNet's legacy convention: a
  variable's ``__shape__`` attribute ``"(256, 0)"`` is a partial shape). Ops fill unknown input
  entries in place (a FullyConnected fills its weight from the data), and those results flow back
  to the variables. Every node's results end up in ``node.meta["shapes"]`` / ``node.meta["dtypes"]``
  (one entry per output, hidden ones included) for the graph view.
* one input signature of a cached op (``infer_graph``): every input's exact shape and dtype is
  known (a 0 is an empty axis); the per-node results are returned as tables for that signature.

Example::

    >>> import hybridlab as mx
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc1')
    >>> arg_shapes, out_shapes, aux_shapes = net.infer_shape(data=(2, 5))
    >>> arg_shapes, out_shapes, aux_shapes
    ([(2, 5), (8, 5), (8,)], [(2, 8)], [])
    >>> net.infer_shape_partial(data=(0, 5))     # batch size unknown
    ([(0, 5), (8, 5), (8,)], [(0, 8)], [])
"""
import heapq
import warnings

import numpy as np

from ..base import MXNetError, dtype_from_flag, normalize_dtype
from ..ops.attrs import Attr
from ..ops.infer import InferError, known, same_shape, unary_shape
from .graph import topo_order
from .provenance import where
from .subgraph_inline import expand

__all__ = ["infer_shape", "infer_type", "annotate", "infer_graph", "propagate"]

_SHAPE_ATTR = Attr("shape")
# what an op's inference may raise when an input is not known yet: "cannot say", not an error
_UNKNOWN_INPUT_ERRORS = (TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError,
                         OverflowError, InferError)


class _Conflict(Exception):
    pass


def _merge_shape(old, new):
    if new is None or old == new:
        return old
    new = tuple(int(d) for d in new)
    if any(d < 0 for d in new):     # MXNet's -1 (a creation op's shape), or a size computed from unknowns
        new = tuple(max(d, 0) for d in new)
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise _Conflict
    return tuple(a or b for a, b in zip(old, new))


def _merge_dtype(old, new):
    if new is None:
        return old
    if not isinstance(new, np.dtype):
        new = np.dtype(new)
    if old is None or old == new:
        return new
    raise _Conflict


def _same(a, b):
    """Equality where None is only equal to None (``np.dtype('float64') == None`` is True)."""
    return a is b or (a is not None and b is not None and a == b)


class _Kind:
    """What differs between shape and dtype inference, and between the two conventions: partial
    (MXNet's symbolic API: a 0 dimension is unknown) and exact (arrays of one input signature: a 0
    dimension is an empty axis, every variable is known)."""

    def __init__(self, name, title, merge, is_known, var_attr, run, partial, pad):
        self.name, self.title, self.merge, self.is_known = name, title, merge, is_known
        self.var_attr, self.run, self.partial, self.pad = var_attr, run, partial, pad


def _merge_exact_shape(old, new):
    if new is None or old == new:
        return old
    new = tuple(map(int, new))
    if new and min(new) < 0:        # an op computed with unknown dims: not an answer
        return old
    if old is None:
        return new
    raise _Conflict


def _clip(text, n=80):
    return repr(text) if len(text) <= n else repr(text[:n]) + f"... ({len(text)} characters)"


def _var_shape(node, np_shape=False):
    """A variable's ``__shape__`` attribute; ``()`` is unknown, unless under NumPy shape semantics
    (a scalar)."""
    text = node.attrs.get("__shape__")
    if text is None:
        return None
    try:
        shape = _SHAPE_ATTR.parse(text)
    except (MXNetError, ValueError, TypeError, OverflowError, RecursionError):
        raise MXNetError(f"variable {node.name!r}: attribute __shape__ expected a shape such as '(256, 0)', "
                         f"got {_clip(text)}") from None
    return shape if np_shape else shape or None          # legacy: ndim 0 means unknown


def _var_dtype(node):
    text = node.attrs.get("__dtype__")
    if text is None:
        return None
    try:
        return dtype_from_flag(int(text))
    except (MXNetError, ValueError) as err:
        reason = f" ({err})" if isinstance(err, MXNetError) else ""
        raise MXNetError(f"variable {node.name!r}: attribute __dtype__ expected a type flag such as '0', "
                         f"got {_clip(text)}{reason}") from None


def _run_shape(op, a, vals):
    return op.infer_shape(a, vals)


def _run_type(op, a, vals):
    return op.infer_type(a, vals)


def _not_none(d):
    return d is not None


SHAPE = _Kind("shape", "Shape", _merge_shape, known, _var_shape, _run_shape, partial=True, pad=False)
DTYPE = _Kind("type", "Type", _merge_dtype, _not_none, _var_dtype, _run_type, partial=False, pad=False)
# one input signature's arrays (variables given, exact shapes; an op naming fewer dtypes than outputs
# gives the others its first)
EXACT_SHAPE = _Kind("shape", "Shape", _merge_exact_shape, _not_none, None, _run_shape, partial=False,
                    pad=False)
EXACT_DTYPE = _Kind("type", "Type", _merge_dtype, _not_none, None, _run_type, partial=False, pad=True)


def _where(node):
    src = node.meta.get("source")
    return f" (node created at {src['file']}:{src['line']}: {src['code']})" if src else ""


def _input_desc(node, k):
    names = node.input_names()
    src = node.inputs[k][0]
    name = names[k] if k < len(names) else f"input {k}"
    return f"'{name}'" + (f" (variable '{src.name}')" if src.is_variable else f" (output of '{src.name}')")


def _fmt(kind, v):
    return v.name if kind.name == "type" and isinstance(v, np.dtype) else str(v)


def _error(kind, node, k, provided, inferred, why=""):
    arg = f"input {_input_desc(node, k)}" if k is not None else "its output"
    return MXNetError(f"Error in operator {node.name}: {kind.title} inconsistent for {arg} of {node.op_name}, "
                      f"Provided = {_fmt(kind, provided)}, inferred {kind.name} = {_fmt(kind, inferred)}"
                      + (f" ({why})" if why else "") + _where(node))


class _SymbolReport:
    """Errors as MXNet's symbolic inference words them (``Symbol.infer_shape``, ``annotate``)."""

    @staticmethod
    def infer_error(kind, node, a, err, given):
        i = err.arg if isinstance(err.arg, int) and 0 <= err.arg < len(given) else None
        return _error(kind, node, i, err.got, err.expected, err.why)

    @staticmethod
    def op_error(kind, node, err, given):
        return MXNetError(f"Error in operator {node.name}: {err}{_where(node)}")


class _ProgramReport:
    """Errors of a cached op's input signature: the node, its op, the argument and what feeds it."""

    @staticmethod
    def infer_error(kind, node, a, err, given):
        names = node.input_names()
        idx = err.arg if isinstance(err.arg, int) else (names.index(err.arg) if err.arg in names else None)
        arg = names[idx] if idx is not None and idx < len(names) else err.arg
        feeder = ""
        if idx is not None and idx < len(node.inputs):
            src, k = node.inputs[idx]
            feeder = f" (input '{src.name}')" if src.is_variable else f" (output {k} of node '{src.name}')"
        msg = (f"CachedOp: node '{node.name}' ({node.op.name}): argument '{arg}'{feeder} expected "
               f"{err.expected_text('shape' if kind.name == 'shape' else 'dtype')}, got {err.got}")
        if err.why:
            msg += f" ({err.why})"
        inputs = ", ".join(f"{n}={s}" for n, s in zip(names, given))
        return MXNetError(msg + f"; inputs: {inputs}" + where(node))

    @staticmethod
    def op_error(kind, node, err, given):
        if kind.name == "type":
            given = [getattr(d, "name", d) for d in given]
        feeders = ", ".join(f"{name}={v} (from '{src.name}')" for name, v, (src, _) in
                            zip(node.input_names(), given, node.inputs))
        return MXNetError(f"CachedOp: node '{node.name}' ({node.op.name}): {err}; inputs: {feeders}{where(node)}")


def propagate(nodes, tables, report=_SymbolReport):
    """Fill, for each ``(kind, values)`` of ``tables`` (``values``: {(id(node), output index):
    value}), every entry of ``nodes`` (topological order) that ``kind``'s inference can reach; the
    variables' entries must be there already. ``report`` words the errors.

    One sweep in topological order, every op once (each kind in turn); an op that fills one of its
    inputs (a FullyConnected its weight, or a sibling's output it shares) sends the nodes already
    swept that read that entry round again, earliest first. A deep or wide graph costs time linear
    in its size, and entries only ever become more known, so it ends."""
    consumers = None               # (id(node), output) -> indices of its readers: built when first needed
    position = None                # id(node) -> its index: the producer of an entry an op filled
    redo, queued = [], set()       # nodes to run again (a heap of indices before the sweep's position)
    k, n = 0, len(nodes)
    while k < n or redo:
        if redo:
            j = heapq.heappop(redo)
            queued.discard(j)
        else:
            j, k = k, k + 1
        node = nodes[j]
        if node.op is None:
            continue
        a = node.parsed_attrs()
        keys = [(id(src), idx) for src, idx in node.inputs]
        for kind, values in tables:
            ins, outs = _step(node, a, keys, kind, values, report)
            # the readers of the outputs come after the node: swept later, unless this is a second run
            for key in ins + outs if j < k - 1 else ins:
                if consumers is None:
                    consumers, position = {}, {id(other): c for c, other in enumerate(nodes)}
                    for c, other in enumerate(nodes):
                        for src, idx in other.inputs:
                            consumers.setdefault((id(src), idx), []).append(c)
                # the entry's readers, and (for a filled input) its producer, which may infer backwards
                for c in consumers.get(key, ()) if key in outs else (*consumers.get(key, ()), position.get(key[0])):
                    if c is not None and c < k and c not in queued:
                        queued.add(c)
                        heapq.heappush(redo, c)
    return tables


# shape rules under which an output has the shape of inputs (all of them / the first): partial
# inference also runs them backwards, from a known output to unknown inputs (MXNet's ElemwiseShape),
# for ops without an ``infer_partial`` rule of their own
_SAME_AS_OUTPUT = {same_shape: None, unary_shape: 1}


def _from_output(node, a, kind, values, vals, given, report):
    """Fill ``vals`` (the inputs' shapes) from ``node``'s known outputs, in partial shape inference
    only: by its op's ``infer_partial`` rule (a transpose's input from its output, a Convolution's
    batch size), or, where the op's shape rule makes them equal (``_SAME_AS_OUTPUT``), with the
    output's shape (``cast(w)`` read as a convolution's weight gives ``w`` that weight's shape).
    False when the op's rule says that it infers nothing yet (``where`` with an unknown condition)."""
    if not kind.partial or kind.name != "shape":
        return True
    op = node.op
    node_id = id(node)
    if op.infer_partial is not None:
        outs = [values.get((node_id, i)) for i in range(node.num_outputs())]
        try:
            return op.infer_partial(a, vals, outs) is not False
        except InferError as err:
            raise report.infer_error(kind, node, a, err, given) from None
    try:
        n_same = _SAME_AS_OUTPUT[op.infer_shape]
    except (KeyError, TypeError):
        return True
    out = values.get((node_id, 0))
    if out is None:
        return True
    for i in range(len(vals) if n_same is None else min(n_same, len(vals))):
        if known(vals[i]):
            continue
        try:
            vals[i] = kind.merge(vals[i], out)
        except _Conflict:
            raise _error(kind, node, i, vals[i], out, "the output has this input's shape") from None
    return True


def _step(node, a, keys, kind, values, report):
    """Run ``node``'s ``kind`` inference on ``values``; returns the entries it changed: ``(inputs,
    outputs)``."""
    given = [values.get(key) for key in keys]
    vals = list(given)
    if not _from_output(node, a, kind, values, vals, given, report):
        return [], []
    # ops treat a None input as unknown, but a 0 dimension may trip a check (broadcasting)
    partial_dims = kind.partial and any(v is not None and 0 in v for v in given)
    try:
        outs = kind.run(node.op, a, vals)
    except InferError as err:
        i = err.arg if isinstance(err.arg, int) and 0 <= err.arg < len(given) else None
        # a real conflict: both sides known, or the input is wrong whatever the others are
        certain = not kind.partial or (i is not None and known(given[i]) and (
            err.alone or isinstance(err.expected, tuple) and 0 not in err.expected))
        if partial_dims and not certain:
            return [], []
        raise report.infer_error(kind, node, a, err, given) from None
    except MXNetError as err:
        if partial_dims:
            return [], []
        raise report.op_error(kind, node, err, given) from None
    except _UNKNOWN_INPUT_ERRORS as err:
        if not all(kind.is_known(v) for v in given):
            return [], []
        # every input known and the op's inference still fails: the node is malformed (a
        # model file's attributes), which is the caller's error to read, not a crash
        raise MXNetError(f"Error in operator {node.name}: {node.op_name} cannot infer its output "
                         f"{kind.name} from inputs {[_fmt(kind, v) for v in given]} "
                         f"({type(err).__name__}: {err}){_where(node)}") from None
    changed = []
    for i, key in enumerate(keys):
        if vals[i] is None or vals[i] is given[i]:      # the op left this input as it was
            continue
        old = values.get(key)
        try:
            merged = kind.merge(old, vals[i])
        except _Conflict:
            raise _error(kind, node, i, given[i], vals[i]) from None
        except _UNKNOWN_INPUT_ERRORS as err:
            raise _bad_value(kind, node, f"input {i}", vals[i], err) from None
        if not _same(merged, old):
            values[key] = merged
            changed.append(key)
    changed_outputs = []
    n_out = node.num_outputs()
    outs = list(outs or ())[:n_out]
    if kind.pad and outs and len(outs) < n_out:
        outs += [outs[0]] * (n_out - len(outs))
    node_id = id(node)
    for i, out in enumerate(outs):
        key = (node_id, i)
        old = values.get(key)
        try:
            merged = kind.merge(old, out)
        except _Conflict:
            raise _error(kind, node, None, old, out, f"output {i} is used elsewhere as {_fmt(kind, old)}") from None
        except _UNKNOWN_INPUT_ERRORS as err:
            raise _bad_value(kind, node, f"output {i}", out, err) from None
        if not _same(merged, old):
            values[key] = merged
            changed_outputs.append(key)
    if changed_outputs and kind.partial and kind.name == "shape" and node.op.infer_partial is not None:
        # the outputs this step found may complete the inputs (a Reshape whose output is known from
        # its attributes though its input has an unknown dimension)
        given = [values.get(key) for key in keys]
        vals = list(given)
        _from_output(node, a, kind, values, vals, given, report)
        for i, key in enumerate(keys):
            if vals[i] is None or vals[i] is given[i]:
                continue
            try:
                merged = kind.merge(given[i], vals[i])
            except _Conflict:
                raise _error(kind, node, i, given[i], vals[i]) from None
            if not _same(merged, given[i]):
                values[key] = merged
                changed.append(key)
    return changed, changed_outputs


def _bad_value(kind, node, what, value, err):
    return MXNetError(f"Error in operator {node.name}: {node.op_name} inferred {what} {kind.name} {value!r}, "
                      f"which is not a {kind.name} ({type(err).__name__}: {err}){_where(node)}")


def _run(symbol, args, kwargs, kind, convert, start=None):
    """Inference from user-given values: ``(nodes, values, arg_nodes, aux_nodes)``. ``start(node,
    given)``: a variable's value from the user's (``None`` when not given), by default the given
    one or else the variable's attribute."""
    if args and kwargs:
        raise ValueError(f"Can only specify known argument {kind.name}s either by positional or kwargs way.")
    nodes = topo_order(symbol._outputs)
    aux_ids = symbol._aux_nodes()
    variables = [n for n in nodes if n.is_variable]
    arg_nodes = [n for n in variables if id(n) not in aux_ids]
    aux_nodes = [n for n in variables if id(n) in aux_ids]
    given = {}
    if args:
        if len(args) > len(arg_nodes):
            raise MXNetError(f"infer_{kind.name}: expected at most {len(arg_nodes)} positional {kind.name}s "
                             f"(arguments: {', '.join(n.name for n in arg_nodes)}), got {len(args)}")
        for i, (node, v) in enumerate(zip(arg_nodes, args)):
            if v is not None:
                given[id(node)] = convert(v, f"argument {i}")
    else:
        names = {}
        for n in variables:
            names.setdefault(n.name, []).append(n)
        for key, v in kwargs.items():
            if key not in names:
                candidates = "".join(f"\t[{i}]{n.name}\n" for i, n in enumerate(variables))
                raise MXNetError(f"Infer{kind.name.capitalize()}: Keyword argument name {key} not found."
                                 f"\nCandidate arguments:\n{candidates}")
            for n in names[key]:
                given[id(n)] = convert(v, repr(key))
    values = {}
    for n in variables:
        v = given.get(id(n))
        if start is not None:
            v = start(n, v)
        elif v is None or (kind is SHAPE and not v):
            v = kind.var_attr(n)
        if v is not None:
            values[(id(n), 0)] = v
    propagate(nodes, [(kind, values)])
    _store_meta(nodes, values, "shapes" if kind is SHAPE else "dtypes")
    return nodes, values, arg_nodes, aux_nodes


def _store_meta(nodes, values, key):
    for n in nodes:
        n.meta[key] = [values.get((id(n), i)) for i in range(n.num_outputs())]


def _shape_arg(v, where):
    if not isinstance(v, tuple):
        raise TypeError(f"Arguments need to be shapes (tuple), but {where} is {type(v)}.")
    return tuple(int(d) for d in v)


def _dtype_arg(v, where):
    return normalize_dtype(v)


def _results(symbol, values, arg_nodes, aux_nodes):
    return ([values.get((id(n), 0)) for n in arg_nodes],
            [values.get((id(n), i)) for n, i in symbol._outputs],
            [values.get((id(n), 0)) for n in aux_nodes])


class _Convention:
    """How the symbolic API writes shapes, as MXNet 1.9.1 does. Legacy: an unknown shape is ``()``
    and an unknown dimension 0 (a given -1 is read as 0). Under NumPy shape semantics
    (``mx.util.np_shape()``, ``npx.set_np()``): an unknown shape is ``None``, an unknown dimension
    -1, and ``()`` is a scalar. Inference itself runs on 0 = unknown dimension: NumPy's -1 become
    0 there and are written back as -1; a 0 given or declared where no -1 is (an empty axis) stays a
    0 and counts as known."""

    def __init__(self, np_shape):
        self.np_shape = np_shape
        self.marked = False         # a -1 (NumPy semantics) was given or declared: 0s read back as -1

    def given(self, v, where):
        shape = _shape_arg(v, where)
        if any(d < 0 for d in shape):
            self.marked = True
            shape = tuple(max(d, 0) for d in shape)
        return shape

    def start(self, node, v):
        if v is not None and (v or self.np_shape):
            return v
        v = _var_shape(node, self.np_shape)
        return None if v is None else self.given(v, f"variable {node.name!r}")

    def scan(self, nodes):
        """Creation ops declaring a -1 (``sym.ones(shape=(2, -1))``) mark unknown dimensions too."""
        if self.np_shape and not self.marked:
            self.marked = any(n.op is not None and n.op.family == "creation" and
                              any(d < 0 for d in (n.parsed_attrs().get("shape") or ())) for n in nodes)

    def known(self, shape):
        if shape is None:
            return False
        return 0 not in shape if (self.marked or not self.np_shape) else True

    def out(self, shape):
        if shape is None:
            return None if self.np_shape else ()
        return tuple(-1 if d == 0 else d for d in shape) if self.np_shape and self.marked else shape


def infer_shape(symbol, args, kwargs, partial=False):
    """``(arg_shapes, out_shapes, aux_shapes)`` in list_arguments / list_outputs /
    list_auxiliary_states order. Incomplete: ``(None, None, None)`` and a warning naming the
    unknown arguments, or with ``partial`` the partial shapes: ``()`` where nothing is known and
    0 for unknown dimensions, or ``None`` and -1 under NumPy shape semantics (``_Convention``).

    >>> import hybridlab as mx
    >>> y = mx.sym.transpose(mx.sym.var('x'), axes=(0, 2, 1))
    >>> y.infer_shape_partial(x=(0, 3, 4))
    ([(0, 3, 4)], [(0, 4, 3)], [])
    >>> with mx.util.np_shape():
    ...     y.infer_shape_partial(x=(-1, 3, 4))
    ([(-1, 3, 4)], [(-1, 4, 3)], [])
    """
    from ..numpy_extension import is_np_shape     # here: numpy_extension imports the ndarray layer
    symbol = expand(symbol)                        # _CachedOp nodes: their graphs (subgraph_inline)
    conv = _Convention(is_np_shape())
    nodes, values, arg_nodes, aux_nodes = _run(symbol, args, kwargs, SHAPE, conv.given, conv.start)
    conv.scan(nodes)
    res = _results(symbol, values, arg_nodes, aux_nodes)
    if partial:
        return tuple([conv.out(s) for s in part] for part in res)
    if all(conv.known(s) for part in res for s in part):
        return res
    unknown = [f"{n.name}: {conv.out(s)}" for n, s in zip(arg_nodes, res[0]) if not conv.known(s)]
    if len(unknown) > 10:
        unknown = unknown[:10] + ["..."]
    warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
                  "Consider providing them as input:\n\t" + "\n\t".join(unknown), stacklevel=3)
    return None, None, None


def infer_type(symbol, args, kwargs, partial=False):
    """``(arg_types, out_types, aux_types)`` as NumPy dtypes; ``(None, None, None)`` and a warning
    when some stay unknown, or with ``partial`` the known ones and ``None`` for the others."""
    symbol = expand(symbol)
    _, values, arg_nodes, aux_nodes = _run(symbol, args, kwargs, DTYPE, _dtype_arg)
    res = _results(symbol, values, arg_nodes, aux_nodes)
    if partial or all(t is not None for part in res for t in part):
        return res
    unknown = [f"{n.name}: None" for n, t in zip(arg_nodes, res[0]) if t is None]
    if len(unknown) > 10:
        unknown = unknown[:10] + ["..."]
    warnings.warn("Cannot decide type for the following arguments. Consider providing them as input:\n\t"
                  + "\n\t".join(unknown), stacklevel=3)
    return None, None, None


def infer_graph(outputs, inputs, shapes, dtypes, nodes=None):
    """``({id(node): [shape per output]}, {id(node): [dtype per output]})`` of every node reachable
    from ``outputs`` ((node, index) entries) when the variable nodes ``inputs`` hold arrays of
    ``shapes``/``dtypes`` (one each, exact: a 0 is an empty axis). ``nodes``: the op nodes in
    topological order, when the caller has them (one graph walk less).

    This is the inference a cached op runs once per input signature
    (``compiler.signature.Signature.infer``); its results are per signature, so they are returned,
    not stored in ``node.meta`` (the nodes of a cached op's graph serve every signature). Shapes a
    node cannot infer (value-dependent ops) are ``None``. A conflict raises ``MXNetError`` naming the
    node, its op, the argument and what feeds it, expected vs got.

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> y = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc1')
    >>> inputs = [n for n in y._nodes() if n.is_variable]
    >>> shapes, dtypes = infer_graph(y._outputs, inputs, [(0, 5), (8, 5), (8,)], [np.dtype('float32')] * 3)
    >>> fc = y._outputs[0][0]
    >>> shapes[id(fc)], dtypes[id(fc)]
    ([(0, 8)], [dtype('float32')])
    """
    if nodes is None:
        nodes = [n for n in topo_order(outputs) if not n.is_variable]
    shape_of, dtype_of = {}, {}
    for node, shape, dtype in zip(inputs, shapes, dtypes):
        shape_of[(id(node), 0)], dtype_of[(id(node), 0)] = tuple(shape), dtype
    for node in nodes:
        for src, _ in node.inputs:
            if src.op is None and (id(src), 0) not in shape_of:
                raise MXNetError(f"CachedOp: variable '{src.name}' is not an input of this graph")
    propagate(nodes, [(EXACT_SHAPE, shape_of), (EXACT_DTYPE, dtype_of)], _ProgramReport)
    out_shapes = {id(node): [shape_of[(id(node), 0)]] for node in inputs}
    out_dtypes = {id(node): [dtype_of[(id(node), 0)]] for node in inputs}
    for node in nodes:
        key, n_out = id(node), node.num_outputs()
        if n_out == 1:
            out_shapes[key], out_dtypes[key] = [shape_of.get((key, 0))], [dtype_of.get((key, 0))]
        else:
            out_shapes[key] = [shape_of.get((key, i)) for i in range(n_out)]
            out_dtypes[key] = [dtype_of.get((key, i)) for i in range(n_out)]
    return out_shapes, out_dtypes


def annotate(symbol, shapes=None, dtypes=None):
    """Partial shape and dtype inference from ``{input name: shape}`` / ``{input name: dtype}``,
    stored in every node's ``meta["shapes"]`` / ``meta["dtypes"]`` (for the graph view); returns
    ``symbol``. Errors are raised as in ``infer_shape``."""
    _run(symbol, (), dict(shapes or {}), SHAPE, _shape_arg)
    _run(symbol, (), dict(dtypes or {}), DTYPE, _dtype_arg)
    return symbol
