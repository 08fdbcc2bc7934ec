"""Fused recurrent layers (MXNet 1.9's ``gluon.rnn.rnn_layer``): ``RNN``, ``LSTM``, ``GRU``.

Each layer runs one ``RNN`` operator. Its parameters are named as MXNet's (``l0_i2h_weight``,
``l0_h2h_weight``, ``l0_i2h_bias``, ``l0_h2h_bias``; ``r0_...`` for the reverse direction;
``l0_h2r_weight`` with a projection), so a model exported from here has the argument names of one
exported from MXNet, and they are packed as MXNet 1.9 does: each flattened with ``Reshape(-1)``
and joined by ``_rnn_param_concat`` (all weights by layer and direction, then all biases).

Call ``layer(x)`` (zero initial states, returns the output) or ``layer(x, states)`` (returns
``(output, new_states)``); ``layout`` is ``"TNC"`` (default) or ``"NTC"``; ``begin_state(batch)``
makes zero states. The input size is inferred at the first call when ``input_size=0``.

Example::

    >>> import hybridlab as mx
    >>> with mx.name.NameManager():
    ...     layer = mx.gluon.rnn.LSTM(12, num_layers=2, input_size=8)
    >>> layer
    LSTM(8 -> 12, TNC, num_layers=2)
    >>> layer.initialize()
    >>> out, (h, c) = layer(mx.nd.ones((5, 2, 8)), layer.begin_state(batch_size=2))
    >>> out.shape, h.shape, c.shape
    ((5, 2, 12), (2, 2, 12), (2, 2, 12))
    >>> [p.name for p in layer.collect_params().values()][:2]
    ['lstm0_l0_i2h_weight', 'lstm0_l0_h2h_weight']
"""
from ... import ndarray
from ...base import MXNetError
from ...ndarray.ndarray import NDArray
from ..hybrid_block import HybridBlock
from ..nn.input_check import check_count, check_dtypes, check_op_args

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class _RNNLayer(HybridBlock):
    """The implementation of the fused layers (see the module docstring)."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max,
                 lstm_state_clip_nan, dtype, use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"Invalid layout {layout!r}; must be one of ['TNC' or 'NTC']")
        if projection_size is not None and mode != "lstm":
            raise ValueError(f"projection_size is only supported for LSTM, got mode {mode!r}")
        check_op_args(self, "RNN", [("hidden_size", hidden_size, "state_size"),
                                    ("num_layers", num_layers, "num_layers"), ("dropout", dropout, "p"),
                                    ("projection_size", projection_size or None, "projection_size"),
                                    ("mode", mode, "mode")])
        check_count(self, "input_size", input_size)
        self._hidden_size = hidden_size
        self._projection_size = projection_size or None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self._gates = _GATES[mode]
        self.skip_states = None
        ng, nh, npj = self._gates, hidden_size, self._projection_size
        ni = input_size
        with self.name_scope():
            for i in range(num_layers):
                for j in ["l", "r"][:self._dir]:
                    self._param(f"{j}{i}_i2h_weight", (ng * nh, ni), i2h_weight_initializer)
                    self._param(f"{j}{i}_h2h_weight", (ng * nh, npj or nh), h2h_weight_initializer)
                    self._param(f"{j}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer)
                    self._param(f"{j}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer)
                    if npj:
                        self._param(f"{j}{i}_h2r_weight", (npj, nh), h2r_weight_initializer)
                ni = (npj or nh) * self._dir

    def _file_key(self, key):
        """MXNet's ``.params`` files name a layer's parameters after the cells of its unfused form:
        ``l1_i2h_weight`` is ``_unfused.1.i2h_weight`` (``_unfused.1.l_cell.i2h_weight`` when
        bidirectional, ``r_cell`` for the reverse direction)."""
        direction, rest = key[0], key[1:]
        layer, name = rest.split("_", 1)
        if self._dir == 2:
            return f"_unfused.{layer}.{direction}_cell.{name}"
        return f"_unfused.{layer}.{name}"

    def _unfuse(self):
        """The layer as a stack of cells (``HybridSequentialRNNCell`` of RNN/LSTM/GRU cells named
        ``l<i>_``/``r<i>_``, bidirectional pairs, dropout between layers) sharing this layer's
        parameters, as MXNet 1.x's ``_unfuse``: the same outputs step by step."""
        from . import rnn_cell
        assert not self._projection_size, "_unfuse does not support projection layer yet!"
        assert not self._lstm_state_clip_min and not self._lstm_state_clip_max, \
            "_unfuse does not support state clipping yet!"
        cells = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(self._hidden_size, activation="relu", **kw),
                 "rnn_tanh": lambda **kw: rnn_cell.RNNCell(self._hidden_size, activation="tanh", **kw),
                 "lstm": lambda **kw: rnn_cell.LSTMCell(self._hidden_size, **kw),
                 "gru": lambda **kw: rnn_cell.GRUCell(self._hidden_size, **kw)}
        make = cells[self._mode]
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kw = {"input_size": ni}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make(prefix=f"l{i}_", **kw), make(prefix=f"r{i}_", **kw)))
                else:
                    stack.add(make(prefix=f"l{i}_", **kw))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def _param(self, name, shape, init):
        setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                            dtype=self._dtype))

    def __repr__(self):
        ni = self.l0_i2h_weight.shape[1]          # the inferred input size once the layer has run
        s = f"{type(self).__name__}({ni or None} -> {self._hidden_size}, {self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"

    def state_info(self, batch_size=0):
        """The shapes and layouts of the states: ``[{'shape': ..., '__layout__': 'LNC'}, ...]``."""
        n = self._num_layers * self._dir
        info = [{"shape": (n, batch_size, self._projection_size or self._hidden_size), "__layout__": "LNC"}]
        if self._mode == "lstm":
            info.append({"shape": (n, batch_size, self._hidden_size), "__layout__": "LNC"})
        return info

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial (zero unless ``func`` says otherwise) states for ``batch_size`` sequences:
        a list of (num_layers * directions, batch, hidden) arrays (two for LSTM)."""
        if "device" in kwargs:
            kwargs["ctx"] = kwargs.pop("device")
        return [func(shape=info["shape"], **kwargs) for info in self.state_info(batch_size)]

    def infer_shape(self, inputs, *args):
        """Set the first layer's ``i2h_weight`` shapes from the input's channel axis."""
        n_in = inputs.shape[self._layout.find("C")]
        for j in ["l", "r"][:self._dir]:
            p = getattr(self, f"{j}0_i2h_weight")
            p.shape = (self._gates * self._hidden_size, n_in)

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        if isinstance(inputs, NDArray):     # before the zero states, which take the input's dtype
            self._check_dtypes(inputs.dtype, [states] if isinstance(states, NDArray) else states)
        self.skip_states = states is None
        if states is None and isinstance(inputs, NDArray):
            batch_size = inputs.shape[self._layout.find("N")]
            states = self.begin_state(batch_size, ctx=inputs.device, dtype=inputs.dtype)
        if isinstance(states, NDArray) or (states is not None and not isinstance(states, (list, tuple))):
            states = [states]
        args = (states,) if states is not None else ()
        if self._use_sequence_length:
            args = args + (sequence_length,)
        return super().__call__(inputs, *args)

    def _op_attrs(self):
        return {"state_size": self._hidden_size, "num_layers": self._num_layers, "mode": self._mode,
                "bidirectional": self._dir == 2, "projection_size": self._projection_size,
                "use_sequence_length": self._use_sequence_length, "state_outputs": True}

    def _check_dtypes(self, dtype, states):
        """The RNN op takes one dtype for the data, the parameters and the states (as MXNet): name
        the layer and the fix when they differ (one comparison per parameter and state when not)."""
        params = list(self._reg_params.values())
        states = [s for s in states or () if isinstance(s, NDArray)]
        if all(p.dtype == dtype for p in params) and all(s.dtype == dtype for s in states):
            return
        first = next((p for p in params if p.dtype != dtype), params[0] if params else None)
        check_dtypes(self, dtype, "RNN", ([first] if first is not None else []) + states)

    def hybrid_forward(self, F, inputs, states=None, sequence_length=None, **kwargs):
        if F is ndarray:
            self._check_input(inputs, states)
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _check_input(self, inputs, states):
        if inputs.ndim != 3:
            raise MXNetError(f"{self.name}: expected a 3-d input in layout {self._layout}, got shape {inputs.shape}")
        n_in = inputs.shape[self._layout.find("C")]
        expected = getattr(self, "l0_i2h_weight").shape[1]
        if expected and n_in != expected:
            raise MXNetError(f"{self.name}: expected input size {expected} (axis {self._layout.find('C')} of "
                             f"layout {self._layout}), got input shape {inputs.shape}")
        batch = inputs.shape[self._layout.find("N")]
        for state, info in zip(states or [], self.state_info(batch)):
            if state.shape != info["shape"]:
                raise ValueError(f"{self.name}: Invalid recurrent state shape. Expecting {info['shape']}, "
                                 f"got {state.shape}.")

    def _zero_states(self, F, inputs):
        """Zero states built from a (T, N, C) Symbol (the batch size is not known yet)."""
        col = F.zeros_like(F.sum(inputs, axis=(0, 2), keepdims=True))            # (1, N, 1)
        return [F.tile(col, reps=(info["shape"][0], 1, info["shape"][2])) for info in self.state_info()]

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        if states is None:
            states = self._zero_states(F, inputs)
        groups = ["i2h", "h2h"] + (["h2r"] if self._projection_size else [])
        params = [F.Reshape(kwargs[f"{d}{l}_{g}_{t}"], shape=(-1,))
                  for t in ["weight", "bias"]
                  for l in range(self._num_layers)
                  for d in ["l", "r"][:self._dir]
                  for g in groups
                  if g != "h2r" or t != "bias"]
        params = F._rnn_param_concat(*params, dim=0)
        rnn_args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout,
                    state_outputs=True, mode=self._mode, lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max, lstm_state_clip_nan=self._lstm_state_clip_nan)
        if self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


class RNN(_RNNLayer):
    """Multi-layer Elman RNN: h_t = activation(W_i x_t + b_i + W_h h_{t-1} + b_h), ``activation``
    'relu' or 'tanh'. Input (T, N, C) for layout 'TNC'; output (T, N, D*H); states
    [(num_layers*D, N, H)]."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "rnn_" + activation, None, None, None, None, False, dtype, **kwargs)


class LSTM(_RNNLayer):
    """Multi-layer LSTM (gates i, f, g, o), optionally with a projection (``projection_size``) and cell
    state clipping (``state_clip_min``/``state_clip_max``/``state_clip_nan``). States
    [h (num_layers*D, N, P or H), c (num_layers*D, N, H)]."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "lstm", projection_size, h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    """Multi-layer GRU (gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn))). States
    [(num_layers*D, N, H)]."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "gru", None, None, None, None, False, dtype, **kwargs)
