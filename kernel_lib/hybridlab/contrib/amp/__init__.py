"""``mx.contrib.amp``: automatic mixed precision as MXNet 1.9.1 defines it (``from mxnet.contrib.amp
import amp`` works too). See ``amp.py`` for the functions, ``lists/`` for the op lists and
``loss_scaler.py`` for dynamic loss scaling.

Example::

    >>> import hybridlab as mx
    >>> mx.contrib.amp.convert_symbol is mx.contrib.amp.amp.convert_symbol
    True
"""
from . import amp, lists, loss_scaler  # noqa: F401
from .amp import (convert_bucketing_module, convert_hybrid_block, convert_model, convert_symbol, init,  # noqa: F401
                  init_trainer, list_conditional_fp32_ops, list_fp32_ops, list_loss_output_functions,
                  list_lp16_fp32_ops, list_lp16_ops, list_lp16_use_fp32_params, list_widest_type_cast,
                  scale_loss, unscale)
