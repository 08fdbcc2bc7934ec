"""``MNISTIter``: batches of MNIST's idx files (``train-images-idx3-ubyte``, ``...-labels-idx1-ubyte``),
as MXNet 1.9.1's C++ iterator gives them.

* images as float32 ``pixel / 256`` (MXNet's scaling), shape (batch, 1, rows, cols), or
  (batch, rows * cols) with ``flat=True``; labels as float32, shape (batch,);
* only whole batches (the samples of a last partial batch are not read);
* ``shuffle=True`` (the default) orders the samples once, at load, as MXNet: ``std::shuffle`` with
  ``std::mt19937(seed)`` (libstdc++), so the same ``seed`` gives MXNet's order;
* ``num_parts`` / ``part_index``: read only samples ``[int(n / parts * i), int(n / parts * (i + 1)))``
  (each distributed worker its own part: ``num_parts=kv.num_workers, part_index=kv.rank``).

The files are untrusted input: a wrong magic number, a count the file does not hold or a short read
is an ``MXNetError`` naming the file; memory is bounded by the file's size.

Example::

    >>> import os, struct, tempfile
    >>> import numpy as np
    >>> import hybridlab as mx
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, 'img'), 'wb') as f:
    ...     _ = f.write(struct.pack('>IIII', 2051, 4, 2, 2) + bytes(range(16)))
    >>> with open(os.path.join(d, 'lbl'), 'wb') as f:
    ...     _ = f.write(struct.pack('>II', 2049, 4) + bytes([7, 8, 9, 6]))
    >>> it = mx.io.MNISTIter(image=os.path.join(d, 'img'), label=os.path.join(d, 'lbl'), batch_size=2,
    ...                      shuffle=False, flat=True, silent=True)
    >>> [(b.data[0].shape, b.label[0].asnumpy().tolist()) for b in it]
    [((2, 4), [7.0, 8.0]), ((2, 4), [9.0, 6.0])]
"""
import os
import struct

import numpy as np

from ..base import MXNetError
from .batch import DataDesc
from .ndarray_iter import DataIter

__all__ = ["MNISTIter"]

_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def _mt19937_words(seed):
    """The 32-bit outputs of C++'s ``std::mt19937(seed)`` (NumPy's legacy seeding is the same)."""
    bits = np.random.RandomState(seed & 0xFFFFFFFF)._bit_generator
    while True:
        yield int(bits.random_raw())


def std_shuffle_order(n, seed):
    """The permutation libstdc++'s ``std::shuffle(v.begin(), v.end(), std::mt19937(seed))`` makes of
    ``range(n)``: Fisher-Yates, each index drawn by ``uniform_int_distribution`` (rejection, then
    division by the scaling)."""
    order = list(range(n))
    words = _mt19937_words(seed)
    for i in range(1, n):
        scaling = 0xFFFFFFFF // (i + 1)
        past = (i + 1) * scaling
        while True:
            w = next(words)
            if w < past:
                break
        j = w // scaling
        order[i], order[j] = order[j], order[i]
    return order


def _read_idx(path, magic, what, num_parts, part_index):
    """(samples of this part as uint8 (count, ...), dims) of an idx file."""
    try:
        size = os.path.getsize(path)
        f = open(path, "rb")
    except OSError as err:
        raise MXNetError(f"MNISTIter: {what} {path!r}: cannot open it ({err.strerror})") from None
    with f:
        ndim = 3 if magic == _IMAGE_MAGIC else 1
        head = f.read(4 * (1 + ndim))
        if len(head) != 4 * (1 + ndim):
            raise MXNetError(f"MNISTIter: {what} {path!r}: expected a {4 * (1 + ndim)}-byte idx header, got "
                             f"{len(head)} bytes")
        got_magic, count, *dims = struct.unpack(f">I{ndim}I", head)
        if got_magic != magic:
            raise MXNetError(f"MNISTIter: {what} {path!r}: expected the idx magic number {magic}, got {got_magic} "
                             "(not an MNIST file of this kind)")
        per = int(np.prod(dims, dtype=np.int64))
        if count * per > size - len(head):
            raise MXNetError(f"MNISTIter: {what} {path!r}: the header announces {count} samples of {per} bytes, "
                             f"but the file holds {size - len(head)} bytes after it")
        start = int(count / num_parts * part_index)
        end = int(count / num_parts * (part_index + 1))
        f.seek(start * per, os.SEEK_CUR)
        data = np.frombuffer(f.read((end - start) * per), dtype=np.uint8)
    return data.reshape((end - start,) + tuple(dims)), count


class MNISTIter(DataIter):
    """Batches of the MNIST ``image`` / ``label`` idx files; see the module docstring. Accepted and
    unused (MXNet's prefetcher settings, and the ``input_shape`` its ``get_mnist_iterator`` passes):
    ``prefetch_buffer``, ``ctx``, ``dtype``, ``input_shape``."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte", batch_size=128,
                 shuffle=True, flat=False, seed=0, silent=False, num_parts=1, part_index=0, data_name="data",
                 label_name="softmax_label", **kwargs):
        unknown = set(kwargs) - {"prefetch_buffer", "ctx", "dtype", "input_shape"}
        if unknown:
            raise MXNetError(f"MNISTIter: unknown arguments {sorted(unknown)}; expected image, label, batch_size, "
                             "shuffle, flat, seed, silent, num_parts, part_index")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetError(f"MNISTIter: batch_size: expected an int >= 1, got {batch_size!r}")
        if not (isinstance(num_parts, (int, np.integer)) and isinstance(part_index, (int, np.integer))
                and 0 <= part_index < num_parts):
            raise MXNetError(f"MNISTIter: expected num_parts >= 1 and 0 <= part_index < num_parts, got "
                             f"num_parts={num_parts!r}, part_index={part_index!r}")
        super().__init__(int(batch_size))
        images, _ = _read_idx(image, _IMAGE_MAGIC, "image", num_parts, part_index)
        labels, _ = _read_idx(label, _LABEL_MAGIC, "label", num_parts, part_index)
        if len(labels) != len(images):
            raise MXNetError(f"MNISTIter: label {label!r}: expected one label for each of the {len(images)} images, "
                             f"got {len(labels)}")
        if shuffle:
            order = np.array(std_shuffle_order(len(labels), int(seed)), dtype=np.int64)
            images, labels = images[order], labels[order]
        self._images = images.astype(np.float32) * np.float32(1 / 256)
        self._labels = labels.astype(np.float32)
        rows, cols = images.shape[1:]
        self._shape = (rows * cols,) if flat else (1, rows, cols)
        self._names = (data_name, label_name)
        self._loc = 0
        if not silent:
            print(f"MNISTIter: load {len(images)} images, shuffle={int(bool(shuffle))}, "
                  f"shape=({self.batch_size},{','.join(map(str, self._shape))})")

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self.batch_size,) + self._shape, np.float32)]

    @property
    def provide_label(self):
        return [DataDesc(self._names[1], (self.batch_size,), np.float32)]

    def reset(self):
        self._loc = 0

    def iter_next(self):
        if self._loc + self.batch_size > len(self._images):
            return False
        self._batch = slice(self._loc, self._loc + self.batch_size)
        self._loc += self.batch_size
        return True

    def getdata(self):
        from ..ndarray.ndarray import array
        return [array(self._images[self._batch].reshape((self.batch_size,) + self._shape))]

    def getlabel(self):
        from ..ndarray.ndarray import array
        return [array(self._labels[self._batch])]

    def getindex(self):
        return np.arange(self._batch.start, self._batch.stop, dtype=np.uint64)
