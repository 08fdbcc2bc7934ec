"""MXNet 1.x's ``gluon.contrib.data.IntervalSampler``.

Example::

    >>> from hybridlab.gluon.contrib.data import IntervalSampler
    >>> list(IntervalSampler(13, interval=3, rollover=False))
    [0, 3, 6, 9, 12]
"""
from ...data.sampler import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Samples ``[0, length)`` at a fixed ``interval``: ``0, interval, 2 * interval, ...``; with
    ``rollover`` (the default) then ``1, 1 + interval, ...`` and so on until every index came once,
    else only the first pass. ``len()`` is ``length`` in both cases (as in MXNet 1.x).

    >>> s = IntervalSampler(13, interval=3)
    >>> list(s), len(s)
    ([0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11], 13)
    """

    def __init__(self, length, interval, rollover=True):
        if interval > length:
            raise AssertionError(f"Interval {interval} must be smaller than or equal to length {length}")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for i in range(self._interval if self._rollover else 1):
            yield from range(i, self._length, self._interval)

    def __len__(self):
        return self._length
