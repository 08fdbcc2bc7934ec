"""``mx.gluon.contrib.rnn.conv_rnn_cell``: MXNet 1.x's convolutional recurrent cells (Shi et al.,
2015), ``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``: the step cells of ``gluon.rnn`` with both projections
made convolutions. ``i2h``: the given kernel, padding and dilation, stride 1; ``h2h``: an odd kernel
padded (``dilate * (kernel - 1) / 2``) so that the state keeps its size. ``input_shape`` is one
step's sample without the batch axis (``(C, W)`` for 'NCW', ``(H, W, C)`` for 'NHWC'...); the state is
what the ``i2h`` convolution makes of it, with ``hidden_channels`` channels. A 0 channel count in
``input_shape`` is inferred on the first call. Parameters ``i2h_weight``, ``h2h_weight``,
``i2h_bias``, ``h2h_bias`` (``num_gates * hidden_channels`` filters), prefixes ``conv_rnn0_``,
``conv_lstm0_``, ``conv_gru0_``; the default activation is tanh.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.contrib.rnn import Conv2DLSTMCell
    >>> cell = Conv2DLSTMCell(input_shape=(3, 8, 6), hidden_channels=4, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)
    >>> cell.initialize()
    >>> [info['shape'] for info in cell.state_info(batch_size=2)]
    [(2, 4, 8, 6), (2, 4, 8, 6)]
    >>> outputs, (h, c) = cell.unroll(5, mx.nd.ones((2, 5, 3, 8, 6)), merge_outputs=True)   # layout NTC
    >>> outputs.shape, c.shape
    ((2, 5, 4, 8, 6), (2, 4, 8, 6))
"""
from functools import partial
from numbers import Integral

from ....base import MXNetValueError
from ...rnn.gate_math import gru_update, lstm_update
from ...rnn.rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

# the layouts the Convolution op takes, by the number of spatial axes
_LAYOUTS = {1: ("NCW",), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _conv_out_size(dimensions, kernels, paddings, dilations):
    """The spatial size a stride-1 convolution gives (0 stays 0: not known yet)."""
    return tuple(x + 2 * p - d * (k - 1) if x else 0 for x, k, p, d in zip(dimensions, kernels, paddings, dilations))


class _BaseConvRNNCell(HybridRecurrentCell):
    """The two convolutions, their parameters and the state shape of the convolutional cells; the
    public classes set ``_dims`` (spatial axes) and the cell kind's base its gates and states. The
    int defaults of the convolution settings stand for ``dims`` equal sizes (MXNet writes ``(0, 0)``
    for 2D...), ``conv_layout=None`` for the channel-first layout."""
    _dims = None
    _gate_names = ("",)
    _num_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=0, i2h_dilate=1, h2h_dilate=1,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", conv_layout=None, activation="tanh", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        name, dims = type(self).__name__, self._dims
        if conv_layout is None:
            conv_layout = _LAYOUTS[dims][0]
        if conv_layout not in _LAYOUTS[dims]:
            raise MXNetValueError(f"{name}: conv_layout expected one of {_LAYOUTS[dims]}, got {conv_layout!r}")
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = self._spec(i2h_kernel, dims, "i2h_kernel")
        self._i2h_pad = self._spec(i2h_pad, dims, "i2h_pad")
        self._i2h_dilate = self._spec(i2h_dilate, dims, "i2h_dilate")
        self._h2h_kernel = self._spec(h2h_kernel, dims, "h2h_kernel")
        self._h2h_dilate = self._spec(h2h_dilate, dims, "h2h_dilate")
        self._stride = (1,) * dims
        if any(k % 2 != 1 for k in self._h2h_kernel):
            raise MXNetValueError(f"{name}: h2h_kernel expected odd sizes (the state keeps its size), "
                                  f"got {h2h_kernel}")
        if len(self._input_shape) != dims + 1:
            raise MXNetValueError(f"{name}: input_shape expected {dims + 1} sizes for layout {conv_layout} "
                                  f"(no batch axis), got {input_shape}")
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        self._channel_axis = conv_layout.find("C")
        channel_first = self._channel_axis == 1
        self._in_channels = self._input_shape[0 if channel_first else -1]
        spatial = self._input_shape[1:] if channel_first else self._input_shape[:-1]
        out = _conv_out_size(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        self._state_shape = (hidden_channels,) + out if channel_first else out + (hidden_channels,)
        total = hidden_channels * self._num_gates
        if channel_first:
            i2h_shape = (total, self._in_channels) + self._i2h_kernel
            h2h_shape = (total, hidden_channels) + self._h2h_kernel
        else:
            i2h_shape = (total,) + self._i2h_kernel + (self._in_channels,)
            h2h_shape = (total,) + self._h2h_kernel + (hidden_channels,)
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=i2h_shape, init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=h2h_shape, init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(total,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(total,), init=h2h_bias_initializer, allow_deferred_init=True)

    @staticmethod
    def _spec(value, dims, what):
        """An int or a ``dims``-tuple as a ``dims``-tuple."""
        if isinstance(value, Integral):
            return (int(value),) * dims
        if len(value) != dims:
            raise MXNetValueError(f"For {dims}D convolution, the convolution settings can only be either int or "
                                  f"list/tuple of length {dims}: {what} got {value}")
        return tuple(value)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return (f"{type(self).__name__}({in_channels if in_channels else None} -> {shape[0]}, "
                f"{self._activation}, {self._conv_layout})")

    def _conv_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        filters = self._hidden_channels * self._num_gates
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, num_filter=filters,
                            kernel=self._i2h_kernel, stride=self._stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                            layout=self._conv_layout, name=prefix + "i2h")
        h2h = F.Convolution(data=states[0], weight=h2h_weight, bias=h2h_bias, num_filter=filters,
                            kernel=self._h2h_kernel, stride=self._stride, pad=self._h2h_pad, dilate=self._h2h_dilate,
                            layout=self._conv_layout, name=prefix + "h2h")
        return i2h, h2h


class _ConvRNNCell(_BaseConvRNNCell):
    """h' = activation(W_i * x + b_i + W_h * h + b_h)."""

    def _alias(self):
        return "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(_BaseConvRNNCell):
    """Gates i, f, c, o; states ``[h, c]``."""
    _gate_names = ("_i", "_f", "_c", "_o")
    _num_states = 2

    def _alias(self):
        return "conv_lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        next_h, next_c = lstm_update(F, i2h + h2h, states[1], partial(self._get_activation, F), self._activation,
                                     prefix, axis=self._channel_axis)
        return next_h, [next_h, next_c]


class _ConvGRUCell(_BaseConvRNNCell):
    """Gates r, z, n: ``h' = (1 - z) * act(i2h_n + r * h2h_n) + z * h``."""
    _gate_names = ("_r", "_z", "_o")

    def _alias(self):
        return "conv_gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        next_h = gru_update(F, i2h, h2h, states[0], partial(self._get_activation, F), self._activation, prefix,
                            axis=self._channel_axis)
        return next_h, [next_h]




class Conv1DRNNCell(_ConvRNNCell):
    """1D convolutional Elman cell: ``h' = activation(W_i * x + b_i + W_h * h + b_h)`` (``*`` a
    convolution); ``input_shape`` is ``(C, W)`` (layout 'NCW', the only one). States ``[h]``.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv1DRNNCell((3, 10), 4, i2h_kernel=3, h2h_kernel=3)
    >>> cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 3, 10)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 4, 8)
    """
    _dims = 1


class Conv2DRNNCell(_ConvRNNCell):
    """2D convolutional Elman cell (see ``Conv1DRNNCell``); ``input_shape`` ``(C, H, W)`` for 'NCHW',
    ``(H, W, C)`` for 'NHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv2DRNNCell((3, 6, 10), 4, i2h_kernel=3, h2h_kernel=(3, 5), i2h_pad=1)
    >>> cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 3, 6, 10)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 4, 6, 10)
    """
    _dims = 2


class Conv3DRNNCell(_ConvRNNCell):
    """3D convolutional Elman cell (see ``Conv1DRNNCell``); ``input_shape`` ``(C, D, H, W)`` for
    'NCDHW', ``(D, H, W, C)`` for 'NDHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv3DRNNCell((3, 5, 6, 10), 4, i2h_kernel=3, h2h_kernel=3)
    >>> cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 3, 5, 6, 10)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 4, 3, 4, 8)
    """
    _dims = 3


class Conv1DLSTMCell(_ConvLSTMCell):
    """1D convolutional LSTM: gates i, f, c, o of ``W * x + b_i + R * h + b_h``; ``c' = sigmoid(f) c +
    sigmoid(i) act(c~)``, ``h' = sigmoid(o) act(c')``. States ``[h, c]``; layout 'NCW'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv1DLSTMCell((3, 10), 4, i2h_kernel=3, h2h_kernel=3, prefix='lstm_')
    >>> sorted(cell.collect_params().keys())
    ['lstm_h2h_bias', 'lstm_h2h_weight', 'lstm_i2h_bias', 'lstm_i2h_weight']
    >>> cell.i2h_weight.shape, cell.state_info(2)[1]['shape']
    ((16, 3, 3), (2, 4, 8))
    """
    _dims = 1


class Conv2DLSTMCell(_ConvLSTMCell):
    """2D convolutional LSTM (see ``Conv1DLSTMCell``; Shi et al., 2015); layouts 'NCHW', 'NHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv2DLSTMCell((6, 10, 3), 4, 3, 3, conv_layout='NHWC')
    >>> cell.initialize()
    >>> out, (h, c) = cell(mx.nd.ones((2, 6, 10, 3)), cell.begin_state(batch_size=2))
    >>> out.shape, cell.i2h_weight.shape
    ((2, 4, 8, 4), (16, 3, 3, 3))
    """
    _dims = 2


class Conv3DLSTMCell(_ConvLSTMCell):
    """3D convolutional LSTM (see ``Conv1DLSTMCell``); layouts 'NCDHW', 'NDHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv3DLSTMCell((3, 5, 6, 10), 4, 3, 3, i2h_dilate=(2, 1, 1))
    >>> cell.state_info(2)[0]['shape']
    (2, 4, 1, 4, 8)
    """
    _dims = 3


class Conv1DGRUCell(_ConvGRUCell):
    """1D convolutional GRU: gates r, z, n; ``n = act(W_n * x + b_n + r (R_n * h + b_hn))``,
    ``h' = (1 - z) n + z h``. States ``[h]``; layout 'NCW'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv1DGRUCell((3, 10), 4, 3, 3, activation=mx.gluon.nn.LeakyReLU(0.1))
    >>> cell
    Conv1DGRUCell(3 -> 12, LeakyReLU(0.1), NCW)
    """
    _dims = 1


class Conv2DGRUCell(_ConvGRUCell):
    """2D convolutional GRU (see ``Conv1DGRUCell``); layouts 'NCHW', 'NHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv2DGRUCell((3, 6, 10), 4, 3, 3)
    >>> cell.initialize()
    >>> outputs, states = cell.unroll(4, mx.nd.ones((2, 4, 3, 6, 10)), merge_outputs=True)
    >>> outputs.shape
    (2, 4, 4, 4, 8)
    """
    _dims = 2


class Conv3DGRUCell(_ConvGRUCell):
    """3D convolutional GRU (see ``Conv1DGRUCell``); layouts 'NCDHW', 'NDHWC'.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.Conv3DGRUCell((0, 5, 6, 10), 4, 3, 3)   # input channels inferred
    >>> cell.initialize()
    >>> out, states = cell(mx.nd.ones((1, 2, 5, 6, 10)), cell.begin_state(batch_size=1))
    >>> cell.i2h_weight.shape
    (12, 2, 3, 3, 3)
    """
    _dims = 3
