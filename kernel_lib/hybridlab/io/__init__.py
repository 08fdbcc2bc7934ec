"""``mx.io``: MXNet 1.x's data iterators for the symbolic Module API: ``DataDesc`` (a named input
shape), ``DataBatch`` (one batch of data and labels) and ``NDArrayIter`` (batches from in-memory
arrays, with MXNet's last-batch handling), ``CSVIter`` (batches streamed from CSV files),
``MNISTIter`` (MNIST's idx files, with MXNet's shuffle order and per-worker parts), ``ResizeIter``
(a fixed number of batches per epoch), ``PrefetchingIter`` (the next batches read in threads) and
``ImageRecordIter`` (images of a RecordIO file, decoded and cropped as MXNet's C++ iterator).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> it = mx.io.NDArrayIter(np.zeros((5, 2)), np.arange(5), batch_size=2)
    >>> it.provide_data, it.provide_label
    ([DataDesc[data,(2, 2),<class 'numpy.float32'>,NCHW]], [DataDesc[softmax_label,(2,),<class 'numpy.float32'>,NCHW]])
    >>> [(b.data[0].shape, b.pad) for b in it]
    [((2, 2), 0), ((2, 2), 0), ((2, 2), 1)]
"""
from .batch import DataBatch, DataDesc  # noqa: F401
from .csv_iter import CSVIter  # noqa: F401
from .image_record_iter import ImageRecordIter  # noqa: F401
from .mnist_iter import MNISTIter  # noqa: F401
from .ndarray_iter import DataIter, NDArrayIter  # noqa: F401
from .prefetching_iter import PrefetchingIter  # noqa: F401
from .resize_iter import ResizeIter  # noqa: F401

__all__ = ["CSVIter", "DataBatch", "DataDesc", "DataIter", "ImageRecordIter", "MNISTIter", "NDArrayIter",
           "PrefetchingIter", "ResizeIter"]
