"""Imperative op dispatch: parse attributes (cached), check shapes by the op's own inference
(once per attributes and input shapes: ``OpDef.shapes_checked``), compute with the device's array
module, wrap the outputs, and record a tape node when autograd needs one. This is the hot path of
every imperative call: keep it lean."""
from numpy import asarray as _asarray, generic as _generic, ndarray as _ndarray

from ..autograd import state as autograd_state
from ..deferred import state as deferred_state
from ..base import MXNetError
from ..write_versions import wrote
from ..device import current_device
from ..ops.context import _contexts, np_mode as _np_mode, op_context
from ..ops.infer import InferError
from ..ops.registry import get_op
from .ndarray import DENSE_CLASSES, NDArray, _as_array

__all__ = ["invoke", "invoke_name", "shape_error", "OutOfMemory"]


class OutOfMemory(MXNetError, MemoryError):
    """An op's result does not fit in memory (``except MemoryError`` catches it too)."""


_autograd_flags = autograd_state.flags
_recorded_sources = autograd_state.recorded_sources
_wrap_array = NDArray._wrap
_tracing = deferred_state.tracing
_MAX_CHECKED = 4096          # shape checks remembered per op (see invoke)


def invoke_name(name, inputs, attrs, out=None, np_style=None):
    return invoke(get_op(name), inputs, attrs, out, np_style)


def invoke(op, inputs, attrs, out=None, np_style=None):
    """Run ``op`` on ``inputs`` (NDArrays; NumPy arrays, lists and scalars are converted) with
    keyword ``attrs``; returns the visible output(s)."""
    if _tracing.active:
        if out is not None:
            raise MXNetError(f"{op.name}: out= is not supported while the graph is being traced")
        return deferred_state.tracer.record(op, inputs, attrs, np_style)
    a = op.parse_attrs(attrs)
    device = a[op.device_attr] if op.device_attr else None
    first = None
    for x in inputs:
        if x.__class__ in DENSE_CLASSES or isinstance(x, NDArray):    # subclasses: mx.nd.sparse arrays
            first = x
            break
    if device is None:
        device = first._device if first is not None else current_device()
    if np_style is None:
        np_style = first._np if first is not None else False
    arrays, datas, shapes = [], [], []
    for x in inputs:
        if x.__class__ not in DENSE_CLASSES and not isinstance(x, NDArray):
            if x is None:
                raise MXNetError(f"{op.name}: an input is None (inputs are {', '.join(op.input_names(a))})")
            x = _as_array(x, first) if first is not None else NDArray(x, device)
        elif x._device is not device and x._device != device and op.device_attr is None:
            raise MXNetError(f"{op.name}: all inputs must be on one device: expected {device}, got an "
                             f"input on {x._device}")
        arrays.append(x)
        datas.append(d := x._data)
        shapes.append(d.shape)
    # the input count and the op's shape inference check the call, once per attributes and shapes
    # (pure functions of them and of NumPy shape semantics): a loop's later calls skip them
    shapes = tuple(shapes)
    checked = op.shapes_checked
    key = (id(a), shapes, _np_mode["shape"])
    if key not in checked:
        n_expected = op.n_inputs if op.n_inputs is not None else len(op.input_names(a))
        if len(arrays) != n_expected:
            names = op.input_names(a)
            raise MXNetError(f"{op.name}: expected {len(names)} inputs ({', '.join(names) or 'none'}), "
                             f"got {len(arrays)}")
        try:
            op.infer_shape(a, list(shapes))
        except InferError as err:
            raise shape_error(op, a, err) from None
        if len(checked) >= _MAX_CHECKED:
            checked.clear()
        checked[key] = a
    ctx = _contexts.get((device, _autograd_flags.training)) or op_context(device, _autograd_flags.training)
    try:
        res = op.compute(ctx, a, *datas)
    except InferError as err:        # a check only the compute makes (softmax's axis): name the op
        raise shape_error(op, a, err) from None
    except MemoryError as err:       # shapes from a model file may ask for more than there is
        raise OutOfMemory(f"{op.name}: cannot allocate its result for inputs of shapes "
                          f"{[d.shape for d in datas]} and attributes {_brief(a)} ({err})") from None
    if type(res) is tuple:
        nvis = op.n_visible(a)
        outs = [_wrap(r, device, np_style) for r in res[:nvis]]
    else:
        nvis, outs, res = 1, [_wrap(res, device, np_style) if type(res) is not _ndarray
                              else _wrap_array(res, device, np_style)], (res,)
    if _autograd_flags.recording and (op.grad is not None or op.zero_grad):
        sources = _recorded_sources(arrays)
        if sources is not None:
            node = autograd_state.TapeNode(op, a, arrays, res, device, sources)
            for i, o in enumerate(outs):
                o._node = (node, i)
    if out is not None:
        return _write_out(op, outs, out)
    return outs[0] if nvis == 1 else outs


def _wrap(data, device, np_style):
    if type(data) is not _ndarray and isinstance(data, _generic):
        data = _asarray(data)   # NumPy returns scalars for 0-d results; keep arrays
    return NDArray._wrap(data, device, np_style)


def _write_out(op, outs, out):
    targets = [out] if isinstance(out, NDArray) else list(out)
    for t, o in zip(targets, outs):
        if t.shape != o.shape:
            raise MXNetError(f"{op.name}: out= expected shape {o.shape}, got {t.shape}")
        t._device.xp.copyto(t._data, o._data.astype(t.dtype, copy=False))
        wrote(t)
        t._node = o._node
    return out


def _brief(a):
    text = ", ".join(f"{k}={v!r}" for k, v in a.items())
    return "{" + (text if len(text) <= 200 else text[:200] + "...") + "}"


def shape_error(op, a, err, what="shape"):
    """``MXNetError`` naming the op, the argument and the expected vs the got ``what`` for the
    ``InferError`` ``err`` (``what``: "shape", or "dtype" for type inference).

    >>> import hybridlab as mx
    >>> try:
    ...     mx.nd.softmax(mx.nd.ones((2, 3)), axis=99)
    ... except mx.MXNetError as err:
    ...     print(err)
    softmax: argument 'data' expected an input with more than 99 dimensions (axis=99), got ndim 2
    """
    names = op.input_names(a)
    arg = names[err.arg] if isinstance(err.arg, int) and 0 <= err.arg < len(names) else err.arg
    msg = f"{op.name}: argument '{arg}' expected {err.expected_text(what)}, got {err.got}"
    if err.why:
        msg += f" ({err.why})"
    return MXNetError(msg)
