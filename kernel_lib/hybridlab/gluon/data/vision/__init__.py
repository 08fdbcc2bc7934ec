"""``mx.gluon.data.vision``: the vision datasets (``MNIST``, ``FashionMNIST``, ``CIFAR10``,
``CIFAR100``, ``ImageFolderDataset``) and image ``transforms``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> transforms.ToTensor()(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
    (3, 2, 2)
"""
from . import transforms  # noqa: F401
from .datasets import *  # noqa: F401,F403
from . import datasets as _datasets

__all__ = ["transforms"] + _datasets.__all__
