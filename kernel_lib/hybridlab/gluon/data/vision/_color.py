"""NumPy kernels of MXNet 1.9.1's colour operators (``mx.nd.image.random_brightness`` & co.) on one
HWC image with 1 or 3 channels. The arithmetic is float32; integer images are truncated and
saturated back to their dtype (MXNet's ``saturate_cast``), float images are not clipped.

MXNet quirks kept, so results equal MXNet's:
* saturation blends each pixel with ``0.114 * B`` (MXNet's grey value keeps only the last term of
  ``0.299 R + 0.587 G + 0.114 B``);
* contrast uses the mean of ``0.299 R + 0.587 G + 0.114 B`` over the image (the plain mean for one
  channel).
Quirks not kept: on one-channel images MXNet's hue and lighting return uninitialised memory; here
they return the image unchanged.

Example::

    >>> import numpy as np
    >>> from hybridlab.gluon.data.vision import _color
    >>> _color.brightness(np.array([[[200, 10, 100]]], dtype=np.uint8), 1.5).tolist()
    [[[255, 15, 150]]]
"""
import numpy as np

from ....base import MXNetError

__all__ = ["brightness", "contrast", "saturation", "hue", "lighting", "color_jitter", "check_image"]

_COEF = np.array([0.299, 0.587, 0.114], dtype=np.float32)
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=np.float32)
_HLS_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def check_image(shape, where):
    """MXNet's check: one image ``(H, W, C)`` with C = 1 or 3."""
    if len(shape) != 3:
        raise MXNetError(f"{where}: input image must have shape (height, width, channels), got {tuple(shape)}"
                         + (" (a batch: apply it to each image)" if len(shape) == 4 else ""))
    if shape[2] not in (1, 3):
        raise MXNetError(f"{where}: the last dimension of the input image must be the channel dimension with "
                         f"1 or 3 elements, got shape {tuple(shape)}")


def _cast(out, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.trunc(np.clip(out, info.min, info.max)).astype(dtype)
    return out.astype(dtype)


def brightness(img, alpha):
    """``img * alpha``."""
    return _cast(img.astype(np.float32) * np.float32(alpha), img.dtype)


def contrast(img, alpha):
    """``img * alpha + (1 - alpha) * mean grey``."""
    f = img.astype(np.float32)
    grey = f.mean(dtype=np.float32) if f.shape[2] == 1 else (f * _COEF).sum(axis=2).mean(dtype=np.float32)
    return _cast(f * np.float32(alpha) + np.float32(1 - alpha) * np.float32(grey), img.dtype)


def saturation(img, alpha):
    """``img * alpha + (1 - alpha) * 0.114 * B`` per pixel (MXNet's grey value, see the module notes)."""
    if img.shape[2] == 1:
        return img.copy()
    f = img.astype(np.float32)
    grey = f[:, :, 2:3] * _COEF[2]
    return _cast(f * np.float32(alpha) + grey * np.float32(1 - alpha), img.dtype)


def _rgb_to_hls(r, g, b):
    vmax = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = vmax - vmin
    l = (vmax + vmin) * np.float32(0.5)
    ok = diff > np.finfo(np.float32).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(l < 0.5, diff / (vmax + vmin), diff / (np.float32(2) - vmax - vmin))
        d = np.float32(60) / diff
        h = np.where(vmax == r, (g - b) * d,
                     np.where(vmax == g, (b - r) * d + np.float32(120), (r - g) * d + np.float32(240)))
    h = np.where(h < 0, h + np.float32(360), h)
    return np.where(ok, h, 0).astype(np.float32), l, np.where(ok, s, 0).astype(np.float32)


def _hls_to_rgb(h, l, s):
    p2 = np.where(l <= 0.5, l * (1 + s), l + s - l * s).astype(np.float32)
    p1 = 2 * l - p2
    h = np.mod(h * np.float32(1 / 60), np.float32(6)).astype(np.float32)
    sector = np.minimum(h.astype(np.int64), 5)
    h = h - sector
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h])
    idx = _HLS_SECTORS[sector]                                # (..., 3): indices of b, g, r
    pick = [np.take_along_axis(tab, idx[None, ..., k], axis=0)[0] for k in range(3)]
    return pick[2], pick[1], pick[0]


def hue(img, alpha):
    """Rotate the hue by ``alpha * 360`` degrees in HLS space (lightness and saturation kept)."""
    if img.shape[2] == 1:
        return img.copy()
    f = img.astype(np.float32) / np.float32(255)
    h, l, s = _rgb_to_hls(f[:, :, 0], f[:, :, 1], f[:, :, 2])
    r, g, b = _hls_to_rgb(h + np.float32(alpha) * np.float32(360), l, s)
    return _cast(np.stack([r, g, b], axis=2) * np.float32(255), img.dtype)


def lighting(img, alpha):
    """AlexNet's PCA lighting noise: add ``eig @ alpha`` (ImageNet eigenvectors scaled by eigenvalues)."""
    if img.shape[2] == 1:
        return img.copy()
    pca = _EIG @ np.asarray(alpha, dtype=np.float32).reshape(3)
    return _cast(img.astype(np.float32) + pca.astype(np.float32), img.dtype)


def color_jitter(img, brightness_, contrast_, saturation_, hue_, rng):
    """MXNet's random_color_jitter: the four adjustments in a random order, each only when its
    amount is > 0, with factors ``1 + U(-amount, amount)`` (hue: ``U(-hue, hue)``)."""
    steps = {0: (brightness_, brightness, 1.0), 1: (contrast_, contrast, 1.0),
             2: (saturation_, saturation, 1.0), 3: (hue_, hue, 0.0)}
    for k in rng.permutation(4):
        amount, fn, base = steps[int(k)]
        if amount > 0:
            img = fn(img, base + rng.uniform(-amount, amount))
    return img
