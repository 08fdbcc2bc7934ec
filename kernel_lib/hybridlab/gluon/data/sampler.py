"""Samplers yield dataset indices: ``SequentialSampler``, ``RandomSampler`` (a NumPy permutation per
epoch), ``IntervalSampler``, and ``BatchSampler`` which groups them into batches with
``last_batch`` 'keep' (a smaller last batch), 'discard' (drop it) or 'rollover' (carry the
remainder into the next epoch).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(5), 2, 'keep'))
    [[0, 1], [2, 3], [4]]
    >>> s = BatchSampler(SequentialSampler(5), 2, 'rollover')
    >>> list(s), list(s)
    ([[0, 1], [2, 3]], [[4, 0], [1, 2], [3, 4]])
"""
import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "IntervalSampler", "BatchSampler"]


class Sampler:
    """Base class: iterate indices; ``len()`` is how many."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length, self._start = length, start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A random permutation of ``range(length)`` each epoch (``np.random``, seed with ``np.random.seed``)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        return iter(np.random.permutation(self._length).tolist())

    def __len__(self):
        return self._length


class IntervalSampler(Sampler):
    """``0, interval, 2*interval, ...`` then ``1, 1 + interval, ...`` (``rollover=False``: one pass only)."""

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise ValueError(f"Interval expected smaller than length {length}, got {interval}")
        self._length, self._interval, self._rollover = length, interval, rollover

    def __iter__(self):
        for i in range(self._interval if self._rollover else 1):
            yield from range(i, self._length, self._interval)

    def __len__(self):
        return self._length if self._rollover else len(range(0, self._length, self._interval))


class BatchSampler(Sampler):
    """Group ``sampler``'s indices into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in ("keep", "discard", "rollover"):
            raise ValueError(f"last_batch expected one of 'keep', 'discard', 'rollover', got {last_batch!r}")
        self._sampler, self._batch_size, self._last_batch = sampler, batch_size, last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        n = len(self._sampler)
        if self._last_batch == "keep":
            return (n + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return n // self._batch_size
        return (len(self._prev) + n) // self._batch_size
