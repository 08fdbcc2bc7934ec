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
import collections
import threading
import weakref

import numpy as np

__all__ = ["watch", "unwatch", "version", "wrote", "exported_for_write", "is_exported", "Kept"]

_counts = {}          # id(array) -> [writes, watchers]
_writes = [0]         # writes to every watched array together: unchanged since a reading, nothing changed
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


def wrote(*arrays):
    """Record an in-place write to each of ``arrays`` (NDArrays, NumPy or CuPy arrays)."""
    if not _counts:
        return
    for arr in arrays:
        for a in _chain(getattr(arr, "_data", arr)):
            entry = _counts.get(id(a))
            if entry is not None:
                entry[0] += 1
                _writes[0] += 1


def exported_for_write(arr):
    """``arr``'s memory was handed to foreign code that may write it (DLPack): never cache it."""
    for a in _chain(getattr(arr, "_data", arr)):
        if id(a) not in _exported:
            _exported.add(id(a))
            # forgotten when the array dies: a later array at the same address is not exported
            weakref.finalize(a, _exported.discard, id(a))
        wrote(a)


def is_exported(arr):
    """Whether ``arr``'s memory was handed to foreign code for writing (:func:`exported_for_write`)."""
    return bool(_exported) and any(id(a) in _exported for a in _chain(arr))


class Kept:
    """Values derived from NumPy arrays (a reordered or transposed copy of a weight), each kept until
    its array is written (the counts above) or dies (a weak reference): the one table behind
    oneDNN's kept convolution weights (``ops/dnnl/weight_cache.py``) and dense layers' kept
    transposes (``ops/kept_transpose.py``). At most ``max_entries`` values of ``max_bytes`` in all
    (``entry.nbytes``) are kept, the least recently used dropped first. While no watched array at all
    was written since an entry was last found fresh, finding it again reads no counts (a steady
    predict loop's lookups: ~0.2 us instead of ~1.1 us).

    >>> import numpy as np
    >>> kept = Kept(max_entries=8)
    >>> w = np.ones(3, np.float32)
    >>> kept.fresh("k", w) is None                      # nothing kept yet
    True
    >>> entry = kept.renew("k", w); entry.value = w * 2
    >>> kept.fresh("k", w).value.tolist()
    [2.0, 2.0, 2.0]
    >>> w[0] = 5.0; wrote(w)
    >>> kept.fresh("k", w) is None                      # written since: derive it again
    True
    """

    class Entry:
        __slots__ = ("ref", "token", "version", "value", "nbytes", "seen")    # seen: _writes when last checked

    def __init__(self, max_entries, max_bytes=None):
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.entries = collections.OrderedDict()      # key -> Entry
        self.held_bytes = 0
        self._lock = threading.RLock()    # (an array dying inside a locked section drops its entry)

    def fresh(self, key, array):
        """The entry of ``key`` when it is ``array``'s and ``array`` was not written since, else None."""
        entry = self.entries.get(key)
        if entry is None or entry.ref() is not array:
            return None
        if entry.seen == _writes[0]:          # no watched array written since (a steady predict loop)
            return entry
        if version(array) == entry.version:
            entry.seen = _writes[0]
            return entry
        return None

    def renew(self, key, array):
        """``key``'s entry for ``array`` (made, or the old one if it is ``array``'s) with the version
        read now: the caller derives ``entry.value`` (setting ``entry.nbytes``) before using it."""
        with self._lock:
            entry = self.entries.get(key)
            if entry is None or entry.ref() is not array:
                if entry is not None:
                    self._forget(self.entries.pop(key))
                entry = self.Entry()
                entry.ref = weakref.ref(array, lambda r, key=key: self._drop(key, r))
                entry.token = watch(array)
                entry.value, entry.nbytes = None, 0
                self.entries[key] = entry
            entry.version = version(array)      # (read before deriving: a write meanwhile counts)
            entry.seen = _writes[0]
            self.entries.move_to_end(key)
            return entry

    def account(self, entry, nbytes):
        """Set ``entry``'s size to ``nbytes`` and drop the least recently used entries over the bounds."""
        with self._lock:
            self.held_bytes += nbytes - entry.nbytes
            entry.nbytes = nbytes
            while len(self.entries) > 1 and (len(self.entries) > self.max_entries or
                                             (self.max_bytes is not None and self.held_bytes > self.max_bytes)):
                self._forget(self.entries.popitem(last=False)[1])

    def held(self, array):
        """How many entries are ``array``'s."""
        return sum(1 for entry in list(self.entries.values()) if entry.ref() is array)

    def clear(self):
        with self._lock:
            while self.entries:
                self._forget(self.entries.popitem()[1])

    def _forget(self, entry):
        unwatch(entry.token)
        self.held_bytes -= entry.nbytes

    def _drop(self, key, ref):
        with self._lock:
            entry = self.entries.get(key)
            if entry is not None and entry.ref is ref:
                self._forget(self.entries.pop(key))
