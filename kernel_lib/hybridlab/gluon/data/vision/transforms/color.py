"""Random colour transforms of HWC images with 1 or 3 channels: brightness, contrast, saturation
and hue jitter, all four in a random order (``RandomColorJitter``), and AlexNet's PCA lighting noise.
Factors come from ``mx.random.seed``'s generator; the NumPy kernels, equal to MXNet 1.9.1's, are in
``gluon/data/vision/_color.py``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.RandomBrightness(0.2), transforms.RandomLighting(0.1)])
    >>> t(mx.nd.full((2, 2, 3), 100, dtype='uint8')).dtype
    dtype('uint8')
"""
from .. import _color
from ._image_block import ImageBlock, rng

__all__ = ["RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting"]


class _RandomFactor(ImageBlock):
    """Applies the ``_color`` kernel ``_kernel`` with a factor drawn from ``[max(0, 1 - amount), 1 + amount]``."""
    _kernel = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def _apply(self, arr):
        _color.check_image(arr.shape, type(self).__name__)
        return type(self)._kernel(arr, rng().uniform(*self._args))


class RandomBrightness(_RandomFactor):
    """Multiply by a factor drawn from ``[max(0, 1 - brightness), 1 + brightness]``.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> out = transforms.RandomBrightness(0.5)(mx.nd.full((2, 2, 3), 100, dtype='uint8'))
        >>> out.dtype, 50 <= int(out.asnumpy()[0, 0, 0]) <= 150
        (dtype('uint8'), True)
    """
    _kernel = staticmethod(_color.brightness)


class RandomContrast(_RandomFactor):
    """Blend with the mean grey value, factor in ``[max(0, 1 - contrast), 1 + contrast]``."""
    _kernel = staticmethod(_color.contrast)


class RandomSaturation(_RandomFactor):
    """Blend with the grey value (MXNet's, see ``_color``), factor in ``[max(0, 1 - s), 1 + s]``."""
    _kernel = staticmethod(_color.saturation)


class RandomHue(_RandomFactor):
    """Rotate the hue by ``factor * 360`` degrees, factor in ``[max(0, 1 - hue), 1 + hue]`` (MXNet's rule)."""
    _kernel = staticmethod(_color.hue)


class RandomColorJitter(ImageBlock):
    """Brightness, contrast, saturation and hue jitter in a random order (amounts 0 skip a step).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.RandomColorJitter(brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1)
        >>> t(mx.nd.full((4, 4, 3), 128, dtype='uint8')).shape
        (4, 4, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def _apply(self, arr):
        _color.check_image(arr.shape, "RandomColorJitter")
        return _color.color_jitter(arr, *self._args, rng())


class RandomLighting(ImageBlock):
    """AlexNet-style PCA lighting noise with strength ``alpha`` (the std of the 3 PCA weights).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.RandomLighting(0.1)(mx.nd.full((2, 2, 3), 100, dtype='uint8')).dtype
        dtype('uint8')
    """

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def _apply(self, arr):
        _color.check_image(arr.shape, "RandomLighting")
        return _color.lighting(arr, rng().normal(0, self._alpha, size=3))
