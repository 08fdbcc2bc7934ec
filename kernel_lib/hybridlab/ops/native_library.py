"""Opening a C library with ctypes, once per process: the first of several candidate files that opens and
fits, or the reason for each that does not; and calling its functions with their returned status checked
(the oneDNN and cuDNN bindings, ``ops/dnnl``, ``ops/cudnn``; NumPy's OpenBLAS, ``ops/blas_level1``).

Example::

    >>> from hybridlab.ops.native_library import open_first
    >>> lib, path, errors = open_first(["/no/such/libx.so"], lambda lib: None)
    >>> lib, path, errors
    (None, None, ['/no/such/libx.so: no such file'])
"""
import contextlib
import ctypes
import os

from ..base import MXNetError

__all__ = ["open_first", "load_once", "required", "checked_call"]


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


def load_once(state, lock, what, env, source, extra, candidates, bind, opening=contextlib.nullcontext):
    """``state["lib"]``, the library of ``candidates()`` that ``bind`` accepts (see :func:`open_first`),
    tried once per process (under ``lock``, inside the context ``opening()``): ``state["lib"]`` and
    ``state["path"]`` are set, or ``state["error"]`` says why none loaded, naming ``what``, where it was
    looked for (the file the variable ``env`` names, else ``source``) and, with an ``extra``,
    ``pip install 'hybridlab[extra]'``."""
    if state["lib"] is not None or state["error"] is not None:
        return state["lib"]
    with lock:
        if state["lib"] is None and state["error"] is None:
            with opening():
                lib, path, errors = open_first(candidates(), bind)
            if lib is not None:
                state["lib"], state["path"] = lib, path
            else:
                where = f"{env}={os.environ[env]}" if env and os.environ.get(env) else source
                hint = f" (pip install 'hybridlab[{extra}]')" if extra else ""
                state["error"] = f"{what} not loaded from {where}{hint}: " + ("; ".join(errors) or "no candidate file")
    return state["lib"]


def required(state, load):
    """The library ``load()`` gives (it keeps it in ``state`` as :func:`load_once` does); an ``MXNetError``
    with ``state["error"]`` where none loaded."""
    lib = load()
    if lib is None:
        raise MXNetError(state["error"])
    return lib


def checked_call(state, load, success, error):
    """A binding's ``call(name, *args, detail="")``: the C function ``name`` of the library (see
    :func:`required`) called with ``args``; a returned status other than ``success`` raises
    ``error(name, status, detail)``."""
    def call(name, *args, detail=""):
        status = getattr(state["lib"] or required(state, load), name)(*args)
        if status != success:
            raise error(name, status, detail)
    return call
