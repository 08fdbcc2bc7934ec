"""What ``print``, ``repr`` and ``format`` show of an NDArray: MXNet 1.x's layout for ``mx.nd`` arrays
(the values, then ``<NDArray 2x2 @cpu(0)>``), NumPy's for ``mx.np`` arrays (``array([...])``, the
device named when it is not the current one), and a placeholder for an array being traced, which
has a shape and a dtype but no values. ``NDArrayPrinting`` is a mixin that ``NDArray`` inherits.

Example::

    >>> import hybridlab as mx
    >>> print(mx.nd.array([1, 2]))
    <BLANKLINE>
    [1. 2.]
    <NDArray 2 @cpu(0)>
    >>> mx.np.array([1, 2]), mx.np.array([1, 2], dtype="int32")
    (array([1., 2.]), array([1, 2], dtype=int32))
    >>> print(mx.np.array([1, 2]))
    [1. 2.]
    >>> f"{mx.nd.array([2]):.2f}", f"{mx.np.array(2):.2f}", f"{mx.np.array([2])}"
    ('2.00', '2.00', '[2.]')
"""
import re

import numpy as np

from ..device import current_device
# ndarray.py defines this helper before it imports this module
from .ndarray import _tracing_placeholder

__all__ = ["NDArrayPrinting"]


class NDArrayPrinting:
    """``__repr__``, ``__str__`` and ``__format__`` of ``NDArray`` (a mixin: it reads the array's
    ``_data``, ``_device`` and ``_np``)."""

    __slots__ = ()    # NDArray declares the slots

    def __repr__(self):
        if _tracing_placeholder(self):
            return f"<NDArray {self.shape} {self.dtype} (no value while tracing)>"
        if self._np:
            text = _np_repr(self.asnumpy())
            if self._device != current_device() or self._device.is_gpu:
                text = text[:-1] + f", device={self._device})"
            return text
        shape = "x".join(str(d) for d in self.shape)
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self._device}>"

    def __str__(self):
        if self._np:     # as MXNet's mx.np: NumPy's text, the device added for a GPU array (not a 0-d one)
            text = str(self.asnumpy())
            return f"{text} @{self._device}" if self._device.is_gpu and self.ndim else text
        return self.__repr__()

    def __format__(self, spec):
        if self._np:     # as MXNet's mx.np: a 0-d array formats its value, others only with an empty spec
            if self.ndim == 0:
                return format(self.item(), spec)
            if spec:
                raise TypeError(f"Cannot format mxnet.numpy.ndarray with format_spec: expected an empty "
                                f"spec for an array of shape {self.shape}, got {spec!r}")
            return str(self)
        if spec and self.size == 1:
            return format(self.item(), spec)
        return str(self)


def _np_repr(values):
    """MXNet's repr of an ``mx.np`` array: NumPy's, with float32 (mx.np's default dtype) unnamed and
    every other dtype named (NumPy leaves out float64 and int64), without NumPy 2's ``shape=``."""
    text = re.sub(r",\s*shape=\([0-9, ]*\)", "", repr(values))
    if values.dtype == np.float32:
        return text.replace(", dtype=float32)", ")")
    if "dtype=" not in text:
        text = text[:-1] + f", dtype={values.dtype})"
    return text
