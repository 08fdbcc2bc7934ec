"""Decoding images (``imdecode``, ``imread``) with Pillow: lossless formats give MXNet's pixels; JPEG
may differ by a few levels from OpenCV's; grey conversion uses ITU-R 601 weights as OpenCV does."""
import io
import os

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from .arrays import like

__all__ = ["imdecode", "imread"]


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
    res = like(arr, None)
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
    res = like(arr, None)
    if out is not None:
        out[:] = res
        return out
    return res
