"""``mx.gluon.contrib.rnn.rnn_cell``: MXNet 1.x's contributed (non-convolutional) recurrent cells.

* ``VariationalDropoutCell(base_cell, drop_inputs, drop_states, drop_outputs)``: dropout with one
  mask per sequence (Gal & Ghahramani 2016), drawn at the first step and kept until ``reset()``
  (``unroll`` resets); the masks of inputs, first state and outputs are separate.
* ``LSTMPCell(hidden_size, projection_size)``: an LSTM whose hidden state is projected to
  ``projection_size`` (``h2r_weight``), the recurrent state being the projection (Sak et al. 2014).
* ``dynamic_unroll(cell, inputs, begin_state, ...)``: runs a cell over a merged sequence with
  ``F.contrib.foreach`` (imperatively a loop; in a graph the loop unrolled), optionally masking
  each sequence past its ``valid_length``.

Example::

    >>> import hybridlab as mx
    >>> cell = mx.gluon.contrib.rnn.LSTMPCell(6, 3, input_size=4)
    >>> cell.initialize()
    >>> out, (r, c) = cell(mx.nd.ones((2, 4)), cell.begin_state(batch_size=2))
    >>> out.shape, r.shape, c.shape
    ((2, 3), (2, 3), (2, 6))
"""
from functools import partial

from ....base import _as_list
from ...rnn.gate_math import lstm_update
from ...rnn.rnn_cell import (BidirectionalCell, HybridRecurrentCell, ModifierCell, _TENSORS, _format_sequence,
                            _get_begin_state, _mask_sequence_variable_length)

__all__ = ["VariationalDropoutCell", "LSTMPCell", "dynamic_unroll"]


class VariationalDropoutCell(ModifierCell):
    """Dropout on ``base_cell``'s inputs, first state and outputs with one mask per sequence (see the
    module docstring). Stepping by hand, call ``reset()`` between sequences."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        assert not drop_states or not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support variational state dropout. Please add VariationalDropoutCell " \
            "to the cells underneath instead."
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = drop_inputs, drop_states, drop_outputs
        self.reset()

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def __repr__(self):
        return f"VariationalDropoutCell(p_out = {self.drop_outputs}, p_state = {self.drop_states})"

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
        if self.drop_states:
            states = [states[0] * self.drop_states_mask] + list(states[1:])
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, states = self.base_cell(inputs, states)
        if self.drop_outputs:
            if self.drop_outputs_mask is None:
                self.drop_outputs_mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)
            output = output * self.drop_outputs_mask
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """As the base cell's ``unroll``; without state dropout the masks of inputs and outputs are
        one Dropout shared along the time axis (``axes``), so the whole sequence runs at once."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size, axis)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs, states, layout, merge_outputs=True,
                                                valid_length=valid_length)
        self.base_cell._modified = True
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        merge = isinstance(outputs, _TENSORS) if merge_outputs is None else merge_outputs
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge)
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projected recurrent state: gates from ``W_i x + b_i + W_h r + b_h``,
    ``c' = f*c + i*g``, ``h = o*tanh(c')``, ``r' = W_r h``. States ``[r, c]``: (N, P) and (N, H)."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size, self._projection_size = hidden_size, input_size, projection_size
        n = 4 * hidden_size
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=(n, input_size), init=i2h_weight_initializer,
                              allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=(n, projection_size), init=h2h_weight_initializer,
                              allow_deferred_init=True)
        self.h2r_weight = get("h2r_weight", shape=(projection_size, hidden_size), init=h2r_weight_initializer,
                              allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(n,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(n,), init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape, proj = self.i2h_weight.shape, self.h2r_weight.shape
        return f"LSTMPCell({shape[1] if shape[1] else None} -> {shape[0]} -> {proj[0]})"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        n, t = 4 * self._hidden_size, f"t{self._counter}_"     # MXNet's node names: t0_i2h ... t0_out
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n, name=t + "i2h")
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=n, name=t + "h2h")
        hidden, next_c = lstm_update(F, i2h + h2h, states[1], partial(self._get_activation, F), "tanh", t,
                                     out="hidden")
        next_r = F.FullyConnected(hidden, h2r_weight, num_hidden=self._projection_size, no_bias=True, name=t + "out")
        return next_r, [next_r, next_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC", valid_length=None):
    """Run ``cell`` over the sequence ``inputs`` (one tensor, ``layout`` 'TNC' or 'NTC') from the
    states ``begin_state`` with ``F.contrib.foreach``; returns ``(outputs, states)``, the outputs
    merged in ``layout``. ``drop_inputs`` / ``drop_outputs``: dropout rates with one mask shared
    along the time axis. ``valid_length`` (batch_size,): each sequence's length; the states stop
    changing after it (the returned states are those of its last valid step) and the outputs past
    it are 0. Works on NDArrays and Symbols (so inside ``hybrid_forward``).

    >>> import hybridlab as mx
    >>> cell = mx.gluon.rnn.RNNCell(3, input_size=2)
    >>> cell.initialize()
    >>> x = mx.nd.ones((4, 2, 2))                                       # (T, N, C)
    >>> out, states = dynamic_unroll(cell, x, cell.begin_state(batch_size=2),
    ...                              valid_length=mx.nd.array([2, 4]))
    >>> out.shape, states[0].shape
    ((4, 2, 3), (2, 3))
    >>> float(out[2:, 0].abs().sum()), bool((states[0][0] == out[1, 0]).asnumpy().all())
    (0.0, True)
    """
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    axes = None
    if axis != 0:                      # foreach loops over axis 0: put time first
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    states = begin_state
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    if valid_length is None:
        def loop_body(step, states):
            return cell(step, states)
    else:
        states = list(_as_list(states)) + [F.zeros((1,))]      # the last state counts the steps

        def loop_body(step, states):
            cell_states, step_no = states[:-1], states[-1]
            out, new_states = cell(step, cell_states)
            still = F.broadcast_greater(valid_length, step_no)
            new_states = [F.where(still, new, old) for new, old in zip(new_states, cell_states)]
            return out, new_states + [step_no + 1]
    outputs, states = F.contrib.foreach(loop_body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axes is not None:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
    return outputs, states[:-1]
