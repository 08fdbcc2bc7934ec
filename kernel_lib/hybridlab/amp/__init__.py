"""``mx.amp``: MXNet 2.0's name for automatic mixed precision, the module MXNet 1.9.1 calls
``mx.contrib.amp`` (one implementation: ``contrib/amp``), so 2.0-style code runs with only the import
changed: ``init``, ``init_trainer``, ``scale_loss``, ``unscale``, ``convert_symbol``, ``convert_model``,
``convert_hybrid_block``, the op-list queries, ``lists`` and ``loss_scaler``; float16 and bfloat16.

Example::

    >>> import hybridlab as mx
    >>> mx.amp.convert_hybrid_block is mx.contrib.amp.convert_hybrid_block
    True
    >>> 'Convolution' in mx.amp.list_lp16_ops('bfloat16')
    True
"""
from ..contrib.amp import amp, lists, loss_scaler  # noqa: F401
from ..contrib.amp.amp import *  # noqa: F401,F403
from ..contrib.amp.amp import __all__  # noqa: F401
