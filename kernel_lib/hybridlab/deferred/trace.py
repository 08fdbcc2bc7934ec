"""The tracer: inside ``context()``, every op call on NDArrays records a graph node (with its Block
scope path and the user's source line) instead of computing. It sits in the symbol layer and
registers itself with ``deferred.state`` (``tracer.record``, ``tracer.where``,
``tracer.describe_read``), which the dispatcher and ``TracedValue`` below it read.

Its error messages name the user's line (`` at file:line: `code` ``) and advise in the words of the
block's Gluon style (``np_words``): the innermost user ``hybrid_forward`` or ``forward`` on the stack
decides, else whether the arrays are ``mx.np`` arrays.

The ndarray layer imports ``deferred.state`` while it loads, which loads this module: NDArray and
the dispatcher are therefore imported inside the functions that use them.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.deferred import trace
    >>> x = trace.placeholder((2,))
    >>> trace.set_variable(x, mx.sym.var('x'))
    >>> with mx._deferred_compute.context():
    ...     y = mx.nd.exp(x)
    >>> trace.get_symbol(y).list_arguments()
    ['x']
"""
import sys

import numpy as np

from .. import name as _name
from ..autograd.state import pause
from ..base import MXNetError
from ..device import current_device
from ..monitor_state import quiet
from ..ops.infer import InferError
from ..ops.registry import get_op
from ..symbol.graph import Node
from ..symbol.provenance import annotate, in_package, user_source
from ..symbol.symbol import Symbol, var
from . import state
from .state import TracedValue

__all__ = ["placeholder", "set_variable", "get_symbol", "clear", "record"]

_tracing = state.tracing


def _where():
    """`` at file:line: `code` `` of the user's line (the code left out when its source is unknown), or ''."""
    src = user_source()
    if not src:
        return ""
    return f" at {src['file']}:{src['line']}" + (f": `{src['code']}`" if src["code"] else "")


def _np_words(np_arrays):
    """Whether advice should use MXNet 2.0 words (``mx.np``/``mx.npx``) rather than 1.x ones (``F.``):
    the innermost user function on the stack named ``hybrid_forward`` (1.x) or ``forward`` (2.0)
    decides (a helper it calls reads as its caller); without one, ``np_arrays`` (the arrays are
    ``mx.np`` arrays). Walks the stack: for error messages only."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_name
        if name in ("forward", "hybrid_forward") and not in_package(frame.f_code.co_filename):
            return name == "forward"
        frame = frame.f_back
    return bool(np_arrays)


# what the user did, by the NDArray method that user code called (the outermost hybridlab frame of
# a failing read): print(x) reads the values through __str__, float(x) through __float__, ...
_READS = {
    "__str__": "the values to print (print(), str())",
    "__repr__": "the values to print (repr())",
    "__format__": "the values to format (format(), f-strings)",
    "__float__": "the value (float())",
    "__int__": "the value (int())",
    "__index__": "the value as an index",
    "__array__": "the values for NumPy (np.asarray(), np.array())",
    "asscalar": "asscalar()",
    "tolist": "tolist()",
}


def describe_read(data, what):
    """``tracer.describe_read``: (what the user did, ``np_words``) for a read of the TracedValue
    ``data`` that cannot work while tracing (``what``: the reading method's own words). The frames
    between the read and the user's code hold the NDArray wrapping ``data`` (it knows whether it is
    an ``mx.np`` array) and the method the user called."""
    from ..ndarray.ndarray import DENSE_CLASSES
    np_arrays, entry = False, None
    frame = sys._getframe(1)
    while frame is not None and in_package(frame.f_code.co_filename):
        for value in frame.f_locals.values():
            if value.__class__ in DENSE_CLASSES and value._data is data:
                np_arrays = np_arrays or value._np
        entry = frame.f_code.co_name
        frame = frame.f_back
    return _READS.get(entry, what), _np_words(np_arrays)


def placeholder(shape, dtype="float32", device=None):
    """An NDArray without data for tracing; dims given as 0 are unknown until an op's shape inference
    fills them (read ``.shape`` afterwards).

    >>> import hybridlab as mx
    >>> mx._deferred_compute.placeholder((2, 3)).shape
    (2, 3)
    """
    from ..ndarray.ndarray import NDArray
    return NDArray._wrap(TracedValue(shape, dtype), device or current_device())


def set_variable(arrays, symbols):
    """Make ``arrays`` (NDArray or list) stand for the variable ``symbols`` while tracing (once:
    an array that already stands for a variable or a node is refused, as MXNet refuses it)."""
    if not isinstance(arrays, (list, tuple)):
        arrays, symbols = [arrays], [symbols]
    if len(arrays) != len(symbols):
        raise MXNetError(f"set_variable: expected as many symbols as arrays ({len(arrays)}), got {len(symbols)}")
    for arr, sym in zip(arrays, symbols):
        if not isinstance(sym, Symbol) or len(sym._outputs) != 1:
            raise MXNetError(f"set_variable: expected a single-output Symbol, got {sym!r}")
        if arr._trace is not None and tuple(arr._trace) != tuple(sym._outputs[0]):
            node, i = arr._trace
            raise MXNetError(f"set_variable: expected an array without a graph entry, got one that already "
                             f"stands for '{node.name}' (output {i}); clear() it first")
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


def get_symbol(outputs, sym_cls=None):
    """The Symbol computing ``outputs`` (an NDArray or nested lists of them: a Group for several);
    ``sym_cls``: MXNet's choice of symbol class (``mx.sym.Symbol`` or ``mx.sym.np._Symbol``, one
    class here)."""
    entries = []
    for arr in _flatten(outputs):
        if arr._trace is None:
            raise MXNetError(f"get_symbol: an output of shape {arr.shape} was not computed by traced ops: "
                             f"return arrays computed from the traced inputs")
        entries.append(arr._trace)
    return Symbol(entries)


def _constant_entry(value):
    """A scalar input (e.g. the 2 of ``np.equal(x, 2)``) becomes a ``_full`` node of shape ()."""
    data = np.asarray(value)
    if data.ndim != 0:
        return None
    full = get_op("_full")
    value = data.item()
    kwargs = {"shape": (), "value": int(value) if isinstance(value, bool) else value, "dtype": data.dtype}
    node = annotate(Node(full, _auto_name(full), full.format_attrs(kwargs)))
    node.meta["shapes"], node.meta["dtypes"] = [()], [data.dtype]
    return (node, 0)


def _auto_name(op):
    return _name.current().get(None, op.name.lower())


def record(op, inputs, kwargs, np_style):
    """Record one op call as a graph node; returns traced output NDArrays (the dispatcher's tracing path)."""
    from ..ndarray.ndarray import NDArray
    from ..ndarray.dispatch import shape_error

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
                entry = _constant_entry(x._data)   # a wrapped scalar (np-style x == 2)
        else:
            entry = _constant_entry(x)
        if entry is None and _tracing.precheck is not None:    # noted; it stands in as a graph input
            _tracing.precheck.add("outside array", f"input '{label}' of {op.name} (shape {np.shape(x)})",
                                  _np_words(np_style))
            entry = var(f"outside_array{len(_tracing.precheck.reads)}")._outputs[0]
            if _tracing.memo is not None and isinstance(x, NDArray):
                _tracing.memo[entry] = x          # its value, should a later op need values
        if entry is None:
            raise MXNetError(
                f"{op.name}: input '{label}' (shape {np.shape(x)}) is an array that is neither a traced value, a "
                f"graph input nor a parameter{_where()}. Inside a hybridized forward, create arrays with ops "
                f"(e.g. `{'mx.np' if _np_words(np_style) else 'F'}.ones_like`), make constants "
                f"Parameters/Constants, or pass them as inputs.")
        entries.append(entry)
        if isinstance(x, NDArray):
            shapes.append(tuple(x.shape))
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
    if _tracing.precheck is None and all(not isinstance(x, NDArray) or not isinstance(x._data, TracedValue)
                                         for x in arrays):
        # every input has a value (mx._deferred_compute used directly, or a constant made inside a
        # forward): computed now as well as recorded, so the result can be read, as in MXNet
        values = _run_with_values(op, kwargs, arrays, entries, device, np_style, computed=arrays)
        out_shapes = [tuple(v.shape) for v in values] + list(out_shapes or [])[len(values):]
    elif out_shapes is None or any(s is None for s in out_shapes[:op.n_visible(a)]):
        if not op.dynamic_shape or _tracing.values is None:
            raise MXNetError(f"{op.name}: its output shape depends on the input values, so it cannot be traced"
                             f"{_where()} (dynamic-shape ops need the values: trace with "
                             f"context(values=...), or call the block without hybridize())")
        values = _run_with_values(op, kwargs, arrays, entries, device, np_style)
        out_shapes = [tuple(v.shape) for v in values] + list(out_shapes or [])[len(values):]
    node = annotate(Node(op, _auto_name(op), op.format_attrs(kwargs), entries))
    if _tracing.precheck is not None:       # a pre-check keeps the graph so far (deferred.precheck_reads)
        _tracing.precheck.nodes.append(node)
    node.meta["shapes"] = [tuple(s) for s in out_shapes]
    node.meta["dtypes"] = list(out_dtypes)
    outs = []
    for i in range(op.n_visible(a)):
        dt = out_dtypes[i] if i < len(out_dtypes) and out_dtypes[i] is not None else (dtypes[0] if dtypes else np.float32)
        if values is not None and not isinstance(values[i]._data, TracedValue):
            out = NDArray._wrap(values[i]._data, device, np_style)      # the value, and its node
        else:
            out = NDArray._wrap(TracedValue(out_shapes[i], dt), device, np_style)
        out._trace = (node, i)
        if values is not None and _tracing.memo is not None:
            _tracing.memo[(node, i)] = values[i]
        outs.append(out)
    return outs[0] if len(outs) == 1 else outs


def _run_with_values(op, kwargs, arrays, entries, device, np_style, computed=None):
    """Run ``op`` on real values: ``computed`` (its inputs, which have them), else those computed
    from the recorded graph (``value_of_entry``: a dynamic-shape op). Returns its visible outputs
    (NDArrays)."""
    from ..ndarray.ndarray import NDArray
    from ..ndarray.dispatch import invoke
    ins = computed if computed is not None else [
        value_of_entry(entry, device) if isinstance(x, NDArray) else x for x, entry in zip(arrays, entries)]
    _tracing.active = False
    try:
        # values computed for tracing are not the user's op calls: op hooks and the profiler skip them
        with pause(), quiet(), device:
            out = invoke(op, ins, dict(kwargs), np_style=np_style)
    finally:
        _tracing.active = True
    return out if isinstance(out, list) else [out]


# what the layers below need from the tracer (the dispatcher's tracing path, TracedValue's errors)
state.tracer.record = record
state.tracer.where = _where
state.tracer.describe_read = describe_read


# ---- reading values of the traced graph ------------------------------------------------------------

def value_of_entry(entry, device):
    """The real value (NDArray) of the traced graph entry ``(node, i)``, computed once per trace by
    the compiler's interpreter (``tracer.interpreter``): variables from the trace's values
    (``context(values=...)``), results kept in ``tracing.memo``."""
    memo, entry = _tracing.memo, tuple(entry)
    if entry not in memo:
        _tracing.active = False
        try:
            with pause(), quiet(), device:
                state.tracer.interpreter([entry]).run(_variable_value, values=memo)
        finally:
            _tracing.active = True
    return memo[entry]


def _variable_value(name):
    from ..ndarray.ndarray import NDArray
    lookup = _tracing.values
    value = lookup.get(name) if isinstance(lookup, dict) else lookup(name)
    if not isinstance(value, NDArray):
        raise MXNetError(f"deferred compute: a dynamic-shape op needs the value of the graph "
                         f"variable '{name}', but the trace's values have none (got {value!r})")
    return value
