"""``FusedRNNCell``: a whole multi-layer (bidirectional) RNN as one fused ``RNN`` node whose weights
are one packed ``<prefix>parameters`` vector, with ``unpack_weights``/``pack_weights`` converting
between that vector and the per-gate arrays of the unfused cells (``l0_i2h_i_weight``, ...), and
``unfuse()`` building the equivalent stack of ``LSTMCell``/``GRUCell``/``RNNCell``.

Example::

    >>> import hybridlab as mx
    >>> fused = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', prefix='gru_')
    >>> out, _ = fused.unroll(3, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    >>> out.list_arguments()
    ['data', 'gru_parameters']
    >>> out.infer_shape(data=(3, 2, 5))[1]
    [(3, 2, 4)]
    >>> sorted(fused.unfuse().params._params)[:2]
    ['gru_l0_h2h_bias', 'gru_l0_h2h_weight']
"""
import warnings

import numpy as np

from .. import initializer, symbol
from ..base import MXNetValueError
from ..initializer.fused_rnn import fused_gate_names, fused_input_size, fused_slices
from ..ndarray.creation import zeros
from ..ndarray.ndarray import array
from .base_cell import BaseRNNCell, normalize_sequence
from .cells import BidirectionalCell, DropoutCell, GRUCell, LSTMCell, RNNCell, SequentialRNNCell

__all__ = ["FusedRNNCell"]


class FusedRNNCell(BaseRNNCell):
    """A ``num_layers``-layer RNN (``mode``: 'rnn_relu', 'rnn_tanh', 'lstm', 'gru') computed by the
    fused ``RNN`` operator. ``dropout`` applies between layers in training; ``get_next_state``
    makes ``unroll`` return the final states (``[h]``, LSTM ``[h, c]``, each (layers*directions,
    batch, hidden)); ``forget_bias`` initialises LSTM forget-gate biases. The prefix defaults to
    ``'<mode>_'``. It cannot be stepped: use ``unroll``.

    >>> import hybridlab as mx
    >>> cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode='rnn_tanh', prefix='')
    >>> args = cell.unpack_weights({'parameters': mx.nd.arange(3 * (2 + 3 + 2))})
    >>> sorted(args), args['l0_h2h_weight'].shape
    (['l0_h2h_bias', 'l0_h2h_weight', 'l0_i2h_bias', 'l0_i2h_weight'], (3, 3))
    >>> cell.pack_weights(args)['parameters'].asnumpy()[:4].tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    _zoneout_refusal = "FusedRNNCell doesn't support zoneout. Please unfuse first."

    def __init__(self, num_hidden, num_layers=1, mode='lstm', bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if prefix is None:
            prefix = '%s_' % mode
        super().__init__(prefix=prefix, params=params)
        fused_gate_names(mode)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        init = initializer.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get('parameters', init=init)

    @property
    def state_info(self):
        b = self._bidirectional + 1
        n = (self._mode == 'lstm') + 1
        return [{'shape': (b * self._num_layers, 0, self._num_hidden), '__layout__': 'LNC'} for _ in range(n)]

    @property
    def _gate_names(self):
        return fused_gate_names(self._mode)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _slices(self, arr, num_input):
        flat = arr.reshape((-1,))
        return {name: flat[off:off + (shape[0] * shape[1] if len(shape) == 2 else shape[0])].reshape(shape)
                for name, off, shape in fused_slices(self._mode, self._num_layers, self._num_hidden,
                                                     self._bidirectional, num_input, self._prefix)}

    def unpack_weights(self, args):
        """``args`` with ``<prefix>parameters`` replaced by its per-gate pieces (copies)."""
        args = args.copy()
        arr = args.pop(self._parameter.name)
        num_input = fused_input_size(arr.size, self._mode, self._num_layers, self._num_hidden, self._bidirectional)
        args.update({name: piece.copy() for name, piece in self._slices(arr, num_input).items()})
        return args

    def pack_weights(self, args):
        """``args`` with the per-gate pieces (all of them, popped) packed into ``<prefix>parameters``."""
        args = args.copy()
        w0 = args['%sl0_i2h%s_weight' % (self._prefix, self._gate_names[0])]
        num_input = w0.shape[1]
        pieces = fused_slices(self._mode, self._num_layers, self._num_hidden, self._bidirectional, num_input,
                              self._prefix)
        total = pieces[-1][1] + pieces[-1][2][0]
        flat = zeros((total,), ctx=w0.context, dtype=w0.dtype).asnumpy()
        for name, off, shape in pieces:
            value = args.pop(name)
            if tuple(value.shape) != tuple(shape):
                raise MXNetValueError(f"pack_weights: {name} has shape {tuple(value.shape)}, expected {shape}")
            flat[off:off + shape[0] * (shape[1] if len(shape) == 2 else 1)] = _numpy(value).ravel()
        args[self._parameter.name] = array(flat, ctx=w0.context, dtype=w0.dtype)
        return args

    def __call__(self, *args, **kwargs):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise MXNetValueError("Unsupported layout %s" % layout)
        if begin_state is None:
            begin_state = self.begin_state()
        states = {'state': begin_state[0]}
        if self._mode == 'lstm':
            states['state_cell'] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + 'rnn', **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            n = 3 if self._mode == 'lstm' else 2
            for i in range(1, n):
                rnn[i]._set_attr(__layout__='LNC')
            outputs, states = rnn[0], [rnn[i] for i in range(1, n)]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a ``SequentialRNNCell`` of unfused cells (``BidirectionalCell`` pairs
        when bidirectional, ``DropoutCell`` between layers), named ``<prefix>l<i>_``/``<prefix>r<i>_``
        so that ``pack_weights``/``unpack_weights`` carry the weights across."""
        h = self._num_hidden
        make = {'rnn_relu': lambda p: RNNCell(h, activation='relu', prefix=p),
                'rnn_tanh': lambda p: RNNCell(h, activation='tanh', prefix=p),
                'lstm': lambda p: LSTMCell(h, prefix=p),
                'gru': lambda p: GRUCell(h, prefix=p)}[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make('%sl%d_' % (self._prefix, i)), make('%sr%d_' % (self._prefix, i)),
                                            output_prefix='%sbi_l%d_' % (self._prefix, i)))
            else:
                stack.add(make('%sl%d_' % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix='%s_dropout%d_' % (self._prefix, i)))
        return stack


def _numpy(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
