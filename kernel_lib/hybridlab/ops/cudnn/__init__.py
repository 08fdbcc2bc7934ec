"""cuDNN (the library MXNet's GPU build uses) for hybridlab's GPU convolutions, through ctypes.

CuPy (14 and later) no longer binds cuDNN, so ``library`` loads ``libcudnn`` itself from the NVIDIA
wheels (``pip install 'hybridlab[gpu]'`` installs one) or the system, and ``convolution`` runs
cuDNN's forward, backward-data and backward-filter convolutions on CuPy arrays. Which path the GPU
Convolution ops take is chosen in ``ops/conv_path.py``; a GPU takes this one only after the check of
:func:`usable`.

Example::

    >>> from hybridlab.ops import cudnn
    >>> cudnn.available() or cudnn.load_error().startswith("cuDNN not loaded")
    True
"""
from . import library
from .convolution import (backward_data, backward_filter, clear_cache, forward, plan_info, self_check,
                          unusable_reason, usable)
from .library import CudnnError, load_error, version

__all__ = ["available", "load_error", "version", "CudnnError", "forward", "backward_data", "backward_filter",
           "usable", "unusable_reason", "self_check", "plan_info", "clear_cache"]


def available():
    """Whether libcudnn loaded (tried once per process; a GPU is not needed to load it)."""
    return library.load() is not None
