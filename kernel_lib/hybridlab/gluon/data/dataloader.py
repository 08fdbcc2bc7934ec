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

import numpy as np

from ... import ndarray as nd
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


class DataLoader:
    """Iterate over ``dataset`` in batches (MXNet's arguments; ``pin_memory``/``thread_pool`` accepted
    and ignored: there is no pinned memory on the CPU path)."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120):
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
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self._pool = None

    def __len__(self):
        return len(self._batch_sampler)

    def _worker_pool(self):
        if self._pool is None:
            ctx = multiprocessing.get_context("fork")
            self._pool = ctx.Pool(self._num_workers, initializer=_worker_init,
                                  initargs=(self._dataset, self._batchify_fn))
        return self._pool

    def __iter__(self):
        if self._num_workers == 0:
            for indices in self._batch_sampler:
                yield self._batchify_fn([self._dataset[i] for i in indices])
            return
        pool = self._worker_pool()
        pending = []
        batches = iter(self._batch_sampler)
        for indices in batches:                   # fill the pipeline
            pending.append(pool.apply_async(_worker_fn, (indices,)))
            if len(pending) > self._prefetch:
                break
        try:
            while pending:
                result = pending.pop(0).get(self._timeout)    # re-raises a worker's exception
                nxt = next(batches, None)
                if nxt is not None:
                    pending.append(pool.apply_async(_worker_fn, (nxt,)))
                yield _as_nd(result)
        finally:
            # an iteration left early: let the batches in flight arrive, so that no worker is still
            # writing a result when the pool is terminated (multiprocessing.Pool.terminate then
            # deadlocks on the result queue's lock)
            for r in pending:
                r.wait(self._timeout)

    def close(self):
        """Stop the worker processes (also done when the loader is garbage collected)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __del__(self):
        try:
            self.close()
        except Exception:       # interpreter shutdown
            pass
