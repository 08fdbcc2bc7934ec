"""``LossScaler``: MXNet 1.9.1's dynamic loss scaling for AMP training.

The loss is multiplied by ``loss_scale`` before backward (``amp.scale_loss``), so small float16
gradients do not flush to zero; the Trainer divides it out again. Each step checks the gradients:
on an overflow (an inf or nan) the step is skipped and the next scale is halved; after
``scale_seq_len`` (2000) steps without one the next scale doubles, up to 2**24. The scale starts at
2**16.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.contrib.amp.loss_scaler import LossScaler
    >>> p = mx.gluon.Parameter('w', shape=(2,))
    >>> p.initialize()
    >>> s = LossScaler()
    >>> p.grad()[:] = float('inf')
    >>> s.has_overflow([p]), s.loss_scale, s.has_overflow([p]), s.loss_scale
    (True, 65536.0, True, 32768.0)
"""
import logging

import numpy as _np

from ... import autograd as ag

__all__ = ["LossScaler"]


class LossScaler:
    """Dynamic loss scale (see the module docstring); ``loss_scale`` is the scale to multiply the next
    loss by."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` (Parameters) holds an inf or nan; updates the scale as
        MXNet does: halved after an overflow, doubled after ``scale_seq_len`` clean steps."""
        with ag.pause():
            overflow = False
            for p in params:
                if p.grad_req == "null" or p._data is None:
                    continue
                for g in p.list_grad():
                    if not _np.isfinite(g.asnumpy()).all():
                        overflow = True
                        break
                if overflow:
                    break
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
