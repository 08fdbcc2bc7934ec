"""``mx.mod``: MXNet 1.x's symbolic Module API. ``Module`` binds a symbol to arrays and trains it
(``fit``), scores it and predicts with it; ``BaseModule`` holds the loops; ``MutableModule`` is a
Module for inputs whose shapes change from batch to batch (detection, variable-length text);
``BucketingModule`` keeps one Module per bucket (sequence length) sharing one set of parameters;
``SequentialModule`` chains modules; ``PythonModule`` / ``PythonLossModule`` are modules written in
Python (a loss computed with NumPy, say).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2), name='softmax')
    >>> mod = mx.mod.Module(net)
    >>> it = mx.io.NDArrayIter(np.random.rand(20, 3), np.arange(20) % 2, batch_size=5)
    >>> mod.fit(it, num_epoch=1)
    >>> mod.predict(it).shape
    (20, 2)
"""
from .base_module import BaseModule  # noqa: F401
from .module import Module  # noqa: F401
from .mutable_module import MutableModule  # noqa: F401
from .bucketing_module import BucketingModule  # noqa: F401
from .sequential_module import SequentialModule  # noqa: F401
from .python_module import PythonModule, PythonLossModule  # noqa: F401

__all__ = ["BaseModule", "Module", "MutableModule", "BucketingModule", "SequentialModule", "PythonModule",
           "PythonLossModule"]
