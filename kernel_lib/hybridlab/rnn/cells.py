"""The legacy symbolic cells (MXNet 1.9.1's ``mx.rnn``): ``RNNCell``, ``LSTMCell``, ``GRUCell`` and
the combinators ``SequentialRNNCell``, ``BidirectionalCell``, ``DropoutCell``, ``ModifierCell``,
``ZoneoutCell``, ``ResidualCell``.

Each step is built from FullyConnected, SliceChannel and Activation nodes named as MXNet names them
(``lstm_t0_i2h``, ``lstm_t0_slice``, ``lstm_t0_state``, ``lstm_t0_out``; GRU's ``gru_t0__i2h``), with
the weights ``<prefix>i2h_weight``, ``<prefix>h2h_weight``, ``<prefix>i2h_bias``, ``<prefix>h2h_bias``
(gates stacked: LSTM i, f, c, o; GRU r, z, o). These graphs are MXNet 1.x symbols, not Gluon blocks:
``gluon.rnn`` holds the Block versions, whose names and parameters differ.

Example::

    >>> import hybridlab as mx
    >>> stack = mx.rnn.SequentialRNNCell()
    >>> stack.add(mx.rnn.LSTMCell(8, prefix='l0_'))
    >>> stack.add(mx.rnn.GRUCell(8, prefix='l1_'))
    >>> out, states = stack.unroll(3, mx.sym.var('data'), merge_outputs=True)
    >>> out.infer_shape(data=(2, 3, 5))[1]
    [(2, 3, 8)]
    >>> sorted(stack.params._params)[:2]
    ['l0_h2h_bias', 'l0_h2h_weight']
"""
from .. import initializer, symbol
from ..gluon.rnn.gate_math import gru_update, lstm_update
from ..base import MXNetValueError
from ..symbol.symbol import Symbol
from .base_cell import (BaseRNNCell, cells_begin_state, cells_pack_weights, cells_state_info,
                        cells_unpack_weights, normalize_sequence)

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell", "BidirectionalCell", "DropoutCell",
           "ModifierCell", "ZoneoutCell", "ResidualCell"]


class _DenseCell(BaseRNNCell):
    """A cell with ``num_hidden`` units, one state per ``_num_states`` and the four weights."""
    _num_states = 1

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias', **({'init': i2h_bias_init} if i2h_bias_init else {}))
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'} for _ in range(self._num_states)]

    def _step_name(self):
        self._counter += 1
        return '%st%d_' % (self._prefix, self._counter)

    def _fc(self, inputs, states, name, sep=''):
        size = self._num_hidden * len(self._gate_names)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=size,
                                    name='%s%si2h' % (name, sep))
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB, num_hidden=size,
                                    name='%s%sh2h' % (name, sep))
        return i2h, h2h


class RNNCell(_DenseCell):
    """Elman cell: ``out = activation(W_i x + b_i + W_h h + b_h)``, the output also the state.

    ``activation``: an Activation ``act_type`` name or a callable ``f(sym, name=...)``.

    >>> import hybridlab as mx
    >>> cell = mx.rnn.RNNCell(4, prefix='rnn_')
    >>> out, states = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, out.infer_shape(x=(2, 3))[1]
    ('rnn_t0_out', [(2, 4)])
    """

    def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._fc(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class LSTMCell(_DenseCell):
    """Long short-term memory cell (gates i, f, c, o; states ``[h, c]``). ``forget_bias`` is added
    to the forget gate through the ``i2h_bias`` initializer (``mx.init.LSTMBias``).

    >>> import hybridlab as mx
    >>> cell = mx.rnn.LSTMCell(4, prefix='lstm_')
    >>> out, (h, c) = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, c.name, cell.state_shape
    ('lstm_t0_out', 'lstm_t0_state', [(0, 4), (0, 4)])
    """
    _num_states = 2

    def __init__(self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0):
        super().__init__(num_hidden, prefix, params, initializer.LSTMBias(forget_bias=forget_bias))

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._fc(inputs, states, name)
        next_h, next_c = lstm_update(symbol, i2h + h2h, states[1], self._get_activation, 'tanh', name)
        return next_h, [next_h, next_c]


class GRUCell(_DenseCell):
    """Gated recurrent unit (gates r, z, o): ``h' = (1 - z) * tanh(i2h_o + r * h2h_o) + z * h``.

    >>> import hybridlab as mx
    >>> cell = mx.rnn.GRUCell(4, prefix='gru_')
    >>> out, states = cell(mx.sym.var('x'), cell.begin_state())
    >>> out.name, [a for a in out.list_arguments() if a.endswith('weight')]
    ('gru_t0_out', ['gru_i2h_weight', 'gru_h2h_weight'])
    """

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super().__init__(num_hidden, prefix, params)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._fc(inputs, states, name, sep='_')
        return _gru_update(self, i2h, h2h, states[0], name, 'tanh')


def _gru_update(cell, i2h, h2h, prev_h, name, activation):
    """The GRU gating of ``GRUCell`` and ``ConvGRUCell`` (gates sliced on axis 1 whatever the layout, as
    MXNet's legacy cells do; node names ``<name>_r_act`` ...): ``(next_h, [next_h])``."""
    next_h = gru_update(symbol, i2h, h2h, prev_h, cell._get_activation, activation, name, sep='_')
    return next_h, [next_h]


class SequentialRNNCell(BaseRNNCell):
    """Cells stacked: each step's output feeds the next cell; states are concatenated in order.

    ``params``: an ``RNNParams`` whose variables override those of the cells added (which must
    still own theirs).

    >>> import hybridlab as mx
    >>> stack = mx.rnn.SequentialRNNCell()
    >>> stack.add(mx.rnn.RNNCell(3, prefix='a_'))
    >>> stack.add(mx.rnn.LSTMCell(3, prefix='b_'))
    >>> len(stack.state_info), [s.name for s in stack.begin_state()]
    (3, ['a_begin_state_0', 'b_begin_state_0', 'b_begin_state_1'])
    """
    _zoneout_refusal = ("Bidirectional SequentialRNNCell doesn't support zoneout. "
                        "Please add ZoneoutCell to the cells underneath instead.")

    def __init__(self, params=None):
        super().__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the stack (its parameters join the stack's)."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise MXNetValueError("Either specify params for SequentialRNNCell or child cells, not both.")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise MXNetValueError("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be "
                                  "called directly. Call the modifier cell instead.")
        return cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states, p = [], 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise MXNetValueError("BidirectionalCell cannot be stepped: unroll the SequentialRNNCell")
            n = len(cell.state_info)
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        p, next_states, last = 0, [], len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n], layout=layout,
                                         merge_outputs=None if i < last else merge_outputs)
            p += n
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout (probability ``dropout``) on each step's input; no state, no weights.

    >>> import hybridlab as mx
    >>> out, states = mx.rnn.DropoutCell(0.5).unroll(3, mx.sym.var('data'), merge_outputs=True)
    >>> out.list_arguments(), states
    (['data'], [])
    """

    def __init__(self, dropout, prefix='dropout_', params=None):
        super().__init__(prefix, params)
        if not isinstance(dropout, (int, float)):
            raise MXNetValueError("dropout probability must be a number")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base of cells that wrap another (``base_cell``) and change its steps; the base cell is then
    only used through the modifier (its parameters and states are the modifier's)."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        if self._modified:
            raise MXNetValueError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                                  "called directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout: each unit of the output (``zoneout_outputs``) and of the states (``zoneout_states``)
    keeps its previous value with that probability (a Dropout mask chooses, through ``where``).

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(4, prefix='rnn_'), zoneout_outputs=0.5, zoneout_states=0.5)
    >>> outs, _ = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> mx.sym.Group(outs).infer_shape(x0=(3, 2), x1=(3, 2))[1]
    [(3, 4), (3, 4)]
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if base_cell._zoneout_refusal:
            raise MXNetValueError(base_cell._zoneout_refusal)
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            return symbol.Dropout(symbol.ones_like(like), p=p)

        prev_output = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = next_output
        if self.zoneout_outputs != 0.:
            output = symbol.where(mask(self.zoneout_outputs, next_output), next_output, prev_output)
        if self.zoneout_states != 0.:
            next_states = [symbol.where(mask(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds each step's input to the base cell's output (``<output>_plus_residual``); input and
    output sizes must agree.

    >>> import hybridlab as mx
    >>> cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(4, prefix='gru_'))
    >>> outs, _ = cell.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> mx.sym.Group(outs).list_outputs()
    ['gru_t0_out_plus_residual_output', 'gru_t1_out_plus_residual_output']
    """

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        return symbol.elemwise_add(output, inputs, name='%s_plus_residual' % output.name), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        merge_outputs = isinstance(outputs, Symbol) if merge_outputs is None else merge_outputs
        inputs, _ = normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return symbol.elemwise_add(outputs, inputs, name='%s_plus_residual' % outputs.name), states
        return [symbol.elemwise_add(o, x, name='%s_plus_residual' % o.name) for o, x in zip(outputs, inputs)], states


class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates their
    outputs per step (``<output_prefix>t<i>``, or ``<output_prefix>out`` merged). Unroll only; the
    states returned are ``[l_states, r_states]`` (two lists, as MXNet returns them).

    >>> import hybridlab as mx
    >>> bi = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(4, prefix='l_'), mx.rnn.LSTMCell(4, prefix='r_'))
    >>> outs, states = bi.unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
    >>> [o.name for o in outs], mx.sym.Group(outs).infer_shape(x0=(3, 5), x1=(3, 5))[1]
    (['bi_t0', 'bi_t1'], [(3, 8), (3, 8)])
    """
    _zoneout_refusal = ("BidirectionalCell doesn't support zoneout since it doesn't support step. "
                        "Please add ZoneoutCell to the cells underneath instead.")

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super().__init__('', params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise MXNetValueError("Either specify params for BidirectionalCell or child cells, not both.")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self):
        return cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise MXNetValueError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                                  "called directly. Call the modifier cell instead.")
        return cells_begin_state(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        n_l = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:n_l],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=begin_state[n_l:],
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, Symbol) and isinstance(r_outputs, Symbol)
            if not merge_outputs:
                l_outputs = _as_steps(l_outputs, axis, length)
                r_outputs = _as_steps(r_outputs, axis, length)
        if merge_outputs:
            outputs = symbol.Concat(l_outputs, symbol.reverse(r_outputs, axis=axis), dim=2,
                                    name='%sout' % self._output_prefix)
        else:
            outputs = [symbol.Concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed(r_outputs)))]
        return outputs, [l_states, r_states]


def _as_steps(outputs, axis, length):
    if isinstance(outputs, Symbol):
        steps = symbol.SliceChannel(outputs, axis=axis, num_outputs=length, squeeze_axis=1)
        return [steps[i] for i in range(length)] if length > 1 else [steps]
    return list(outputs)
