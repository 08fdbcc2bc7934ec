"""NDArray: the tensor of ``mx.nd`` and ``mx.np``. Its data is a NumPy array on a CPU device and a
CuPy array on a GPU device; every computation on it goes through the op registry, so autograd
records it and (later) tracing turns it into a graph node.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1, 2], [3, 4]])
    >>> x
    <BLANKLINE>
    [[1. 2.]
     [3. 4.]]
    <NDArray 2x2 @cpu(0)>
    >>> (x * 2 + 1).sum().asscalar()
    np.float32(24.0)
"""
import numpy as np

from ..autograd import state as autograd_state
from ..base import MXNetError, MXNetNotImplementedError, MXNetValueError, normalize_dtype
from ..deferred import state as _deferred
from ..deferred.state import TracedValue
from ..device import Device, current_device
from .. import write_versions
from ..ops.registry import get_op

__all__ = ["NDArray", "NumpyNDArray", "DENSE_CLASSES", "array", "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write"]

# MXNet's module-level names that code and tests import from ``mxnet.ndarray.ndarray``: the storage
# type ids (every NDArray here is dense: ``stype`` is "default") and Python's slice under its name
_STORAGE_TYPE_UNDEFINED = -1
_STORAGE_TYPE_DEFAULT = 0
_STORAGE_TYPE_ROW_SPARSE = 1
_STORAGE_TYPE_CSR = 2
_STORAGE_TYPE_STR_TO_ID = {"undefined": _STORAGE_TYPE_UNDEFINED, "default": _STORAGE_TYPE_DEFAULT,
                           "row_sparse": _STORAGE_TYPE_ROW_SPARSE, "csr": _STORAGE_TYPE_CSR}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
py_slice = slice


# ---- helpers of NDArray's methods --------------------------------------------------------------
# They come before the class because the mixins NDArray inherits (operators.py, printing.py) import
# them while this module is still being run; they look NDArray and the dispatcher up when called.
def _no_values_while_tracing(arr, what):
    """Raise the deferred-compute error when ``arr`` is a traced value (shape and dtype, no data)."""
    if type(arr._data) is TracedValue:
        _readable(arr, what)


def _readable(arr, what):
    """``arr``'s data to read values from: its array, or while tracing the deferred-compute error
    (``what`` was read), except in a pre-check, which records the read and goes on with the real
    value (``gluon.precheck``)."""
    data = arr._data
    if type(data) is not TracedValue:
        return data
    if _deferred.tracing.precheck is not None:
        return _deferred.tracer.precheck_read(arr, what)
    data._no_value(what)


def _traced_read(arr, what):
    """``what`` (``shape``, ``len``, ``ndim``, ``size``, ``dtype``, ``device``) of the traced ``arr``
    was read by the caller of an NDArray property: a shape guard (``deferred.shape_reads``)."""
    if _deferred.tracing.shape_reads is not None:
        _deferred.tracer.read_shape(arr, what)


def _tracing_placeholder(arr):
    return type(arr._data) is TracedValue


def _as_array(value, like):
    """``value`` as an NDArray on ``like``'s device (NumPy arrays, lists and scalars are converted)."""
    if isinstance(value, NDArray):
        return value
    data = np.asarray(value)
    if not isinstance(value, np.ndarray):
        # Python scalars and lists are "weak": they take the array's dtype unless they need a float
        if data.dtype.kind == "f":
            data = data.astype(like.dtype if like.dtype.kind == "f" else np.float32)
        elif data.dtype.kind in "iub" and like.dtype.kind in "iubf" and (like.dtype.kind != "b" or data.dtype.kind == "b"):
            data = data.astype(like.dtype)     # (an int stays an int next to a bool array: 14 is not True)
    return NDArray._wrap(like._device.put(data), like._device, like._np)


def _binary(lhs, rhs, array_op, scalar_op, reflected=False, np_op=None):
    """``lhs <op> rhs``: the broadcast op for arrays, the ``_*_scalar`` op for scalars. ``mx.np`` arrays
    use ``np_op`` where NumPy's result differs (bool comparisons, true division of integers)."""
    if np_op is not None and lhs._np:
        if not isinstance(rhs, NDArray):
            if not isinstance(rhs, (int, float, bool, np.number, np.ndarray, list, tuple)):
                return NotImplemented
            rhs = _as_array(rhs, lhs)
        return _call(np_op, rhs, lhs) if reflected else _call(np_op, lhs, rhs)
    if isinstance(rhs, NDArray):
        return _call(array_op, rhs, lhs) if reflected else _call(array_op, lhs, rhs)
    if isinstance(rhs, (int, float, bool, np.number)):
        return _call(scalar_op, lhs, scalar=rhs)
    if isinstance(rhs, (np.ndarray, list, tuple)):
        other = _as_array(rhs, lhs)
        return _call(array_op, other, lhs) if reflected else _call(array_op, lhs, other)
    return NotImplemented


def _call(name, *inputs, **attrs):
    return dispatch.invoke(get_op(name), inputs, attrs)


from .operators import NDArrayOperators  # noqa: E402  (imports the helpers above)
from .printing import NDArrayPrinting  # noqa: E402


class NDArray(NDArrayOperators, NDArrayPrinting):
    """An n-dimensional array on a device, with autograd support. Create with ``mx.nd.array``,
    ``mx.nd.zeros``, ``mx.np.array``, ... rather than the constructor. Its Python operators
    (``+``, ``==``, ``+=``, ``[]``) are in ``operators.py``, its printing in ``printing.py``; the
    fluent methods (``x.sum()``...) are attached by ``fluent.py``, ``backward`` by autograd."""

    # (``_fresh``, set on gradient buffers only, says backward wrote it: ``autograd.state.mark_fresh``)
    __slots__ = ("_data", "_device", "_node", "_grad", "_grad_req", "_np", "_trace", "_fresh", "__weakref__")
    __array_priority__ = 1000.0   # NumPy defers `np_array + nd_array` to us

    def __init__(self, data, device=None, np_style=False):
        device = device or current_device()
        self._data = device.put(data)
        self._device = device
        self._node = None
        self._grad = None
        self._grad_req = "null"
        self._trace = None    # (graph node, output index) while deferred compute traces this array
        self._set_np_style(np_style)

    def _set_np_style(self, np_style):
        """Give the array ``mx.np`` (True) or ``mx.nd`` semantics: the flag the operators read and
        the class, ``mx.np.ndarray`` or ``NDArray`` (sparse arrays keep theirs)."""
        self._np = np_style
        if type(self) in DENSE_CLASSES:
            self.__class__ = NumpyNDArray if np_style else NDArray

    @classmethod
    def _wrap(cls, data, device, np_style=False):
        """Wrap an xp array already on ``device`` (no copy, no checks: the dispatcher's fast path)."""
        out = object.__new__((NumpyNDArray if np_style else NDArray) if cls in DENSE_CLASSES else cls)
        out._data = data
        out._device = device
        out._node = None
        out._grad = None
        out._grad_req = "null"
        out._np = np_style
        out._trace = None
        return out

    # ---- properties -------------------------------------------------------------------------
    @property
    def shape(self):
        data = self._data
        if data.__class__ is TracedValue:
            _traced_read(self, "shape")
        return data.shape

    @property
    def dtype(self):
        data = self._data
        if data.__class__ is TracedValue:
            _traced_read(self, "dtype")
        return data.dtype

    @property
    def size(self):
        data = self._data
        if data.__class__ is TracedValue:
            _traced_read(self, "size")
        return data.size

    @property
    def ndim(self):
        data = self._data
        if data.__class__ is TracedValue:
            _traced_read(self, "ndim")
        return data.ndim

    @property
    def device(self):
        if self._data.__class__ is TracedValue:
            _traced_read(self, "device")
        return self._device

    context = ctx = device

    @property
    def stype(self):
        return "default"

    def tostype(self, stype):
        """A copy in storage type ``stype``: 'default' (dense), 'csr' or 'row_sparse'
        (``mx.nd.sparse``, stored densely here: see that module).

        >>> import hybridlab as mx
        >>> mx.nd.ones((2,)).tostype("default").asnumpy().tolist()
        [1.0, 1.0]
        """
        from .sparse import _convert
        return _convert(self, stype)

    @property
    def _fresh_grad(self):
        """Whether backward wrote this array's gradient since the flag was last cleared (MXNet's
        internal flag, which Trainer reads to find stale gradients)."""
        return self._grad is not None and autograd_state.is_fresh(self._grad)

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        if self._grad is None:
            return
        if value:
            autograd_state.mark_fresh(self._grad)
        else:
            autograd_state.take_fresh(self._grad)

    @property
    def T(self):
        return _call("transpose", self)

    @property
    def grad(self):
        """The gradient buffer attached by ``attach_grad`` (``None`` before)."""
        return self._grad

    @property
    def grad_req(self):
        return self._grad_req

    # ---- conversion -------------------------------------------------------------------------
    def asnumpy(self):
        """A NumPy copy of the data (copied from the GPU for GPU arrays)."""
        data = _readable(self, "asnumpy()")
        return data.get() if self._device.is_gpu and not isinstance(data, np.ndarray) else np.array(data)

    def asscalar(self):
        """The value of a one-element array as a NumPy scalar."""
        if self.size != 1:
            raise ValueError(f"The current array is not a scalar: expected size 1, got shape {self.shape}")
        return self.asnumpy().reshape(())[()]

    def item(self):
        """The value of a one-element array as a Python scalar."""
        _no_values_while_tracing(self, "item()")
        return self.asscalar().item()

    def tolist(self):
        return self.asnumpy().tolist()

    def __array__(self, dtype=None, copy=None):
        out = self.asnumpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __index__(self):
        if self.size != 1 or self.dtype.kind not in "iub":
            raise TypeError(f"only integer scalar arrays can be converted to an index, got {self.dtype} "
                            f"array of shape {self.shape}")
        return int(self.asscalar())

    def __bool__(self):
        _no_values_while_tracing(self, "the truth value (bool(), if, while)")
        if self.size == 1:
            return bool(self.asscalar())
        if self.size == 0:
            return False
        raise ValueError(f"The truth value of an NDArray with more than one element is ambiguous "
                         f"(shape {self.shape}): use .any() or .all()")

    def __len__(self):
        data = self._data
        if not data.shape:
            raise TypeError("len() of a 0-d array")
        if data.__class__ is TracedValue:
            _traced_read(self, "len")
        return data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def astype(self, dtype, copy=True):
        """This array cast to ``dtype`` (no copy if ``copy=False`` and the dtype already matches)."""
        dtype = normalize_dtype(dtype)
        if not copy and dtype == self.dtype:
            return self
        return _call("Cast", self, dtype=dtype)

    def copy(self, order="C"):
        """A copy on the same device (row-major: ``order='C'`` only, as MXNet's ``mx.np``).

        >>> import hybridlab as mx
        >>> mx.np.array([1, 2]).copy().tolist()
        [1.0, 2.0]
        >>> try:
        ...     mx.np.array([1, 2]).copy(order='F')
        ... except NotImplementedError as err:
        ...     print(err)
        ndarray.copy: order expected 'C' (row-major only), got 'F'
        """
        if order != "C":
            raise MXNetNotImplementedError(f"ndarray.copy: order expected 'C' (row-major only), got {order!r}")
        return _call("_copy", self)

    def copyto(self, other):
        """Copy into ``other`` (an NDArray: its buffer is overwritten) or onto a device (a new array)."""
        if isinstance(other, Device):
            return self.as_in_context(other) if other != self._device else self.copy()
        if not isinstance(other, NDArray):
            raise TypeError(f"copyto expected an NDArray or a Device, got {type(other).__name__}")
        if other is self:
            return other
        if other.shape != self.shape:
            raise MXNetError(f"copyto: target shape {other.shape} does not match source shape {self.shape}")
        other._device.xp.copyto(other._data, other._device.put(self._data).astype(other.dtype, copy=False))
        write_versions.wrote(other)
        return other

    def as_in_context(self, device):
        """This array on ``device`` (itself if it is there already); gradients flow back across."""
        if device == self._device:
            return self
        return _call("_copyto", self, device=device)

    as_in_ctx = to_device = as_in_context

    def as_np_ndarray(self):
        """The same data viewed with ``mx.np`` semantics (0-d reductions, NumPy-style repr)."""
        # a variable's view shares its gradient buffer (MXNet's shallow copy shares the autograd entry)
        out = self.detach() if self._node is None and self._grad is None else self._view()
        out._trace = self._trace      # still the same traced value under deferred compute
        out._set_np_style(True)
        return out

    def as_nd_ndarray(self):
        """The same data viewed with ``mx.nd`` (MXNet 1.x) semantics."""
        out = self._view()
        out._set_np_style(False)
        return out

    def _view(self):
        out = NDArray._wrap(self._data, self._device, self._np)
        out._node, out._grad, out._grad_req, out._trace = self._node, self._grad, self._grad_req, self._trace
        return out

    # ---- autograd ---------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate a gradient buffer; the array becomes a variable that ``backward`` writes
        (``'write'``), accumulates (``'add'``) or skips (``'null'``); ``stype`` 'row_sparse' or
        'csr' makes the buffer such an array (``mx.nd.sparse``, stored densely); by default it has
        this array's storage type, as in MXNet."""
        autograd_state.check_grad_req(grad_req)
        cls = NDArray
        if stype is None:
            stype = self.stype
        if stype != "default":
            from .sparse import class_of
            cls = class_of(stype)
        self._grad = cls._wrap(self._device.xp.zeros_like(self._data), self._device, self._np)
        self._grad_req = grad_req
        self._node = None

    # backward(out_grad=None, retain_graph=False, train_mode=True): attached by autograd/backward.py

    def detach(self):
        """The same data (and storage type), cut from the autograd graph."""
        return type(self)._wrap(self._data, self._device, self._np)

    def zero_grad(self):
        if self._grad is not None:
            self._grad._data[...] = 0
            write_versions.wrote(self._grad)

    def wait_to_read(self):
        """Block until the data is computed (GPU work is asynchronous; CPU work is already done)."""
        if self._device.is_gpu:
            self._device.xp.cuda.Device(self._device.device_id).synchronize()

    wait_to_write = wait_to_read

    # ---- DLPack -----------------------------------------------------------------------------
    def __dlpack__(self, stream=None, **kwargs):
        write_versions.exported_for_write(self._data)     # the consumer may write the shared memory
        if stream is None:
            return self._data.__dlpack__(**kwargs)
        return self._data.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def to_dlpack_for_read(self):
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        return to_dlpack_for_write(self)

    # ---- shape ------------------------------------------------------------------------------
    def reshape(self, *shape, reverse=False, **kwargs):
        """Reshape with MXNet's special codes: 0 copies a dimension, -1 infers one, -2 copies the
        rest, -3 merges two, -4 splits one in two; ``reverse=True`` matches from the right. The
        result shares this array's memory, as in MXNet (a copy while autograd records it). ``mx.np``
        arrays follow NumPy's rules instead (one -1 inferred, 0 is a size) and get a new array.

        >>> import hybridlab as mx
        >>> mx.nd.zeros((2, 3, 4)).reshape((0, -1)).shape
        (2, 12)
        """
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        elif "newshape" in kwargs:
            shape = kwargs.pop("newshape")
        elif len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        order = kwargs.pop("order", "C") if self._np else "C"
        if kwargs:
            raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
        if self._np:          # NumPy's rules and a new array, as MXNet's mx.np reshape
            if reverse:
                raise MXNetError("reshape: reverse expected False for mx.np arrays (NumPy's reshape), got True")
            return _call("_np_reshape", self, newshape=tuple(shape), order=order)
        from .indexing import can_view
        if can_view(self) and self._data.flags.c_contiguous:     # a view, as MXNet's legacy reshape
            from ..ops.infer import InferError
            op = get_op("Reshape")
            a = op.parse_attrs({"shape": tuple(shape), "reverse": reverse})
            try:
                target = op.infer_shape(a, [self.shape])[0]
            except InferError as err:    # a ValueError too, as MXNet's NDArray.reshape raises
                raise MXNetValueError(str(dispatch.shape_error(op, a, err))) from None
            return NDArray._wrap(self._data.reshape(target), self._device, self._np)
        return _call("Reshape", self, shape=tuple(shape), reverse=reverse)

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """MXNet's helper: whether the slices ``slc_key`` (one per dimension of ``shape``) select one
        contiguous block, so that ``x[slc_key]`` shares ``x``'s memory.

        >>> import hybridlab as mx
        >>> mx.nd.NDArray._basic_indexing_slice_is_contiguous((slice(1, 3), slice(None)), (4, 5))
        True
        """
        from .indexing import slices_contiguous
        if len(slc_key) != len(shape):
            raise MXNetValueError(f"expected one slice per dimension of {shape}, got {len(slc_key)} slices")
        return slices_contiguous(slc_key, shape)

    # ---- pickling ---------------------------------------------------------------------------
    def __reduce__(self):
        """Pickling (and ``copy.deepcopy``) keep the values, dtype, shape, device and style, as MXNet's
        NDArray pickles (``__getstate__``); the autograd state (attached gradient, graph) is not kept.

        >>> import pickle, hybridlab as mx
        >>> pickle.loads(pickle.dumps(mx.nd.array([[1, 2]], dtype="int32"))).asnumpy().tolist()
        [[1, 2]]
        """
        return _empty, (type(self),), self.__getstate__()

    def __getstate__(self):
        """MXNet's pickled state: ``{'handle': the array as one NDArray record}`` (raw bytes: shape,
        device, dtype flag, data; see ``params_file.record_bytes``), plus the ``mx.np`` style."""
        _no_values_while_tracing(self, "pickle")
        from .params_file import record_bytes
        return {"handle": bytearray(record_bytes(self)), "np_style": self._np}

    def __setstate__(self, state):
        """Become the array of a pickled state (``__getstate__``'s, or MXNet's ``{'handle': bytes}``);
        an array saved on a GPU that is absent here loads onto the CPU."""
        from .params_file import record_from_bytes
        if not isinstance(state, dict) or state.get("handle") is None:
            raise MXNetError(f"NDArray.__setstate__: expected {{'handle': bytes of one NDArray record}}, got "
                             f"{type(state).__name__ if not isinstance(state, dict) else sorted(state)}")
        data, device, v3 = record_from_bytes(state["handle"], "pickled NDArray")
        self._data = device.put(data)
        self._device = device
        self._node, self._grad, self._grad_req, self._trace = None, None, "null", None
        self._set_np_style(bool(state.get("np_style", v3)))


class NumpyNDArray(NDArray):
    """``mx.np.ndarray``: an array with NumPy semantics (``mx.np`` functions return it), MXNet's own
    type for them, a subclass of ``NDArray`` (``as_nd_ndarray()`` gives the ``mx.nd`` view of the
    same data, ``as_np_ndarray()`` this one).

    >>> import hybridlab as mx
    >>> a = mx.np.ones((2,))
    >>> type(a) is mx.np.ndarray, isinstance(a, mx.nd.NDArray), type(a.as_nd_ndarray()) is mx.nd.NDArray
    (True, True, True)
    """

    __slots__ = ()


NumpyNDArray.__name__ = NumpyNDArray.__qualname__ = "ndarray"     # what users see: mx.np.ndarray
NumpyNDArray.__module__ = "hybridlab.numpy"
DENSE_CLASSES = (NDArray, NumpyNDArray)     # the two dense array classes (a flag and a class apart)


def _empty(cls):
    """An array with no data yet, for ``__setstate__`` to fill (unpickling)."""
    return cls._wrap(None, None)


def array(source, ctx=None, dtype=None, device=None, np_style=False):
    """An NDArray from a list, a NumPy/CuPy array or another NDArray. The dtype is ``dtype``, else
    the source's dtype for an NDArray, else float32 (MXNet 1.x: a NumPy int64 or float64 array
    becomes float32 too). ``np_style=True`` (``mx.np.array``) keeps a NumPy/CuPy array's dtype.

    >>> import numpy as np, hybridlab as mx
    >>> mx.nd.array([1, 2, 3]).dtype
    dtype('float32')
    >>> mx.nd.array(np.arange(3)).dtype, mx.nd.array(np.arange(3), dtype='int64').dtype
    (dtype('float32'), dtype('int64'))
    """
    device = device or ctx or current_device()
    if isinstance(source, NDArray):
        data = source._data
        if dtype is None:
            dtype = source.dtype
    else:
        if not isinstance(source, np.ndarray) and hasattr(source, "__cuda_array_interface__"):
            data = source  # a CuPy array: moved by Device.put
        else:
            data = np.asarray(source)
        if dtype is None:
            keep = np_style and (isinstance(source, np.ndarray) or hasattr(source, "__cuda_array_interface__"))
            dtype = data.dtype if keep else np.float32
    dtype = normalize_dtype(dtype)
    data = device.put(data).astype(dtype, copy=True)
    return NDArray._wrap(data, device, np_style)


def from_dlpack(obj):
    """An NDArray sharing memory with a DLPack producer (a torch/JAX/CuPy/NumPy array) or a DLPack
    capsule (``to_dlpack_for_read`` / ``to_dlpack_for_write``; each capsule can be consumed once).

    >>> import numpy as np, hybridlab as mx
    >>> mx.nd.from_dlpack(np.arange(3.0)).shape
    (3,)
    """
    from ..device import cpu, gpu
    if hasattr(obj, "__dlpack_device__"):
        dev_type, dev_id = obj.__dlpack_device__()
        if int(dev_type) == 2:  # kDLCUDA
            device = gpu(int(dev_id))
            return NDArray._wrap(device.xp.from_dlpack(obj), device)
        return _foreign(NDArray._wrap(np.from_dlpack(obj), cpu()))
    # a bare capsule (MXNet 1.x's exchange: to_dlpack_for_read / _for_write)
    dev_type = _capsule_device_type(obj)
    if dev_type == 1:       # kDLCPU
        return _foreign(NDArray._wrap(_numpy_from_capsule(obj), cpu()))
    from ..device import cupy_or_none
    cp = cupy_or_none()
    if cp is None:
        raise MXNetError(f"from_dlpack: expected a capsule of CPU memory (DLPack device type 1) or CuPy for "
                         f"device memory, got device type {dev_type} without CuPy")
    data = cp.from_dlpack(obj)
    return NDArray._wrap(data, gpu(data.device.id))


# DLPack capsule names, and where the DLTensor starts in what the capsule points to (a versioned
# DLManagedTensor has its version, manager context, deleter and flags first)
_CAPSULES = {b"dltensor": 0, b"dltensor_versioned": 32}


def _capsule_device_type(capsule):
    """The DLPack device type (1: CPU, 2: CUDA) of an unused DLPack capsule."""
    import ctypes
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if type(capsule).__name__ != "PyCapsule":
        raise MXNetError(f"from_dlpack: expected an array with __dlpack__ or a DLPack capsule, got "
                         f"{type(capsule).__name__}")
    name = api.PyCapsule_GetName(capsule)
    if name not in _CAPSULES:
        raise MXNetError(f"from_dlpack: expected an unused DLPack capsule (named 'dltensor'), got one named "
                         f"{name!r} (a capsule can be consumed once)")
    tensor = api.PyCapsule_GetPointer(capsule, name) + _CAPSULES[name]
    return ctypes.c_int32.from_address(tensor + 8).value     # DLTensor: void *data, then DLDevice


class _CapsuleProducer:
    """The ``__dlpack__`` protocol around a bare CPU capsule, for ``numpy.from_dlpack``."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def _numpy_from_capsule(capsule):
    """A writable NumPy array on a CPU capsule's memory (NumPy reads a legacy capsule as read-only;
    MXNet's ``to_dlpack_for_write`` capsules share writable memory)."""
    return writable_alias(np.from_dlpack(_CapsuleProducer(capsule)))


def writable_alias(ro):
    """A writable NumPy array on the memory of the NumPy array ``ro`` (which may be read-only: a
    NumPy array MXNet shares, or a DLPack import); it keeps ``ro`` alive."""
    import ctypes
    if ro.size == 0 or ro.flags.writeable or any(st < 0 for st in ro.strides):
        return ro
    span = sum((n - 1) * st for n, st in zip(ro.shape, ro.strides)) + ro.itemsize
    buf = (ctypes.c_char * span).from_address(ro.__array_interface__["data"][0])
    buf._owner = ro          # keeps the memory alive as long as the alias
    return np.ndarray(ro.shape, ro.dtype, buffer=buf, strides=ro.strides)


def _foreign(arr):
    """``arr`` shares memory with foreign code that may write it: no kernel caches what it derives
    from it (``write_versions``)."""
    write_versions.exported_for_write(arr._data)
    return arr


def to_dlpack_for_read(arr):
    """A DLPack capsule of ``arr``'s data (MXNet 1.x name)."""
    write_versions.exported_for_write(arr._data)      # the consumer may write the shared memory anyway
    return arr._data.__dlpack__()


to_dlpack_for_write = to_dlpack_for_read

from . import dispatch  # noqa: E402  (the dispatcher needs NDArray defined first)
