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
from .crop import center_crop, color_normalize, fixed_crop, random_crop, random_size_crop
from .decode import imdecode, imread
from .resize import imresize, resize_short, scale_down
from .rotate import imrotate, random_rotate

__all__ = ["imdecode", "imread", "imresize", "scale_down", "resize_short", "fixed_crop", "random_crop",
           "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate"]
