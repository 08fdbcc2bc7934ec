"""``mx.npx``: MXNet's operators that NumPy lacks (``relu``, ``fully_connected``, ``convolution``,
``pooling``, ``batch_norm``, ...), generated from the registry, plus the np-mode switches and file IO.

Example::

    >>> import hybridlab as mx
    >>> mx.npx.relu(mx.np.array([-1.0, 2.0])).tolist()
    [0.0, 2.0]
"""
from ..ndarray.namespace import populate as _populate
from .. import ops as _ops  # noqa: F401

_populate(globals(), "npx", np_style=True)

from ..ndarray.params_file import npx_save as save, npx_load as load  # noqa: E402,F401

_np_mode = {"array": False, "shape": False}     # off until set_np(), as in MXNet 1.9.1


def set_np(shape=True, array=True, dtype=False):
    """Switch on NumPy semantics: Gluon parameters created from now on hold ``mx.np`` arrays, so blocks
    and losses return them (``mx.np`` itself always has NumPy semantics)."""
    _np_mode.update(array=array, shape=shape)


def reset_np():
    _np_mode.update(array=False, shape=False)


def is_np_array():
    return _np_mode["array"]


def is_np_shape():
    return _np_mode["shape"]


def seed(seed_state):
    from ..ops.context import seed as _seed
    _seed(seed_state)
