"""Image transforms as Blocks (MXNet 1.9.1's ``gluon.data.vision.transforms``). Inputs are HWC
images (uint8 or float NDArrays); ``Resize``, ``CropResize`` and ``ToTensor`` also take NHWC batches.

As in MXNet, ``Resize``, ``CropResize``, the random flips and colour jitters, ``Cast``, ``ToTensor``
and ``Normalize`` are HybridBlocks; ``CenterCrop``, ``RandomResizedCrop``, ``Rotate`` and
``RandomRotation`` are Blocks; ``Compose`` and ``RandomApply`` are Sequentials. Randomness follows
MXNet: the flips and colour jitters draw from ``mx.random.seed``'s generator, ``RandomResizedCrop``
and ``RandomApply`` from Python's ``random``, ``RandomRotation`` from ``np.random``.

Differences from MXNet: the image transforms run in NumPy, so only ``Cast``, ``ToTensor`` and
``Normalize`` can be hybridized (the others raise a clear error inside a hybridized block), and
``Compose`` groups consecutive HybridBlocks into a HybridSequential as MXNet does but does not
hybridize it. MXNet 1.9.1's flips leave the middle row/column of odd-sized images uninitialised;
here they flip correctly. Resizing: see ``mx.image`` (nearest and bilinear equal OpenCV's).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.Resize(4), transforms.ToTensor(), transforms.Normalize(0.5, 0.5)])
    >>> out = t(mx.nd.array(np.full((8, 6, 3), 255), dtype='uint8'))
    >>> out.shape, float(out.asnumpy().max())
    ((3, 4, 4), 1.0)
"""
import random

import numpy as np

from .... import ndarray as _nd
from .... import image
from ....image.arrays import like as image_like
from ....image.resize import resize_np
from ....base import MXNetError
from ....device import cpu
from ....ndarray.ndarray import NDArray
from ....ops.context import get_rng
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import Sequential, HybridSequential
from . import _color

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Rotate", "RandomRotation", "RandomResizedCrop",
           "CropResize", "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "RandomApply"]


class Compose(Sequential):
    """Apply ``transforms`` in order (runs of HybridBlocks are grouped into a HybridSequential,
    as MXNet does; plain functions are accepted too).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.Compose([transforms.Cast('float32'), transforms.ToTensor()])
        >>> t(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
        (3, 2, 2)
    """

    def __init__(self, transforms):
        super().__init__()
        hybrid = []
        with self.name_scope():
            for t in list(transforms) + [None]:
                if isinstance(t, HybridBlock):
                    hybrid.append(t)
                    continue
                if len(hybrid) == 1:
                    self.add(hybrid[0])
                elif len(hybrid) > 1:
                    group = HybridSequential()
                    group.add(*hybrid)
                    self.add(group)
                hybrid = []
                if t is not None:
                    self.add(t if isinstance(t, Block) else _FnBlock(t))


class _FnBlock(Block):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x, *args):
        return self._fn(x, *args)


def _rng():
    return get_rng(cpu())


def _check_nd(x, where):
    if not isinstance(x, NDArray):
        raise TypeError(f"{where}: expected an NDArray image, got {type(x).__name__}")


class _ImageBlock(HybridBlock):
    """A HybridBlock computed in NumPy: runs imperatively, refuses graph building with a clear error."""

    def hybrid_forward(self, F, x):
        if F is not _nd:
            raise MXNetError(f"{type(self).__name__} cannot be hybridized in hybridlab: it runs in NumPy and has "
                             f"no graph operator. Use it un-hybridized (transforms.Compose does not hybridize).")
        _check_nd(x, type(self).__name__)
        return image_like(self._apply(x.asnumpy()), x)

    def _apply(self, arr):
        raise NotImplementedError


class Cast(HybridBlock):
    """Cast to ``dtype`` (default float32).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.Cast('float16')(mx.nd.ones((1, 1, 3), dtype='uint8')).dtype
        dtype('float16')
    """

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """``(H, W, C)`` or ``(N, H, W, C)`` in [0, 255] -> float32 ``(C, H, W)`` / ``(N, C, H, W)`` in
    [0, 1] (any input dtype is divided by 255).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.ToTensor()(mx.nd.ones((4, 5, 6, 3), dtype='uint8')).shape
        (4, 3, 5, 6)
    """

    def hybrid_forward(self, F, x):
        if isinstance(x, NDArray) and len(x.shape) not in (3, 4):
            raise MXNetError(f"ToTensor: expected an image (H, W, C) or a batch (N, H, W, C), got shape {x.shape}")
        chw = F.swapaxes(F.swapaxes(F.cast(x, dtype="float32"), dim1=-1, dim2=-3), dim1=-1, dim2=-2)
        return chw / 255.0


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel (axis 0 of CHW, 1 of NCHW); scalars apply to every channel.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.Normalize(mean=(0, 1, 2), std=(1, 2, 4))
        >>> t(mx.nd.ones((3, 1, 1))).asnumpy().ravel().tolist()
        [1.0, 0.0, -0.25]
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def _values(self, v, what, c):
        v = np.asarray(v, dtype="float32").reshape(-1)
        if c is not None and v.size not in (1, c):
            raise MXNetError(f"Normalize: {what} expected 1 or {c} values (one per channel), got {v.size}")
        return v

    def hybrid_forward(self, F, x):
        c = None
        if isinstance(x, NDArray):
            if len(x.shape) not in (3, 4):
                raise MXNetError(f"Normalize: expected (C, H, W) or (N, C, H, W), got shape {x.shape}")
            c = x.shape[-3]
        mean, std = self._values(self._mean, "mean", c), self._values(self._std, "std", c)
        if F is _nd:
            def const(v):
                return _nd.array(np.broadcast_to(v.reshape(-1, 1, 1), (c, 1, 1)).copy(), device=x.device)
        else:
            def const(v):
                parts = [F.full(shape=(1, 1, 1), val=float(s)) for s in v]
                return parts[0] if len(parts) == 1 else F.concat(*parts, dim=0)
        return F.broadcast_div(F.broadcast_sub(x, const(mean)), const(std))


def _size_wh(size, where):
    if isinstance(size, (int, np.integer)):
        return int(size), int(size)
    size = tuple(size)
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) != 2:
        raise MXNetError(f"{where}: size expected an int or (width, height), got {size!r}")
    return int(size[0]), int(size[1])


def _per_image(arr, fn, where, batch=True):
    if arr.ndim == 3:
        return fn(arr)
    if arr.ndim == 4 and batch:
        return np.stack([fn(a) for a in arr]) if len(arr) else arr
    expected = "(H, W, C) or (N, H, W, C)" if batch else "(H, W, C)"
    raise MXNetError(f"{where}: expected an image {expected}, got shape {arr.shape}")


class Resize(_ImageBlock):
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


class CropResize(_ImageBlock):
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
        _check_nd(x, "CenterCrop")
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
        _check_nd(x, "RandomResizedCrop")
        return image.random_size_crop(x, *self._args)[0]


class RandomFlipLeftRight(_ImageBlock):
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
        if _rng().random() < 0.5:
            return np.ascontiguousarray(np.flip(arr, axis=self._axis))
        return arr


class RandomFlipTopBottom(RandomFlipLeftRight):
    """Flip an (H, W, C) image top to bottom with probability 0.5."""
    _axis = 0


class _RandomFactor(_ImageBlock):
    _kernel = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def _apply(self, arr):
        _color.check_image(arr.shape, type(self).__name__)
        return type(self)._kernel(arr, _rng().uniform(*self._args))


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


class RandomColorJitter(_ImageBlock):
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
        return _color.color_jitter(arr, *self._args, _rng())


class RandomLighting(_ImageBlock):
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
        return _color.lighting(arr, _rng().normal(0, self._alpha, size=3))


class RandomApply(Sequential):
    """Apply ``transforms`` (a Block) with probability ``p`` (Python's ``random``).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.RandomApply(transforms.Cast('float16'), p=0.0)
        >>> t(mx.nd.ones((1, 1, 3), dtype='uint8')).dtype
        dtype('uint8')
    """

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


def _check_float32(x, where):
    _check_nd(x, where)
    if x.dtype != np.float32:
        raise TypeError(f"{where}: this transformation only supports float32, got {x.dtype}. "
                        f"Consider calling it after ToTensor")


class Rotate(Block):
    """Rotate a float32 (C, H, W) image or (N, C, H, W) batch by ``rotation_degrees`` (see
    ``mx.image.imrotate``).

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> x = mx.nd.array(np.arange(4, dtype='float32').reshape(1, 2, 2))
        >>> transforms.Rotate(90)(x).asnumpy()[0].round(4).tolist()
        [[1.0, 3.0], [0.0, 2.0]]
    """

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        _check_float32(x, "Rotate")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn from ``angle_limits`` (np.random), with probability ``rotate_with_proba``.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.RandomRotation((-10, 10))(mx.nd.ones((3, 4, 4))).shape
        (3, 4, 4)
    """

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError(f"`angle_limits` must be an ordered tuple (lower < upper), got {tuple(angle_limits)}")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError(f"Probability of rotating the image should be between 0 and 1, got {rotate_with_proba}")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        _check_float32(x, "RandomRotation")
        return image.random_rotate(x, *self._args)
