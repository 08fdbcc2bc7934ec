"""``mx.gluon.contrib.cnn``: MXNet 1.x's deformable convolution layers, ``DeformableConvolution``
(v1: learned offsets) and ``ModulatedDeformableConvolution`` (v2: learned offsets and masks).

Example::

    >>> import hybridlab as mx
    >>> layer = mx.gluon.contrib.cnn.DeformableConvolution(4, kernel_size=3, padding=1)
    >>> layer.initialize()
    >>> layer(mx.nd.ones((1, 2, 5, 5))).shape
    (1, 4, 5, 5)
"""
from . import conv_layers  # noqa: F401
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution  # noqa: F401

__all__ = conv_layers.__all__
