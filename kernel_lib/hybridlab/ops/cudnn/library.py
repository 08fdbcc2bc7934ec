"""cuDNN's C API (version 8 or 9, the convolution functions of its "legacy" API) through ctypes: the
library, one handle per GPU, tensor, filter and convolution descriptors, and checked calls.

CuPy 14 dropped its own cuDNN binding, so hybridlab binds the library itself, as it binds oneDNN on the
CPU (``ops/dnnl``). The library is ``libcudnn.so.9`` (or ``.8``) of the ``nvidia-cudnn-cu12`` /
``nvidia-cudnn-cu13`` wheels (``pip install 'hybridlab[gpu]'``; PyTorch installs one too), or the file
``HYBRIDLAB_CUDNN_LIB`` names, or one the system's loader finds. Loading needs no GPU: descriptors and
the output-shape query work without one (the tests check this binding's descriptors that way); a
handle (:func:`handle`) needs a CUDA device. Every C call goes through :func:`call`, which checks the
returned ``cudnnStatus_t`` and raises :class:`CudnnError` (an ``MXNetError``) naming the function and
cuDNN's name for the status. Descriptors are small Python objects that destroy theirs when collected.

Example::

    >>> from hybridlab.ops.cudnn import library
    >>> library.load() is None or library.version()[0] >= 8
    True
"""
import ctypes
import ctypes.util
import glob
import os
import sys
import threading

from ...base import MXNetError
from ..native_library import checked_call, load_once, required

__all__ = ["CudnnError", "load", "load_error", "version", "call", "status_name", "handle", "TensorDesc",
           "FilterDesc", "ConvDesc", "forward_output_dims", "ENV_LIB", "DATA_TYPES", "FwdPerf", "BwdDataPerf",
           "BwdFilterPerf"]

ENV_LIB = "HYBRIDLAB_CUDNN_LIB"
_WHEEL_DIRS = ("nvidia/cudnn/lib", "nvidia/cu13/lib", "nvidia/cu12/lib")    # where the NVIDIA wheels put it
_SONAMES = ("libcudnn.so.9", "libcudnn.so.8")

SUCCESS = 0
# cudnnDataType_t by NumPy dtype name; cudnnTensorFormat_t; cudnnConvolutionMode_t; cudnnMathType_t
DATA_TYPES = {"float32": 0, "float64": 1, "float16": 2}
FORMAT_NCHW, FORMAT_NHWC = 0, 1
CROSS_CORRELATION = 1          # MXNet's convolution (no kernel flip)
DEFAULT_MATH, TENSOR_OP_MATH, TENSOR_OP_MATH_ALLOW_CONVERSION, FMA_MATH = 0, 1, 2, 3

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_ints = ctypes.POINTER(ctypes.c_int)
_size_p = ctypes.POINTER(ctypes.c_size_t)


class _Perf(ctypes.Structure):
    """cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (the three share this layout)."""
    _fields_ = [("algo", ctypes.c_int), ("status", ctypes.c_int), ("time", ctypes.c_float),
                ("memory", ctypes.c_size_t), ("determinism", ctypes.c_int), ("mathType", ctypes.c_int),
                ("reserved", ctypes.c_int * 3)]


FwdPerf = BwdDataPerf = BwdFilterPerf = _Perf
_perf_p = ctypes.POINTER(_Perf)

# name -> argtypes (every function returns cudnnStatus_t, checked by ``call``)
_PROTOTYPES = {
    "cudnnCreate": (_pp,),
    "cudnnDestroy": (_p,),
    "cudnnSetStream": (_p, _p),
    "cudnnCreateTensorDescriptor": (_pp,),
    "cudnnSetTensorNdDescriptor": (_p, ctypes.c_int, ctypes.c_int, _ints, _ints),
    "cudnnDestroyTensorDescriptor": (_p,),
    "cudnnCreateFilterDescriptor": (_pp,),
    "cudnnSetFilterNdDescriptor": (_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, _ints),
    "cudnnDestroyFilterDescriptor": (_p,),
    "cudnnCreateConvolutionDescriptor": (_pp,),
    "cudnnSetConvolutionNdDescriptor": (_p, ctypes.c_int, _ints, _ints, _ints, ctypes.c_int, ctypes.c_int),
    "cudnnSetConvolutionGroupCount": (_p, ctypes.c_int),
    "cudnnSetConvolutionMathType": (_p, ctypes.c_int),
    "cudnnDestroyConvolutionDescriptor": (_p,),
    "cudnnGetConvolutionNdForwardOutputDim": (_p, _p, _p, ctypes.c_int, _ints),
    "cudnnGetConvolutionForwardAlgorithm_v7": (_p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p),
    "cudnnFindConvolutionForwardAlgorithmEx": (_p, _p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p,
                                               _p, ctypes.c_size_t),
    "cudnnGetConvolutionForwardWorkspaceSize": (_p, _p, _p, _p, _p, ctypes.c_int, _size_p),
    "cudnnConvolutionForward": (_p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _p, ctypes.c_size_t, _p, _p, _p),
    "cudnnGetConvolutionBackwardDataAlgorithm_v7": (_p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p),
    "cudnnFindConvolutionBackwardDataAlgorithmEx": (_p, _p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p,
                                                    _p, ctypes.c_size_t),
    "cudnnGetConvolutionBackwardDataWorkspaceSize": (_p, _p, _p, _p, _p, ctypes.c_int, _size_p),
    "cudnnConvolutionBackwardData": (_p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _p, ctypes.c_size_t, _p, _p, _p),
    "cudnnGetConvolutionBackwardFilterAlgorithm_v7": (_p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p),
    "cudnnFindConvolutionBackwardFilterAlgorithmEx": (_p, _p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _ints, _perf_p,
                                                      _p, ctypes.c_size_t),
    "cudnnGetConvolutionBackwardFilterWorkspaceSize": (_p, _p, _p, _p, _p, ctypes.c_int, _size_p),
    "cudnnConvolutionBackwardFilter": (_p, _p, _p, _p, _p, _p, _p, ctypes.c_int, _p, ctypes.c_size_t, _p, _p, _p),
}

_state = {"lib": None, "error": None, "path": None}
_threads = threading.local()    # .handles: device id -> [cudnnHandle_t, the stream last set on it], per thread
_lock = threading.Lock()


class CudnnError(MXNetError):
    """A cuDNN call failed: ``call`` is the C function, ``status`` its ``cudnnStatus_t``."""

    def __init__(self, call, status, detail=""):
        self.call, self.status = call, status
        super().__init__(f"cuDNN {call} failed: expected CUDNN_STATUS_SUCCESS, got {status_name(status)} ({status})"
                         + (f" {detail}" if detail else ""))


def status_name(status):
    """cuDNN's name of a ``cudnnStatus_t`` (``'CUDNN_STATUS_BAD_PARAM'``), from the library itself."""
    lib = _state["lib"]
    if lib is None:
        return f"status {status}"
    return lib.cudnnGetErrorString(status).decode("ascii", "replace")


def _candidates():
    """Files to try, best first: ``HYBRIDLAB_CUDNN_LIB`` alone when set; else the NVIDIA wheels' copies
    on ``sys.path``, then the names the system's loader resolves."""
    env = os.environ.get(ENV_LIB)
    if env:
        return [env]
    found = []
    for root in sys.path:
        for sub in _WHEEL_DIRS:
            for soname in _SONAMES:
                found += glob.glob(os.path.join(root or os.curdir, sub, soname))
    found += list(_SONAMES)
    system = ctypes.util.find_library("cudnn")
    return found + ([system] if system else [])


def load():
    """The loaded library (a ``ctypes.CDLL``), or ``None`` when none loads (:func:`load_error` says
    why). Tried once per process; needs no GPU."""
    return load_once(_state, _lock, "cuDNN", ENV_LIB, "the nvidia-cudnn wheels or the system", "gpu", _candidates,
                     _bind)


def _bind(lib):
    """Set the prototypes of the functions this binding calls; why ``lib`` does not fit, or ``None``."""
    lib.cudnnGetVersion.restype, lib.cudnnGetVersion.argtypes = ctypes.c_size_t, []
    lib.cudnnGetErrorString.restype, lib.cudnnGetErrorString.argtypes = ctypes.c_char_p, [ctypes.c_int]
    for name, argtypes in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = list(argtypes), ctypes.c_int
    if lib.cudnnGetVersion() < 8000:
        return f"expected cuDNN 8 or 9, got version {lib.cudnnGetVersion()}"
    return None


def load_error():
    """Why the library did not load (``None`` when it did or was not tried yet)."""
    return _state["error"]


def version():
    """``(major, minor, patch, path)`` of the loaded library (cuDNN 9 numbers 9.28.0 as 92800)."""
    v = int(_lib().cudnnGetVersion())
    major = v // 10000 if v >= 90000 else v // 1000
    rest = v - major * (10000 if v >= 90000 else 1000)
    return major, rest // 100, rest % 100, _state["path"]


def _lib():
    return required(_state, load)


# call(name, *args, detail=""): the C function ``name``; a status other than ``CUDNN_STATUS_SUCCESS`` raises CudnnError
call = checked_call(_state, load, SUCCESS, CudnnError)


def handle(device_id, stream_ptr):
    """The calling thread's cuDNN handle of GPU ``device_id`` (created on first use, on that device: the
    caller has made it current), set to run on the CUDA stream ``stream_ptr`` (CuPy's current stream). One
    handle per thread, as cuDNN asks: a handle's stream is its state."""
    handles = _threads.__dict__.setdefault("handles", {})
    entry = handles.get(device_id)
    if entry is None:
        h = ctypes.c_void_p()
        call("cudnnCreate", ctypes.byref(h), detail=f"(a handle for GPU {device_id})")
        entry = handles[device_id] = [h, None]
    if entry[1] != stream_ptr:
        call("cudnnSetStream", entry[0], ctypes.c_void_p(stream_ptr))
        entry[1] = stream_ptr
    return entry[0]


def _int_array(values):
    values = [int(v) for v in values]
    return (ctypes.c_int * len(values))(*values)


class _Desc:
    """An owned descriptor: ``create``/``destroy`` name its C functions."""
    create = destroy = None

    def __init__(self):
        self.handle = ctypes.c_void_p()
        call(self.create, ctypes.byref(self.handle))

    def __del__(self):
        h, lib = getattr(self, "handle", None), _state["lib"] if isinstance(_state, dict) else None
        if h is not None and h.value and lib is not None:
            getattr(lib, self.destroy)(h)
            self.handle = None


class TensorDesc(_Desc):
    """A tensor of ``dtype`` (a key of :data:`DATA_TYPES`) with ``dims`` in cuDNN's channel-first order
    (N, C, *spatial) and element ``strides`` matching them (any layout in memory)."""
    create, destroy = "cudnnCreateTensorDescriptor", "cudnnDestroyTensorDescriptor"

    def __init__(self, dtype, dims, strides):
        super().__init__()
        self.dims = tuple(int(d) for d in dims)
        call("cudnnSetTensorNdDescriptor", self.handle, DATA_TYPES[dtype], len(self.dims), _int_array(self.dims),
             _int_array(strides), detail=f"(tensor {dtype} dims {self.dims} strides {tuple(strides)})")


class FilterDesc(_Desc):
    """Packed filters of ``dtype``, ``dims`` (F, C / groups, *kernel), stored channel-last
    (F, *kernel, C / groups) when ``channel_last``."""
    create, destroy = "cudnnCreateFilterDescriptor", "cudnnDestroyFilterDescriptor"

    def __init__(self, dtype, dims, channel_last):
        super().__init__()
        self.dims = tuple(int(d) for d in dims)
        call("cudnnSetFilterNdDescriptor", self.handle, DATA_TYPES[dtype],
             FORMAT_NHWC if channel_last else FORMAT_NCHW, len(self.dims), _int_array(self.dims),
             detail=f"(filter {dtype} dims {self.dims}{' channel-last' if channel_last else ''})")


class ConvDesc(_Desc):
    """A cross-correlation (MXNet's convolution) with symmetric ``pad``, ``stride``, ``dilate`` per
    spatial axis, ``groups``, computing in ``compute_dtype`` with ``math`` (a cudnnMathType_t)."""
    create, destroy = "cudnnCreateConvolutionDescriptor", "cudnnDestroyConvolutionDescriptor"

    def __init__(self, pad, stride, dilate, groups, compute_dtype, math):
        super().__init__()
        detail = f"(convolution pad {tuple(pad)} stride {tuple(stride)} dilate {tuple(dilate)} groups {groups})"
        call("cudnnSetConvolutionNdDescriptor", self.handle, len(pad), _int_array(pad), _int_array(stride),
             _int_array(dilate), CROSS_CORRELATION, DATA_TYPES[compute_dtype], detail=detail)
        call("cudnnSetConvolutionGroupCount", self.handle, int(groups), detail=detail)
        self.set_math(math)

    def set_math(self, math):
        call("cudnnSetConvolutionMathType", self.handle, int(math))
        self.math = math


def forward_output_dims(conv, x, w):
    """The output dimensions (N, F, *spatial) cuDNN computes for ``conv`` of tensor ``x`` with filters ``w``
    (descriptors; host-only, no GPU needed)."""
    out = (ctypes.c_int * len(x.dims))()
    call("cudnnGetConvolutionNdForwardOutputDim", conv.handle, x.handle, w.handle, len(x.dims), out)
    return tuple(out)
