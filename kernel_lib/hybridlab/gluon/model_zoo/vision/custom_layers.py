"""``HybridConcurrent``: the parallel container the MXNet 1.9 model zoo builds its branches with
(``mx.gluon.contrib.nn.HybridConcurrent``). It behaves as ``nn.HybridConcatenate``; its own name
(prefix ``hybridconcurrent<N>_``) keeps the parameter names equal to MXNet's.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.model_zoo.vision.custom_layers import HybridConcurrent
    >>> block = HybridConcurrent(axis=1)
    >>> block.add(mx.gluon.nn.Identity(), mx.gluon.nn.Identity())
    >>> block(mx.nd.ones((2, 3))).shape
    (2, 6)
"""
from ...nn import HybridConcatenate

__all__ = ["HybridConcurrent"]


class HybridConcurrent(HybridConcatenate):
    """Runs each child on the input and concatenates the outputs on ``axis``."""
