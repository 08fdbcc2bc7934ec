"""``mx.np`` shape functions composed of registered ops (slices, concatenation, reshapes, flips), so
they record gradients: moveaxis, roll, rot90, pad, ravel, tril/triu, flips, resize, append, insert,
delete, and the triangle/diagonal index helpers (stacks and splits: ``stacking.py``).

Example::

    >>> import hybridlab as mx
    >>> mx.np.roll(mx.np.arange(4), 1).tolist()
    [3.0, 0.0, 1.0, 2.0]
    >>> mx.np.pad(mx.np.array([1.0, 2.0]), 1, mode="edge").tolist()
    [1.0, 1.0, 2.0, 2.0]
"""
import operator

import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, call, concat, slice_axis, take_host

__all__ = ["moveaxis", "rollaxis", "roll", "rot90", "pad", "ravel", "tril", "triu", "flipud", "fliplr", "resize",
           "append", "insert", "delete", "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from",
           "diag_indices_from", "ndim", "shape", "size", "broadcast_arrays", "take_along_axis", "diagflat"]


def _axes(axis, ndim):
    axes = (axis,) if hasattr(axis, "__index__") else tuple(axis)
    return tuple(operator.index(a) % ndim for a in axes)


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``.

    >>> import hybridlab as mx
    >>> mx.np.moveaxis(mx.np.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = as_array(a)
    src, dst = _axes(source, a.ndim), _axes(destination, a.ndim)
    if len(src) != len(dst):
        raise MXNetValueError(f"np.moveaxis: expected as many destinations as sources, got {src} and {dst}")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _np.transpose(a, tuple(order))


def rollaxis(a, axis, start=0):
    """Roll ``axis`` backwards until it lies before position ``start``.

    >>> import hybridlab as mx
    >>> mx.np.rollaxis(mx.np.zeros((2, 3, 4)), 2).shape
    (4, 2, 3)
    """
    a = as_array(a)
    axis = operator.index(axis) % a.ndim
    start = start + a.ndim if start < 0 else start
    return moveaxis(a, axis, start - 1 if axis < start else start)


def roll(a, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis`` (the flattened array when None).

    >>> import hybridlab as mx
    >>> mx.np.roll(mx.np.array([[1, 2], [3, 4]]), 1, axis=1).tolist()
    [[2.0, 1.0], [4.0, 3.0]]
    """
    a = as_array(a)
    if axis is None:
        return _np.reshape(roll(_np.reshape(a, (-1,)), shift, 0), a.shape)
    shifts = (shift,) if hasattr(shift, "__index__") else tuple(shift)
    axes = _axes(axis, a.ndim)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    for s, ax in zip(shifts, axes):
        n = a.shape[ax]
        if n == 0:
            continue
        s = operator.index(s) % n
        if s:
            a = concat([slice_axis(a, ax, n - s, n), slice_axis(a, ax, 0, n - s)], ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (from the first towards the second).

    >>> import hybridlab as mx
    >>> mx.np.rot90(mx.np.array([[1, 2], [3, 4]])).tolist()
    [[2.0, 4.0], [1.0, 3.0]]
    """
    m = as_array(m)
    a0, a1 = _axes(axes, m.ndim)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return _np.flip(_np.flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _np.transpose(_np.flip(m, a1), tuple(perm))
    return _np.flip(_np.transpose(m, tuple(perm)), a1)


def _pad_pairs(pad_width, ndim):
    pw = _onp.asarray(pad_width, dtype=_onp.int64)
    if pw.ndim == 0:
        pw = pw.reshape(1, 1)
    return [tuple(int(v) for v in row) for row in _onp.broadcast_to(pw.reshape(-1, pw.shape[-1])
                                                                     if pw.ndim else pw, (ndim, 2))]


def pad(x, pad_width=None, mode="constant", **kwargs):
    """Pad ``x`` by ``pad_width`` (an int, a pair, or one pair per axis) with ``mode``: 'constant'
    (``constant_values``), 'edge', 'reflect', 'symmetric', 'wrap', 'maximum', 'minimum' or 'mean'.

    >>> import hybridlab as mx
    >>> mx.np.pad(mx.np.array([1.0, 2.0, 3.0]), (2, 1), mode="reflect").tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
    """
    x = as_array(x)
    if pad_width is None:
        raise MXNetValueError("np.pad: expected pad_width, got None")
    pairs = _pad_pairs(pad_width, x.ndim)
    value = kwargs.get("constant_values", 0)
    for ax, (lo, hi) in enumerate(pairs):
        if lo < 0 or hi < 0:
            raise MXNetValueError(f"np.pad: expected non-negative pad widths, got {(lo, hi)} for axis {ax}")
        if not lo and not hi:
            continue
        n = x.shape[ax]
        if mode in ("edge", "reflect", "symmetric", "wrap"):     # gather: NumPy's own index pattern
            if n == 0:
                raise MXNetValueError(f"np.pad: mode {mode!r} expected a non-empty axis {ax} to pad, got size 0")
            idx = _onp.pad(_onp.arange(n), (lo, hi), mode=mode)    # (widths beyond n reflect again)
            x = take_host(x, idx, ax)
            continue
        parts = [_pad_side(x, ax, n, w, mode, value, left) for w, left in ((lo, True), (hi, False))]
        x = concat([p for p in (parts[0], x, parts[1]) if p is not None], ax)
    return x


def _pad_side(x, ax, n, w, mode, value, left):
    if not w:
        return None
    shape = list(x.shape)
    shape[ax] = w
    if mode == "constant":
        v = value[0 if left else 1] if isinstance(value, (tuple, list)) else value
        return _np.full(tuple(shape), v, dtype=x.dtype, device=x.device)
    if mode in ("maximum", "minimum", "mean"):
        red = {"maximum": _np.max, "minimum": _np.min, "mean": _np.mean}[mode](x, axis=ax, keepdims=True)
        return _np.broadcast_to(red, tuple(shape))
    raise MXNetValueError(f"np.pad: mode expected one of constant, edge, reflect, symmetric, wrap, maximum, "
                          f"minimum, mean; got {mode!r}")


def ravel(x, order="C"):
    """The elements as a 1-d array.

    >>> import hybridlab as mx
    >>> mx.np.ravel(mx.np.ones((2, 3))).shape
    (6,)
    """
    return _np.reshape(as_array(x), (-1,))


def tril(m, k=0):
    """Lower triangle of the last two axes (below diagonal ``k``), the rest zero.

    >>> import hybridlab as mx
    >>> mx.np.tril(mx.np.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return _triangle(m, k, lower=True)


def triu(m, k=0):
    """Upper triangle of the last two axes (above diagonal ``k``), the rest zero.

    >>> import hybridlab as mx
    >>> mx.np.triu(mx.np.ones((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    return _triangle(m, k, lower=False)


def _triangle(m, k, lower):
    """``_npi_tril`` of ``m``; a 1-D ``m`` is repeated into a square first, as NumPy does."""
    m = as_array(m)
    if m.ndim == 1:
        m = _np.broadcast_to(m, (m.shape[0], m.shape[0]))
    return call("_npi_tril", m, k=k, lower=lower)


def flipud(m):
    """Reverse the first axis.

    >>> import hybridlab as mx
    >>> mx.np.flipud(mx.np.array([1, 2])).tolist()
    [2.0, 1.0]
    """
    return _np.flip(as_array(m), 0)


def fliplr(m):
    """Reverse the second axis.

    >>> import hybridlab as mx
    >>> mx.np.fliplr(mx.np.array([[1, 2]])).tolist()
    [[2.0, 1.0]]
    """
    return _np.flip(as_array(m), 1)


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with the elements of ``a`` repeated cyclically.

    >>> import hybridlab as mx
    >>> mx.np.resize(mx.np.array([1, 2, 3]), (2, 2)).tolist()
    [[1.0, 2.0], [3.0, 1.0]]
    """
    a = as_array(a)
    new_shape = (new_shape,) if hasattr(new_shape, "__index__") else tuple(new_shape)
    total = int(_onp.prod(new_shape))
    flat = ravel(a)
    if flat.size == 0 or total == 0:
        return _np.zeros(new_shape, dtype=a.dtype, device=a.device)
    reps = -(-total // flat.size)
    return _np.reshape(slice_axis(_np.tile(flat, (reps,)), 0, 0, total), new_shape)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None).

    >>> import hybridlab as mx
    >>> mx.np.append(mx.np.array([1, 2]), mx.np.array([[3]])).tolist()
    [1.0, 2.0, 3.0]
    """
    arr, values = as_array(arr), as_array(values)
    if axis is None:
        return _np.concatenate([ravel(arr), ravel(values)], axis=0)
    return _np.concatenate([arr, values], axis=axis)


def _along(arr, obj, axis):
    """``(array, host index, axis, axis length)`` for delete/insert (``axis=None``: the flattened array)."""
    arr = as_array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = operator.index(axis) % arr.ndim
    return arr, obj.asnumpy() if isinstance(obj, _np.ndarray) else obj, axis, arr.shape[axis]


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an int, slice or index list) along ``axis`` (flattened when None).
    As MXNet, entries of an index list outside ``[0, n)`` are ignored (a single int may be negative).

    >>> import hybridlab as mx
    >>> mx.np.delete(mx.np.array([[1, 2], [3, 4]]), 0, axis=1).tolist()
    [[2.0], [4.0]]
    """
    arr, obj, axis, n = _along(arr, obj, axis)
    if not isinstance(obj, slice) and _onp.ndim(obj) > 0 and _onp.asarray(obj).dtype.kind in "iu":
        obj = _onp.asarray(obj)
        obj = obj[(obj >= 0) & (obj < n)]     # as MXNet: an index array's out-of-range (and negative) entries are ignored
    return take_host(arr, _onp.delete(_onp.arange(n), obj), axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before index (or indices) ``obj`` along ``axis`` (flattened when None).

    >>> import hybridlab as mx
    >>> mx.np.insert(mx.np.array([1, 2, 3]), 1, 9).tolist()
    [1.0, 9.0, 2.0, 3.0]
    """
    arr, obj, axis, n = _along(arr, obj, axis)
    values = as_array(values).astype(arr.dtype, copy=False) if not isinstance(values, _np.ndarray) else values
    idx = _onp.arange(n)[obj] if isinstance(obj, slice) else _onp.asarray(obj)
    if idx.size == 1:     # NumPy: values as an arr.ndim array whose `axis` gives the count inserted
        vals = _np.reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape) if values.ndim < arr.ndim \
            else values
        if idx.ndim == 0:     # a scalar obj: values' first axis runs along `axis` (like a[:, 0:1])
            vals = moveaxis(vals, 0, axis)
        m = vals.shape[axis]
    else:
        m = idx.size
        vals = values
    shape = list(arr.shape)
    shape[axis] = m
    vals = _np.broadcast_to(vals.astype(arr.dtype, copy=False), tuple(shape))
    order = _onp.insert(_onp.arange(n), obj, n + _onp.arange(m))
    return take_host(_np.concatenate([arr, vals], axis=axis), order, axis)


def _index_tuple(host, device):
    return tuple(_np.array(i.astype(_onp.int64), device=device) for i in host)


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an (n, m) matrix.

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.tril_indices(2)]
    [[0, 1, 1], [0, 0, 1]]
    """
    return _index_tuple(_onp.tril_indices(n, k, m), None)


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an (n, m) matrix.

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.triu_indices(2)]
    [[0, 0, 1], [0, 1, 1]]
    """
    return _index_tuple(_onp.triu_indices(n, k, m), None)


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-d ``arr``.

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.tril_indices_from(mx.np.ones((2, 2)))]
    [[0, 1, 1], [0, 0, 1]]
    """
    return _index_tuple(_onp.tril_indices(arr.shape[-2], k, arr.shape[-1]), arr.device)


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-d ``arr``.

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.triu_indices_from(mx.np.ones((2, 2)))]
    [[0, 0, 1], [0, 1, 1]]
    """
    return _index_tuple(_onp.triu_indices(arr.shape[-2], k, arr.shape[-1]), arr.device)


def diag_indices_from(arr):
    """Indices of the main diagonal of the square ``arr`` (one int64 array per dimension; while a
    block is hybridized, one array of shape ``(ndim, n)``, as MXNet's symbol gives).

    >>> import hybridlab as mx
    >>> [i.tolist() for i in mx.np.diag_indices_from(mx.np.ones((2, 2)))]
    [[0, 1], [0, 1]]
    """
    if len(set(arr.shape)) != 1:
        raise MXNetValueError(f"np.diag_indices_from: expected equal dimensions, got {arr.shape}")
    out = call("_npi_diag_indices_from", arr)
    from ..deferred.state import tracing
    return out if tracing.active else tuple(out)


def ndim(a):
    """Number of dimensions.

    >>> import hybridlab as mx
    >>> mx.np.ndim(mx.np.ones((2, 3)))
    2
    """
    return _onp.ndim(a) if not isinstance(a, _np.ndarray) else a.ndim


def shape(a):
    """The shape tuple.

    >>> import hybridlab as mx
    >>> mx.np.shape(mx.np.ones((2, 3)))
    (2, 3)
    """
    return _onp.shape(a) if not isinstance(a, _np.ndarray) else a.shape


def size(a, axis=None):
    """Number of elements (along ``axis``).

    >>> import hybridlab as mx
    >>> mx.np.size(mx.np.ones((2, 3)))
    6
    """
    s = shape(a)
    return int(_onp.prod(s)) if axis is None else s[axis]


def broadcast_arrays(*args):
    """The inputs broadcast to their common shape.

    >>> import hybridlab as mx
    >>> [a.shape for a in mx.np.broadcast_arrays(mx.np.ones((2, 1)), mx.np.ones(3))]
    [(2, 3), (2, 3)]
    """
    arrs = [as_array(a) for a in args]
    target = _onp.broadcast_shapes(*[a.shape for a in arrs])
    return [a if a.shape == target else _np.broadcast_to(a, target) for a in arrs]


def take_along_axis(arr, indices, axis):
    """Values of ``arr`` at ``indices`` along ``axis`` (``axis=None``: the flattened array).

    >>> import hybridlab as mx
    >>> a = mx.np.array([[10, 30, 20]])
    >>> mx.np.take_along_axis(a, mx.np.argsort(a, axis=1), axis=1).tolist()
    [[10.0, 20.0, 30.0]]
    """
    arr = as_array(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    return call("_take_along_axis", arr, indices, axis=axis)


def diagflat(array, k=0):
    """A 2-d array with the flattened input on diagonal ``k``.

    >>> import hybridlab as mx
    >>> mx.np.diagflat(mx.np.array([[1, 2]])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    return _np.diag(ravel(array), k)
