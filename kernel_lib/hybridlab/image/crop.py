"""Crops (``fixed_crop``, ``random_crop``, ``center_crop``, ``random_size_crop``) and
``color_normalize``, as MXNet 1.9.1's ``mx.image``: crops return the image and the rectangle
``(x0, y0, w, h)``, resizing to ``size`` when given."""
import random

import numpy as np

from .arrays import hwc
from .resize import get_interp_method, imresize, scale_down

__all__ = ["fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop"]


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop ``src[y0:y0+h, x0:x0+w]`` and, if ``size`` (w, h) differs, resize to it.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> img = mx.nd.array(np.arange(20).reshape(4, 5, 1), dtype='uint8')
        >>> mx.image.fixed_crop(img, 1, 2, 3, 2).asnumpy()[:, :, 0].tolist()
        [[11, 12, 13], [16, 17, 18]]
    """
    hwc(src, "fixed_crop")
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """Crop a random ``size`` (w, h) window (scaled down to fit, then resized back to ``size``);
    returns ``(image, (x0, y0, w, h))``. Positions come from Python's ``random``, as in MXNet.

    Example::

        >>> import hybridlab as mx
        >>> out, (x, y, w, h) = mx.image.random_crop(mx.nd.zeros((8, 8, 3), dtype='uint8'), (4, 3))
        >>> out.shape, (w, h)
        ((3, 4, 3), (4, 3))
    """
    h, w, _ = hwc(src, "random_crop")
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """Crop the centred ``size`` (w, h) window (upsampled when ``src`` is smaller); returns
    ``(image, (x0, y0, w, h))`` (see the module example)."""
    h, w, _ = hwc(src, "center_crop")
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std`` in place (as MXNet; ``mean``/``std`` broadcast over the channels).

    Example::

        >>> import hybridlab as mx
        >>> img = mx.nd.ones((1, 1, 3)) * 10
        >>> mx.image.color_normalize(img, mx.nd.array([1, 2, 3]), mx.nd.array([3, 4, 7])).asnumpy().ravel().tolist()
        [3.0, 2.0, 1.0]
    """
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Crop a random window whose area is a random fraction ``area`` (min, max) of the image and
    whose aspect ratio is in ``ratio``, resized to ``size`` (w, h); falls back to
    :func:`center_crop` after 10 tries. Returns ``(image, (x0, y0, w, h))``.

    Example::

        >>> import hybridlab as mx
        >>> out, rect = mx.image.random_size_crop(mx.nd.zeros((20, 30, 3), dtype='uint8'), (8, 6),
        ...                                       (0.08, 1.0), (3 / 4, 4 / 3))
        >>> out.shape
        (6, 8, 3)
    """
    h, w, _ = hwc(src, "random_size_crop")
    src_area = h * w
    if "min_area" in kwargs:
        import warnings
        warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning, stacklevel=2)
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"random_size_crop: unexpected keyword arguments {sorted(kwargs)}")
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
            return out, (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)
