"""NDArray indexing with NumPy semantics, built on registered ops so that autograd records it and
tracing can turn it into graph nodes.

``x[key]``:
  * basic keys (ints, slices with steps/negatives, Ellipsis, None, tuples of those) -> one ``slice``
    and one ``Reshape`` (dropping integer axes, inserting new ones);
  * one integer array (list, NumPy array, NDArray; negatives allowed, out of range is an error)
    mixed with slices -> slicing, then ``take`` along that axis;
  * several integer arrays (and ints among them) -> ``transpose`` + ``gather_nd`` (+ ``transpose``),
    placing the broadcast index dimensions where NumPy does;
  * one boolean mask (the other entries whole slices) -> ``boolean_mask``; a mask mixed with other
    indices is turned into integer arrays (its ``nonzero()``); on ``mx.np`` arrays a Python bool or a
    0-d mask adds a new axis of length 1 (True) or 0 (False), as in NumPy.
  On legacy (``mx.nd``) arrays a result without dimensions has shape (1,), as in MXNet 1.x.

A basic key that selects one contiguous block (``x[1:3]``, ``x[2]``, ``x[:, :]``) gives a view that
shares the array's memory, as in MXNet (``x[1:3][:] = 7`` writes into ``x``), except while autograd
records ``x`` or a graph is traced; other keys give copies.

``x[key] = value`` writes into the array's buffer (value: scalar, NumPy array or NDArray,
broadcast to the indexed shape; extra leading size-1 axes are dropped, as MXNet allows). While autograd records an array that is part of the graph, a
basic-key assignment is instead recorded as ``_slice_assign`` and the array takes the result.

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], dtype="float32")
    >>> x[1:, ::2].tolist(), x[[2, 0], 1].tolist()
    ([[4.0, 6.0], [8.0, 10.0]], [9.0, 1.0])
    >>> x[0, :2] = -1
    >>> x[0].tolist()
    [-1.0, -1.0, 2.0, 3.0]
"""
import numpy as np

from ..autograd import state as autograd_state
from ..base import MXNetError, MXNetIndexError, MXNetValueError
from ..deferred import state as deferred_state
from .dispatch import invoke_name
from .ndarray import NDArray

__all__ = ["get_item", "set_item"]

_FULL = slice(None)
_SUPPORTED = ("int, slice, None, Ellipsis, an integer or boolean array (list, NumPy array or NDArray), "
              "or a tuple of those")


def _call(name, *inputs, **attrs):
    return invoke_name(name, inputs, attrs)


def _as_index_array(arr, k):
    """An index given as a list / NumPy / NDArray / CuPy array -> (kind, xp array on arr's device)."""
    dev = arr._device
    if isinstance(k, NDArray):
        data = dev.put(k._data) if k._device != dev else k._data
        if data.dtype.kind == "b":
            return "bool", data
        return "array", data.astype(np.int64, copy=False)   # float NDArrays: MXNet's default index dtype
    host = k if hasattr(k, "__cuda_array_interface__") else np.asarray(k)
    if host.size == 0 and host.dtype.kind == "f":
        host = host.astype(np.int64)
    if host.dtype.kind == "b":
        return "bool", dev.put(host)
    if host.dtype.kind not in "iu":
        raise MXNetError(f"index arrays must have an integer or boolean dtype, got {host.dtype} "
                         f"(supported keys: {_SUPPORTED})")
    return "array", dev.put(host).astype(np.int64, copy=False)


def _parse(arr, key):
    """Entries, one per consumed axis (or new axis): ('int', i) ('slice', s) ('new',) ('array', a)
    ('bool', m) with Ellipsis expanded and trailing whole slices appended."""
    key = key if isinstance(key, tuple) else (key,)
    entries, ellipsis = [], None
    for k in key:
        if isinstance(k, (bool, np.bool_)) and arr._np:
            entries.append(_as_index_array(arr, np.asarray(k)))    # as NumPy: a 0-d mask (a new axis)
        elif isinstance(k, (bool, np.bool_)):
            raise MXNetError(f"unsupported index key {k!r} (a Python bool); supported keys: {_SUPPORTED}")
        elif isinstance(k, (int, np.integer)):
            entries.append(("int", int(k)))
        elif isinstance(k, slice):
            entries.append(("slice", slice(*(None if v is None else _index_int(v) for v in (k.start, k.stop, k.step)))))
        elif k is None:
            entries.append(("new",))
        elif k is Ellipsis:
            if ellipsis is not None:
                raise MXNetError("an index can only have a single ellipsis ('...')")
            ellipsis = len(entries)
        elif isinstance(k, (list, tuple, range, np.ndarray, NDArray)) or hasattr(k, "__cuda_array_interface__"):
            entries.append(_as_index_array(arr, k))
        else:
            raise MXNetError(f"unsupported index key of type {type(k).__name__} ({k!r}); supported keys: "
                             f"{_SUPPORTED}")
    used = sum(e[1].ndim if e[0] == "bool" else (0 if e[0] == "new" else 1) for e in entries)
    if used > arr.ndim:
        raise MXNetIndexError(f"too many indices for array: array is {arr.ndim}-dimensional, but {used} were indexed")
    fill = [("slice", _FULL)] * (arr.ndim - used)
    if ellipsis is None:
        return entries + fill
    return entries[:ellipsis] + fill + entries[ellipsis:]


def _index_int(v):
    try:
        return int(v.__index__())
    except (AttributeError, TypeError):
        raise MXNetError(f"slice bounds must be integers or None, got {v!r}") from None


def _check_int(i, n, axis):
    if not -n <= i < n:
        raise MXNetIndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return i % n


def _check_mask(arr, mask, axis):
    """The dimensions of ``arr`` that boolean ``mask`` indexes from ``axis`` (``IndexError`` unless
    its shape is theirs, as NumPy and MXNet)."""
    dims = arr.shape[axis:axis + mask.ndim]
    if mask.shape != dims:
        raise MXNetIndexError(f"boolean index expected shape {dims} (the indexed dimensions), got {mask.shape}")
    return dims


def _bools_to_ints(arr, entries):
    """Replace boolean masks by their nonzero() integer arrays (checking their shapes)."""
    out, axis = [], 0
    for e in entries:
        if e[0] == "bool":
            mask = e[1]
            _check_mask(arr, mask, axis)
            if mask.ndim == 0:     # as NumPy: a new axis, indexed by [0] (True) or [] (False)
                out.append(("new_array", arr._device.xp.arange(int(bool(mask)), dtype=np.int64)))
                continue
            out += [("int_array", a.astype(np.int64)) for a in arr._device.xp.nonzero(mask)]
            axis += mask.ndim
            continue
        out.append(("int_array", e[1]) if e[0] == "array" else e)
        axis += e[0] != "new"
    return [("array", e[1]) if e[0] == "int_array" else e for e in out]


def _basic_plan(arr, entries):
    """slice attributes, the sliced shape (int axes kept as 1) and the result shape of a basic key."""
    begin, end, step, sliced, final = [], [], [], [], []
    needed, axis = False, 0
    for e in entries:
        if e[0] == "new":
            final.append(1)
            continue
        n = arr.shape[axis]
        if e[0] == "int":
            i = _check_int(e[1], n, axis)
            begin.append(i), end.append(i + 1), step.append(1), sliced.append(1)
            needed |= n != 1
        else:
            start, stop, st = e[1].indices(n)
            length = len(range(start, stop, st))
            if length == n and st == 1:
                begin.append(None), end.append(None), step.append(1)
            elif length == 0:
                begin.append(0), end.append(0), step.append(1)
                needed = True
            else:
                begin.append(start), end.append(stop if stop >= 0 else None), step.append(st)
                needed = True
            sliced.append(length)
            final.append(length)
        axis += 1
    return (tuple(begin), tuple(end), tuple(step)), tuple(sliced), tuple(final), needed


def _reshape(x, shape):
    """``x`` reshaped to the explicit ``shape`` (recorded): ``Reshape``, or ``_np_reshape`` for a shape
    with a 0 (which ``Reshape`` reads as "keep this axis")."""
    if 0 in shape:
        return _call("_np_reshape", x, newshape=tuple(shape))
    return _call("Reshape", x, shape=tuple(shape))


def _finish(arr, out, shape=None):
    """``out`` reshaped to ``shape``; on legacy arrays a 0-d result becomes shape (1,)."""
    if shape is None:
        shape = out.shape
    if not arr._np and shape == ():
        shape = (1,)
    return out if out.shape == shape else _reshape(out, shape)


def _direct(arr, entries):
    """Plain array-module indexing (empty results, neither recorded by autograd nor traced)."""
    data = arr._data[_xp_key(arr, entries)]
    if not arr._np and data.ndim == 0:
        data = data.reshape(1)
    return NDArray._wrap(data.copy(), arr._device, arr._np)


def can_view(arr):
    """Whether a result may share ``arr``'s memory: not while tracing (no data) nor while autograd
    records ``arr`` (then the recorded ops copy, so the gradient sees the value it was taken at)."""
    if deferred_state.tracing.active:
        return False
    return not _recorded(arr)


def _recorded(arr):
    """Whether autograd records ops on ``arr`` now (it is in the graph or requires a gradient)."""
    return autograd_state.is_recording() and (arr._node is not None or arr._grad_req != "null")


def _contiguous(arr, entries):
    """Whether the basic ``entries`` select one block of ``arr`` (see ``slices_contiguous``)."""
    return slices_contiguous([1 if e[0] == "int" else e[1] for e in entries if e[0] != "new"], arr.shape)


def slices_contiguous(key, shape):
    """MXNet's rule for a view: whether ``key`` (one slice, or int, per dimension of ``shape``)
    selects one block of the flattened array. From the last axis leftwards, once an axis selects a
    proper subset, every axis before it selects one element; an axis selecting several elements
    must step by 1; an empty or one-element selection is a block.

    >>> slices_contiguous((slice(1, 3), slice(None)), (4, 5)), slices_contiguous((slice(None), slice(1, 3)), (4, 5))
    (True, False)
    """
    axes = []
    for k, n in zip(key, shape):
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            axes.append((len(range(start, stop, step)), step, n))
        else:
            axes.append((1, 1, n))
    if int(np.prod([length for length, _, _ in axes])) in (0, 1):
        return True
    subset = False
    for length, step, n in reversed(axes):
        if length > 1 and step != 1:
            return False
        if subset and length > 1:
            return False
        subset = subset or length < n
    return True


def _view(arr, entries, final):
    data = arr._data[_xp_key(arr, entries)]
    if not arr._np and final == ():
        final = (1,)
    return NDArray._wrap(data.reshape(final), arr._device, arr._np)


def get_item(arr, key):
    """``arr[key]`` (see the module docstring)."""
    if deferred_state.tracing.precheck is not None and type(arr._data) is deferred_state.TracedValue:
        deferred_state.tracer.precheck_index(arr, key)
    entries = _parse(arr, key)
    kinds = [e[0] for e in entries]
    if "array" not in kinds and "bool" not in kinds:
        (begin, end, step), _, final, needed = _basic_plan(arr, entries)
        if (0 in final or arr.size == 0) and can_view(arr):   # recorded or traced: sliced (backward works)
            return _direct(arr, entries)
        if can_view(arr) and _contiguous(arr, entries):
            return _view(arr, entries, final)        # shares memory, as MXNet's contiguous slices do
        out = _call("slice", arr, begin=begin, end=end, step=step) if needed else arr
        return _finish(arr, out, final)
    if arr.size == 0:
        return _direct(arr, entries)
    if kinds.count("bool") == 1 and all(e[0] == "bool" or (e[0] == "slice" and e[1] == _FULL) for e in entries):
        return _mask(arr, entries, kinds.index("bool"))
    return _advanced(arr, _bools_to_ints(arr, entries))


def _mask(arr, entries, pos):
    mask = entries[pos][1]
    dims = _check_mask(arr, mask, pos)
    out = arr
    if mask.ndim != 1:
        merged = arr.shape[:pos] + (int(np.prod(dims)),) + arr.shape[pos + mask.ndim:]
        out, mask = _reshape(arr, merged), mask.reshape(-1)
    index = NDArray._wrap(mask, arr._device, arr._np)
    return _call("boolean_mask", out, index, axis=pos)


def _advanced(arr, entries):
    if any(e[0] in ("new", "new_array") for e in entries):   # new axes first (size-1 axes: whole slices,
        shape, axis, expanded = list(arr.shape), 0, []          # or indexed by a 0-d mask's [0] or [])
        for e in entries:
            if e[0] == "new":
                shape.insert(axis, 1)
                expanded.append(("slice", _FULL))
            elif e[0] == "new_array":
                shape.insert(axis, 1)
                expanded.append(("array", e[1]))
            else:
                expanded.append(e)
            axis += 1
        arr, entries = _reshape(arr, tuple(shape)), expanded
    xp = arr._device.xp
    # slices first (integer entries of the advanced group keep their axis for now)
    begin, end, step, needed = [], [], [], False
    for axis, e in enumerate(entries):
        if e[0] == "slice" and e[1] != _FULL:
            start, stop, st = e[1].indices(arr.shape[axis])
            if len(range(start, stop, st)) == 0:
                return _direct(arr, entries)
            begin.append(start), end.append(stop if stop >= 0 else None), step.append(st)
            needed = True
        else:
            begin.append(None), end.append(None), step.append(1)
    out = _call("slice", arr, begin=tuple(begin), end=tuple(end), step=tuple(step)) if needed else arr
    adv = [axis for axis, e in enumerate(entries) if e[0] in ("int", "array")]
    if len(adv) == 1 and entries[adv[0]][0] == "array":
        index = NDArray._wrap(entries[adv[0]][1], arr._device, arr._np)
        return _finish(arr, _call("take", out, index, axis=adv[0], mode="raise"))
    from ..ops.index import normalize_index
    idx = []
    for axis in adv:
        e = entries[axis]
        if e[0] == "int":
            idx.append(xp.asarray(_check_int(e[1], out.shape[axis], axis), dtype=np.int64))
        else:
            idx.append(normalize_index(xp, e[1], out.shape[axis], "raise", "indexing"))
    try:
        idx = xp.broadcast_arrays(*idx)
    except ValueError:
        raise MXNetError(f"index arrays could not be broadcast together: shapes "
                         f"{[tuple(i.shape) for i in idx]}") from None
    rest = [axis for axis in range(out.ndim) if axis not in adv]
    perm = adv + rest
    if perm != list(range(out.ndim)):
        out = _call("transpose", out, axes=tuple(perm))
    out = _call("gather_nd", out, NDArray._wrap(xp.stack(idx), arr._device, arr._np))
    nb = idx[0].ndim
    if adv == list(range(adv[0], adv[0] + len(adv))) and adv[0] > 0:   # adjacent: NumPy keeps their place
        order = list(range(nb, nb + adv[0])) + list(range(nb)) + list(range(nb + adv[0], out.ndim))
        out = _call("transpose", out, axes=tuple(order))
    return _finish(arr, out)


# ---- assignment --------------------------------------------------------------------------------
def _xp_key(arr, entries):
    """An array-module key for ``entries`` (ints checked, index arrays checked and normalized)."""
    from ..ops.index import normalize_index
    key, axis = [], 0
    xp = arr._device.xp
    for e in entries:
        if e[0] == "new":
            key.append(None)
            continue
        if e[0] == "int":
            key.append(_check_int(e[1], arr.shape[axis], axis))
        elif e[0] == "array":
            key.append(normalize_index(xp, e[1], arr.shape[axis], "raise", "indexing"))
        else:
            key.append(e[1])
        axis += e[1].ndim if e[0] == "bool" else 1
    return tuple(key)


def _value_data(arr, value):
    if isinstance(value, NDArray):
        data = value._data if value._device == arr._device else arr._device.put(value._data)
    elif isinstance(value, (int, float, bool, np.number)):
        return value
    else:
        data = arr._device.put(np.asarray(value) if not hasattr(value, "__cuda_array_interface__") else value)
    return data.astype(arr.dtype, copy=False)


def set_item(arr, key, value):
    """``arr[key] = value`` (see the module docstring)."""
    entries = _parse(arr, key)
    if autograd_state.is_recording():
        in_graph = arr._node is not None
        value_in_graph = isinstance(value, NDArray) and (value._node is not None or value._grad_req != "null")
        if arr._node is None and arr._grad_req != "null":
            raise MXNetError("in-place assignment to an array that requires a gradient (attach_grad) while "
                             "autograd is recording: assign outside record() or to a copy")
        if value_in_graph and not in_graph and not _whole(arr, entries):
            # MXNet refuses to write a recorded value into part of an array outside the graph
            raise MXNetError("Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with "
                             f"autograd: expected x[{key!r}] = value with a value not recorded (or x itself "
                             "computed in the recorded graph), got a recorded value for an array outside it")
        if in_graph or value_in_graph:
            return _recorded_assign(arr, entries, value)
    xp_key = _xp_key(arr, entries)
    data = _value_data(arr, value)
    try:
        arr._data[xp_key] = data
    except (ValueError, IndexError) as err:
        lead = _leading_ones(arr, xp_key, data) if isinstance(err, ValueError) else 0
        if lead:     # as MXNet: a value with extra leading 1s ((1, 1) for one element) fits its target
            arr._data[xp_key] = data.reshape(data.shape[lead:])
            return
        shape = getattr(value, "shape", ())
        error = MXNetIndexError if isinstance(err, IndexError) else MXNetValueError
        raise error(f"cannot assign a value of shape {tuple(shape)} to index {key!r} of an array of shape "
                         f"{arr.shape}: {err}") from None


def _whole(arr, entries):
    """Whether basic ``entries`` select all of ``arr`` (``x[:]``, ``x[...]``, ``x[None]``)."""
    dims = [e for e in entries if e[0] != "new"]
    return all(e[0] == "slice" and e[1].indices(n) == (0, n, 1) for e, n in zip(dims, arr.shape))


def _leading_ones(arr, xp_key, data):
    """How many leading size-1 axes ``data`` has beyond the shape that ``xp_key`` selects of ``arr``
    (0 when it has no extra axes, or an extra one is longer than 1)."""
    shape = getattr(data, "shape", ())
    extra = len(shape) - getattr(arr._data[xp_key], "ndim", 0)
    return extra if extra > 0 and all(d == 1 for d in shape[:extra]) else 0


def _recorded_assign(arr, entries, value):
    if any(e[0] in ("array", "bool") for e in entries):
        raise MXNetError("assignment with integer-array or boolean indices to an array recorded by autograd is "
                         "not supported: use basic indices (ints, slices) or assign outside record()")
    (begin, end, step), sliced, final, _ = _basic_plan(arr, entries)
    kw = {"begin": begin, "end": end, "step": step}
    if isinstance(value, (int, float, bool, np.number)):
        new = _call("_slice_assign_scalar", arr, scalar=float(value), **kw)
    else:
        v = value if isinstance(value, NDArray) else NDArray._wrap(_value_data(arr, value), arr._device, arr._np)
        if v.shape != sliced:
            if v.size != int(np.prod(sliced)) or v.ndim < len(final):
                v = _call("broadcast_to", v, shape=final) if v.shape != final else v
            v = _reshape(v, sliced)
        new = _call("_slice_assign", arr, v, **kw)
    arr._data, arr._node = new._data, new._node
