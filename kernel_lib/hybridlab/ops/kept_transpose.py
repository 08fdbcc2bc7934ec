"""Row-major copies of dense layers' transposed weights, kept between calls for as long as nobody
writes the weights: what a predict program's ``FullyConnected`` multiplies by (``dot(x, wt)``
instead of ``dot(x, w.T)``). OpenBLAS's product with a transposed operand is slower than with a
row-major one on some CPUs (an AVX-512 EPYC: 222 vs 175 us for (64, 512) x (512, 256), 86 vs 34 us
at batch 8; equal at batch 1024), and hand-written NumPy keeps its weights that way.

Validity comes from ``write_versions`` as for oneDNN's reordered convolution weights
(``ops/dnnl/weight_cache.py``): every in-place write of an NDArray counts (optimizer steps,
``set_data``, ``x[:] = ...``, ``out=``, ``copyto``, kvstore pulls), so a copy is made again after
the first write. An entry goes with its weight (a weak reference); at most :data:`MAX_ENTRIES`
copies of :data:`MAX_BYTES` in all are kept (least recently used dropped first), and a weight of
more than a quarter of that is not copied (VGG's first dense layer is 411 MB: its transposed view is
used, as are those of arrays shared with foreign code through DLPack).

Example::

    >>> import numpy as np
    >>> from hybridlab import write_versions
    >>> w = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> t = transposed(w)
    >>> t.flags.c_contiguous, np.array_equal(t, w.T), transposed(w) is t     # kept
    (True, True, True)
    >>> w[0, 0] = 7.0; write_versions.wrote(w)          # (NDArray writes report themselves)
    >>> float(transposed(w)[0, 0])
    7.0
"""
import collections
import threading
import weakref

import numpy as np

from .. import write_versions

__all__ = ["transposed", "held", "clear", "MAX_ENTRIES", "MAX_BYTES"]

MAX_ENTRIES = 1024
MAX_BYTES = 256 << 20

_entries = collections.OrderedDict()      # id(weight) -> _Entry
_lock = threading.RLock()      # (a weight dying inside a locked section drops its entry)
_held_bytes = [0]


class _Entry:
    __slots__ = ("ref", "token", "version", "copy")


def _forget(entry):
    write_versions.unwatch(entry.token)
    _held_bytes[0] -= 0 if entry.copy is None else entry.copy.nbytes


def _drop(key, ref=None):
    with _lock:
        entry = _entries.get(key)
        if entry is not None and (ref is None or entry.ref is ref):
            del _entries[key]
            _forget(entry)


def transposed(w):
    """``w.T`` of the 2-d NumPy array ``w`` as a row-major array kept until ``w`` is written (see the
    module docstring); the caller only reads it."""
    key = id(w)
    entry = _entries.get(key)
    if entry is not None and entry.ref() is w and write_versions.version(w) == entry.version:
        return entry.copy
    if write_versions.is_exported(w) or w.nbytes > MAX_BYTES // 4:
        return w.T
    with _lock:
        entry = _entries.get(key)
        if entry is None or entry.ref() is not w:
            if entry is not None:
                del _entries[key]
                _forget(entry)
            entry = _Entry()
            entry.ref = weakref.ref(w, lambda r, key=key: _drop(key, r))
            entry.token = write_versions.watch(w)
            entry.copy = None
            _entries[key] = entry
        entry.version = write_versions.version(w)      # (read before copying: a write during the copy counts)
        _held_bytes[0] -= 0 if entry.copy is None else entry.copy.nbytes
        entry.copy = np.ascontiguousarray(w.T)
        _held_bytes[0] += entry.copy.nbytes
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES or (_held_bytes[0] > MAX_BYTES and len(_entries) > 1):
            _, old = _entries.popitem(last=False)
            _forget(old)
        return entry.copy


def held(w):
    """Whether a transposed copy of ``w`` is kept."""
    entry = _entries.get(id(w))
    return entry is not None and entry.ref() is w


def clear():
    """Drop every kept copy."""
    with _lock:
        while _entries:
            _, entry = _entries.popitem()
            _forget(entry)
