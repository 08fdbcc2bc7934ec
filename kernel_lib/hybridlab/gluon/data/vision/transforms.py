"""Image transforms as Blocks (MXNet 1.9's ``gluon.data.vision.transforms`` basics): ``ToTensor``
(HWC uint8 in [0, 255] -> CHW float32 in [0, 1]; NHWC -> NCHW), ``Normalize`` (per channel
``(x - mean) / std`` on CHW / NCHW), ``Cast`` and ``Compose``.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.5, 0.5)])
    >>> t(mx.nd.array(np.full((1, 1, 3), 255), dtype='uint8')).asnumpy().ravel().tolist()
    [1.0, 1.0, 1.0]
"""
import numpy as np

from .... import ndarray as nd
from ....base import MXNetError
from ...block import Block
from ...nn import Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize"]


class Compose(Sequential):
    """Apply ``transforms`` in order."""

    def __init__(self, transforms):
        super().__init__()
        with self.name_scope():
            for t in transforms:
                self.add(t if isinstance(t, Block) else _FnBlock(t))


class _FnBlock(Block):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x, *args):
        return self._fn(x, *args)


class Cast(Block):
    """Cast to ``dtype``."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def forward(self, x, *args):
        return x.astype(self._dtype)


class ToTensor(Block):
    """``(H, W, C)`` or ``(N, H, W, C)`` in [0, 255] -> float32 ``(C, H, W)`` / ``(N, C, H, W)`` in [0, 1]."""

    def forward(self, x, *args):
        if len(x.shape) not in (3, 4):
            raise MXNetError(f"ToTensor: expected an image (H, W, C) or a batch (N, H, W, C), got shape {x.shape}")
        axes = (2, 0, 1) if len(x.shape) == 3 else (0, 3, 1, 2)
        return nd.transpose(x.astype("float32"), axes=axes) / 255.0


class Normalize(Block):
    """``(x - mean) / std`` per channel (axis 0 of CHW, 1 of NCHW); scalars apply to every channel."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def forward(self, x, *args):
        if len(x.shape) not in (3, 4):
            raise MXNetError(f"Normalize: expected (C, H, W) or (N, C, H, W), got shape {x.shape}")
        c = x.shape[-3]
        shape = (c, 1, 1)

        def per_channel(v, what):
            v = np.asarray(v, dtype="float32").reshape(-1)
            if v.size not in (1, c):
                raise MXNetError(f"Normalize: {what} expected 1 or {c} values (one per channel), got {v.size}")
            return nd.array(np.broadcast_to(v.reshape(-1, 1, 1), shape).copy(), device=x.device)

        return nd.broadcast_div(nd.broadcast_sub(x, per_channel(self._mean, "mean")), per_channel(self._std, "std"))
