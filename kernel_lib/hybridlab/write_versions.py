"""Write versions of host arrays: how a kernel that keeps a value derived from an input array
(oneDNN's reordered copy of a convolution's weights, ``ops/dnnl/weight_cache.py``) knows whether the
array was written since.

Only watched arrays are counted: :func:`watch` starts counting writes to an array (and to the
array owning its memory, so that a write through any view of it counts), :func:`version` reads
the counts, :func:`wrote` is called by every in-place write of an NDArray's data (``out=``,
item assignment, ``copyto``, the optimizers' updates, kvstore pulls, gradient accumulation) and
costs one dict lookup per array while nothing is watched. A write that bypasses those paths (the
private ``_data`` of an NDArray written by foreign code, memory shared through DLPack for writing)
is not seen: arrays exported for writing are never cached (``exported_for_write``).

Example::

    >>> import numpy as np
    >>> from hybridlab import write_versions
    >>> w = np.zeros(4, np.float32)
    >>> token = write_versions.watch(w)
    >>> before = write_versions.version(w)
    >>> w[1:3] += 1.0; write_versions.wrote(w[1:3])      # a write through a view counts for its owner
    >>> write_versions.version(w) != before
    True
    >>> write_versions.unwatch(token)
"""
import numpy as np

__all__ = ["watch", "unwatch", "version", "wrote", "exported_for_write", "is_exported"]

_counts = {}          # id(array) -> [writes, watchers]
_exported = set()     # ids of owning arrays whose memory was handed out for writing (DLPack)


def _chain(arr):
    """``arr`` and the arrays owning its memory (NumPy keeps one level: a view's base is the owner)."""
    out = []
    while isinstance(arr, np.ndarray):
        out.append(arr)
        arr = arr.base
    return out


def watch(arr):
    """Start counting writes to ``arr`` (a NumPy array) and its owner; returns the token
    :func:`unwatch` takes. The caller keeps ``arr`` alive (or unwatches) while watching."""
    ids = tuple(id(a) for a in _chain(arr))
    for i in ids:
        _counts.setdefault(i, [0, 0])[1] += 1
    return ids


def unwatch(token):
    for i in token:
        entry = _counts.get(i)
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del _counts[i]


def version(arr):
    """The write counts of a watched ``arr`` and its owner (compare two readings for equality)."""
    return tuple(_counts[id(a)][0] if id(a) in _counts else None for a in _chain(arr))


def wrote(arr):
    """Record an in-place write to ``arr`` (an NDArray, a NumPy or a CuPy array)."""
    if not _counts:
        return
    data = getattr(arr, "_data", arr)
    for a in _chain(data):
        entry = _counts.get(id(a))
        if entry is not None:
            entry[0] += 1


def exported_for_write(arr):
    """``arr``'s memory was handed to foreign code that may write it (DLPack): never cache it."""
    for a in _chain(getattr(arr, "_data", arr)):
        _exported.add(id(a))
        wrote(a)


def is_exported(arr):
    """Whether ``arr``'s memory was handed to foreign code for writing (:func:`exported_for_write`)."""
    return bool(_exported) and any(id(a) in _exported for a in _chain(arr))
