"""Transforms made of transforms: ``Compose`` (apply in order) and ``RandomApply`` (apply with a
probability), both Sequentials as in MXNet.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.data.vision import transforms
    >>> t = transforms.Compose([transforms.Cast('float32'), lambda x: x * 2])
    >>> t(mx.nd.ones((1, 1, 3), dtype='uint8')).asnumpy().ravel().tolist()
    [2.0, 2.0, 2.0]
"""
import random

from ....block import Block
from ....hybrid_block import HybridBlock
from ....nn import Sequential, HybridSequential

__all__ = ["Compose", "RandomApply"]


class Compose(Sequential):
    """Apply ``transforms`` in order (runs of HybridBlocks are grouped into a HybridSequential,
    as MXNet does; plain functions are accepted too).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.Compose([transforms.Cast('float32'), transforms.ToTensor()])
        >>> t(mx.nd.ones((2, 2, 3), dtype='uint8')).shape
        (3, 2, 2)
    """

    def __init__(self, transforms):
        super().__init__()
        hybrid = []
        with self.name_scope():
            for t in list(transforms) + [None]:
                if isinstance(t, HybridBlock):
                    hybrid.append(t)
                    continue
                if len(hybrid) == 1:
                    self.add(hybrid[0])
                elif len(hybrid) > 1:
                    group = HybridSequential()
                    group.add(*hybrid)
                    self.add(group)
                hybrid = []
                if t is not None:
                    self.add(t if isinstance(t, Block) else _FnBlock(t))


class _FnBlock(Block):
    """A plain function as a Block, so ``Compose`` can hold it as a child."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, x, *args):
        return self._fn(x, *args)


class RandomApply(Sequential):
    """Apply ``transforms`` (a Block) with probability ``p`` (Python's ``random``).

    Example::

        >>> import hybridlab as mx
        >>> from hybridlab.gluon.data.vision import transforms
        >>> t = transforms.RandomApply(transforms.Cast('float16'), p=0.0)
        >>> t(mx.nd.ones((1, 1, 3), dtype='uint8')).dtype
        dtype('uint8')
    """

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)
