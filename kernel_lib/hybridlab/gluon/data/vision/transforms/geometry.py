"""Transforms that move pixels on HWC images: resizing (``Resize``), cropping (``CropResize``,
``CenterCrop``, ``RandomResizedCrop``) and flipping (``RandomFlipLeftRight``,
``RandomFlipTopBottom``). They run in NumPy; the resampling is ``mx.image``'s.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.Resize(8, keep_ratio=True), transforms.CenterCrop(8)])
    >>> t(mx.nd.zeros((20, 30, 3), dtype='uint8')).shape
    (8, 8, 3)
"""
import numpy as np

from ..... import image
from .....image.resize import resize_np
from .....base import MXNetError
from ....block import Block
from .. import _color
from ._image_block import ImageBlock, check_nd, rng

__all__ = ["Resize", "CropResize", "CenterCrop", "RandomResizedCrop", "RandomFlipLeftRight",
           "RandomFlipTopBottom"]


def _size_wh(size, where):
    """``size`` (an int, ``(s,)`` or ``(width, height)``) as ``(width, height)``."""
    if isinstance(size, (int, np.integer)):
        return int(size), int(size)
    size = tuple(size)
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) != 2:
        raise MXNetError(f"{where}: size expected an int or (width, height), got {size!r}")
    return int(size[0]), int(size[1])


def _per_image(arr, fn, where, batch=True):
    """``fn`` on one HWC image, or on each image of an NHWC batch when ``batch`` allows it."""
    if arr.ndim == 3:
        return fn(arr)
    if arr.ndim == 4 and batch:
        return np.stack([fn(a) for a in arr]) if len(arr) else arr
    expected = "(H, W, C) or (N, H, W, C)" if batch else "(H, W, C)"
    raise MXNetError(f"{where}: expected an image {expected}, got shape {arr.shape}")


class Resize(ImageBlock):
    """Resize to ``size`` (an int: both edges, or the short edge with ``keep_ratio=True``; or
    ``(width, height)``). Images (H, W, C) or batches (N, H, W, C); the dtype is kept.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.Resize((6, 4))(mx.nd.zeros((10, 7, 3), dtype='uint8')).shape
        (4, 6, 3)
        >>> transforms.Resize(4, keep_ratio=True)(mx.nd.zeros((2, 10, 7, 3), dtype='uint8')).shape
        (2, 5, 4, 3)
    """

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def _target(self, h, w):
        short = isinstance(self._size, (int, np.integer)) or len(tuple(self._size)) == 1
        if self._keep and short:
            s = _size_wh(self._size, "Resize")[0]
            if h > w:
                return s, int(h * s / np.float32(w))
            return int(w * s / np.float32(h)), s
        return _size_wh(self._size, "Resize")

    def _apply(self, arr):
        def one(a):
            w, h = self._target(*a.shape[:2])
            return resize_np(a, w, h, self._interpolation)
        return _per_image(arr, one, "Resize")


class CropResize(ImageBlock):
    """Crop the ``width`` x ``height`` window at (``x``, ``y``) and, with ``size`` (int or (w, h)),
    resize it. Images (H, W, C) or batches (N, H, W, C). ``interpolation=None`` means bilinear
    (MXNet 1.9.1 fails on None).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.CropResize(0, 0, 3, 2)(mx.nd.zeros((2, 5, 6, 3), dtype='uint8')).shape
        (2, 2, 3, 3)
    """

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = interpolation

    def _apply(self, arr):
        h, w = arr.shape[-3:-1] if arr.ndim >= 3 else (None, None)
        if arr.ndim in (3, 4):
            if self._x < 0 or self._y < 0 or self._x + self._width > w or self._y + self._height > h:
                raise MXNetError(f"CropResize: the crop x={self._x}, y={self._y}, width={self._width}, "
                                 f"height={self._height} must lie inside the image of width {w} and height {h}")

        def one(a):
            out = a[self._y:self._y + self._height, self._x:self._x + self._width]
            if self._size:
                ow, oh = _size_wh(self._size, "CropResize")
                interp = 1 if self._interpolation is None else self._interpolation
                out = resize_np(out, ow, oh, interp)
            return out
        return _per_image(arr, one, "CropResize")


class CenterCrop(Block):
    """Crop the centre ``size`` (int or (w, h)) window of an (H, W, C) image, upsampling if the
    image is smaller (see ``mx.image.center_crop``).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.CenterCrop((4, 2))(mx.nd.zeros((10, 7, 3), dtype='uint8')).shape
        (2, 4, 3)
    """

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_size_wh(size, "CenterCrop"), interpolation)

    def forward(self, x):
        check_nd(x, "CenterCrop")
        return image.center_crop(x, *self._args)[0]


class RandomResizedCrop(Block):
    """Crop a random window (area fraction in ``scale``, aspect ratio in ``ratio``) and resize it to
    ``size`` (int or (w, h)); positions from Python's ``random`` (see ``mx.image.random_size_crop``).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.RandomResizedCrop(5)(mx.nd.zeros((20, 30, 3), dtype='uint8')).shape
        (5, 5, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_size_wh(size, "RandomResizedCrop"), scale, ratio, interpolation)

    def forward(self, x):
        check_nd(x, "RandomResizedCrop")
        return image.random_size_crop(x, *self._args)[0]


class RandomFlipLeftRight(ImageBlock):
    """Flip an (H, W, C) image left to right with probability 0.5.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> out = transforms.RandomFlipLeftRight()(mx.nd.array([[[1], [2]]], dtype='uint8'))
        >>> sorted([out.asnumpy().ravel().tolist()]) in ([[1, 2]], [[2, 1]])
        True
    """
    _axis = 1

    def _apply(self, arr):
        _color.check_image(arr.shape, type(self).__name__)
        if rng().random() < 0.5:
            return np.ascontiguousarray(np.flip(arr, axis=self._axis))
        return arr


class RandomFlipTopBottom(RandomFlipLeftRight):
    """Flip an (H, W, C) image top to bottom with probability 0.5."""
    _axis = 0
