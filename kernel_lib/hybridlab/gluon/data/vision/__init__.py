"""``mx.gluon.data.vision``: image ``transforms`` (ToTensor, Normalize, Compose, Cast).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> transforms.ToTensor()(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
    (3, 2, 2)
"""
from . import transforms  # noqa: F401

__all__ = ["transforms"]
