"""MXNet 1.x ``mx.nd`` functions that are Python wrappers around ops rather than ops: ``moveaxis``,
``split_v2``, ``concatenate`` (deprecated in MXNet: ``concat``), ``onehot_encode`` (deprecated:
``one_hot``), ``from_numpy``, ``reset_arrays`` and ``histogram`` (the ``_histogram`` op).

Example::

    >>> import hybridlab as mx
    >>> mx.nd.moveaxis(mx.nd.zeros((3, 4, 5)), 0, -1).shape
    (4, 5, 3)
    >>> [p.shape for p in mx.nd.split_v2(mx.nd.zeros((6, 2)), (1, 4))]
    [(1, 2), (3, 2), (2, 2)]
"""
import warnings

import numpy as np

from ..base import MXNetError, MXNetValueError
from ..write_versions import wrote
from . import dispatch
from .ndarray import NDArray, array, writable_alias

__all__ = ["moveaxis", "split_v2", "concatenate", "onehot_encode", "from_numpy", "reset_arrays", "histogram"]


def _axes(value, ndim, what):
    try:
        return np.lib.array_utils.normalize_axis_tuple(value, ndim)
    except (np.exceptions.AxisError, TypeError, ValueError) as err:   # a ValueError, as in MXNet
        raise MXNetValueError(f"moveaxis: {what} expected distinct axes in [-{ndim}, {ndim}), "
                              f"got {value!r}") from err


def moveaxis(tensor, source, destination):
    """Move the ``source`` axes to the ``destination`` positions, the other axes keeping their order.

    >>> import hybridlab as mx
    >>> mx.nd.moveaxis(mx.nd.zeros((2, 3, 4)), (0, 1), (-1, -2)).shape
    (4, 3, 2)
    """
    src, dst = _axes(source, tensor.ndim, "source"), _axes(destination, tensor.ndim, "destination")
    if len(src) != len(dst):
        raise MXNetValueError(f"moveaxis: source and destination expected the same number of axes, got {source!r} "
                              f"and {destination!r}")
    order = [n for n in range(tensor.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return dispatch.invoke_name("transpose", [tensor], {"axes": tuple(order)})


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal parts (an int), or at the sorted
    indices of a tuple (``(2, 3)``: ``ary[:2]``, ``ary[2:3]``, ``ary[3:]``).

    >>> import hybridlab as mx
    >>> [p.shape for p in mx.nd.split_v2(mx.nd.zeros((2, 6)), 3, axis=1)]
    [(2, 2), (2, 2), (2, 2)]
    """
    size = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or size % sections:
            raise MXNetError(f"split_v2: expected a number of sections that divides axis {axis} of size {size}, "
                             f"got {sections}")
        indices = tuple(i * (size // sections) for i in range(sections))
    elif isinstance(indices_or_sections, (tuple, list)):
        indices = (0,) + tuple(int(i) for i in indices_or_sections)
    else:
        raise MXNetError(f"split_v2: indices_or_sections expected an int or a tuple of ints, "
                         f"got {type(indices_or_sections).__name__}")
    return dispatch.invoke_name("_split_v2", [ary], {"indices": indices, "axis": axis, "squeeze_axis": squeeze_axis})


def concatenate(arrays, axis=0, always_copy=True):
    """Join ``arrays`` along ``axis`` (deprecated in MXNet; use ``concat``). With ``always_copy=False``
    a single array is returned as it is."""
    arrays = list(arrays)
    if not arrays or not all(isinstance(a, NDArray) for a in arrays):
        raise MXNetError(f"concatenate: expected a non-empty list of NDArrays, got {arrays!r}")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    return dispatch.invoke_name("Concat", arrays, {"dim": axis, "num_args": len(arrays)})


def onehot_encode(indices, out):
    """Write the one-hot encoding of ``indices`` (N,) into ``out`` (N, depth) and return ``out``
    (deprecated in MXNet; use ``one_hot``)."""
    if out.ndim != 2 or indices.shape != out.shape[:1]:
        raise MXNetError(f"onehot_encode: expected out of shape ({indices.shape[0] if indices.ndim else '?'}, depth) "
                         f"for indices of shape {indices.shape}, got {out.shape}")
    return dispatch.invoke_name("one_hot", [indices], {"depth": out.shape[1], "dtype": out.dtype}, out=out)


def from_numpy(ndarray, zero_copy=True):
    """An NDArray with the values of the NumPy array ``ndarray`` (its dtype kept). With ``zero_copy``
    (a C-contiguous array is then required, else ``ValueError``) it shares the memory and, as in
    MXNet, the NumPy array becomes read-only: only the NDArray writes it.

    >>> import numpy as np, hybridlab as mx
    >>> a = np.zeros((2,), dtype="float32")
    >>> x = mx.nd.from_numpy(a)
    >>> x[0] = 5
    >>> a.tolist(), a.flags.writeable
    ([5.0, 0.0], False)
    """
    if not isinstance(ndarray, np.ndarray):
        raise MXNetError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise MXNetValueError(f"from_numpy: zero_copy expected a C-contiguous array, got strides "
                              f"{ndarray.strides} for shape {ndarray.shape} (pass zero_copy=False)")
    from ..device import cpu
    shared = writable_alias(ndarray.view())    # writable for the NDArray (also when shared before)
    ndarray.flags.writeable = False
    return NDArray._wrap(shared, cpu(), False)


def reset_arrays(*data, num_arrays=None):
    """Set every array of ``data`` to zero in place (MXNet's ``reset_arrays``, which
    ``Block.zero_grad`` uses); ``num_arrays`` must match their number when given.

    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((2,)), mx.nd.ones((3,))
    >>> mx.nd.reset_arrays(a, b, num_arrays=2)
    >>> a.asnumpy().tolist(), b.asnumpy().tolist()
    ([0.0, 0.0], [0.0, 0.0, 0.0])
    """
    if num_arrays is not None and num_arrays != len(data):
        raise MXNetError(f"reset_arrays: num_arrays expected {len(data)} (the arrays given), got {num_arrays}")
    for arr in data:
        if not isinstance(arr, NDArray):
            raise MXNetError(f"reset_arrays: expected NDArrays, got {type(arr).__name__}")
        arr._data[...] = 0
        wrote(arr)


def histogram(a, bins=10, range=None):   # noqa: A002  (MXNet's parameter name)
    """Histogram of ``a`` (flattened): ``(counts, edges)``. ``bins`` is an NDArray of increasing edges,
    or a number of equal bins over ``range``; without ``range`` NumPy computes it on the host (with
    a warning, as MXNet does: both results are then float32).

    >>> import hybridlab as mx
    >>> counts, edges = mx.nd.histogram(mx.nd.array([0.1, 0.5, 0.7]), bins=mx.nd.array([0, 0.5, 1]))
    >>> counts.asnumpy().tolist(), edges.asnumpy().tolist()
    ([1, 2], [0.0, 0.5, 1.0])
    """
    if isinstance(bins, NDArray):
        return dispatch.invoke_name("_histogram", [a, bins], {})
    if isinstance(bins, (int, np.integer)):
        if range is None:
            warnings.warn("range is not specified, using numpy's result to ensure consistency with numpy",
                          stacklevel=2)
            counts, edges = np.histogram(a.asnumpy(), bins=int(bins))
            return array(counts, device=a.device), array(edges, device=a.device)
        return dispatch.invoke_name("_histogram", [a], {"bin_cnt": int(bins), "range": tuple(range)})
    raise MXNetValueError(f"histogram: bins expected an integer or an NDArray, got {type(bins).__name__}")
