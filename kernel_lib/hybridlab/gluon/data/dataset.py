"""Datasets: ``Dataset`` (``__getitem__``/``__len__`` plus ``transform``, ``transform_first``,
``filter``, ``take``, ``shard``), ``SimpleDataset`` (wraps any sequence), ``ArrayDataset`` (zips
arrays of equal length), ``RecordFileDataset`` (the records of a RecordIO file).

Example::

    >>> import hybridlab as mx
    >>> ds = mx.gluon.data.SimpleDataset([1, 2, 3]).transform(lambda x: x * 10)
    >>> len(ds), ds[2]
    (3, 30)
    >>> pairs = mx.gluon.data.ArrayDataset([1, 2], ['a', 'b']).transform_first(lambda x: -x)
    >>> pairs[1]
    (-2, 'b')
"""
import os

from ... import recordio
from ...ndarray.ndarray import NDArray

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Abstract dataset: subclasses implement ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def transform(self, fn, lazy=True):
        """A dataset whose samples are ``fn(*sample)`` (tuples unpacked); ``lazy=False`` applies it now."""
        trans = _LazyTransformDataset(self, fn)
        return trans if lazy else SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Apply ``fn`` to the first element of each sample only (typically the data, not the label)."""
        return self.transform(_TransformFirst(fn), lazy)

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true."""
        return _IndexedDataset(self, [i for i in range(len(self)) if fn(self[i])])

    def take(self, count):
        """The first ``count`` samples (all when ``count`` is None)."""
        n = len(self) if count is None else min(count, len(self))
        return _IndexedDataset(self, list(range(n)))

    def shard(self, num_shards, index):
        """Shard ``index`` of ``num_shards`` contiguous parts (the first parts get one extra sample)."""
        if not 0 <= index < num_shards:
            raise ValueError(f"Shard index expected in [0, {num_shards}), got {index}")
        length = len(self)
        size, extra = divmod(length, num_shards)
        start = index * size + min(index, extra)
        end = start + size + (1 if index < extra else 0)
        return _IndexedDataset(self, list(range(start, end)))


class SimpleDataset(Dataset):
    """Wraps a sequence with ``__getitem__`` and ``__len__`` (a list, an array, ...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Zips arrays of the same length: ``ds[i]`` is ``(a[i], b[i], ...)`` (just ``a[i]`` for one array)."""

    def __init__(self, *args):
        if not args:
            raise ValueError("ArrayDataset needs at least 1 array, got none")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError(f"All arrays must have the same length; array[0] has length {self._length} "
                                 f"while array[{i}] has {len(data)}.")
            if isinstance(data, NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of the RecordIO file ``filename`` (``.rec``) as raw bytes, in the order of its
    index file (the same name with ``.idx``, as ``tools/im2rec.py`` writes it).

    Example::

        >>> import os, tempfile
        >>> import hybridlab as mx
        >>> d = tempfile.mkdtemp()
        >>> w = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'w')
        >>> for i in range(3):
        ...     w.write_idx(i, b'rec%d' % i)
        >>> w.close()
        >>> ds = mx.gluon.data.RecordFileDataset(os.path.join(d, 'a.rec'))
        >>> len(ds), ds[2]
        (3, b'rec2')
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirst:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _IndexedDataset(Dataset):
    def __init__(self, data, indices):
        self._data, self._indices = data, indices

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._data[self._indices[idx]]
