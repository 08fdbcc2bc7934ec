"""``mx.gluon.contrib``: MXNet 1.x's contributed Gluon layers (``contrib.nn``), recurrent cells
(``contrib.rnn``), deformable convolutions (``contrib.cnn``) and data utilities (``contrib.data``).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.contrib.nn.HybridConcurrent(axis=1)
    >>> net.add(mx.gluon.nn.Dense(2), mx.gluon.contrib.nn.Identity())
    >>> net.initialize()
    >>> net(mx.nd.ones((1, 3))).shape
    (1, 5)
"""
from . import cnn, data, nn, rnn  # noqa: F401

__all__ = ["cnn", "data", "nn", "rnn"]
