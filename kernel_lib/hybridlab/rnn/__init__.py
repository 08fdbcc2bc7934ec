"""``mx.rnn``: MXNet 1.x's legacy symbolic RNN API (deprecated in MXNet in favour of
``gluon.rnn``, still used by its tests and by BucketingModule programs).

* cells that build Symbol graphs step by step: ``RNNCell``, ``LSTMCell``, ``GRUCell``, the fused
  ``FusedRNNCell`` (one ``RNN`` node; ``unfuse()``, ``pack_weights``/``unpack_weights``), the
  convolutional ``ConvRNNCell``/``ConvLSTMCell``/``ConvGRUCell`` and the combinators
  ``SequentialRNNCell``, ``BidirectionalCell``, ``DropoutCell``, ``ZoneoutCell``, ``ResidualCell``;
  ``RNNParams`` shares weights between cells;
* ``encode_sentences`` and ``BucketSentenceIter`` (``mx.rnn.io``);
* ``save_rnn_checkpoint``/``load_rnn_checkpoint``/``do_rnn_checkpoint`` (``mx.rnn.rnn``).

Names follow MXNet 1.9.1 (``lstm_l0_i2h_weight``, ``lstm_t0_out``), so checkpoints and tests
written for MXNet carry over.

Example::

    >>> import hybridlab as mx
    >>> cell = mx.rnn.LSTMCell(16, prefix='lstm_')
    >>> out, states = cell.unroll(5, mx.sym.var('data'), merge_outputs=True)
    >>> out.list_arguments()
    ['data', 'lstm_i2h_weight', 'lstm_i2h_bias', 'lstm_h2h_weight', 'lstm_h2h_bias']
    >>> out.infer_shape(data=(4, 5, 8))[1]
    [(4, 5, 16)]
"""
from . import io, rnn, rnn_cell  # noqa: F401
from .io import BucketSentenceIter, encode_sentences  # noqa: F401
from .rnn import do_rnn_checkpoint, load_rnn_checkpoint, rnn_unroll, save_rnn_checkpoint  # noqa: F401
from .rnn_cell import *  # noqa: F401,F403
from .rnn_cell import __all__ as _cells

__all__ = list(_cells) + ["BucketSentenceIter", "encode_sentences", "save_rnn_checkpoint", "load_rnn_checkpoint",
                          "do_rnn_checkpoint", "rnn_unroll", "io", "rnn", "rnn_cell"]
