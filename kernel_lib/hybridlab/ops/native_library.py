"""Opening a C library with ctypes: the first of several candidate files that opens and fits, with the
reason for each one that does not (the oneDNN and cuDNN bindings, ``ops/dnnl``, ``ops/cudnn``).

Example::

    >>> from hybridlab.ops.native_library import open_first
    >>> lib, path, errors = open_first(["/no/such/libx.so"], lambda lib: None)
    >>> lib, path, errors
    (None, None, ['/no/such/libx.so: no such file'])
"""
import ctypes
import os

__all__ = ["open_first"]


def open_first(candidates, bind):
    """``(library, path, errors)``: the first of ``candidates`` (file paths, or bare names the system's
    loader resolves) that ``ctypes.CDLL`` opens and ``bind`` accepts (``bind(lib)`` sets the prototypes
    of the functions used and returns ``None``, or says why this file does not fit); ``(None, None,
    errors)`` when none does. ``errors`` names each candidate tried before and what was wrong with it."""
    errors = []
    for path in candidates:
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
            why = bind(lib)
        except (OSError, AttributeError) as err:       # not a loadable library, or a function missing
            errors.append(f"{path}: {err}")
            continue
        if why:
            errors.append(f"{path}: {why}")
            continue
        return lib, path, errors
    return None, None, errors
