"""``PrefetchingIter``: reads the next batch of one or more data iterators in background threads
while the current one is used, and joins their batches (data and labels concatenated, names
optionally renamed), as MXNet 1.9.1's.

An exception raised by an inner iterator reaches the caller of ``next()`` (MXNet's thread would die
silently). All inner iterators must give the same number of batches with the same padding.

Example::

    >>> import hybridlab as mx
    >>> a = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> b = mx.io.NDArrayIter({'data': mx.nd.zeros((100, 3))}, batch_size=25)
    >>> it = mx.io.PrefetchingIter([a, b], rename_data=[{'data': 'data_1'}, {'data': 'data_2'}])
    >>> [(d.name, d.shape) for d in it.provide_data]
    [('data_1', (25, 10)), ('data_2', (25, 3))]
    >>> [[x.shape for x in batch.data] for batch in it][:2]
    [[(25, 10), (25, 3)], [(25, 10), (25, 3)]]
"""
from concurrent.futures import ThreadPoolExecutor

from ..base import MXNetError
from .batch import DataBatch, DataDesc
from .ndarray_iter import BatchHolder

__all__ = ["PrefetchingIter"]


def _fetch(it):
    try:
        return it.next()
    except StopIteration:
        return None


class PrefetchingIter(BatchHolder):
    """Prefetch ``iters`` (a DataIter or a list); ``rename_data`` / ``rename_label``: one
    ``{old name: new name}`` dict per iterator."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        iters = iters if isinstance(iters, list) else [iters]
        if not iters:
            raise MXNetError("PrefetchingIter: expected at least one data iterator, got none")
        self.iters, self.n_iter = iters, len(iters)
        self.rename_data, self.rename_label = rename_data, rename_label
        super().__init__(self.provide_data[0][1][0])
        self._pool = ThreadPoolExecutor(max_workers=self.n_iter, thread_name_prefix="PrefetchingIter")
        self._pending = self._prefetch()
        self.current_batch = None

    def _prefetch(self):
        return [self._pool.submit(_fetch, it) for it in self.iters]

    @staticmethod
    def _renamed(descs, renames):
        if renames is None:
            return sum(descs, [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc) else DataDesc(*x)
                     for x in d] for r, d in zip(renames, descs)], [])

    @property
    def provide_data(self):
        return self._renamed([i.provide_data for i in self.iters], self.rename_data)

    @property
    def provide_label(self):
        return self._renamed([i.provide_label for i in self.iters], self.rename_label)

    def reset(self):
        """Drop the prefetched batches, reset every inner iterator, prefetch again."""
        for f in self._pending:
            f.result()
        for it in self.iters:
            it.reset()
        self._pending = self._prefetch()

    def iter_next(self):
        batches = [f.result() for f in self._pending]
        if batches[0] is None:
            if any(b is not None for b in batches):
                raise MXNetError("PrefetchingIter: expected the same number of batches from every iterator, got "
                                 "one that ended before the others")
            self._pending = [self._pool.submit(lambda: None) for _ in self.iters]
            return False
        if any(b is None or b.pad != batches[0].pad for b in batches):
            raise MXNetError("PrefetchingIter: expected the same number of batches and padding from every "
                             f"iterator, got pads {[None if b is None else b.pad for b in batches]}")
        self.current_batch = DataBatch(sum([list(b.data) for b in batches], []),
                                       sum([list(b.label or []) for b in batches], []), batches[0].pad,
                                       batches[0].index, provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        self._pending = self._prefetch()
        return True

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)
