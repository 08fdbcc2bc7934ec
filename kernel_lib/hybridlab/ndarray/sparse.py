"""``mx.nd.sparse``: MXNet's compressed sparse row (``CSRNDArray``) and row-sparse
(``RowSparseNDArray``) arrays, their constructors and ``tostype``.

How they are stored here: densely. A sparse array keeps its full values, and its components
(``data``/``indices``/``indptr`` of CSR, ``data``/``indices`` of row-sparse) are computed from them
when read. Every operator therefore runs on it as on a dense array and returns a dense result,
which is MXNet's *storage fallback* for the operators without a sparse kernel; what is not here is
the memory saving and the sparse kernels (a sparse ``dot`` or a lazy row-sparse optimizer update
compute the same values densely). ``mx.nd.sparse.<op>`` names every ``mx.nd`` operator.

Example::

    >>> import hybridlab as mx
    >>> a = mx.nd.sparse.csr_matrix(([1.0, 2.0], [1, 0], [0, 1, 2]), shape=(2, 3))
    >>> a.stype, a.indptr.asnumpy().tolist(), a.asnumpy().tolist()
    ('csr', [0, 1, 2], [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
    >>> r = mx.nd.array([[0, 0], [3, 4]]).tostype("row_sparse")
    >>> r.indices.asnumpy().tolist(), (r * 2).stype
    ([1], 'default')
"""
import numpy as np

from ..base import MXNetError, normalize_dtype
from ..device import current_device
from . import namespace as _namespace
from .ndarray import NDArray

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "csr_matrix", "row_sparse_array", "retain",
           "zeros", "empty", "array"]

STYPES = ("default", "csr", "row_sparse")

# every mx.nd operator under mx.nd.sparse too (MXNet's sparse namespace holds them all; here they run
# on the dense values: storage fallback); the constructors below take the names they share
_namespace.populate(globals(), "nd")


def _host(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


class BaseSparseNDArray(NDArray):
    """What CSR and row-sparse arrays share: ``stype``, ``tostype``, ``copy``, a repr naming them."""

    _stype = "default"

    @classmethod
    def _from_dense(cls, data, device, np_style=False):
        out = cls._wrap(data, device, np_style)
        return out

    @property
    def stype(self):
        return self._stype

    def tostype(self, stype):
        """The same values in storage ``stype`` ('default', 'csr' or 'row_sparse')."""
        return _convert(self, stype)

    def copy(self):
        return type(self)._from_dense(self._data.copy(), self._device, self._np)

    def copyto(self, other):
        """Copy into ``other`` (an NDArray) or onto a device: a new array of the same storage type."""
        out = super().copyto(other)
        if isinstance(other, NDArray):
            return out
        return type(self)._from_dense(out._data, out._device, self._np)

    def as_in_context(self, device):
        """This array on ``device``, of the same storage type (itself if it is there already)."""
        if device == self._device:
            return self
        out = NDArray.as_in_context(self, device)
        return type(self)._from_dense(out._data, out._device, self._np)

    as_in_ctx = to_device = as_in_context

    def _shape_text(self):
        return "x".join(str(d) for d in self.shape)

    def __repr__(self):
        return f"\n<{type(self).__name__} {self._shape_text()} @{self._device}>"


class CSRNDArray(BaseSparseNDArray):
    """A 2-d array in compressed sparse row form: ``data`` (the nonzeros, row by row), ``indices``
    (their columns) and ``indptr`` (where each row starts in ``data``)."""

    _stype = "csr"

    def _nonzero(self):
        host = _host(NDArray._wrap(self._data, self._device))
        rows, cols = np.nonzero(host)
        return host, rows, cols

    @property
    def data(self):
        host, rows, cols = self._nonzero()
        return _dense(host[rows, cols], self._device)

    @property
    def indices(self):
        _, _, cols = self._nonzero()
        return _dense(cols.astype(np.int64), self._device)

    @property
    def indptr(self):
        host, rows, _ = self._nonzero()
        return _dense(np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=host.shape[0]))]).astype(np.int64),
                      self._device)

    def asscipy(self):
        """The same matrix as a ``scipy.sparse.csr_matrix``."""
        import scipy.sparse as sps
        return sps.csr_matrix(_host(NDArray._wrap(self._data, self._device)))


class RowSparseNDArray(BaseSparseNDArray):
    """An array whose zero rows (slices along axis 0) are not stored: ``indices`` (the rows with a
    nonzero) and ``data`` (those rows)."""

    _stype = "row_sparse"

    def _rows(self):
        host = _host(NDArray._wrap(self._data, self._device))
        flat = host.reshape(host.shape[0], -1) if host.ndim else host.reshape(1, -1)
        return host, np.nonzero(np.any(flat != 0, axis=1))[0]

    @property
    def data(self):
        host, rows = self._rows()
        return _dense(host[rows], self._device)

    @property
    def indices(self):
        _, rows = self._rows()
        return _dense(rows.astype(np.int64), self._device)

    def retain(self, indices):
        """Only the rows in ``indices`` kept (the others zero), as ``sparse.retain``."""
        host = _host(NDArray._wrap(self._data, self._device)).copy()
        keep = np.zeros(host.shape[0], dtype=bool)
        keep[_host(indices).astype(np.int64)] = True
        host[~keep] = 0
        return RowSparseNDArray._from_dense(self._device.put(host), self._device)


_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}


def class_of(stype):
    """The array class of a sparse storage type."""
    if stype not in _CLASSES:
        raise MXNetError(f"storage type expected one of {', '.join(STYPES)}, got {stype!r}")
    return _CLASSES[stype]


def _dense(host, device):
    return NDArray._wrap(device.put(np.ascontiguousarray(host)), device)


def _convert(arr, stype):
    """``arr`` (any NDArray) with storage ``stype``: a copy of its values."""
    if stype not in STYPES:
        raise MXNetError(f"tostype: storage type expected one of {', '.join(STYPES)}, got {stype!r}")
    if stype == "default":
        return NDArray._wrap(arr._data.copy(), arr._device, arr._np)
    if stype == "csr" and arr.ndim != 2:
        raise MXNetError(f"tostype('csr'): expected a 2-d array, got shape {arr.shape}")
    return _CLASSES[stype]._from_dense(arr._data.copy(), arr._device, arr._np)


def _device_of(ctx):
    return ctx if ctx is not None else current_device()


def _from_host(cls, host, ctx, dtype):
    device = _device_of(ctx)
    host = np.asarray(host, dtype=normalize_dtype(dtype) if dtype is not None else None)
    if host.dtype == np.float64 and dtype is None:
        host = host.astype(np.float32)                      # MXNet's default dtype
    return cls._from_dense(device.put(np.ascontiguousarray(host)), device)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A ``CSRNDArray`` from ``(data, indices, indptr)`` with ``shape``, a SciPy sparse matrix, a
    dense array (NDArray, NumPy) or a shape (all zeros)."""
    if isinstance(arg1, tuple) and len(arg1) == 2 and all(isinstance(d, (int, np.integer)) for d in arg1):
        return _from_host(CSRNDArray, np.zeros(arg1), ctx, dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = (_host(x) for x in arg1)
        if shape is None:
            shape = (len(indptr) - 1, int(indices.max()) + 1 if indices.size else 0)
        if len(indptr) != shape[0] + 1 or indptr[-1] != len(data) or len(indices) != len(data):
            raise MXNetError(f"csr_matrix: expected indptr of {shape[0] + 1} entries ending at len(data) = "
                             f"{len(data)} and one column index per value, got indptr {indptr.tolist()} and "
                             f"{len(indices)} indices")
        if indices.size and (indices.min() < 0 or indices.max() >= shape[1]):
            raise MXNetError(f"csr_matrix: column indices expected in [0, {shape[1]}), got {indices.tolist()}")
        host = np.zeros(shape, dtype=data.dtype if dtype is None else normalize_dtype(dtype))
        for row in range(shape[0]):
            cols = indices[indptr[row]:indptr[row + 1]]
            host[row, cols] += data[indptr[row]:indptr[row + 1]]
        return _from_host(CSRNDArray, host, ctx, dtype or (data.dtype if data.dtype != np.float64 else None))
    if hasattr(arg1, "toarray"):                               # a SciPy sparse matrix
        return _from_host(CSRNDArray, arg1.toarray(), ctx, dtype or arg1.dtype)
    arr = _host(arg1)
    if arr.ndim != 2:
        raise MXNetError(f"csr_matrix: expected a 2-d array, got shape {arr.shape}")
    return _from_host(CSRNDArray, arr, ctx, dtype or (arr.dtype if isinstance(arg1, NDArray) else None))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A ``RowSparseNDArray`` from ``(data, indices)`` with ``shape``, a dense array or a shape."""
    if isinstance(arg1, tuple) and arg1 and all(isinstance(d, (int, np.integer)) for d in arg1):
        return _from_host(RowSparseNDArray, np.zeros(arg1), ctx, dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, indices = _host(arg1[0]), _host(arg1[1]).astype(np.int64)
        if shape is None:
            raise MXNetError("row_sparse_array: (data, indices) expected a shape")
        if len(indices) != len(data) or (indices.size and (indices.min() < 0 or indices.max() >= shape[0])):
            raise MXNetError(f"row_sparse_array: expected one row index in [0, {shape[0]}) per data row, got "
                             f"{len(indices)} indices for {len(data)} rows")
        host = np.zeros(shape, dtype=data.dtype if dtype is None else normalize_dtype(dtype))
        host[indices] = data
        return _from_host(RowSparseNDArray, host, ctx, dtype or (data.dtype if data.dtype != np.float64 else None))
    arr = _host(arg1)
    return _from_host(RowSparseNDArray, arr, ctx, dtype or (arr.dtype if isinstance(arg1, NDArray) else None))


def retain(data, indices):
    """The rows of the row-sparse ``data`` listed in ``indices``, the others dropped (zero), as a
    ``RowSparseNDArray``.

    Example::

        >>> import hybridlab as mx
        >>> r = mx.nd.sparse.retain(mx.nd.array([[1, 2], [3, 4], [5, 6]]).tostype('row_sparse'),
        ...                         mx.nd.array([0, 2]))
        >>> r.stype, r.indices.asnumpy().tolist()
        ('row_sparse', [0, 2])
    """
    out = globals()["_sparse_retain"](data, indices)
    return RowSparseNDArray._from_dense(out._data, out._device, out._np)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage ``stype``."""
    if stype == "default":
        from .creation import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in _CLASSES:
        raise MXNetError(f"sparse.zeros: storage type expected one of {', '.join(STYPES)}, got {stype!r}")
    return _from_host(_CLASSES[stype], np.zeros(shape, dtype=normalize_dtype(dtype)), ctx, dtype or np.float32)


empty = zeros


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a SciPy sparse matrix (CSR) or a sparse NDArray (a copy)."""
    if isinstance(source_array, BaseSparseNDArray):
        out = source_array.copy()
        return out.astype(dtype) if dtype is not None else out
    if hasattr(source_array, "tocsr"):
        return csr_matrix(source_array.tocsr(), ctx=ctx, dtype=dtype)
    raise MXNetError(f"sparse.array: expected a SciPy sparse matrix or a sparse NDArray, got "
                     f"{type(source_array).__name__}")

