"""``DataDesc`` (an input's name, shape, dtype and layout) and ``DataBatch`` (the arrays of one
batch), as in MXNet 1.x's ``mx.io``.

Example::

    >>> import hybridlab as mx
    >>> d = mx.io.DataDesc('data', (32, 3, 28, 28))
    >>> d.name, d.shape, d.dtype, d.layout, mx.io.DataDesc.get_batch_axis(d.layout)
    ('data', (32, 3, 28, 28), <class 'numpy.float32'>, 'NCHW', 0)
"""
from collections import namedtuple

import numpy as np

__all__ = ["DataDesc", "DataBatch"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named input shape (a ``(name, shape)`` tuple, as MXNet's) with ``dtype`` and ``layout``."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        desc = super().__new__(cls, name, tuple(shape))
        desc.dtype, desc.layout = dtype, layout
        return desc

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The position of 'N' in ``layout`` (0 when there is no layout)."""
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``(name, shape)`` pairs and, optionally, ``(name, dtype)`` pairs."""
        dtypes = dict(types) if types is not None else {}
        return [DataDesc(name, shape, dtypes.get(name, np.float32)) for name, shape in shapes]


def as_descs(shapes, what):
    """A list of DataDesc from DataDescs or ``(name, shape)`` pairs (``None``: none)."""
    from ..base import MXNetError
    if shapes is None:
        return []
    descs = []
    for entry in shapes:
        if isinstance(entry, DataDesc):
            descs.append(entry)
        elif isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str):
            descs.append(DataDesc(entry[0], entry[1]))
        else:
            raise MXNetError(f"{what}: expected DataDesc or (name, shape) pairs, got {entry!r}")
    return descs


class DataBatch:
    """One batch: ``data`` and ``label`` (lists of NDArrays), ``pad`` (how many samples at the end
    repeat earlier ones to fill the batch), ``index``, ``bucket_key`` and the descriptions
    ``provide_data`` / ``provide_label``."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            data = [data]
        if label is not None and not isinstance(label, (list, tuple)):
            label = [label]
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.bucket_key, self.provide_data, self.provide_label = bucket_key, provide_data, provide_label

    def __str__(self):
        data = [d.shape for d in self.data or []]
        label = [d.shape for d in self.label] if self.label else None    # MXNet: None when no labels
        return f"{type(self).__name__}: data shapes: {data} label shapes: {label}"
