"""``mx.gluon.contrib.rnn``: MXNet 1.x's contributed recurrent cells.

* ``rnn_cell``: ``VariationalDropoutCell`` (one dropout mask per sequence) and ``LSTMPCell`` (an
  LSTM with a projected recurrent state).
* ``conv_rnn_cell``: the convolutional cells ``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``.

Example::

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv1DGRUCell((2, 8), 3, i2h_kernel=3, h2h_kernel=3, prefix='gru_')
    >>> cell.state_info(batch_size=4)
    [{'shape': (4, 3, 6), '__layout__': 'NCW'}]
"""
from . import conv_rnn_cell, rnn_cell  # noqa: F401
from .conv_rnn_cell import (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell, Conv2DLSTMCell,  # noqa: F401
                            Conv3DLSTMCell, Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell)
from .rnn_cell import VariationalDropoutCell, LSTMPCell  # noqa: F401

__all__ = conv_rnn_cell.__all__ + rnn_cell.__all__
