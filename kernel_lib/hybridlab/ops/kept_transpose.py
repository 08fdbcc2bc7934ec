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
import numpy as np

from .. import write_versions

__all__ = ["transposed", "held", "clear", "MAX_ENTRIES", "MAX_BYTES"]

MAX_ENTRIES = 1024
MAX_BYTES = 256 << 20

_kept = write_versions.Kept(MAX_ENTRIES, MAX_BYTES)      # id(weight) -> its row-major transpose
_entries = _kept.entries


def transposed(w):
    """``w.T`` of the 2-d NumPy array ``w`` as a row-major array kept until ``w`` is written (see the
    module docstring); the caller only reads it."""
    entry = _kept.fresh(id(w), w)
    if entry is not None:
        return entry.value
    if write_versions.is_exported(w) or w.nbytes > _kept.max_bytes // 4:
        return w.T
    entry = _kept.renew(id(w), w)
    entry.value = np.ascontiguousarray(w.T)
    _kept.account(entry, entry.value.nbytes)
    return entry.value


def held(w):
    """Whether a transposed copy of ``w`` is kept."""
    return _kept.held(w) > 0


def clear():
    """Drop every kept copy."""
    _kept.clear()
