"""Rotation (MXNet's ``imrotate``, ``random_rotate``): a rotated sampling grid read by bilinear
sampling, as MXNet's BilinearSampler does."""
import numpy as np

from .arrays import like, to_numpy

__all__ = ["imrotate", "random_rotate"]


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
        angles = np.asarray(to_numpy(rotation_degrees, "imrotate")).reshape(-1).tolist()
    if len(angles) != len(arr):
        raise ValueError(f"The number of images must be equal to the number of rotation angles: {len(arr)} "
                         f"images, {len(angles)} angles")
    out = np.stack([_rotate_np(im, a, zoom_in, zoom_out) for im, a in zip(arr, angles)])
    return like(out[0] if single else out, src)


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
