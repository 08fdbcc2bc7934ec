"""``mx.gluon.data``: datasets, samplers and the DataLoader (MXNet 1.9's API), plus
``vision.transforms``.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> ds = mx.gluon.data.ArrayDataset(np.arange(10, dtype='float32').reshape(5, 2), np.arange(5))
    >>> loader = mx.gluon.data.DataLoader(ds, batch_size=2, last_batch='discard')
    >>> [(x.shape, y.asnumpy().tolist()) for x, y in loader]
    [((2, 2), [0, 1]), ((2, 2), [2, 3])]
"""
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import vision  # noqa: F401
from . import dataset as _dataset, sampler as _sampler, dataloader as _dataloader

__all__ = _dataset.__all__ + _sampler.__all__ + _dataloader.__all__ + ["vision"]
