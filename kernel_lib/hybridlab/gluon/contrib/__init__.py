"""``mx.gluon.contrib``: MXNet 1.x's contributed Gluon layers (``contrib.nn``) and recurrent cells
(``contrib.rnn``).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.contrib.nn.HybridConcurrent(axis=1)
    >>> net.add(mx.gluon.nn.Dense(2), mx.gluon.contrib.nn.Identity())
    >>> net.initialize()
    >>> net(mx.nd.ones((1, 3))).shape
    (1, 5)
"""
from . import nn, rnn  # noqa: F401

__all__ = ["nn", "rnn"]
