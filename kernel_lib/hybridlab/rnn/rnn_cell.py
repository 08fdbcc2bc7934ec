"""MXNet's module path ``mxnet.rnn.rnn_cell``: every legacy cell class, gathered from the files
that define them (``base_cell``, ``cells``, ``fused_cell``, ``conv_cell``).

    >>> import hybridlab as mx
    >>> mx.rnn.rnn_cell.LSTMCell is mx.rnn.LSTMCell
    True
"""
from .base_cell import BaseRNNCell, RNNParams  # noqa: F401
from .base_cell import normalize_sequence as _normalize_sequence  # noqa: F401
from .cells import (BidirectionalCell, DropoutCell, GRUCell, LSTMCell, ModifierCell, ResidualCell,  # noqa: F401
                    RNNCell, SequentialRNNCell, ZoneoutCell)
from .conv_cell import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell  # noqa: F401
from .fused_cell import FusedRNNCell  # noqa: F401

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell", "SequentialRNNCell",
           "BidirectionalCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell", "BaseConvRNNCell",
           "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]
