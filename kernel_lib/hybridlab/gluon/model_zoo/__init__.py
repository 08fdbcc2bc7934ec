"""``mx.gluon.model_zoo``: MXNet's model architectures (``vision``), without pretrained weights:
nothing is downloaded; ``pretrained=True`` raises an error explaining how to load local files.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.model_zoo.vision.get_model('mobilenet0.25', classes=10)
    >>> type(net).__name__
    'MobileNet'
"""
from . import model_store, vision  # noqa: F401

__all__ = ["vision", "model_store"]
