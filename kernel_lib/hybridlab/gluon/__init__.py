"""``mx.gluon``: Blocks, Parameters and layers (MXNet's Gluon API, 1.x and 2.0 styles).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.Dense(2, in_units=3)
    >>> net.initialize(mx.init.One())
    >>> net(mx.nd.ones((1, 3))).asnumpy().tolist()
    [[3.0, 3.0]]
"""
from .parameter import Parameter, Constant, DeferredInitializationError  # noqa: F401
from .parameter_dict import ParameterDict  # noqa: F401
from .block import Block  # noqa: F401
from .hybrid_block import HybridBlock  # noqa: F401
from .symbol_block import SymbolBlock  # noqa: F401
from . import nn, utils  # noqa: F401
from . import data, model_zoo  # noqa: F401
from . import rnn, contrib  # noqa: F401
from . import loss, metric  # noqa: F401
from .trainer import Trainer  # noqa: F401

__all__ = ["Parameter", "Constant", "DeferredInitializationError", "ParameterDict", "Block", "HybridBlock",
           "SymbolBlock", "nn", "utils"]
