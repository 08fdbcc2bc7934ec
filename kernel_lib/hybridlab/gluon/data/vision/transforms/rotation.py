"""Rotations of float32 CHW images or NCHW batches (so after ``ToTensor``): ``Rotate`` by a fixed
angle and ``RandomRotation`` by an angle drawn from ``np.random``; the work is ``mx.image``'s
``imrotate`` / ``random_rotate``.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.ToTensor(), transforms.Rotate(180)])
    >>> t(mx.nd.zeros((4, 6, 3), dtype='uint8')).shape
    (3, 4, 6)
"""
import numpy as np

from ..... import image
from ....block import Block
from ._image_block import check_nd

__all__ = ["Rotate", "RandomRotation"]


def _check_float32(x, where):
    check_nd(x, where)
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
