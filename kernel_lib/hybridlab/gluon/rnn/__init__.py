"""``mx.gluon.rnn``: the fused recurrent layers ``RNN``, ``LSTM``, ``GRU`` (one ``RNN`` op each) and
the step cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` with their combinators (``SequentialRNNCell``,
``HybridSequentialRNNCell``, ``DropoutCell``, ``ResidualCell``, ``BidirectionalCell``), all
hybridizable, with MXNet 1.9's parameter names.

Example::

    >>> import hybridlab as mx
    >>> layer = mx.gluon.rnn.GRU(6, num_layers=2)
    >>> layer.initialize()
    >>> layer(mx.nd.ones((4, 3, 5))).shape               # (T, N, C) -> (T, N, H)
    (4, 3, 6)
    >>> cell = mx.gluon.rnn.LSTMCell(6)
    >>> cell.initialize()
    >>> outputs, states = cell.unroll(4, mx.nd.ones((3, 4, 5)), merge_outputs=True)   # layout NTC
    >>> outputs.shape, [s.shape for s in states]
    ((3, 4, 6), [(3, 6), (3, 6)])
"""
from .rnn_layer import RNN, LSTM, GRU  # noqa: F401
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell,  # noqa: F401
                       SequentialRNNCell, HybridSequentialRNNCell, DropoutCell, ModifierCell, ResidualCell,
                       BidirectionalCell, ZoneoutCell)

__all__ = ["RNN", "LSTM", "GRU", "RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ResidualCell",
           "BidirectionalCell", "ZoneoutCell"]
