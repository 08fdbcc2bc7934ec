"""Checkpoints of models built from legacy RNN cells: the weights are saved unpacked (per gate, as
``cell.unpack_weights`` gives them, so a fused and an unfused model read each other's files) and
packed again on load.

Example::

    >>> import os, tempfile
    >>> import hybridlab as mx
    >>> cell = mx.rnn.LSTMCell(2, prefix='lstm_')
    >>> out, _ = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    >>> args = {'lstm_i2h_weight': mx.nd.ones((8, 3)), 'lstm_i2h_bias': mx.nd.zeros((8,)),
    ...         'lstm_h2h_weight': mx.nd.ones((8, 2)), 'lstm_h2h_bias': mx.nd.zeros((8,))}
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'lm')
    >>> mx.rnn.save_rnn_checkpoint(cell, prefix, 1, out, args, {})
    >>> sorted(mx.nd.load(prefix + '-0001.params'))[:2]
    ['arg:lstm_h2h_c_bias', 'arg:lstm_h2h_c_weight']
    >>> sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    >>> sorted(arg) == sorted(args), arg['lstm_i2h_weight'].shape
    (True, (8, 3))
"""
import warnings

from ..model import load_checkpoint, save_checkpoint
from .base_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix='', layout='NTC'):
    """Deprecated: ``cell.unroll(length, inputs, begin_state, layout)``."""
    warnings.warn('rnn_unroll is deprecated. Please call cell.unroll directly.')
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def _cells(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """``save_checkpoint`` with ``arg_params`` unpacked by each of ``cells`` (a cell or a list)."""
    for cell in _cells(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``(symbol, arg_params, aux_params)`` of a checkpoint, ``arg_params`` packed by ``cells``."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cells(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback (``Module.fit(epoch_end_callback=...)``) saving an RNN checkpoint every
    ``period`` epochs (as epoch number ``iter_no + 1``)."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
