"""The base of the legacy symbolic cells: ``RNNParams`` (the shared weight variables of a cell) and
``BaseRNNCell`` (stepping, unrolling, begin states, per-gate weight (un)packing), plus the helpers
that turn a sequence between its merged form (one Symbol) and its list of steps.

A cell called on ``(inputs, states)`` builds one time step as Symbols and returns ``(output,
new_states)``; ``unroll`` calls it once per step. Node names follow MXNet 1.9.1: the cell's prefix,
``t<step>_`` and the part (``rnn_t0_i2h``, ``rnn_t0_out``); begin states are ``<prefix>begin_state_<n>``.

Example::

    >>> import hybridlab as mx
    >>> params = mx.rnn.RNNParams('enc_')
    >>> params.get('i2h_weight').name
    'enc_i2h_weight'
    >>> params.get('i2h_weight') is params.get('i2h_weight')
    True
"""
from ..base import MXNetValueError
from .. import ndarray, symbol
from ..symbol.symbol import Symbol

__all__ = ["RNNParams", "BaseRNNCell"]


class RNNParams:
    """The weight variables of a cell, created on first ``get`` and shared by every step (and by
    every cell given the same ``RNNParams``). ``_params`` maps full names to Variables."""

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The Variable ``prefix + name``, created with ``kwargs`` (``init=``, ``shape=``...) the first time."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


def normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """``(inputs, time axis)``: ``inputs`` (one Symbol with a time axis, or a list of step Symbols)
    made a list of ``length`` steps (``merge=False``), one Symbol (``merge=True``: steps joined with
    expand_dims + Concat), or left as given (``merge=None``); a merged sequence in ``in_layout`` is
    moved to ``layout``."""
    if inputs is None:
        raise MXNetValueError("unroll needs inputs: a Symbol or a list of one Symbol per step")
    axis = layout.find('T')
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetValueError("unroll by steps needs one merged input Symbol with a single output")
            steps = symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1)
            inputs = [steps[i] for i in range(length)] if length > 1 else [steps]
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise MXNetValueError(f"unroll of length {length} got {len(inputs)} step inputs")
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(x, axis=axis) for x in inputs], dim=axis)
            in_axis = axis
    if isinstance(inputs, Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


def cells_state_info(cells):
    return sum((c.state_info for c in cells), [])


def cells_begin_state(cells, **kwargs):
    return sum((c.begin_state(**kwargs) for c in cells), [])


def cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


class BaseRNNCell:
    """Abstract recurrent cell of the symbolic API (``mx.rnn``). Subclasses define ``state_info``
    (a list of ``{'shape': ..., '__layout__': ...}``, 0 for the batch size), ``_gate_names`` and
    ``__call__(inputs, states) -> (output, new_states)`` (count steps with ``self._counter``).

    ``params``: an ``RNNParams`` to share weights with another cell (created from ``prefix`` if None).

    Example (a custom cell, as MXNet's tests write one)::

        >>> import hybridlab as mx
        >>> class Doubler(mx.rnn.BaseRNNCell):
        ...     state_info = [{'shape': (0, 4), '__layout__': 'NC'}]
        ...     def __call__(self, inputs, states):
        ...         self._counter += 1
        ...         out = mx.sym.broadcast_add(inputs * 2, states[0], name='%st%d_out' % (self._prefix, self._counter))
        ...         return out, [out]
        >>> outs, states = Doubler(prefix='d_').unroll(2, [mx.sym.var('x0'), mx.sym.var('x1')])
        >>> [o.name for o in outs]
        ['d_t0_out', 'd_t1_out']
    """
    _zoneout_refusal = None     # why ZoneoutCell cannot wrap this kind of cell (None: it can)

    def __init__(self, prefix='', params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (``unroll`` does it first)."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, '_cells', ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError()

    @property
    def params(self):
        """The cell's ``RNNParams`` (reading it marks them shared: no longer the cell's own)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        raise NotImplementedError()

    @property
    def state_shape(self):
        return [info['shape'] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """One initial state Symbol per ``state_info`` entry, ``func(name=prefix + 'begin_state_<n>',
        shape=..., __layout__=..., **kwargs)`` (zeros by default; 0 in the shape is the batch size,
        found by shape inference)."""
        if self._modified:
            raise MXNetValueError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                                  "called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter), **kwargs))
        return states

    def unpack_weights(self, args):
        """``args`` (name -> NDArray) with each ``i2h``/``h2h`` weight and bias split per gate
        (``lstm_i2h_weight`` -> ``lstm_i2h_i_weight``, ``lstm_i2h_f_weight``, ...), as checkpoints
        store them; ``pack_weights`` joins them back."""
        args = args.copy()
        if not self._gate_names:
            return args
        h = self._num_hidden
        for group in ('i2h', 'h2h'):
            weight = args.pop('%s%s_weight' % (self._prefix, group))
            bias = args.pop('%s%s_bias' % (self._prefix, group))
            for j, gate in enumerate(self._gate_names):
                args['%s%s%s_weight' % (self._prefix, group, gate)] = weight[j * h:(j + 1) * h].copy()
                args['%s%s%s_bias' % (self._prefix, group, gate)] = bias[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """Inverse of ``unpack_weights``: the per-gate arrays concatenated into the cell's weights."""
        args = args.copy()
        if not self._gate_names:
            return args
        for group in ('i2h', 'h2h'):
            for kind in ('weight', 'bias'):
                parts = [args.pop('%s%s%s_%s' % (self._prefix, group, gate, kind)) for gate in self._gate_names]
                args['%s%s_%s' % (self._prefix, group, kind)] = ndarray.concatenate(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Step the cell ``length`` times: ``(outputs, final states)``. ``inputs`` is one Symbol in
        ``layout`` or a list of step Symbols; ``merge_outputs`` True gives one Symbol, False a list,
        None the form of the inputs."""
        self.reset()
        inputs, _ = normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states, outputs = begin_state, []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a name, else ``activation(inputs, **kwargs)``."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
