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

This package only re-exports MXNet's names; they live, one concept per file, in:
``compose`` (``Compose``, ``RandomApply``), ``tensor`` (``Cast``, ``ToTensor``, ``Normalize``),
``geometry`` (resizes, crops, flips), ``rotation`` (``Rotate``, ``RandomRotation``) and ``color``
(the colour jitters and lighting); ``_image_block`` holds what the NumPy-computed ones share.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.Resize(4), transforms.ToTensor(), transforms.Normalize(0.5, 0.5)])
    >>> out = t(mx.nd.array(np.full((8, 6, 3), 255), dtype='uint8'))
    >>> out.shape, float(out.asnumpy().max())
    ((3, 4, 4), 1.0)
"""
from .compose import Compose, RandomApply
from .tensor import Cast, ToTensor, Normalize
from .geometry import (Resize, CropResize, CenterCrop, RandomResizedCrop, RandomFlipLeftRight,
                       RandomFlipTopBottom)
from .rotation import Rotate, RandomRotation
from .color import (RandomBrightness, RandomContrast, RandomSaturation, RandomHue, RandomColorJitter,
                    RandomLighting)

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Rotate", "RandomRotation", "RandomResizedCrop",
           "CropResize", "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "RandomApply"]
