"""Resizing (``imresize``, ``resize_short``, ``scale_down``): nearest and bilinear reproduce OpenCV's
``cv::resize`` exactly (uint8 fixed-point rounding included); bicubic, area and Lanczos use Pillow's
filters (close, not equal); 9 (auto) and 10 (random) pick one as MXNet does."""
import random

import numpy as np

from ..base import MXNetError
from .arrays import hwc, like, to_numpy

__all__ = ["imresize", "resize_short", "scale_down", "resize_np", "get_interp_method"]

_INTERP_NAMES = {0: "nearest", 1: "bilinear", 2: "bicubic", 3: "area", 4: "lanczos"}


def _nearest_index(src, dst):
    scale = 1.0 / (dst / src)
    return np.minimum(np.floor(np.arange(dst) * scale).astype(np.int64), src - 1)


def _linear_coeffs(src, dst, clamp):
    """OpenCV's source index and weight per output position (half-pixel centres). Columns clamp
    the weight at the borders (``clamp``); rows keep it and clamp only the row index, as OpenCV."""
    f = ((np.arange(dst) + 0.5) * (src / dst) - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int64)
    f = f - s.astype(np.float32)
    if clamp:
        f[s < 0] = 0
        s[s < 0] = 0
        hi = s >= src - 1
        f[hi] = 0
        s[hi] = src - 1
    return np.clip(s, 0, src - 1), np.clip(s + 1, 0, src - 1), f


def _bilinear(arr, w, h):
    H, W = arr.shape[:2]
    xs0, xs1, fx = _linear_coeffs(W, w, True)
    ys0, ys1, fy = _linear_coeffs(H, h, False)
    if arr.dtype == np.uint8:     # OpenCV's fixed point: 11-bit weights, SIMD rounding of the row pass
        ax1 = np.round(fx * 2048).astype(np.int64)[None, :, None]
        ax0 = np.round((1 - fx) * 2048).astype(np.int64)[None, :, None]
        by1 = np.round(fy * 2048).astype(np.int64)[:, None, None]
        by0 = np.round((1 - fy) * 2048).astype(np.int64)[:, None, None]
        s = arr.astype(np.int64)
        rows = s[:, xs0] * ax0 + s[:, xs1] * ax1
        out = (((by0 * (rows[ys0] >> 4)) >> 16) + ((by1 * (rows[ys1] >> 4)) >> 16) + 2) >> 2
        return np.clip(out, 0, 255).astype(np.uint8)
    s = arr.astype(np.float32)
    rows = s[:, xs0] * (1 - fx)[None, :, None] + s[:, xs1] * fx[None, :, None]
    out = rows[ys0] * (1 - fy)[:, None, None] + rows[ys1] * fy[:, None, None]
    return _back_to(out, arr.dtype)


def _back_to(out, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


def _pillow(arr, w, h, interp):
    from PIL import Image
    resample = {2: Image.BICUBIC, 3: Image.BOX, 4: Image.LANCZOS}[interp]
    chans = []
    for c in range(arr.shape[2]):
        plane = arr[:, :, c]
        if arr.dtype == np.uint8:
            img = Image.fromarray(np.ascontiguousarray(plane), mode="L")
        else:
            img = Image.fromarray(np.ascontiguousarray(plane, dtype=np.float32), mode="F")
        chans.append(np.asarray(img.resize((w, h), resample=resample)))
    out = np.stack(chans, axis=2)
    return out if arr.dtype == np.uint8 else _back_to(out.astype(np.float32), arr.dtype)


def resize_np(arr, w, h, interp=1):
    """Resize a NumPy HWC (or HW) image to width ``w`` and height ``h`` (see the module notes)."""
    w, h = int(w), int(h)
    if w <= 0 or h <= 0:
        raise MXNetError(f"imresize: expected a positive output size (w, h), got ({w}, {h})")
    if arr.ndim not in (2, 3) or 0 in arr.shape[:2]:
        raise MXNetError(f"imresize: expected an image (H, W, C) with H, W > 0, got shape {arr.shape}")
    squeeze = arr.ndim == 2
    if squeeze:
        arr = arr[:, :, None]
    interp = get_interp_method(interp, (arr.shape[0], arr.shape[1], h, w))
    if (h, w) == arr.shape[:2]:
        out = arr.copy()
    elif interp == 0:
        out = arr[_nearest_index(arr.shape[0], h)][:, _nearest_index(arr.shape[1], w)]
    elif interp == 1:
        out = _bilinear(arr, w, h)
    else:
        out = _pillow(arr, w, h, interp)
    return out[:, :, 0] if squeeze else out


def imresize(src, w, h, interp=1, out=None):
    """Resize ``src`` (``(H, W, C)``) to width ``w`` and height ``h``; the dtype is kept.
    ``interp``: 0 nearest, 1 bilinear (default), 2 bicubic, 3 area, 4 Lanczos, 9 auto, 10 random.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> img = mx.nd.array(np.array([[[0], [255]]]), dtype='uint8')
        >>> mx.image.imresize(img, 4, 1).asnumpy().ravel().tolist()
        [0, 64, 191, 255]
    """
    arr = to_numpy(src, "imresize")
    res = like(resize_np(arr, w, h, interp), src)
    if out is not None:
        out[:] = res
        return out
    return res


def get_interp_method(interp, sizes=()):
    """MXNet's interpolation choice: 9 = bicubic to enlarge, area to shrink, else bilinear;
    10 = a random method (Python's ``random``)."""
    if interp == 9:
        if sizes:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in _INTERP_NAMES:
        raise ValueError(f"Unknown interp method {interp}: expected 0 (nearest), 1 (bilinear), 2 (bicubic), "
                         f"3 (area), 4 (lanczos), 9 (auto) or 10 (random)")
    return interp


# ---- crops ----------------------------------------------------------------------------------------
def scale_down(src_size, size):
    """Scale the crop ``size`` (w, h) down so it fits ``src_size`` (w, h), keeping its aspect ratio.

    Example::

        >>> import hybridlab as mx
        >>> mx.image.scale_down((640, 480), (720, 120))
        (640, 106)
    """
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    """Resize so that the shorter edge is ``size`` (the longer one scaled, rounded down).

    Example::

        >>> import hybridlab as mx
        >>> mx.image.resize_short(mx.nd.zeros((10, 7, 3), dtype='uint8'), 4).shape
        (5, 4, 3)
    """
    h, w, _ = hwc(src, "resize_short")
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=get_interp_method(interp, (h, w, new_h, new_w)))
