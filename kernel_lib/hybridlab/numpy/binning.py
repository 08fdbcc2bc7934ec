"""``mx.np`` functions that put values into bins or flat indices into coordinates, with MXNet 1.9.1's
signatures and limits: ``histogram`` (the ``_npi_histogram`` op: equal bins need ``range``; bins as
an array of edges), ``searchsorted`` (the ``_npi_searchsorted`` op; a ``sorter`` is applied with
``take`` first) and ``unravel_index`` (row-major only; the ``_npi_unravel_index_fallback`` op, split into one array
per dimension).

Example::

    >>> import hybridlab as mx
    >>> counts, edges = mx.np.histogram(mx.np.array([0.1, 0.4, 0.5, 0.9]), bins=2, range=(0, 1))
    >>> counts.tolist(), edges.tolist()
    ([2, 2], [0.0, 0.5, 1.0])
    >>> int(mx.np.searchsorted(mx.np.array([1.0, 2.0, 3.0]), 2.5))
    2
    >>> [c.tolist() for c in mx.np.unravel_index(mx.np.array([22, 41, 37], dtype='int64'), (7, 6))]
    [[3, 6, 6], [4, 5, 1]]
"""
import numpy as _onp

from ..base import MXNetValueError
from ..deferred.state import tracing as _tracing
from .. import numpy as _np
from ._call import as_array, call

__all__ = ["histogram", "searchsorted", "unravel_index"]

_NUMBERS = (int, float, _onp.generic)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):   # noqa: A002
    """Histogram of ``a`` (flattened): ``[counts, edges]`` (counts int64). ``bins`` is a number of
    equal bins over ``range`` (required: MXNet has no automatic range) or an array of increasing
    edges; ``normed``, ``weights`` and ``density`` are not supported (as in MXNet 1.9.1).

    >>> import hybridlab as mx
    >>> counts, edges = mx.np.histogram(mx.np.array([1.0, 2.0, 2.0, 7.0]), bins=mx.np.array([0.0, 2.0, 4.0]))
    >>> counts.tolist(), edges.tolist()
    ([1, 2], [0.0, 2.0, 4.0])
    """
    if normed is True:
        raise NotImplementedError("normed is not supported yet...")
    if weights is not None:
        raise NotImplementedError("weights is not supported yet...")
    if density is True:
        raise NotImplementedError("density is not supported yet...")
    a = as_array(a)
    if isinstance(bins, _NUMBERS) and not isinstance(bins, (bool, _onp.bool_)):
        if range is None:
            raise NotImplementedError("automatic range is not supported yet...")
        return call("_npi_histogram", a, bin_cnt=bins, range=tuple(range))
    if isinstance(bins, (list, tuple)):
        raise NotImplementedError("array_like bins is not supported yet...")
    if isinstance(bins, str):
        raise NotImplementedError("string bins is not supported yet...")
    if isinstance(bins, _np.ndarray):
        return call("_npi_histogram", a, bins)
    raise MXNetValueError(f"np.histogram: bins expected an int or an ndarray of edges, got {type(bins).__name__}")


def searchsorted(a, v, side="left", sorter=None):
    """Indices (int64) where the values ``v`` would be inserted into the sorted 1-d ``a`` to keep it
    sorted (``side='left'``: before equal elements, ``'right'``: after them); ``sorter`` holds the
    indices that sort ``a``. A number ``v`` gives a NumPy int64, as in MXNet.

    >>> import hybridlab as mx
    >>> a = mx.np.array([3.0, 1.0, 2.0])
    >>> mx.np.searchsorted(a, mx.np.array([2.0, 0.0]), sorter=mx.np.array([1, 2, 0], dtype='int64')).tolist()
    [1, 0]
    """
    if side not in ("left", "right"):
        raise MXNetValueError(f"np.searchsorted: side expected 'left' or 'right', got {side!r}")
    a = as_array(a)
    if sorter is not None:
        a = call("take", a, as_array(sorter), axis=0, mode="clip")
    if isinstance(v, _NUMBERS):
        value = _np.array(v, dtype=_onp.result_type(a.dtype, v), device=a.device)
        return _onp.int64(call("_npi_searchsorted", a, value, side=side).item())
    return call("_npi_searchsorted", a, as_array(v), side=side)


def unravel_index(indices, shape, order="C"):   # noqa: A002
    """The coordinates (a tuple of arrays of ``indices``' shape and dtype, one per dimension) of flat
    row-major integer ``indices`` (each in ``[0, prod(shape))``) into an array of ``shape``; a number
    gives a tuple of NumPy ints. Only ``order='C'`` is supported (as in MXNet 1.9.1). While a block is
    hybridized the coordinates come as one array of shape ``(len(shape),) + indices.shape`` (what
    MXNet's symbol gives), whose rows are the coordinates.

    >>> import hybridlab as mx
    >>> [int(i) for i in mx.np.unravel_index(1621, (6, 7, 8, 9))]
    [3, 1, 4, 1]
    """
    if order != "C":
        raise NotImplementedError("Do not support column-major (Fortran-style) order at this moment")
    if isinstance(indices, _NUMBERS):
        return _onp.unravel_index(indices, shape)
    shape = (shape,) if isinstance(shape, _NUMBERS) else tuple(shape)
    out = call("_npi_unravel_index_fallback", as_array(indices), shape=shape)
    return out if _tracing.active else tuple(out)
