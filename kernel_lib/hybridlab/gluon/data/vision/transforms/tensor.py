"""The transforms written with graph operators, so the only ones that hybridize here: ``Cast``,
``ToTensor`` (HWC in [0, 255] -> CHW float32 in [0, 1]) and ``Normalize`` (per-channel mean/std).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(transforms.ToTensor(), transforms.Normalize(0.5, 0.5))
    >>> net.hybridize()
    >>> float(net(mx.nd.full((2, 2, 3), 255, dtype='uint8')).asnumpy().max())
    1.0
"""
import numpy as np

from ..... import ndarray as _nd
from .....base import MXNetError
from .....ndarray.ndarray import NDArray
from ....hybrid_block import HybridBlock

__all__ = ["Cast", "ToTensor", "Normalize"]


class Cast(HybridBlock):
    """Cast to ``dtype`` (default float32).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.Cast('float16')(mx.nd.ones((1, 1, 3), dtype='uint8')).dtype
        dtype('float16')
    """

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """``(H, W, C)`` or ``(N, H, W, C)`` in [0, 255] -> float32 ``(C, H, W)`` / ``(N, C, H, W)`` in
    [0, 1] (any input dtype is divided by 255).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> transforms.ToTensor()(mx.nd.ones((4, 5, 6, 3), dtype='uint8')).shape
        (4, 3, 5, 6)
    """

    def hybrid_forward(self, F, x):
        if isinstance(x, NDArray) and len(x.shape) not in (3, 4):
            raise MXNetError(f"ToTensor: expected an image (H, W, C) or a batch (N, H, W, C), got shape {x.shape}")
        chw = F.swapaxes(F.swapaxes(F.cast(x, dtype="float32"), dim1=-1, dim2=-3), dim1=-1, dim2=-2)
        return chw / 255.0


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel (axis 0 of CHW, 1 of NCHW); scalars apply to every channel.

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.Normalize(mean=(0, 1, 2), std=(1, 2, 4))
        >>> t(mx.nd.ones((3, 1, 1))).asnumpy().ravel().tolist()
        [1.0, 0.0, -0.25]
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def _values(self, v, what, c):
        v = np.asarray(v, dtype="float32").reshape(-1)
        if c is not None and v.size not in (1, c):
            raise MXNetError(f"Normalize: {what} expected 1 or {c} values (one per channel), got {v.size}")
        return v

    def hybrid_forward(self, F, x):
        c = None
        if isinstance(x, NDArray):
            if len(x.shape) not in (3, 4):
                raise MXNetError(f"Normalize: expected (C, H, W) or (N, C, H, W), got shape {x.shape}")
            c = x.shape[-3]
        mean, std = self._values(self._mean, "mean", c), self._values(self._std, "std", c)
        if F is _nd:
            def const(v):
                return _nd.array(np.broadcast_to(v.reshape(-1, 1, 1), (c, 1, 1)).copy(), device=x.device)
        else:
            # building the graph: no shapes known, so the constants are full() nodes, one per channel
            def const(v):
                parts = [F.full(shape=(1, 1, 1), val=float(s)) for s in v]
                return parts[0] if len(parts) == 1 else F.concat(*parts, dim=0)
        return F.broadcast_div(F.broadcast_sub(x, const(mean)), const(std))
