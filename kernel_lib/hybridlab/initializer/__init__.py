"""``mx.init``: weight initializers (MXNet's ``mxnet.initializer``).

An initializer fills an array in place given its name: ``init(InitDesc('fc1_weight'), arr)``. A
description carrying an ``__init__`` attribute (what ``Parameter`` passes) uses that initializer's
weight rule; otherwise the name decides, as in MXNet: ``*weight`` -> the initializer's rule,
``*bias``/``*beta``/``*running_mean``/``*moving_mean``/``*min`` -> 0, ``*gamma``/``*running_var``/
``*moving_var``/``*max`` -> 1. Random draws go through ``mx.random``, so ``mx.random.seed`` makes
initialisation reproducible. ``dumps()`` gives MXNet's JSON form, stored in symbol files as a
variable's ``__init__``; ``create`` turns a name, a dumps string or an instance back into one.

Model files are untrusted: a dumps string may create a file-reading initializer (``Load``) only
inside ``with mx.init.allow_file_initializers():``; ``mx.init.Load(path)`` in code is always allowed.

Example::

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((4, 6))
    >>> mx.init.Xavier(magnitude=2.0)(mx.init.InitDesc('fc_weight'), w)
    >>> bool((w.asnumpy() != 0).all())
    True
    >>> mx.init.Xavier().dumps()
    '["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 3}]'
    >>> b = mx.nd.ones((3,))
    >>> mx.init.Uniform()(mx.init.InitDesc('fc_bias'), b)
    >>> b.asnumpy().tolist()
    [0.0, 0.0, 0.0]
"""
from .base import InitDesc, Initializer, alias, allow_file_initializers, create, register
from .builtin import Bilinear, Constant, LSTMBias, MSRAPrelu, Normal, One, Orthogonal, Uniform, Xavier, Zero
from .composite import Load, Mixed
from .fused_rnn import FusedRNN

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Zero", "One", "Constant",
           "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear", "LSTMBias", "FusedRNN", "Mixed", "Load",
           "allow_file_initializers"]
