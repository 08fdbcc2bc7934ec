"""Freed host (NumPy) buffers stay in the process heap for reuse, as with MXNet's pooled CPU storage.

glibc's malloc hands out blocks above a threshold (128 KiB at start, raised dynamically) with
``mmap`` and unmaps them on ``free``; it also gives the heap top back to the system once more than
twice that threshold is free. A training step allocates the same temporaries on every call (im2col
columns, activations, gradients of a few MB each), so it would pay the page faults of fresh memory
every step: a LeNet training step at batch 64 measured 7.5 ms with glibc's defaults and 4.4 ms with
this pool (``benchmarks/host_pool.py`` prints the ratio).

:func:`enable` (run once when hybridlab is imported) raises glibc's ``M_MMAP_THRESHOLD`` to 32 MiB
(its maximum) and ``M_TRIM_THRESHOLD`` to 256 MiB, so such blocks are served from and returned to
the heap. Cost: up to 256 MiB of freed memory may stay mapped in the process (MXNet keeps all of its
pool). Set ``HYBRIDLAB_HOST_POOL=0`` before importing hybridlab to keep glibc's defaults. Where the C
library is not glibc (macOS, musl) nothing changes. CuPy has its own memory pool on the GPU.

Example::

    >>> import hybridlab as mx
    >>> mx.host_pool.state() in ("enabled", "disabled by HYBRIDLAB_HOST_POOL=0", "not glibc")
    True
"""
import ctypes
import os
import sys

__all__ = ["enable", "state", "MMAP_THRESHOLD", "TRIM_THRESHOLD", "ENV"]

ENV = "HYBRIDLAB_HOST_POOL"
MMAP_THRESHOLD = 32 << 20      # glibc's upper limit for M_MMAP_THRESHOLD on 64-bit systems
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # mallopt parameters, from glibc's malloc.h

_state = "not enabled yet"


def _glibc():
    """The C library as a ctypes handle when it is glibc, else ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version       # only glibc has it
        return libc
    except (OSError, AttributeError):
        return None


def enable():
    """Keep freed blocks up to :data:`MMAP_THRESHOLD` in the heap (see the module docstring);
    returns :func:`state`. Called once when hybridlab is imported; calling it again is harmless."""
    global _state
    if os.environ.get(ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        _state = f"disabled by {ENV}=0"
        return _state
    libc = _glibc()
    if libc is None:
        _state = "not glibc"
        return _state
    ok = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    _state = "enabled" if ok else "refused by mallopt"
    return _state


def state():
    """``"enabled"``, ``"disabled by HYBRIDLAB_HOST_POOL=0"``, ``"not glibc"`` or ``"refused by mallopt"``."""
    return _state
