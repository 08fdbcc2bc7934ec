"""Graph-level shape and dtype inference (``Symbol.infer_shape`` / ``infer_type`` and the partial
variants), with no data: a walk over the nodes in topological order that asks each op's own
``infer_shape(a, in_shapes)`` / ``infer_type(a, in_dtypes)``, repeated until nothing changes.

Ops fill unknown input entries in place (a FullyConnected fills its weight from the data), and
those results flow back to the variables. Unknown shapes are ``None`` and unknown dimensions ``0``
(MXNet's legacy convention: a variable's ``__shape__`` attribute ``"(256, 0)"`` is a partial
shape). Every node's results end up in ``node.meta["shapes"]`` / ``node.meta["dtypes"]`` (one entry
per output, hidden ones included) for the graph view.

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
from ..ops.infer import InferError, known
from .graph import topo_order

__all__ = ["infer_shape", "infer_type", "annotate"]

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
    if any(d < 0 for d in new):     # an op computed with unknown dims: not an answer
        return old
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise _Conflict
    return tuple(a or b for a, b in zip(old, new))


def _merge_dtype(old, new):
    if new is None:
        return old
    new = np.dtype(new)
    if old is None or old == new:
        return new
    raise _Conflict


def _same(a, b):
    """Equality where None is only equal to None (``np.dtype('float64') == None`` is True)."""
    return a is b or (a is not None and b is not None and a == b)


class _Kind:
    """What differs between shape and dtype inference."""

    def __init__(self, name, merge, is_known, var_attr, run):
        self.name, self.merge, self.is_known, self.var_attr, self.run = name, merge, is_known, var_attr, run


def _clip(text, n=80):
    return repr(text) if len(text) <= n else repr(text[:n]) + f"... ({len(text)} characters)"


def _var_shape(node):
    text = node.attrs.get("__shape__")
    if text is None:
        return None
    try:
        shape = _SHAPE_ATTR.parse(text)
    except (MXNetError, ValueError, TypeError, OverflowError, RecursionError):
        raise MXNetError(f"variable {node.name!r}: attribute __shape__ expected a shape such as '(256, 0)', "
                         f"got {_clip(text)}") from None
    return shape or None          # legacy: ndim 0 means unknown


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


SHAPE = _Kind("shape", _merge_shape, known, _var_shape, lambda op, a, vals: op.infer_shape(a, vals))
DTYPE = _Kind("type", _merge_dtype, lambda d: d is not None, _var_dtype,
              lambda op, a, vals: op.infer_type(a, vals))


def _where(node):
    src = node.meta.get("source")
    return f" (node created at {src['file']}:{src['line']}: {src['code']})" if src else ""


def _input_desc(node, k):
    names = node.input_names()
    src = node.inputs[k][0]
    name = names[k] if k < len(names) else f"input {k}"
    return f"'{name}'" + (f" (variable '{src.name}')" if src.is_variable else f" (output of '{src.name}')")


def _fmt(kind, v):
    return v.name if kind is DTYPE and isinstance(v, np.dtype) else str(v)


def _error(kind, node, k, provided, inferred, why=""):
    what = "Shape" if kind is SHAPE else "Type"
    arg = f"input {_input_desc(node, k)}" if k is not None else "its output"
    return MXNetError(f"Error in operator {node.name}: {what} inconsistent for {arg} of {node.op_name}, "
                      f"Provided = {_fmt(kind, provided)}, inferred {kind.name} = {_fmt(kind, inferred)}"
                      + (f" ({why})" if why else "") + _where(node))


def propagate(nodes, values, kind):
    """Fill ``values`` ({(id(node), output index): value}) for every entry of ``nodes`` (topological
    order) that ``kind``'s inference can reach; the variables' entries must be there already.

    A worklist in topological order: every op runs once, and again only when one of its input
    entries changed (an op may fill a parameter input, or a sibling's output it shares), so a deep
    or wide graph costs time linear in its size. Entries only ever become more known, so it ends."""
    consumers = {}
    for k, node in enumerate(nodes):
        for src, idx in node.inputs:
            consumers.setdefault((id(src), idx), []).append(k)
    pending = [k for k, node in enumerate(nodes) if node.op is not None]
    queued = set(pending)          # already in topological order: a valid heap

    def changed(key):
        for c in consumers.get(key, ()):
            if c not in queued:
                queued.add(c)
                heapq.heappush(pending, c)

    while pending:
        k = heapq.heappop(pending)
        queued.discard(k)
        node = nodes[k]
        a = node.parsed_attrs()
        keys = [(id(src), idx) for src, idx in node.inputs]
        given = [values.get(key) for key in keys]
        vals = list(given)
        complete = all(kind.is_known(v) for v in given)
        # ops treat a None input as unknown, but a 0 dimension may trip a check (broadcasting)
        partial_dims = kind is SHAPE and any(v is not None and 0 in v for v in given)
        try:
            outs = kind.run(node.op, a, vals)
        except InferError as err:
            i = err.arg if isinstance(err.arg, int) and 0 <= err.arg < len(given) else None
            certain = kind is not SHAPE or (i is not None and known(given[i]) and isinstance(err.expected, tuple)
                                            and 0 not in err.expected)    # both sides known: a real conflict
            if partial_dims and not certain:
                continue
            raise _error(kind, node, i, err.got, err.expected, err.why) from None
        except MXNetError as err:
            if partial_dims:
                continue
            raise MXNetError(f"Error in operator {node.name}: {err}{_where(node)}") from None
        except _UNKNOWN_INPUT_ERRORS as err:
            if not complete:
                continue
            # every input known and the op's inference still fails: the node is malformed (a
            # model file's attributes), which is the caller's error to read, not a crash
            raise MXNetError(f"Error in operator {node.name}: {node.op_name} cannot infer its output "
                             f"{kind.name} from inputs {[_fmt(kind, v) for v in given]} "
                             f"({type(err).__name__}: {err}){_where(node)}") from None
        for i, key in enumerate(keys):
            try:
                merged = kind.merge(values.get(key), vals[i])
            except _Conflict:
                raise _error(kind, node, i, given[i], vals[i]) from None
            except _UNKNOWN_INPUT_ERRORS as err:
                raise _bad_value(kind, node, f"input {i}", vals[i], err) from None
            if not _same(merged, values.get(key)):
                values[key] = merged
                changed(key)
        for i, out in enumerate(list(outs or ())[:node.num_outputs()]):
            key = (id(node), i)
            try:
                merged = kind.merge(values.get(key), out)
            except _Conflict:
                raise _error(kind, node, None, values.get(key), out,
                             f"output {i} is used elsewhere as {_fmt(kind, values.get(key))}") from None
            except _UNKNOWN_INPUT_ERRORS as err:
                raise _bad_value(kind, node, f"output {i}", out, err) from None
            if not _same(merged, values.get(key)):
                values[key] = merged
                changed(key)
    return values


def _bad_value(kind, node, what, value, err):
    return MXNetError(f"Error in operator {node.name}: {node.op_name} inferred {what} {kind.name} {value!r}, "
                      f"which is not a {kind.name} ({type(err).__name__}: {err}){_where(node)}")


def _run(symbol, args, kwargs, kind, convert):
    """Inference from user-given values: ``(nodes, values, arg_nodes, aux_nodes)``."""
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
        if v is None or (kind is SHAPE and not v):
            v = kind.var_attr(n)
        if v is not None:
            values[(id(n), 0)] = v
    propagate(nodes, values, kind)
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


def infer_shape(symbol, args, kwargs, partial=False):
    """``(arg_shapes, out_shapes, aux_shapes)`` in list_arguments / list_outputs /
    list_auxiliary_states order. Incomplete: ``(None, None, None)`` and a warning naming the
    unknown arguments, or with ``partial`` the partial shapes (``()`` where nothing is known)."""
    _, values, arg_nodes, aux_nodes = _run(symbol, args, kwargs, SHAPE, _shape_arg)
    res = _results(symbol, values, arg_nodes, aux_nodes)
    if partial:
        return tuple([s if s is not None else () for s in part] for part in res)
    if all(known(s) for part in res for s in part):
        return res
    unknown = [f"{n.name}: {s if s is not None else ()}" for n, s in zip(arg_nodes, res[0]) if not known(s)]
    if len(unknown) > 10:
        unknown = unknown[:10] + ["..."]
    warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
                  "Consider providing them as input:\n\t" + "\n\t".join(unknown), stacklevel=3)
    return None, None, None


def infer_type(symbol, args, kwargs, partial=False):
    """``(arg_types, out_types, aux_types)`` as NumPy dtypes; ``(None, None, None)`` and a warning
    when some stay unknown, or with ``partial`` the known ones and ``None`` for the others."""
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


def annotate(symbol, shapes=None, dtypes=None):
    """Partial shape and dtype inference from ``{input name: shape}`` / ``{input name: dtype}``,
    stored in every node's ``meta["shapes"]`` / ``meta["dtypes"]`` (for the graph view); returns
    ``symbol``. Errors are raised as in ``infer_shape``."""
    _run(symbol, (), dict(shapes or {}), SHAPE, _shape_arg)
    _run(symbol, (), dict(dtypes or {}), DTYPE, _dtype_arg)
    return symbol
