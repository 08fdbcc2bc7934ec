"""oneDNN (the library MXNet's CPU build uses) for hybridlab's CPU convolutions, through ctypes.

An optional extra: ``pip install 'hybridlab[fast]'`` installs the ``onednn-cpu-gomp`` wheel, whose
``libdnnl.so`` (oneDNN 3.x, C API) ``library`` loads on first use (``HYBRIDLAB_DNNL_LIB`` names
another file). ``convolution`` runs forward, backward-data and backward-weights convolution
primitives on float32 NumPy arrays. Which path the Convolution ops take is chosen in
``ops/conv_path.py``.

Example::

    >>> from hybridlab.ops import dnnl
    >>> dnnl.available() or dnnl.load_error().startswith("oneDNN not loaded")
    True
"""
from . import library
from .convolution import Geometry, backward_data, backward_weights, clear_cache, forward, plan_info
from .library import DnnlError, load_error, version

__all__ = ["available", "load_error", "version", "DnnlError", "Geometry", "forward", "backward_data",
           "backward_weights", "plan_info", "clear_cache"]


def available():
    """Whether libdnnl loaded (tried once per process)."""
    return library.load() is not None
