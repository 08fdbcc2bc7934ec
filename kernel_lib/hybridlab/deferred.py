"""Deferred compute (``mx._deferred_compute``): trace imperative code into a Symbol graph.

Inside ``context()``, every op call on NDArrays records a graph node (with its Block scope path and
the user's source line) instead of computing; its outputs are NDArrays that know their shape and
dtype (inferred by the op, without data) but have no values. ``set_variable`` names the arrays that
are graph inputs, ``get_symbol`` returns the graph of some outputs.

Example::

    >>> import hybridlab as mx
    >>> dc = mx._deferred_compute
    >>> x = dc.placeholder((2, 3))
    >>> dc.set_variable(x, mx.sym.var('x'))
    >>> with dc.context():
    ...     y = mx.np.tanh(x * 2)
    ...     print(y.shape)
    (2, 3)
    >>> dc.get_symbol(y).list_arguments()
    ['x']

Ops whose output shape depends on the values (``OpDef.dynamic_shape``: boolean_mask, nonzero,
unique) need values: give ``context(values=...)`` the real arrays of the graph variables (a dict or
a function of the variable name, as MXNet 2.0's deferred compute keeps the real inputs). Tracing
stays value-less; at a dynamic op, the values its inputs need are computed from the recorded graph
(once, kept for the trace), the op runs, and its output is again a value-less array, now of the
actual shape, so the ops after it trace as usual::

    >>> m = dc.placeholder((3,))
    >>> dc.set_variable(m, mx.sym.var('m'))
    >>> with dc.context(values={'x': mx.nd.ones((2, 3)), 'm': mx.nd.array([1, 0, 1])}):
    ...     z = mx.nd.boolean_mask(mx.nd.transpose(x) * 2, m)
    ...     print(z.shape)
    (2, 2)
    >>> dc.get_symbol(z).list_arguments()
    ['x', 'm']
"""
import threading

import numpy as np

from .base import MXNetError, normalize_dtype
from .device import current_device
from .symbol.graph import Node
from .symbol.provenance import annotate, user_source
from .symbol.symbol import Symbol

__all__ = ["is_deferred_compute", "context", "set_variable", "get_symbol", "clear", "placeholder",
           "TracedValue"]


class _State(threading.local):
    active = False
    values = None   # the trace's variable values: name -> NDArray (context(values=...)), else None
    memo = None     # (id(node), output index) -> (node, NDArray): values computed for dynamic ops in
                    # this trace (holding the node keeps its id from being reused while the trace runs)


state = _State()


def is_deferred_compute():
    """True while tracing (inside ``context()``)."""
    return state.active


class context:
    """Trace op calls into graph nodes instead of computing them.

    ``values``: the real arrays of the graph variables (a dict, or a function of the variable name
    returning an NDArray), needed only by dynamic-shape ops: without it, tracing one raises."""

    def __init__(self, values=None):
        self._prev = None
        self._values = values

    def __enter__(self):
        self._prev = (state.active, state.values, state.memo)
        state.active = True
        if self._values is not None:
            state.values, state.memo = self._values, {}
        return self

    def __exit__(self, *exc):
        state.active, state.values, state.memo = self._prev
        return False


def _where():
    src = user_source()
    return f" at {src['file']}:{src['line']}: {src['code']}" if src else ""


class TracedValue:
    """The data of an array while tracing: a shape and a dtype, no values."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = normalize_dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        out = 1
        for d in self.shape:
            out *= d
        return out

    def _no_value(self, what="its values"):
        raise MXNetError(f"cannot read {what} of an array of shape {self.shape} while the graph is being traced"
                         f"{_where()}: while hybridizing, arrays only have a shape and a dtype. Keep the "
                         f"computation in ops (F.where for conditions, F.slice_axis / reshape codes for shapes), "
                         f"or call the block without hybridize() to inspect values.")

    def __getattr__(self, name):
        self._no_value(f"'{name}'")

    def __setitem__(self, key, value):
        raise MXNetError(f"item assignment is not supported while the graph is being traced{_where()}: a graph "
                         f"node cannot be written in place. Use F.where(mask, value, x) or F.concat of slices.")

    def __array__(self, *args, **kwargs):
        self._no_value()

    def __repr__(self):
        return f"TracedValue(shape={self.shape}, dtype={self.dtype})"


def placeholder(shape, dtype="float32", device=None):
    """An NDArray without data for tracing; dims given as 0 are unknown until an op's shape inference
    fills them (read ``.shape`` afterwards)."""
    from .ndarray.ndarray import NDArray
    return NDArray._wrap(TracedValue(shape, dtype), device or current_device())


def set_variable(arrays, symbols):
    """Make ``arrays`` (NDArray or list) stand for the variable ``symbols`` while tracing."""
    if not isinstance(arrays, (list, tuple)):
        arrays, symbols = [arrays], [symbols]
    if len(arrays) != len(symbols):
        raise MXNetError(f"set_variable: expected as many symbols as arrays ({len(arrays)}), got {len(symbols)}")
    for arr, sym in zip(arrays, symbols):
        if not isinstance(sym, Symbol) or len(sym._outputs) != 1:
            raise MXNetError(f"set_variable: expected a single-output Symbol, got {sym!r}")
        arr._trace = sym._outputs[0]


def clear(arrays):
    """Forget the graph entries of ``arrays`` (NDArray or nested lists)."""
    for arr in _flatten(arrays):
        arr._trace = None


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for item in x:
            yield from _flatten(item)
    elif x is not None:
        yield x


def get_symbol(outputs):
    """The Symbol computing ``outputs`` (an NDArray or nested lists of them: a Group for several)."""
    entries = []
    for arr in _flatten(outputs):
        if arr._trace is None:
            raise MXNetError(f"get_symbol: an output of shape {arr.shape} was not computed by traced ops: "
                             f"return arrays computed from the traced inputs")
        entries.append(arr._trace)
    return Symbol(entries)


def _constant_entry(value, op_name, device):
    """A scalar input (e.g. the 2 of ``np.equal(x, 2)``) becomes a ``_full`` node of shape ()."""
    from .ops.registry import get_op
    data = np.asarray(value)
    if data.ndim != 0:
        return None
    full = get_op("_full")
    kwargs = {"shape": (), "value": data.item(), "dtype": data.dtype}
    node = annotate(Node(full, _auto_name(full), full.format_attrs(kwargs)))
    node.meta["shapes"], node.meta["dtypes"] = [()], [data.dtype]
    return (node, 0)


def _auto_name(op):
    from . import name as _name
    return _name.current().get(None, op.name.lower())


def record(op, inputs, kwargs, np_style):
    """Record one op call as a graph node; returns traced output NDArrays (the dispatcher's tracing path)."""
    from .ndarray.ndarray import NDArray
    from .ndarray.dispatch import shape_error
    from .ops.infer import InferError

    a = op.parse_attrs(kwargs)
    device = next((x._device for x in inputs if isinstance(x, NDArray)), None) or current_device()
    if np_style is None:
        np_style = next((x._np for x in inputs if isinstance(x, NDArray)), False)
    names = op.input_names(a)
    entries, shapes, dtypes, arrays = [], [], [], []
    for i, x in enumerate(inputs):
        label = names[i] if i < len(names) else f"arg{i}"
        if isinstance(x, NDArray):
            entry = x._trace
            if entry is None and not isinstance(x._data, TracedValue) and x.ndim == 0:
                entry = _constant_entry(x._data, op.name, device)   # a wrapped scalar (np-style x == 2)
        else:
            entry = _constant_entry(x, op.name, device)
        if entry is None:
            raise MXNetError(
                f"{op.name}: input '{label}' (shape {np.shape(x)}) is an array that is neither a traced value, a "
                f"graph input nor a parameter{_where()}. Inside a hybridized forward, create arrays with ops "
                f"(e.g. F.ones_like), make constants Parameters/Constants, or pass them as inputs.")
        entries.append(entry)
        if isinstance(x, NDArray):
            shapes.append(tuple(x.shape) if 0 not in x.shape else tuple(x.shape))
            dtypes.append(x.dtype)
        else:
            shapes.append(())
            dtypes.append(np.asarray(x).dtype)
        arrays.append(x)
    if len(entries) != len(names):
        raise MXNetError(f"{op.name}: expected {len(names)} inputs ({', '.join(names) or 'none'}), got {len(entries)}")
    try:
        out_shapes = op.infer_shape(a, shapes)
    except InferError as err:
        raise shape_error(op, a, err) from None
    try:
        out_dtypes = op.infer_type(a, dtypes)
    except InferError as err:
        raise shape_error(op, a, err, "dtype") from None
    # parameter shapes the op inferred (deferred initialisation) flow back into placeholders
    for x, s in zip(arrays, shapes):
        if isinstance(x, NDArray) and isinstance(x._data, TracedValue) and s is not None and s != x._data.shape:
            x._data.shape = tuple(s)
    values = None
    if out_shapes is None or any(s is None for s in out_shapes[:op.n_visible(a)]):
        if not op.dynamic_shape or state.values is None:
            raise MXNetError(f"{op.name}: its output shape depends on the input values, so it cannot be traced"
                             f"{_where()} (dynamic-shape ops need the values: trace with "
                             f"context(values=...), or call the block without hybridize())")
        values = _run_with_values(op, kwargs, arrays, entries, device, np_style)
        out_shapes = [tuple(v.shape) for v in values] + list(out_shapes or [])[len(values):]
    node = annotate(Node(op, _auto_name(op), op.format_attrs(kwargs), entries))
    node.meta["shapes"] = [tuple(s) for s in out_shapes]
    node.meta["dtypes"] = list(out_dtypes)
    outs = []
    for i in range(op.n_visible(a)):
        dt = out_dtypes[i] if i < len(out_dtypes) and out_dtypes[i] is not None else (dtypes[0] if dtypes else np.float32)
        out = NDArray._wrap(TracedValue(out_shapes[i], dt), device, np_style)
        out._trace = (node, i)
        if values is not None:
            state.memo[(id(node), i)] = (node, values[i])
        outs.append(out)
    return outs[0] if len(outs) == 1 else outs


def _run_with_values(op, kwargs, arrays, entries, device, np_style):
    """Run the dynamic-shape ``op`` on real values: those of its inputs are computed from the
    recorded graph (variables from ``state.values``; results kept in ``state.memo`` for this trace).
    Returns its visible outputs (NDArrays)."""
    from .ndarray.ndarray import NDArray
    from .ndarray.dispatch import invoke
    from .compiler.instrument import quiet
    from . import autograd
    ins = [_value_of(entry, device) if isinstance(x, NDArray) else x for x, entry in zip(arrays, entries)]
    state.active = False
    try:
        with autograd.pause(), quiet(), device:
            out = invoke(op, ins, dict(kwargs), np_style=np_style)
    finally:
        state.active = True
    return out if isinstance(out, list) else [out]


def _value_of(entry, device):
    """The real value (NDArray) of the traced graph entry ``(node, i)``, computed once per trace."""
    from .ndarray.ndarray import NDArray
    from .ndarray.dispatch import invoke
    from .compiler.instrument import quiet
    from .symbol.graph import topo_order
    from . import autograd
    memo = state.memo
    if (id(entry[0]), entry[1]) in memo:
        return memo[(id(entry[0]), entry[1])][1]
    lookup = state.values
    state.active = False
    try:
        with autograd.pause(), quiet(), device:
            for n in topo_order([entry]):
                if (id(n), 0) in memo:
                    continue
                if n.is_variable:
                    value = lookup.get(n.name) if isinstance(lookup, dict) else lookup(n.name)
                    if not isinstance(value, NDArray):
                        raise MXNetError(f"deferred compute: a dynamic-shape op needs the value of the graph "
                                         f"variable '{n.name}', but the trace's values have none (got {value!r})")
                    memo[(id(n), 0)] = (n, value)
                    continue
                out = invoke(n.op, [memo[(id(s), i)][1] for s, i in n.inputs], n.attrs)
                for i, o in enumerate(out if isinstance(out, list) else [out]):
                    memo[(id(n), i)] = (n, o)
    finally:
        state.active = True
    return memo[(id(entry[0]), entry[1])][1]
