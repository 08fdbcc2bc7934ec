"""``DataIter`` (the iterator protocol of MXNet 1.x's ``mx.io``) and ``NDArrayIter`` (batches over
in-memory arrays).

``NDArrayIter(data, label, batch_size, shuffle, last_batch_handle)``: ``data`` and ``label`` are an
array, a list of arrays (named ``_0_data``, ``_1_data``... when there are several) or a dict by
name; labels are named ``softmax_label`` by default. The last, incomplete batch is padded with
samples from the start (``'pad'``, ``batch.pad`` says how many), dropped (``'discard'``), or carried
into the next epoch (``'roll_over'``: it opens the next epoch's first batch, whose ``pad`` counts
the carried samples, as MXNet reports it). Arrays are float32 NDArrays, as in MXNet.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> it = mx.io.NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='discard')
    >>> [b.data[0].asnumpy().tolist() for b in it]
    [[0.0, 1.0], [2.0, 3.0]]
"""
import numpy as np

from ..base import MXNetError
from .batch import DataBatch, DataDesc

__all__ = ["DataIter", "NDArrayIter"]


class DataIter:
    """Base class: ``reset()``, ``next()`` (a DataBatch, or StopIteration), Python iteration, and
    ``provide_data`` / ``provide_label``."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(self.getdata(), self.getlabel(), self.getpad(), self.getindex())
        raise StopIteration

    def iter_next(self):
        return False

    def getdata(self):
        return None

    def getlabel(self):
        return None

    def getindex(self):
        return None

    def getpad(self):
        return 0


class BatchHolder(DataIter):
    """A DataIter whose ``iter_next`` leaves the batch it made in ``current_batch`` (iterators over
    other iterators: ResizeIter, PrefetchingIter); the getters read that batch."""

    current_batch = None

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


def _named(arrays, default_name, what):
    """``[(name, numpy array)]`` from an array, a list or a dict, as MXNet's ``_init_data``."""
    from ..ndarray.ndarray import NDArray
    if arrays is None or (isinstance(arrays, (list, tuple, dict)) and len(arrays) == 0):
        return []           # MXNet: label=[] is no label
    if _is_csr(arrays) or isinstance(arrays, (np.ndarray, NDArray, list)) and not (isinstance(arrays, list) and arrays and
                                                                isinstance(arrays[0], (np.ndarray, NDArray))):
        arrays = [arrays]
    if isinstance(arrays, (list, tuple)):
        items = [(default_name, arrays[0])] if len(arrays) == 1 else \
            [(f"_{i}_{default_name}", a) for i, a in enumerate(arrays)]
    elif isinstance(arrays, dict):
        items = list(arrays.items())
    else:
        raise MXNetError(f"NDArrayIter: {what} expected an array, a list of arrays or a dict of arrays, "
                         f"got {type(arrays).__name__}")
    return [(name, a.asnumpy() if isinstance(a, NDArray) else a.toarray() if _is_csr(a) else np.asarray(a))
            for name, a in items]


def _is_csr(a):
    """A CSRNDArray or a SciPy sparse matrix: its batches are CSRNDArrays."""
    return getattr(a, "stype", None) == "csr" or (hasattr(a, "tocsr") and hasattr(a, "toarray"))


def _csr_names(arrays):
    if isinstance(arrays, dict):
        return {name for name, a in arrays.items() if _is_csr(a)}
    return set()


class NDArrayIter(DataIter):
    """Batches of ``batch_size`` samples (along axis 0) over ``data`` and ``label``; see the module
    docstring for names and ``last_batch_handle``."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad", data_name="data",
                 label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetError(f"NDArrayIter: last_batch_handle expected 'pad', 'discard' or 'roll_over', "
                             f"got {last_batch_handle!r}")
        self._csr = _csr_names(data) | _csr_names(label)
        for arrays, name in ((data, data_name), (label, label_name)):
            if not isinstance(arrays, dict) and _is_csr(arrays):
                self._csr.add(name)
        if self._csr and last_batch_handle != "discard":
            raise NotImplementedError(f"NDArrayIter: CSR inputs ({', '.join(sorted(self._csr))}) expected "
                                      f"last_batch_handle='discard', got {last_batch_handle!r}")
        self.data = _named(data, data_name, "data")
        self.label = _named(label, label_name, "label")
        sizes = {name: a.shape[0] for name, a in self.data + self.label}
        self.num_data = next(iter(sizes.values()), 0)     # the first data array's, as in MXNet
        short = {name: n for name, n in sizes.items() if n < self.num_data}
        if short:
            raise MXNetError(f"NDArrayIter: expected at least {self.num_data} samples (the first data array's) in "
                             f"every array, got {sizes}")
        if last_batch_handle == "discard" and self.num_data < batch_size:
            raise MXNetError(f"NDArrayIter: batch_size {batch_size} exceeds the {self.num_data} samples, so "
                             "'discard' leaves no batch")
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self._carry = np.arange(0)    # roll_over: the last incomplete batch's samples, for the next epoch
        self.reset()

    @property
    def provide_data(self):
        return [DataDesc(name, (self.batch_size,) + a.shape[1:], np.float32) for name, a in self.data]

    @property
    def provide_label(self):
        return [DataDesc(name, (self.batch_size,) + a.shape[1:], np.float32) for name, a in self.label]

    def hard_reset(self):
        """Start over, forgetting any rolled-over samples."""
        self._carry = np.arange(0)
        self.reset()

    def reset(self):
        """Start a new epoch: reshuffle (with ``shuffle``) and lay out its batches."""
        if self.shuffle:
            np.random.shuffle(self.idx)
        order = np.concatenate([self._carry, self.idx])
        full = len(order) // self.batch_size * self.batch_size
        self._batches = [(order[k:k + self.batch_size], 0) for k in range(0, full, self.batch_size)]
        if len(self._carry) and self._batches:
            self._batches[0] = (self._batches[0][0], len(self._carry))
        rest = order[full:]
        self._carry = np.arange(0)
        if len(rest) and self.last_batch_handle == "pad":
            pad = self.batch_size - len(rest)
            # samples from the start, cycled when the batch is longer than the data (as MXNet)
            self._batches.append((np.concatenate([rest, np.resize(self.idx, pad)]), pad))
        elif len(rest) and self.last_batch_handle == "roll_over":
            self._carry = rest
        self._next = 0

    def iter_next(self):
        if self._next >= len(self._batches):
            return False
        self._batch, self._pad = self._batches[self._next]
        self._next += 1
        return True

    def _take(self, arrays):
        from ..ndarray.ndarray import array
        batches = [array(a[self._batch], dtype=np.float32) for _, a in arrays]
        return [b.tostype("csr") if name in self._csr else b for (name, _), b in zip(arrays, batches)]

    def getdata(self):
        return self._take(self.data)

    def getlabel(self):
        return self._take(self.label)

    def getpad(self):
        return self._pad

    def getindex(self):
        return self._batch.copy()
