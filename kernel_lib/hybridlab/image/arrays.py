"""NDArray <-> NumPy for the image helpers: images are computed in NumPy and returned as NDArrays
on the input's device (``mx.np`` arrays stay ``mx.np`` arrays)."""
import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray

__all__ = ["to_numpy", "like", "hwc"]


def to_numpy(src, what):
    if isinstance(src, NDArray):
        return src.asnumpy()
    if isinstance(src, np.ndarray):
        return src
    raise TypeError(f"{what}: expected an NDArray image (H, W, C), got {type(src).__name__}")


def like(arr, src):
    """``arr`` (NumPy) as an NDArray on ``src``'s device (CPU for NumPy input), keeping its dtype."""
    from .. import ndarray as nd
    device = src.device if isinstance(src, NDArray) else None
    out = nd.array(arr, dtype=arr.dtype, device=device)
    if isinstance(src, NDArray) and getattr(src, "_np", False):
        out = out.as_np_ndarray()
    return out


def hwc(src, where):
    if len(src.shape) != 3:
        raise MXNetError(f"{where}: expected an image (H, W, C), got shape {tuple(src.shape)}")
    return src.shape
