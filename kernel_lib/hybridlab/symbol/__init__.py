"""``mx.sym``: symbolic graphs. ``var`` makes inputs, every registered op composes nodes (MXNet 1.x
names), ``Group`` bundles outputs; graphs save to and load from MXNet 1.9's JSON.

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=4, name='fc'))
    >>> y.list_arguments()
    ['data', 'fc_weight', 'fc_bias']
"""
import types as _types

from .. import ops as _ops  # noqa: F401
from .graph import Node, topo_order  # noqa: F401
from .namespace import populate as _populate
from .symbol import Group, Symbol, Variable, compose, var  # noqa: F401

_OP_NAMES = _populate(globals(), "sym")
random = _types.SimpleNamespace()
_populate(random.__dict__, "sym.random")
_internal = _types.SimpleNamespace(**{n: globals()[n] for n in _OP_NAMES if n.startswith("_")})


def zeros(shape, dtype=None, **kwargs):
    """A node producing zeros of ``shape``."""
    return globals()["_zeros"](shape=shape, dtype=dtype or "float32", **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A node producing ones of ``shape``."""
    return globals()["_ones"](shape=shape, dtype=dtype or "float32", **kwargs)
