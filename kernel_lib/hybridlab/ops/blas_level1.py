"""BLAS level 1 on NumPy arrays: ``axpy`` (``y += alpha * x``) and ``scal`` (``x *= alpha``) in one pass
over memory each, through the OpenBLAS that NumPy's wheel ships and has already loaded (called with
ctypes; ``hybridlab.threads`` sets its threads). An optimizer's update is memory-bound: its momentum
``mom = momentum * mom - lr * grad`` takes NumPy's ufuncs three passes (the product into a temporary, a
multiply, a subtract) and these two (``scal``, then ``axpy``), which on the tutorial MLP's 165k weights
is ~25 us of a ~100 us update.

Each function does its work and returns True for C-contiguous float32 or float64 NumPy arrays of one
dtype and size, of at least ``MIN_SIZE`` elements (below, a call's fixed cost, ~3 us for the arrays'
addresses and the foreign call, is more than the pass it saves); otherwise it returns False, having
done nothing, and the caller computes with ufuncs. It also returns False where no such library is
found (NumPy built on MKL or Accelerate), where the library failed the check made when it is first
loaded (``axpy`` and ``scal`` of a small array against NumPy), and while ``enabled(False)`` is in force
(``HYBRIDLAB_BLAS_LEVEL1=0`` sets that at start).

The values: BLAS computes ``y + alpha * x`` in one fused multiply-add where the CPU has one, NumPy in a
multiply and an add, so an element may differ in its last bit (checked by the optimizers' tests,
which run every case with and without this module).

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import blas_level1
    >>> y = np.ones(MIN_SIZE, np.float32)
    >>> done = axpy(2.0, np.ones(MIN_SIZE, np.float32), y)       # False where no OpenBLAS was found
    >>> float(y[0]) == (3.0 if done else 1.0)
    True
    >>> axpy(2.0, np.ones(3, np.float32), np.ones(3, np.float32))     # too small: the caller's ufuncs
    False
"""
import contextlib
import ctypes
import glob
import os
import threading

import numpy as np

from .native_library import load_once

__all__ = ["axpy", "scal", "usable", "available", "enabled", "MIN_SIZE", "ENV"]

ENV = "HYBRIDLAB_BLAS_LEVEL1"
MIN_SIZE = 16384        # elements: from here one pass saved is worth a call (measured on this project's machines)

_lock = threading.Lock()
# lib, path, error: native_library.load_once's; routines: {(kind, name): function} of the library that loaded
_state = {"lib": None, "path": None, "error": None, "routines": {}, "on": os.environ.get(ENV, "1") != "0"}
_AFFIXES = [(p, s) for p in ("scipy_", "") for s in ("64_", "_64", "")]    # NumPy 2's wheel: scipy_..64_
_KINDS = {np.dtype(np.float32): ("s", ctypes.c_float), np.dtype(np.float64): ("d", ctypes.c_double)}


def _numpy_openblas_paths():
    """The OpenBLAS libraries of NumPy's own wheel (the ``numpy.libs`` folder beside the package, or
    ``numpy/.libs``): NumPy has loaded the one it links, so opening it again reuses that copy."""
    root = os.path.dirname(np.__file__)
    found = []
    for folder in (os.path.join(root, os.pardir, "numpy.libs"), os.path.join(root, ".libs")):
        found += sorted(glob.glob(os.path.join(folder, "*openblas*.so*")))
    return found


def _cblas(lib):
    """``{(kind, name): function}`` of the CBLAS routines in ``lib`` (their prototypes set), or None."""
    for prefix, suffix in _AFFIXES:
        if not hasattr(lib, f"{prefix}cblas_saxpy{suffix}"):
            continue
        index = ctypes.c_int64 if "64" in suffix else ctypes.c_int
        routines = {}
        for kind, real in _KINDS.values():
            axpy_fn = getattr(lib, f"{prefix}cblas_{kind}axpy{suffix}")
            axpy_fn.restype, axpy_fn.argtypes = None, [index, real, ctypes.c_void_p, index, ctypes.c_void_p, index]
            scal_fn = getattr(lib, f"{prefix}cblas_{kind}scal{suffix}")
            scal_fn.restype, scal_fn.argtypes = None, [index, real, ctypes.c_void_p, index]
            routines[kind, "axpy"], routines[kind, "scal"] = axpy_fn, scal_fn
        return routines
    return None


def _checked(routines):
    """Whether ``routines`` compute what NumPy does on a small array (the right library, integer width
    and calling convention), within the last bit."""
    for dtype, (kind, _) in _KINDS.items():
        x = np.linspace(-2.0, 3.0, 37).astype(dtype)
        y = np.linspace(1.0, -4.0, 37).astype(dtype)
        want_axpy, want_scal = y + dtype.type(0.75) * x, x * dtype.type(-1.5)
        routines[kind, "axpy"](x.size, 0.75, x.ctypes.data, 1, y.ctypes.data, 1)
        routines[kind, "scal"](x.size, -1.5, x.ctypes.data, 1)
        tolerance = 4 * np.finfo(dtype).eps
        if not (np.allclose(y, want_axpy, rtol=tolerance, atol=tolerance)
                and np.allclose(x, want_scal, rtol=tolerance, atol=tolerance)):
            return False
    return True


def _bind(lib):
    """Keep ``lib``'s routines when it has them and they compute what NumPy does; else why not."""
    routines = _cblas(lib)
    if routines is None:
        return "no cblas_saxpy under the names NumPy's OpenBLAS builds use"
    if not _checked(routines):
        return "axpy or scal differ from NumPy's on a small array"
    _state["routines"] = routines
    return None


def _routines():
    """The bound routines (``{}`` when none can be used: ``_state["error"]`` says why), found on first use."""
    load_once(_state, _lock, "NumPy's OpenBLAS", None, "numpy.libs", None, _numpy_openblas_paths, _bind)
    return _state["routines"]


def available():
    """Whether NumPy's OpenBLAS was found and passed its check (whatever ``enabled`` says)."""
    return bool(_routines())


@contextlib.contextmanager
def enabled(on):
    """Inside: ``axpy`` and ``scal`` use BLAS (``on``) or always return False (the ufunc path), for
    every thread; the previous setting comes back after."""
    saved, _state["on"] = _state["on"], bool(on)
    try:
        yield
    finally:
        _state["on"] = saved


def usable(*arrays):
    """Whether ``axpy`` and ``scal`` apply to every one of ``arrays`` (NumPy arrays of one float32 or
    float64 dtype and size, at least ``MIN_SIZE`` elements, C-contiguous, writable, no two sharing
    memory) and are on: a caller combining several calls asks this first, then each call does its work."""
    return _kind(arrays) is not None


def _kind(arrays):
    """The BLAS kind (``"s"``/``"d"``) for ``arrays`` (see ``usable``), or None."""
    first = arrays[0]
    if not _state["on"] or type(first) is not np.ndarray or first.size < MIN_SIZE:
        return None
    kind = _KINDS.get(first.dtype)
    if kind is None:
        return None
    for i, a in enumerate(arrays):
        if (type(a) is not np.ndarray or a.dtype != first.dtype or a.size != first.size or not a.flags.c_contiguous
                or not a.flags.writeable):
            return None
        for b in arrays[:i]:
            if np.may_share_memory(a, b):
                return None
    return kind[0] if _state["routines"] or _routines() else None


def axpy(alpha, x, y):
    """``y += alpha * x`` (NumPy arrays, ``y`` written in place): True when done, False (nothing done)
    where BLAS does not apply (``usable``)."""
    kind = _kind((x, y))
    if kind is None:
        return False
    if alpha == 0:      # (BLAS skips the pass; NumPy's 0 * inf or nan would write nan: as NumPy)
        np.add(y, np.multiply(x, y.dtype.type(0)), out=y)
        return True
    _state["routines"][kind, "axpy"](y.size, alpha, x.ctypes.data, 1, y.ctypes.data, 1)
    return True


def scal(alpha, x):
    """``x *= alpha`` in place: True when done, False (nothing done) where BLAS does not apply."""
    kind = _kind((x,))
    if kind is None:
        return False
    if alpha == 0:      # (BLAS writes zeros; NumPy's 0 * inf or nan is nan: as NumPy)
        np.multiply(x, x.dtype.type(0), out=x)
        return True
    _state["routines"][kind, "scal"](x.size, alpha, x.ctypes.data, 1)
    return True
