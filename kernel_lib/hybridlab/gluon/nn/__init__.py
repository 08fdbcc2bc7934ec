"""``mx.gluon.nn``: neural network layers (and, as in MXNet, ``Block``/``HybridBlock``/``SymbolBlock``).

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(4, activation='relu'), mx.gluon.nn.Dense(1))
    >>> len(net), type(net[0]).__name__
    (2, 'Dense')
"""
from ..block import Block  # noqa: F401
from ..hybrid_block import HybridBlock  # noqa: F401
from ..symbol_block import SymbolBlock  # noqa: F401
from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .norm_layers import *  # noqa: F401,F403
from .breadth_layers import *  # noqa: F401,F403
