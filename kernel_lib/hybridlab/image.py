"""``mx.image`` (MXNet 1.9.1's image helpers): decode, read, resize and crop HWC images held in
NDArrays (uint8 or float).

MXNet runs these through OpenCV; hybridlab decodes with Pillow and resizes in NumPy:

* ``interp=0`` (nearest) and ``interp=1`` (bilinear) reproduce OpenCV's ``cv::resize`` exactly,
  uint8 fixed-point rounding included (checked pixel for pixel against MXNet 1.9.1); float images
  agree to float32 rounding (~1e-5).
* ``interp=2`` (bicubic), ``3`` (area) and ``4`` (Lanczos) use Pillow's filters, which differ from
  OpenCV's (Pillow's bicubic uses a = -0.5 where OpenCV uses -0.75, and Pillow filters when it
  shrinks): close, not equal. ``9`` (auto) and ``10`` (random) pick one as MXNet does.
* Decoding: PNG/BMP/... are lossless, so pixels are MXNet's; JPEG goes through Pillow's libjpeg and
  may differ by a few levels from OpenCV's. ``flag=0`` converts colour to grey with ITU-R 601
  weights as OpenCV does (rounding may differ by 1).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> img = mx.nd.array(np.arange(12).reshape(2, 2, 3), dtype='uint8')
    >>> mx.image.imresize(img, 4, 2, interp=0).asnumpy()[0, :, 0].tolist()
    [0, 0, 3, 3]
    >>> crop, rect = mx.image.center_crop(mx.nd.zeros((10, 7, 3), dtype='uint8'), (4, 5))
    >>> crop.shape, rect
    ((5, 4, 3), (1, 2, 4, 5))
"""
import io
import os
import random

import numpy as np

from .base import MXNetError
from .ndarray.ndarray import NDArray

__all__ = ["imdecode", "imread", "imresize", "scale_down", "resize_short", "fixed_crop", "random_crop",
           "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate"]

_INTERP_NAMES = {0: "nearest", 1: "bilinear", 2: "bicubic", 3: "area", 4: "lanczos"}


# ---- NDArray <-> NumPy ------------------------------------------------------------------------
def _to_numpy(src, what):
    if isinstance(src, NDArray):
        return src.asnumpy()
    if isinstance(src, np.ndarray):
        return src
    raise TypeError(f"{what}: expected an NDArray image (H, W, C), got {type(src).__name__}")


def _like(arr, src):
    """``arr`` (NumPy) as an NDArray on ``src``'s device (CPU for NumPy input), keeping its dtype."""
    from . import ndarray as nd
    device = src.device if isinstance(src, NDArray) else None
    out = nd.array(arr, dtype=arr.dtype, device=device)
    if isinstance(src, NDArray) and getattr(src, "_np", False):
        out = out.as_np_ndarray()
    return out


# ---- decoding -----------------------------------------------------------------------------------
def _decode_pil(data, flag, to_rgb, origin):
    try:
        from PIL import Image, ImageOps
    except ImportError:   # pragma: no cover - pillow is a dependency
        raise MXNetError("mx.image needs Pillow to decode images: pip install 'pillow>=10'") from None
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
        img = ImageOps.exif_transpose(img)   # OpenCV's imdecode applies the EXIF orientation too
    except Exception as err:
        head = bytes(data[:8])
        raise MXNetError(f"{origin}: decoding failed, expected an image file (JPEG, PNG, BMP, ...), got "
                         f"{len(data)} bytes starting with {head!r} ({err})") from None
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):        # 16-bit: OpenCV scales to 8 bits
        arr = np.asarray(img).astype(np.uint32) >> 8
        img = Image.fromarray(arr.astype(np.uint8), mode="L")
    if flag == 0:
        arr = np.asarray(img.convert("L"))[:, :, None]
    else:
        arr = np.asarray(img.convert("RGB"))
        if not to_rgb:
            arr = arr[:, :, ::-1]
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _check_flag(flag, where):
    if flag not in (0, 1, True, False):
        raise ValueError(f"{where}: flag expected 0 (grayscale) or 1 (color), got {flag!r}")


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decode an image file held in memory (``bytes``, ``bytearray``, a uint8 NumPy array or
    NDArray) to a uint8 NDArray ``(H, W, 3)`` (``flag=1``, RGB; BGR with ``to_rgb=False``) or
    ``(H, W, 1)`` (``flag=0``, grayscale).

    Example::

        >>> import io
        >>> from PIL import Image
        >>> import hybridlab as mx
        >>> f = io.BytesIO(); Image.new('RGB', (3, 2), (255, 0, 10)).save(f, format='PNG')
        >>> img = mx.image.imdecode(f.getvalue())
        >>> img.shape, img.dtype, img.asnumpy()[0, 0].tolist()
        ((2, 3, 3), dtype('uint8'), [255, 0, 10])
        >>> mx.image.imdecode(f.getvalue(), to_rgb=False).asnumpy()[0, 0].tolist()
        [10, 0, 255]
    """
    _check_flag(flag, "imdecode")
    if isinstance(buf, NDArray):
        buf = buf.asnumpy().astype(np.uint8)
    if isinstance(buf, np.ndarray):
        data = buf.astype(np.uint8, copy=False).tobytes()
    elif isinstance(buf, (bytes, bytearray, memoryview)):
        data = bytes(buf)
    else:
        raise ValueError(f"buf must be of type bytes, bytearray or numpy.ndarray, got {type(buf).__name__}; "
                         f"if you would like to input type str, please convert to bytes")
    arr = _decode_pil(data, flag, to_rgb, "imdecode")
    res = _like(arr, None)
    if out is not None:
        out[:] = res
        return out
    return res


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read and decode an image file to a uint8 NDArray ``(H, W, 3)`` or ``(H, W, 1)`` (see
    :func:`imdecode`).

    Example::

        >>> import os, tempfile
        >>> from PIL import Image
        >>> import hybridlab as mx
        >>> path = os.path.join(tempfile.mkdtemp(), 'a.png')
        >>> Image.new('RGB', (4, 3), (0, 128, 255)).save(path)
        >>> mx.image.imread(path).shape, mx.image.imread(path, flag=0).shape
        ((3, 4, 3), (3, 4, 1))
    """
    _check_flag(flag, "imread")
    path = os.path.expanduser(os.fspath(filename))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise MXNetError(f"imread: couldn't open file {path!r}: {err.strerror or err}") from None
    arr = _decode_pil(data, flag, to_rgb, f"imread({path!r})")
    res = _like(arr, None)
    if out is not None:
        out[:] = res
        return out
    return res


# ---- resizing (OpenCV's cv::resize for nearest and bilinear) -----------------------------------
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


def _resize_np(arr, w, h, interp=1):
    """Resize a NumPy HWC (or HW) image to width ``w`` and height ``h`` (see the module notes)."""
    w, h = int(w), int(h)
    if w <= 0 or h <= 0:
        raise MXNetError(f"imresize: expected a positive output size (w, h), got ({w}, {h})")
    if arr.ndim not in (2, 3) or 0 in arr.shape[:2]:
        raise MXNetError(f"imresize: expected an image (H, W, C) with H, W > 0, got shape {arr.shape}")
    squeeze = arr.ndim == 2
    if squeeze:
        arr = arr[:, :, None]
    interp = _get_interp_method(interp, (arr.shape[0], arr.shape[1], h, w))
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
    arr = _to_numpy(src, "imresize")
    res = _like(_resize_np(arr, w, h, interp), src)
    if out is not None:
        out[:] = res
        return out
    return res


def _get_interp_method(interp, sizes=()):
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


def _hwc(src, where):
    if len(src.shape) != 3:
        raise MXNetError(f"{where}: expected an image (H, W, C), got shape {tuple(src.shape)}")
    return src.shape


def resize_short(src, size, interp=2):
    """Resize so that the shorter edge is ``size`` (the longer one scaled, rounded down).

    Example::

        >>> import hybridlab as mx
        >>> mx.image.resize_short(mx.nd.zeros((10, 7, 3), dtype='uint8'), 4).shape
        (5, 4, 3)
    """
    h, w, _ = _hwc(src, "resize_short")
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop ``src[y0:y0+h, x0:x0+w]`` and, if ``size`` (w, h) differs, resize to it.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> img = mx.nd.array(np.arange(20).reshape(4, 5, 1), dtype='uint8')
        >>> mx.image.fixed_crop(img, 1, 2, 3, 2).asnumpy()[:, :, 0].tolist()
        [[11, 12, 13], [16, 17, 18]]
    """
    _hwc(src, "fixed_crop")
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
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
    h, w, _ = _hwc(src, "random_crop")
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """Crop the centred ``size`` (w, h) window (upsampled when ``src`` is smaller); returns
    ``(image, (x0, y0, w, h))`` (see the module example)."""
    h, w, _ = _hwc(src, "center_crop")
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
    h, w, _ = _hwc(src, "random_size_crop")
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


# ---- rotation (MXNet's imrotate: a rotated sampling grid and BilinearSampler) ----------------------
def _bilinear_sample(img, gx, gy):
    """BilinearSampler on one CHW image: grid in [-1, 1], zero outside the image."""
    c, h, w = img.shape
    x = (gx + 1) * (w - 1) / 2
    y = (gy + 1) * (h - 1) / 2
    x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    out = np.zeros((c,) + gx.shape, dtype=np.float32)
    for dy in (0, 1):
        for dx in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            wgt = (1 - np.abs(x - xi)) * (1 - np.abs(y - yi))
            ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            vals = img[:, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
            out += np.where(ok, wgt, 0).astype(np.float32) * vals
    return out


def _rotate_np(img, degrees, zoom_in, zoom_out):
    _, h, w = img.shape
    rad = np.float32(np.pi * degrees / 180)
    hs, ws = (h - 1) / 2, (w - 1) / 2
    hm = np.repeat(np.arange(h, dtype=np.float32).reshape(h, 1), w, axis=1) - hs
    wm = np.repeat(np.arange(w, dtype=np.float32).reshape(1, w), h, axis=0) - ws
    c, s = np.cos(rad), np.sin(rad)
    gx = (wm * c - hm * s) / ws if ws else np.zeros_like(wm)
    gy = (wm * s + hm * c) / hs if hs else np.zeros_like(hm)
    if zoom_in or zoom_out:
        rho, ang = np.sqrt(h * h + w * w), np.arctan(h / w)
        mx_ = max(abs(rho * np.cos(ang + abs(rad))), abs(rho * np.cos(ang - abs(rad))))
        my_ = max(abs(rho * np.sin(ang + abs(rad))), abs(rho * np.sin(ang - abs(rad))))
        scale = max(mx_ / w, my_ / h) if zoom_out else min(w / mx_, h / my_)
        gx, gy = gx * scale, gy * scale
    return _bilinear_sample(img.astype(np.float32), gx, gy)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate a float32 CHW image (or NCHW batch) by ``rotation_degrees`` (a scalar, or one angle
    per image), bilinear, zero outside; ``zoom_in`` crops away the padding, ``zoom_out`` keeps the
    whole image.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> img = mx.nd.array(np.arange(9, dtype='float32').reshape(1, 3, 3))
        >>> mx.image.imrotate(img, 180).asnumpy()[0].round(4).tolist()
        [[8.0, 7.0, 6.0], [5.0, 4.0, 3.0], [2.0, 1.0, 0.0]]
    """
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype != np.float32:
        raise TypeError(f"Only `float32` images are supported by this function, got {src.dtype}")
    arr = src.asnumpy()
    single = arr.ndim == 3
    if single:
        if not isinstance(rotation_degrees, (int, float, np.number)):
            raise TypeError("When a single image is passed the rotation angle is required to be a scalar, "
                            f"got {type(rotation_degrees).__name__}")
        arr = arr[None]
    elif arr.ndim != 4:
        raise ValueError(f"Only 3D (C, H, W) and 4D (N, C, H, W) are supported by this function, got shape "
                         f"{arr.shape}")
    if isinstance(rotation_degrees, (int, float, np.number)):
        angles = [float(rotation_degrees)] * len(arr)
    else:
        angles = np.asarray(_to_numpy(rotation_degrees, "imrotate")).reshape(-1).tolist()
    if len(angles) != len(arr):
        raise ValueError(f"The number of images must be equal to the number of rotation angles: {len(arr)} "
                         f"images, {len(angles)} angles")
    out = np.stack([_rotate_np(im, a, zoom_in, zoom_out) for im, a in zip(arr, angles)])
    return _like(out[0] if single else out, src)


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """Rotate by an angle drawn uniformly from ``angle_limits`` (NumPy's global ``np.random``, as
    MXNet), one per image of a batch.

    Example::

        >>> import hybridlab as mx
        >>> mx.image.random_rotate(mx.nd.ones((2, 3, 4, 4)), (-30, 30)).shape
        (2, 3, 4, 4)
    """
    if len(src.shape) == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = np.random.uniform(*angle_limits, size=src.shape[0])
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)
