"""``mx.npx``: MXNet's operators that NumPy lacks (``relu``, ``fully_connected``, ``convolution``,
``pooling``, ``batch_norm``, ...), generated from the registry, plus the np-mode switches and file IO.

Example::

    >>> import hybridlab as mx
    >>> mx.npx.relu(mx.np.array([-1.0, 2.0])).tolist()
    [0.0, 2.0]
"""
from ..ndarray.namespace import populate as _populate
from .. import ops as _ops  # noqa: F401

_populate(globals(), "npx", np_style=True)

from ..ndarray.params_file import npx_save as save, npx_load as load  # noqa: E402,F401

from ..ops.context import np_mode as _np_mode  # noqa: E402  (off until set_np(), as in MXNet 1.9.1)


def set_np(shape=True, array=True, dtype=False):
    """Switch on NumPy semantics: Gluon parameters created from now on hold ``mx.np`` arrays, so blocks
    and losses return them (``mx.np`` itself always has NumPy semantics)."""
    _np_mode.update(array=array, shape=shape)


def reset_np():
    _np_mode.update(array=False, shape=False)


def is_np_array():
    return _np_mode["array"]


def is_np_shape():
    return _np_mode["shape"]


def seed(seed_state):
    from ..ops.context import seed as _seed
    _seed(seed_state)


# ---- thin wrappers MXNet's npx has (devices, sync, cast, smooth_l1, ...) ---------------------------
from ..device import Device as Context, cpu, cpu_pinned, current_device, gpu, num_gpus  # noqa: E402,F401
from ..ndarray import waitall  # noqa: E402,F401

current_context = current_device


def cast(data, dtype, out=None, name=None):
    """``data`` converted to ``dtype`` (differentiable, as MXNet's ``npx.cast``).

    >>> import hybridlab as mx
    >>> mx.npx.cast(mx.np.array([1.7]), "int32").tolist()
    [1]
    """
    from ..numpy._call import call
    return call("Cast", data, dtype=dtype, out=out)


def smooth_l1(data, scalar=1.0, out=None, name=None):
    """MXNet's smooth L1: ``0.5 (scalar x)^2`` where ``|x| < 1 / scalar^2``, else ``|x| - 0.5 / scalar^2``.

    >>> import hybridlab as mx
    >>> mx.npx.smooth_l1(mx.np.array([0.5, 2.0])).tolist()
    [0.125, 1.5]
    """
    from ..numpy._call import call
    return call("smooth_l1", data, scalar=scalar, out=out)


def gpu_memory_info(device_id=0):
    """``(free, total)`` bytes of GPU ``device_id`` (CuPy's runtime query).

    >>> import hybridlab as mx
    >>> callable(mx.npx.gpu_memory_info)
    True
    """
    from ..device import cupy_or_none
    cp = cupy_or_none()
    if cp is None:
        from ..base import MXNetError
        raise MXNetError(f"npx.gpu_memory_info: expected a CUDA device (CuPy), got none for gpu({device_id})")
    with cp.cuda.Device(device_id):
        return cp.cuda.runtime.memGetInfo()


from . import random  # noqa: E402,F401  (bernoulli, uniform_n, normal_n, seed)

import types as _types  # noqa: E402
image = _types.SimpleNamespace(**{n[len("_image_"):]: v for n, v in list(globals().items())
                                  if n.startswith("_image_")})
image.__doc__ = "MXNet's image operators (``mx.npx.image.to_tensor``, ``normalize``...)."
