"""The gate arithmetic of the LSTM and GRU steps, written once for every cell that has it: the
Gluon cells ``gluon.contrib.rnn.Conv*LSTMCell`` / ``Conv*GRUCell`` / ``LSTMPCell`` and the legacy
symbolic ``mx.rnn`` cells (``LSTMCell``, ``GRUCell``, ``ConvLSTMCell``, ``ConvGRUCell``).

``F`` is the namespace the step is written in (``mx.nd`` or ``mx.sym``); ``activate(x, activation,
name=...)`` applies the cell's own activation (a name or a callable, as the cell's
``_get_activation`` does); ``axis`` is the channel axis the gates are stacked on (1 for NC, NCHW...,
the last for channel-last layouts; None leaves SliceChannel's default, 1). Node names are ``prefix``
+ MXNet's suffix: ``slice``, ``i``, ``f``, ``c``, ``o``, ``state``, ``out`` for the LSTM;
``i2h_slice``, ``h2h_slice``, ``r_act``, ``z_act``, ``h_act``, ``out`` for the GRU, with ``sep``
between prefix and suffix where the legacy cells put an extra ``_``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.rnn.gate_math import lstm_update
    >>> gates = mx.nd.zeros((1, 8))                # i, f, c, o pre-activations of 2 channels
    >>> h, c = lstm_update(mx.nd, gates, mx.nd.ones((1, 2)), lambda x, act, **kw: mx.nd.Activation(x, act_type=act),
    ...                    'tanh', 't0_')
    >>> c.asnumpy().tolist()                       # f * c + i * tanh(0) = 0.5
    [[0.5, 0.5]]
"""

__all__ = ["lstm_update", "gru_update"]


def _axis(axis):
    # left out when not given, so that graphs keep SliceChannel's default as MXNet writes it
    return {} if axis is None else {"axis": axis}


def lstm_update(F, gates, prev_c, activate, activation, prefix, axis=None, out="out"):
    """One LSTM step from the summed projections ``gates`` (i, f, c, o stacked on ``axis``, 1 when
    None): ``c' = sigmoid(f) * c + sigmoid(i) * act(c~)``, ``h' = sigmoid(o) * act(c')``; ``(h', c')``,
    ``h'`` named ``prefix + out``."""
    parts = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice", **_axis(axis))
    in_gate = F.Activation(parts[0], act_type="sigmoid", name=prefix + "i")
    forget_gate = F.Activation(parts[1], act_type="sigmoid", name=prefix + "f")
    in_transform = activate(parts[2], activation, name=prefix + "c")
    out_gate = F.Activation(parts[3], act_type="sigmoid", name=prefix + "o")
    next_c = F.elemwise_add(forget_gate * prev_c, in_gate * in_transform, name=prefix + "state")
    next_h = F.elemwise_mul(out_gate, activate(next_c, activation), name=prefix + out)
    return next_h, next_c


def gru_update(F, i2h, h2h, prev_h, activate, activation, prefix, axis=None, sep=""):
    """One GRU step from the two projections (r, z, n stacked on ``axis`` in each, 1 when None):
    ``r, z = sigmoid(i2h_rz + h2h_rz)``, ``n = act(i2h_n + r * h2h_n)``, ``h' = (1 - z) * n + z * h``."""
    i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + sep + "i2h_slice", **_axis(axis))
    h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + sep + "h2h_slice", **_axis(axis))
    reset_gate = F.Activation(i2h_r + h2h_r, act_type="sigmoid", name=prefix + sep + "r_act")
    update_gate = F.Activation(i2h_z + h2h_z, act_type="sigmoid", name=prefix + sep + "z_act")
    next_h_tmp = activate(i2h_n + reset_gate * h2h_n, activation, name=prefix + sep + "h_act")
    return F.elemwise_add((1. - update_gate) * next_h_tmp, update_gate * prev_h, name=prefix + "out")
