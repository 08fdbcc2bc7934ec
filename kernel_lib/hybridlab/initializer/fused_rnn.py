"""``FusedRNN``: the initializer of the fused ``RNN`` operator's packed ``parameters`` vector, and
``fused_slices``, the names and places of the per-gate weights and biases in that vector (shared
with ``mx.rnn.FusedRNNCell``'s ``unpack_weights``/``pack_weights``).

The vector is laid out as ``ops/rnn.py``'s ``param_layout``: every layer's and direction's (``l``,
then ``r``) ``i2h`` and ``h2h`` weights, then their biases; each of those holds its gates one
after another (LSTM ``_i _f _c _o``, GRU ``_r _z _o``, plain RNN one gate named ``''``). A piece
is named ``<prefix><direction><layer>_<i2h|h2h><gate>_<weight|bias>``, e.g. ``l0_i2h_f_bias``.

Example::

    >>> import hybridlab as mx
    >>> init = mx.init.FusedRNN(None, num_hidden=2, num_layers=1, mode='lstm', forget_bias=1.0)
    >>> arr = mx.nd.zeros((4 * 2 * (3 + 2 + 2),))          # 4 gates * H * (input 3 + H + 2 biases)
    >>> mx.init.Uniform(0.1)(mx.init.InitDesc('lstm_parameters', attrs={'__init__': init.dumps()}), arr)
    >>> arr[-16:].asnumpy().tolist()       # i2h bias, then h2h bias: both forget gates set (as MXNet)
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
"""
import numpy as np

from ..base import MXNetValueError
from ..ops.rnn import GATES, param_layout
from .base import InitDesc, Initializer, _fill, create, register
from .builtin import Uniform

__all__ = ["FusedRNN", "fused_gate_names", "fused_slices", "fused_input_size"]

_GATE_NAMES = {'rnn_relu': [''], 'rnn_tanh': [''], 'lstm': ['_i', '_f', '_c', '_o'], 'gru': ['_r', '_z', '_o']}


def fused_gate_names(mode):
    """The gate suffixes of ``mode`` in the order the packed vector holds them."""
    if mode not in _GATE_NAMES:
        raise MXNetValueError(f"unknown fused RNN mode {mode!r}: expected one of {sorted(_GATE_NAMES)}")
    return _GATE_NAMES[mode]


def fused_input_size(size, mode, num_layers, num_hidden, bidirectional):
    """The input size that makes a packed vector of ``size`` elements (its inverse: ``param_layout``)."""
    b, g, h = 2 if bidirectional else 1, GATES[mode], num_hidden
    num_input = size // b // h // g - (num_layers - 1) * (h + b * h + 2) - h - 2
    if num_input <= 0 or param_layout(_attrs(mode, num_layers, num_hidden, bidirectional), num_input)[1] != size:
        raise MXNetValueError(f"Invalid parameters size for FusedRNNCell: {size} elements fit no input size "
                              f"({mode}, {num_layers} layers, {num_hidden} hidden, bidirectional={bidirectional})")
    return num_input


def _attrs(mode, num_layers, num_hidden, bidirectional):
    return {"mode": mode, "num_layers": num_layers, "state_size": num_hidden, "bidirectional": bidirectional,
            "projection_size": None}


def fused_slices(mode, num_layers, num_hidden, bidirectional, input_size, prefix=''):
    """``[(name, offset, shape)]`` of every per-gate piece of the packed vector, in MXNet's order
    (each layer's and direction's weights, then all the biases)."""
    layout, _ = param_layout(_attrs(mode, num_layers, num_hidden, bidirectional), input_size)
    gates, h = fused_gate_names(mode), num_hidden
    directions = ['l', 'r'] if bidirectional else ['l']
    out = []
    for kind in ("weight", "bias"):
        for layer in range(num_layers):
            for d, direction in enumerate(directions):
                for group in ("i2h", "h2h"):
                    offset, shape = layout[(layer, d)][f"{group}_{kind}"]
                    step = h * (shape[1] if kind == "weight" else 1)
                    piece = (h, shape[1]) if kind == "weight" else (h,)
                    for j, gate in enumerate(gates):
                        out.append((f"{prefix}{direction}{layer}_{group}{gate}_{kind}", offset + j * step, piece))
    return out


@register
class FusedRNN(Initializer):
    """Initializes a fused RNN's packed parameters piece by piece: each gate's weight by ``init``
    (the global initializer when None, so Xavier sees one gate's fan-in), biases by the same rule
    (zero for the usual ones), LSTM forget-gate biases (``i2h`` and ``h2h``, as MXNet) to
    ``forget_bias``. ``FusedRNNCell`` sets
    it as its ``parameters`` variable's ``__init__``."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        fused_gate_names(mode)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional, forget_bias=forget_bias)
        self._init, self._num_hidden, self._num_layers = init, num_hidden, num_layers
        self._mode, self._bidirectional, self._forget_bias = mode, bidirectional, forget_bias

    def _init_weight(self, desc, arr):
        from ..ndarray.creation import zeros
        size = int(np.prod(arr.shape))
        num_input = fused_input_size(size, self._mode, self._num_layers, self._num_hidden, self._bidirectional)
        outer = getattr(desc, "global_init", None)
        if outer is None or outer is self:
            outer = Uniform()       # called on its own: MXNet's default weight initializer
        buffer = np.zeros(size, dtype=np.float32)
        for name, offset, shape in fused_slices(self._mode, self._num_layers, self._num_hidden,
                                                self._bidirectional, num_input):
            piece = zeros(shape, ctx=arr.device, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece[:] = self._forget_bias
            else:
                (self._init or outer)(InitDesc(name, global_init=outer), piece)
            buffer[offset:offset + piece.size] = piece.asnumpy().ravel()
        _fill(arr, buffer.reshape(arr.shape))
