"""Recurrent cells (MXNet 1.9's ``gluon.rnn.rnn_cell``): one time step per call,
``cell(x_t, states) -> (output, new_states)``, and ``unroll(length, inputs, ...)`` over a sequence.

Cells: ``RNNCell``, ``LSTMCell`` (gates i, f, g, o), ``GRUCell`` (gates r, z, n), with MXNet's
parameter names (``i2h_weight``, ``h2h_weight``, ``i2h_bias``, ``h2h_bias``) and prefixes
(``rnn0_``, ``lstm0_``, ``gru0_``); combinators ``SequentialRNNCell`` / ``HybridSequentialRNNCell``
(stacked cells), ``DropoutCell``, ``ResidualCell`` (output + input), ``BidirectionalCell`` (unroll
only). All but ``SequentialRNNCell`` are HybridBlocks (MXNet 1.x style) and can be hybridized.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import rnn
    >>> stack = rnn.SequentialRNNCell()
    >>> stack.add(rnn.LSTMCell(4, input_size=3))
    >>> stack.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
    >>> stack.initialize()
    >>> outs, states = stack.unroll(5, mx.nd.ones((2, 5, 3)), layout='NTC', merge_outputs=True)
    >>> outs.shape, len(states)
    ((2, 5, 4), 3)
"""
from ... import ndarray, symbol
from ...ndarray.ndarray import NDArray
from ...symbol.symbol import Symbol
from ..block import Block
from ..hybrid_block import HybridBlock
from ..nn.activations import LeakyReLU
from ..utils import indent

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ResidualCell", "BidirectionalCell",
           "ZoneoutCell"]

_TENSORS = (Symbol, NDArray)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """(inputs as a list of steps or one merged tensor, time axis, F, batch size)."""
    axis, batch_axis = layout.find("T"), layout.find("N")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    batch_size = 0
    if isinstance(inputs, _TENSORS):
        F = symbol if isinstance(inputs, Symbol) else ndarray
        if F is ndarray:
            batch_size = inputs.shape[batch_axis]
        if merge is False:
            steps = F.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1)
            inputs = [steps[i] for i in range(length)] if length > 1 else [steps]
    else:
        F = symbol if isinstance(inputs[0], Symbol) else ndarray
        if F is ndarray:
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, _TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """``data`` (steps or one tensor) with the steps at or past each ``valid_length`` set to 0: one
    tensor with ``merge``, else a list of steps."""
    if not isinstance(data, _TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, valid_length, use_sequence_length=True, axis=time_axis)
    if not merge:
        steps = F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True)
        outputs = [steps[i] for i in range(length)] if length > 1 else [steps]
    return outputs


def _reverse_sequences(F, sequences, length, valid_length=None):
    """The steps in reverse order; with ``valid_length`` only each sequence's valid steps are
    reversed (SequenceReverse), padding steps stay in place."""
    if valid_length is None:
        return list(reversed(sequences))
    rev = F.SequenceReverse(F.stack(*sequences, axis=0), valid_length, use_sequence_length=True)
    steps = F.split(rev, axis=0, num_outputs=length, squeeze_axis=True)
    return [steps[i] for i in range(length)] if length > 1 else [steps]


def _get_begin_state(cell, F, begin_state, inputs, batch_size, axis=1):
    """``begin_state``, or the cell's zero states for ``inputs`` (a list of steps, or one tensor
    with time on ``axis``)."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        first = inputs if isinstance(inputs, NDArray) else inputs[0]
        return cell.begin_state(batch_size=batch_size, ctx=first.device, dtype=first.dtype)
    # a Symbol step (N, C): zeros (N, H) built from it, so that the batch size, not known yet,
    # comes from the data (MXNet writes zeros of shape (0, H) and leaves 0 to its inference);
    # a state of more axes (N, C, H, W of the convolutional cells) tiles zeros (N, 1, 1, 1)
    first = inputs[0] if isinstance(inputs, (list, tuple)) else \
        F.squeeze(F.slice_axis(inputs, axis=axis, begin=0, end=1), axis=axis)
    infos = cell.state_info()
    if any(len(info["shape"]) > 2 for info in infos):
        first = F.reshape(first, shape=(0, -1))
    col = F.zeros_like(F.sum(first, axis=1, keepdims=True))
    states = []
    for info in infos:
        rest = tuple(info["shape"][1:])
        ones = F.reshape(col, shape=(0,) + (1,) * len(rest)) if len(rest) > 1 else col
        states.append(F.tile(ones, reps=(1,) + rest))
    return states


class RecurrentCell(Block):
    """Base class of the cells: ``state_info``, ``begin_state``, ``reset``, ``unroll``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters (``unroll`` does this first)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            if isinstance(cell, RecurrentCell):
                cell.reset()

    def state_info(self, batch_size=0):
        """Shapes and layouts of the states."""
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states (zeros by default) for ``batch_size`` sequences."""
        assert not self._modified, "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be " \
                                   "called directly. Call the modifier cell instead."
        if "device" in kwargs:
            kwargs["ctx"] = kwargs.pop("device")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1       # one count per state: MXNet's names <prefix>begin_state_<n>
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", shape=info["shape"], **kwargs))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Run the cell ``length`` steps over ``inputs`` (a (N, T, C) tensor for layout 'NTC', or a
        list of (N, C) steps): ``(outputs, last states)``; outputs are one tensor with
        ``merge_outputs=True``, a list of steps with False, as the input was given with None."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:   # the states at each sequence's last valid step, padded outputs zero
            states = [F.SequenceLast(F.stack(*steps, axis=0), valid_length, use_sequence_length=True, axis=0)
                      for steps in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):   # as MXNet: the block's slope, written as one op of this step
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        return super().__call__(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell whose step is a ``hybrid_forward(F, inputs, states, **params)`` (hybridizable)."""

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """Shared parameters and state info of RNNCell / LSTMCell / GRUCell."""
    _gates = 1
    _n_states = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        n = self._gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(n, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(n, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(n,), init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(n,), init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"} for _ in range(self._n_states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        act = f", {self._activation}" if isinstance(self, RNNCell) else ""     # as MXNet: RNNCell only
        return f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]}{act})"

    def _projections(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        n = self._gates * self._hidden_size
        t = self._step_prefix()
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n, name=t + "i2h")
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=n, name=t + "h2h")
        return i2h, h2h

    def _step_prefix(self):
        """The prefix of this step's node names in the graph (``t0_``, ``t1_``..., as MXNet names them)."""
        return f"t{self._counter}_"


class RNNCell(_GatedCell):
    """Elman cell: h' = activation(W_i x + b_i + W_h h + b_h) (activation 'tanh' by default)."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        t = self._step_prefix()
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=t + "plus0"), self._activation, name=t + "out")
        return output, [output]


class _GateActivationsCell(_GatedCell):
    """A gated cell with MXNet's ``activation`` / ``recurrent_activation`` arguments (LSTM, GRU)."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation


class LSTMCell(_GateActivationsCell):
    """LSTM cell: gates i, f, g, o from W_i x + b_i + W_h h + b_h; c' = f*c + i*g; h' = o*tanh(c').
    States [h, c], each (N, H)."""
    _gates = 4
    _n_states = 2

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        t = self._step_prefix()
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=t + "plus0"), num_outputs=4, name=t + "slice")
        in_gate = self._get_activation(F, gates[0], self._recurrent_activation, name=t + "i")
        forget_gate = self._get_activation(F, gates[1], self._recurrent_activation, name=t + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=t + "c")
        out_gate = self._get_activation(F, gates[3], self._recurrent_activation, name=t + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=t + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=t + "mul1"), name=t + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation, name=t + "activation0"),
                                name=t + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GateActivationsCell):
    """GRU cell: r, z = sigmoid(..); n = tanh(W_in x + b_in + r * (W_hn h + b_hn));
    h' = (1 - z) * n + z * h."""
    _gates = 3

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prev_h = states[0]
        t = self._step_prefix()
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        i2h = F.SliceChannel(i2h, num_outputs=3, name=t + "i2h_slice")
        h2h = F.SliceChannel(h2h, num_outputs=3, name=t + "h2h_slice")
        reset_gate = self._get_activation(F, F.elemwise_add(i2h[0], h2h[0], name=t + "plus0"),
                                          self._recurrent_activation, name=t + "r_act")
        update_gate = self._get_activation(F, F.elemwise_add(i2h[1], h2h[1], name=t + "plus1"),
                                           self._recurrent_activation, name=t + "z_act")
        next_h_tmp = self._get_activation(
            F, F.elemwise_add(i2h[2], F.elemwise_mul(reset_gate, h2h[2], name=t + "mul0"), name=t + "plus2"),
            self._activation, name=t + "h_act")
        ones = F.ones_like(update_gate, name=t + "ones_like0")
        next_h = F.elemwise_add(F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=t + "minus0"), next_h_tmp,
                                               name=t + "mul1"),
                                F.elemwise_mul(update_gate, prev_h, name=t + "mul20"), name=t + "out")
        return next_h, [next_h]


class _StackMixin:
    """Stacked cells: each cell's output is the next one's input; the states are concatenated."""

    def add(self, cell):
        """Append a cell to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return [info for c in self._children.values() for info in c.state_info(batch_size)]

    def begin_state(self, **kwargs):
        assert not self._modified, "After applying modifier cells the base cell cannot be called directly."
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def _step_all(self, inputs, states):
        next_states, p = [], 0
        for cell in self._children.values():
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size, axis)
        cells = list(self._children.values())
        p, next_states = 0, []
        for i, cell in enumerate(cells):
            n = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n], layout=layout,
                                         merge_outputs=None if i < len(cells) - 1 else merge_outputs,
                                         valid_length=valid_length)
            p += n
            next_states.extend(states)
        return inputs, next_states

    def __repr__(self):
        # MXNet's layout: one "(i): cell" line per child, not indented
        modstr = "\n".join(f"({key}): {indent(repr(cell), 2)}" for key, cell in self._children.items())
        return f"{type(self).__name__}(\n{modstr}\n)"

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """Stacks cells (any RecurrentCell) one after another."""

    def forward(self, inputs, states):
        return self._step_all(inputs, states)


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """Stacks HybridRecurrentCells (hybridizable as a whole)."""

    def hybrid_forward(self, F, inputs, states):
        return self._step_all(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the step input (rate ``rate``, shared along ``axes``); no states."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        assert isinstance(rate, float), "rate must be a number"
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f"{type(self).__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size=0):
        return []

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(inputs, p=self._rate, axes=self._axes, name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        # as MXNet 1.9: dropout has no states to pick and its outputs are not masked
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)

    def __call__(self, inputs, states):
        if not states:   # nothing to carry: run the step as a plain call (empty lists do not flatten)
            self._counter += 1
            F = symbol if isinstance(inputs, Symbol) else ndarray
            return self.hybrid_forward(F, inputs, [])
        return super().__call__(inputs, states)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap another cell (``base_cell``) and modify its behaviour."""

    def __init__(self, base_cell):
        assert not base_cell._modified, f"Cell {base_cell.name} is already modified. One cell cannot be " \
                                        f"modified twice"
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def __repr__(self):
        return f"{type(self).__name__}({self.base_cell!r})"

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=ndarray.zeros, **kwargs):
        assert not self._modified, "After applying modifier cells the base cell cannot be called directly."
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError


class ResidualCell(ModifierCell):
    """Adds the step input to the base cell's output (the sizes must match)."""

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs, valid_length=valid_length)
        self.base_cell._modified = True
        merge = isinstance(outputs, _TENSORS) if merge_outputs is None else merge_outputs
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge)
        if valid_length is not None:   # padded inputs add nothing: the padded outputs stay 0
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis, merge)
        if merge:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(o, i) for o, i in zip(outputs, inputs)], states


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output unit keeps its previous step's value
    with probability ``zoneout_outputs`` and each state unit its previous value with probability
    ``zoneout_states``, instead of taking the new one (masks drawn as Dropout's); in prediction the
    base cell runs unchanged.

    >>> import hybridlab as mx
    >>> cell = mx.gluon.rnn.ZoneoutCell(mx.gluon.rnn.RNNCell(3), zoneout_outputs=0.5)
    >>> cell.initialize()
    >>> out, states = cell.unroll(2, mx.nd.ones((1, 2, 4)), merge_outputs=True)
    >>> out.shape
    (1, 2, 3)
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. Please add ZoneoutCell " \
            "to the cells underneath instead."
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f"ZoneoutCell(p_out={self.zoneout_outputs}, p_state={self.zoneout_states}, "
                f"{self.base_cell!r})")

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):       # nonzero where the new value is taken (Dropout of ones)
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        output = (F.where(keep_new(self.zoneout_outputs, next_output), next_output, prev_output)
                  if self.zoneout_outputs != 0. else next_output)
        states = ([F.where(keep_new(self.zoneout_states, new), new, old) for new, old in zip(next_states, states)]
                  if self.zoneout_states != 0. else next_states)
        self._prev_output = output
        return output, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forwards and ``r_cell`` backwards in time and concatenates their outputs
    (unroll only: one step has no meaning)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __repr__(self):
        return f"{type(self).__name__}(forward={self._children['l_cell']!r}, backward={self._children['r_cell']!r})"

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def state_info(self, batch_size=0):
        return [info for c in self._children.values() for info in c.state_info(batch_size)]

    def begin_state(self, **kwargs):
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size, axis)
        l_cell, r_cell = self._children.values()
        n_l = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:n_l], layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=_reverse_sequences(F, inputs, length, valid_length),
                                            begin_state=begin_state[n_l:], layout=layout, merge_outputs=False,
                                            valid_length=valid_length)
        reversed_r = _reverse_sequences(F, r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, _TENSORS)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
        if merge_outputs:
            outputs = F.concat(l_outputs, F.stack(*reversed_r, axis=axis), dim=2, name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (lo, ro) in enumerate(zip(l_outputs, reversed_r))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states
