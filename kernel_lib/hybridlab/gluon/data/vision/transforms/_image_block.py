"""What the image transforms computed in NumPy share: ``ImageBlock`` (a HybridBlock that runs its
NumPy ``_apply`` imperatively and refuses graph building with a clear error), the NDArray input
check, and ``rng``, the generator the random flips and colour jitters draw from.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision.transforms._image_block import ImageBlock
    >>> class Invert(ImageBlock):
    ...     def _apply(self, arr):
    ...         return 255 - arr
    >>> Invert()(mx.nd.array(np.zeros((1, 1, 3)), dtype='uint8')).asnumpy().ravel().tolist()
    [255, 255, 255]
"""
from ..... import ndarray as _nd
from .....image.arrays import like as image_like
from .....base import MXNetError
from .....device import cpu
from .....ndarray.ndarray import NDArray
from .....ops.context import get_rng
from ....hybrid_block import HybridBlock

__all__ = ["ImageBlock", "check_nd", "rng"]


def rng():
    """The CPU generator that ``mx.random.seed`` seeds (MXNet's flips and colour jitters draw from it)."""
    return get_rng(cpu())


def check_nd(x, where):
    """Raise a TypeError naming ``where`` unless ``x`` is an NDArray."""
    if not isinstance(x, NDArray):
        raise TypeError(f"{where}: expected an NDArray image, got {type(x).__name__}")


class ImageBlock(HybridBlock):
    """A HybridBlock computed in NumPy: runs imperatively, refuses graph building with a clear error.
    Subclasses write ``_apply(arr)`` on the NumPy array; the result keeps the input's device."""

    def hybrid_forward(self, F, x):
        if F is not _nd:
            raise MXNetError(f"{type(self).__name__} cannot be hybridized in hybridlab: it runs in NumPy and has "
                             f"no graph operator. Use it un-hybridized (transforms.Compose does not hybridize).")
        check_nd(x, type(self).__name__)
        return image_like(self._apply(x.asnumpy()), x)

    def _apply(self, arr):
        raise NotImplementedError
