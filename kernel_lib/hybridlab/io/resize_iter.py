"""``ResizeIter``: a data iterator cut or stretched to ``size`` batches per epoch, as MXNet 1.9.1's
(the inner iterator starts over when it runs out inside an epoch).

Example::

    >>> import hybridlab as mx
    >>> it = mx.io.ResizeIter(mx.io.NDArrayIter(mx.nd.ones((100, 10)), batch_size=25), 6)
    >>> [b.data[0].shape for b in it] == [(25, 10)] * 6
    True
"""
from .ndarray_iter import BatchHolder

__all__ = ["ResizeIter"]


class ResizeIter(BatchHolder):
    """``size`` batches of ``data_iter`` per epoch; ``reset_internal``: ``reset()`` also resets the
    inner iterator (else the next epoch goes on where this one stopped)."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        self.data_iter, self.size, self.reset_internal = data_iter, size, reset_internal
        self.cur, self.current_batch = 0, None
        self.provide_data, self.provide_label = data_iter.provide_data, data_iter.provide_label
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True
