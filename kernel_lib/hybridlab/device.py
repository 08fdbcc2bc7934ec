"""Devices: where an array lives and which array module (NumPy or CuPy) computes on it.

Example::

    >>> import hybridlab as mx
    >>> mx.cpu()
    cpu(0)
    >>> with mx.cpu(0):
    ...     mx.device.current_device()
    cpu(0)
"""
import threading

import numpy as np

from .base import MXNetError

__all__ = ["Device", "cpu", "gpu", "cpu_pinned", "current_device", "num_gpus", "gpu_available",
           "cupy_or_none"]

_DEVTYPE_NAMES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
_DEVTYPE_IDS = {name: code for code, name in _DEVTYPE_NAMES.items()}
_cupy = None
_cupy_checked = False


def cupy_or_none():
    """The ``cupy`` module when it imports and a CUDA device is usable, else ``None``."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy
            if cupy.cuda.is_available():
                _cupy = cupy
        except Exception:  # ImportError, or a CUDA runtime that cannot start
            _cupy = None
    return _cupy


def num_gpus():
    """Number of CUDA devices CuPy can use (0 when CuPy or CUDA is missing)."""
    cp = cupy_or_none()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()


def gpu_available():
    return num_gpus() > 0


class _CurrentDevice:
    """``Device.default_ctx``, MXNet 1.x's class attribute: the current default device."""

    def __get__(self, obj, owner):
        return current_device()


class Device:
    """A device: ``cpu(i)`` arrays are NumPy arrays, ``gpu(i)`` arrays are CuPy arrays.

    Used as a context manager it becomes the default device of new arrays::

        >>> import hybridlab as mx
        >>> with mx.cpu(0):
        ...     mx.nd.zeros((2,)).device
        cpu(0)
    """

    __slots__ = ("device_type", "device_id", "is_gpu", "_old", "_hash")
    _local = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Device):
            device_type, device_id = device_type.device_type, device_type.device_id
        if isinstance(device_type, int):
            device_type = _DEVTYPE_NAMES.get(device_type, device_type)
        if device_type not in _DEVTYPE_IDS:
            raise MXNetError(f"unknown device type {device_type!r}: expected one of {sorted(_DEVTYPE_IDS)}")
        self.device_type = device_type
        self.device_id = int(device_id)
        self.is_gpu = device_type == "gpu"      # (a slot, not a property: wait_to_read asks on every call)
        self._old = None
        self._hash = hash((device_type, self.device_id))     # (every imperative op looks its context up by device)

    @property
    def device_typeid(self):
        return _DEVTYPE_IDS[self.device_type]

    @property
    def xp(self):
        """The array module computing on this device: ``numpy`` or ``cupy``."""
        if self.device_type != "gpu":
            return np
        cp = cupy_or_none()
        if cp is None:
            raise MXNetError(f"{self} is not available: CuPy with a CUDA device is required "
                             f"(pip install 'hybridlab[gpu]'); this machine has {num_gpus()} GPUs")
        if self.device_id >= num_gpus():
            raise MXNetError(f"{self} does not exist: this machine has {num_gpus()} GPUs")
        return cp

    def put(self, data):
        """Return ``data`` (NumPy or CuPy array) as an array on this device."""
        if self.device_type != "gpu":
            return data.get() if hasattr(data, "get") and not isinstance(data, np.ndarray) else np.asarray(data)
        cp = self.xp
        with cp.cuda.Device(self.device_id):
            return cp.asarray(data)

    default_ctx = _CurrentDevice()

    def __eq__(self, other):
        return other is self or (isinstance(other, Device) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        # the devices entered before are kept per thread, not on this object: one Device may be entered
        # again inside its own block (nested blocks on one array's device) without losing the outer one
        stack = getattr(Device._local, "entered", None)
        if stack is None:
            stack = Device._local.entered = []
        stack.append(current_device())
        Device._local.current = self
        return self

    def __exit__(self, *exc):
        Device._local.current = Device._local.entered.pop()
        return False

    @staticmethod
    def parse(text):
        """``Device`` from its printed form, e.g. ``"gpu(1)"`` (used for op attributes)."""
        if isinstance(text, Device):
            return text
        text = str(text).strip()
        name, _, rest = text.partition("(")
        try:
            return Device(name, int(rest.rstrip(")")) if rest else 0)
        except ValueError:
            raise MXNetError(f"cannot parse device {text!r}: expected a form like 'cpu(0)' or 'gpu(1)'") from None


_CPU0 = Device("cpu", 0)


def current_device():
    """The default device for new arrays (``cpu(0)`` unless inside ``with mx.gpu(i):``)."""
    return getattr(Device._local, "current", None) or _CPU0


def cpu(device_id=0):
    """The CPU device; arrays are NumPy arrays."""
    return _CPU0 if device_id == 0 else Device("cpu", device_id)


def gpu(device_id=0):
    """GPU ``device_id``; arrays are CuPy arrays (needs CuPy and a CUDA device when used)."""
    return Device("gpu", device_id)


def cpu_pinned(device_id=0):
    return Device("cpu_pinned", device_id)
