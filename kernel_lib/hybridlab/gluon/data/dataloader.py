"""``DataLoader``: loads batches from a Dataset: ``batch_size`` + ``shuffle`` + ``last_batch`` (or a
``sampler``, or a ``batch_sampler``), samples stacked by ``batchify_fn``. With ``num_workers > 0``
batches are made in that many worker processes (``multiprocessing``, fork) and up to ``prefetch``
batches are in flight; an exception raised in a worker is re-raised here, its type and message
intact, with the worker's traceback attached as the cause.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> ds = mx.gluon.data.ArrayDataset(np.ones((5, 3), 'float32'), np.arange(5))
    >>> [x.shape for x, _ in mx.gluon.data.DataLoader(ds, batch_size=2)]
    [(2, 3), (2, 3), (1, 3)]
"""
import multiprocessing
import multiprocessing.pool
import weakref

import numpy as np

from ... import ndarray as nd
from ...device import cpu_pinned
from ...ndarray.ndarray import NDArray
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Stack a list of samples into a batch: arrays -> one NDArray (new axis 0), tuples -> per field."""
    if isinstance(data[0], NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    return nd.array(np.asarray(data), dtype=np.asarray(data).dtype)


def default_mp_batchify_fn(data):
    """The worker-side batchify: NumPy arrays (cheap to send between processes); the loader turns
    them into NDArrays in the main process."""
    if isinstance(data[0], tuple):
        return [default_mp_batchify_fn(list(field)) for field in zip(*data)]
    return np.stack([d.asnumpy() if isinstance(d, NDArray) else np.asarray(d) for d in data])


def _as_nd(batch):
    if isinstance(batch, np.ndarray):
        return nd.array(batch, dtype=batch.dtype)
    if isinstance(batch, (list, tuple)):
        return [_as_nd(b) for b in batch]
    return batch


_worker_state = {}


def _worker_init(dataset, batchify_fn):
    _worker_state["dataset"], _worker_state["batchify_fn"] = dataset, batchify_fn


def _worker_fn(indices):
    dataset, batchify_fn = _worker_state["dataset"], _worker_state["batchify_fn"]
    return _to_numpy(batchify_fn([dataset[i] for i in indices]))


def _to_numpy(batch):
    if isinstance(batch, NDArray):
        return batch.asnumpy()
    if isinstance(batch, (list, tuple)):
        return [_to_numpy(b) for b in batch]
    return batch


def _thread_worker_fn(dataset, batchify_fn, indices):
    return _to_numpy(batchify_fn([dataset[i] for i in indices]))


class _MultiWorkerIter:
    """One pass over the batches made by a worker pool: ``prefetch`` + 1 batches are submitted at
    once (when the iterator is made, as in MXNet), one more each time a batch is taken."""

    def __init__(self, submit, batch_sampler, prefetch, timeout, device):
        self._submit, self._timeout, self._device = submit, timeout, device
        self._batches = iter(batch_sampler)
        self._pending = []
        for indices in self._batches:
            self._pending.append(submit(indices))
            if len(self._pending) > prefetch:
                break

    def __iter__(self):
        return self

    def __next__(self):
        if not self._pending:
            raise StopIteration
        result = self._pending.pop(0).get(self._timeout)     # re-raises a worker's exception
        nxt = next(self._batches, None)
        if nxt is not None:
            self._pending.append(self._submit(nxt))
        return _to_device(_as_nd(result), self._device)

    def drain(self):
        """Let the batches in flight arrive, so that no worker is still writing a result when the
        pool is terminated (``multiprocessing.Pool.terminate`` then deadlocks on the result queue's
        lock)."""
        for r in self._pending:
            r.wait(self._timeout)


def _to_device(batch, device):
    if device is None:
        return batch
    if isinstance(batch, NDArray):
        return batch.as_in_context(device)
    if isinstance(batch, (list, tuple)):
        return [_to_device(b, device) for b in batch]
    return batch


class DataLoader:
    """Iterate over ``dataset`` in batches, with MXNet 1.9.1's arguments.

    ``num_workers > 0`` makes batches in a process pool (``thread_pool=True``: a thread pool);
    ``pin_memory=True`` returns batches on ``cpu_pinned(pin_device_id)`` (on the NumPy path that is
    a device label, the memory is ordinary). ``auto_reload=True`` starts fetching the next pass's
    first batches as soon as the loader is made and after each pass ends; with the default
    ``False`` fetching starts when iteration does.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> ds = mx.gluon.data.ArrayDataset(np.arange(6, dtype='float32'))
        >>> loader = mx.gluon.data.DataLoader(ds, batch_size=4, pin_memory=True)
        >>> [(b.shape, str(b.context)) for b in loader]
        [((4,), 'cpu_pinned(0)'), ((2,), 'cpu_pinned(0)')]
        >>> loader = mx.gluon.data.DataLoader(ds, batch_size=3, num_workers=2, thread_pool=True)
        >>> [b.asnumpy().tolist() for b in loader]
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, auto_reload=False):
        if not timeout > 0:
            raise ValueError(f"timeout: expected a positive number of seconds, got {timeout!r}")
        self._dataset = dataset
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if batch_sampler "
                             "is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = max(int(num_workers), 0)
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._thread_pool = bool(thread_pool)
        self._device = cpu_pinned(pin_device_id) if pin_memory else None
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self._pool = None
        self._live = weakref.WeakSet()          # multi-worker passes that may have batches in flight
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def __len__(self):
        return len(self._batch_sampler)

    def _worker_pool(self):
        if self._pool is None:
            if self._thread_pool:
                self._pool = multiprocessing.pool.ThreadPool(self._num_workers)
            else:
                ctx = multiprocessing.get_context("fork")
                self._pool = ctx.Pool(self._num_workers, initializer=_worker_init,
                                      initargs=(self._dataset, self._batchify_fn))
        return self._pool

    def _same_process_iter(self):
        for indices in self._batch_sampler:
            yield _to_device(self._batchify_fn([self._dataset[i] for i in indices]), self._device)

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        pool = self._worker_pool()
        if self._thread_pool:
            dataset, batchify_fn = self._dataset, self._batchify_fn

            def submit(indices):
                return pool.apply_async(_thread_worker_fn, (dataset, batchify_fn, indices))
        else:
            def submit(indices):
                return pool.apply_async(_worker_fn, (indices,))
        it = _MultiWorkerIter(submit, self._batch_sampler, self._prefetch, self._timeout, self._device)
        self._live.add(it)
        return it

    def __iter__(self):
        it = self._iter if self._iter is not None else self._prefetch_iter()
        self._iter = None                       # a prefetched pass is used by one iteration only
        try:
            yield from it
        finally:                                # also when the iteration is left early
            if isinstance(it, _MultiWorkerIter):
                it.drain()
        if self._iter is None and self.auto_reload:
            self.refresh()

    def refresh(self):
        """Start a new pass now (its first batches are fetched ahead); the next ``iter()`` uses it."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop the prefetched pass; fetching starts again when iteration does."""
        self._iter = None

    def close(self):
        """Stop the worker processes (also done when the loader is garbage collected)."""
        if self._pool is not None:
            for it in list(self._live):
                it.drain()
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __del__(self):
        try:
            self.close()
        except Exception:       # interpreter shutdown
            pass
