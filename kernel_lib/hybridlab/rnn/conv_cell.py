"""Convolutional recurrent cells of the legacy symbolic API: ``ConvRNNCell``, ``ConvLSTMCell``,
``ConvGRUCell`` (Shi et al., 2015): the cells' FullyConnected projections replaced by convolutions
(``i2h``: kernel/stride/pad/dilate as given; ``h2h``: stride 1, padded to keep the state's size).
The state shape is what the ``i2h`` convolution makes of ``input_shape`` (batch 0); the default
activation is LeakyReLU with slope 0.2.

Example::

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ConvLSTMCell(input_shape=(1, 3, 8, 6), num_hidden=5, prefix='c_')
    >>> cell.state_info[0]
    {'shape': (0, 5, 8, 6), '__layout__': 'NCHW'}
    >>> outs, _ = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> mx.sym.Group(outs).infer_shape(x0=(1, 3, 8, 6), x1=(1, 3, 8, 6))[1]
    [(1, 5, 8, 6), (1, 5, 8, 6)]
"""
import functools

from .. import symbol
from ..gluon.rnn.gate_math import lstm_update
from ..base import MXNetValueError
from .base_cell import BaseRNNCell
from .cells import _gru_update

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


def _leaky(inputs, **kwargs):
    return symbol.LeakyReLU(inputs, act_type='leaky', slope=0.2, **kwargs)


class BaseConvRNNCell(BaseRNNCell):
    """Abstract convolutional cell: the two convolutions, their weights and the state shape."""
    _num_states = 2

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                 i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, activation, prefix='', params=None, conv_layout='NCHW'):
        super().__init__(prefix=prefix, params=params)
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise MXNetValueError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        self._h2h_kernel, self._h2h_dilate = h2h_kernel, h2h_dilate
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2, h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._i2h_kernel, self._i2h_stride, self._i2h_pad, self._i2h_dilate = i2h_kernel, i2h_stride, i2h_pad, i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        probe = symbol.Convolution(data=symbol.Variable('data'), num_filter=num_hidden, kernel=i2h_kernel,
                                   stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate, layout=conv_layout)
        self._state_shape = (0,) + tuple(probe.infer_shape(data=input_shape)[1][0][1:])
        self._iW = self.params.get('i2h_weight', init=i2h_weight_initializer)
        self._hW = self.params.get('h2h_weight', init=h2h_weight_initializer)
        self._iB = self.params.get('i2h_bias', init=i2h_bias_initializer)
        self._hB = self.params.get('h2h_bias', init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout} for _ in range(self._num_states)]

    def _conv_forward(self, inputs, states, name):
        size = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name='%si2h' % name, data=inputs, num_filter=size, kernel=self._i2h_kernel,
                                 stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name='%sh2h' % name, data=states[0], num_filter=size, kernel=self._h2h_kernel,
                                 dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1),
                                 weight=self._hW, bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def _step_name(self):
        self._counter += 1
        return '%st%d_' % (self._prefix, self._counter)

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell: ``out = activation(conv_i(x) + conv_h(h))``.

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ConvRNNCell(input_shape=(1, 3, 8, 6), num_hidden=4, prefix='rnn_')
    >>> out, _ = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, out.infer_shape(x=(1, 3, 8, 6))[1]
    ('rnn_t0_out', [(1, 4, 8, 6)])
    """
    _num_states = 1

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer=None, h2h_bias_initializer=None,
                 activation=_leaky, prefix='ConvRNN_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM (gates i, f, c, o sliced along the channel axis; states ``[h, c]``).

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ConvLSTMCell(input_shape=(1, 3, 8, 6), num_hidden=4, prefix='lstm_')
    >>> out, (h, c) = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, c.name
    ('lstm_t0_out', 'lstm_t0_state')
    """

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer=None, h2h_bias_initializer=None,
                 activation=_leaky, prefix='ConvLSTM_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h, next_c = lstm_update(symbol, i2h + h2h, states[1], self._get_activation, self._activation, name,
                                     axis=self._conv_layout.find('C'))
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU (gates r, z, o).

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ConvGRUCell(input_shape=(1, 3, 8, 6), num_hidden=4, prefix='gru_')
    >>> out, states = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, len(states)
    ('gru_t0_out', 1)
    """
    _num_states = 1

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer=None, h2h_bias_initializer=None,
                 activation=_leaky, prefix='ConvGRU_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                         i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        return _gru_update(self, i2h, h2h, states[0], name, self._activation)
