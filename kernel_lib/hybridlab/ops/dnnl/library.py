"""oneDNN's C API (version 3) through ctypes: the library, one CPU engine and stream, memory
descriptors, memory objects, primitives and their execution.

The library is ``libdnnl.so`` from the ``onednn-cpu-gomp`` wheel (``pip install 'hybridlab[fast]'``),
or the file ``HYBRIDLAB_DNNL_LIB`` names. Nothing is loaded until :func:`load` is first called; its
OpenMP threads sleep when idle unless the environment says otherwise (``_passive_openmp``).
Every C call goes through :func:`call`, which checks the returned ``dnnl_status_t`` and raises
:class:`DnnlError` (an ``MXNetError``) naming the function. The constants below are the values of
oneDNN 3.2's ``dnnl_types.h`` / ``dnnl_common_types.h`` that this binding uses. Objects the
library allocates (memory descriptors, memory objects, primitive descriptors, primitives) are owned
by small Python objects that destroy them when collected.

Example::

    >>> from hybridlab.ops.dnnl import library
    >>> library.status_name(3), library.PLAIN_TAG[4] == library.TAG_ABCD
    ('unimplemented', True)
"""
import contextlib
import ctypes
import os
import sys
import threading

from ...base import MXNetError
from ..native_library import checked_call, load_once, required

__all__ = ["DnnlError", "load", "load_error", "version", "call", "engine", "stream", "status_name",
           "MemoryDesc", "Memory", "Primitive", "reorder", "md_equal", "md_size", "query_md", "impl_info",
           "exec_args", "execute", "wait", "dims", "openmp_wait_policy", "set_num_threads", "ENV_LIB",
           "PLAIN_TAG", "PostOps", "post_op_arg", "blocked_tag"]

ENV_LIB = "HYBRIDLAB_DNNL_LIB"
_WHEELS = ("onednn-cpu-gomp", "onednn-cpu-iomp", "onednn-cpu-tbb", "onednn")   # distributions shipping libdnnl
_OPENMP_WAIT = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")      # the user's choice wins

# dnnl_status_t
SUCCESS, UNIMPLEMENTED = 0, 3
_STATUS = {0: "success", 1: "out_of_memory", 2: "invalid_arguments", 3: "unimplemented",
           4: "last_impl_reached", 5: "runtime_error", 6: "not_required"}
# dnnl_data_type_t, dnnl_engine_kind_t, dnnl_stream_flags_t
F32, U8, CPU, STREAM_IN_ORDER = 3, 6, 1, 1
# dnnl_format_tag_t: any (the primitive chooses), plain tags by number of dimensions (dnnl_a..dnnl_abcdef)
TAG_ANY, TAG_A, TAG_ABCD = 1, 2, 5
PLAIN_TAG = {1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7}
# dnnl_prop_kind_t, dnnl_alg_kind_t
FORWARD_TRAINING, FORWARD_INFERENCE = 64, 96
CONVOLUTION_DIRECT = 1
ELTWISE_RELU, BINARY_ADD, BINARY_MUL = 0x20, 0x1fff0, 0x1fff1      # post-op algorithms
POOLING_MAX, POOLING_AVG_INCLUDE_PADDING, POOLING_AVG_EXCLUDE_PADDING = 0x1ff, 0x2ff, 0x3ff
# dnnl_query_t
QUERY_IMPL_INFO_STR = 8
(QUERY_SRC_MD, QUERY_DIFF_SRC_MD, QUERY_WEIGHTS_MD, QUERY_DIFF_WEIGHTS_MD, QUERY_DST_MD,
 QUERY_DIFF_DST_MD, QUERY_WORKSPACE_MD) = range(129, 136)
# DNNL_ARG_*
ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_BIAS = 1, 17, 33, 41
ARG_DIFF_SRC, ARG_DIFF_DST, ARG_DIFF_WEIGHTS, ARG_DIFF_BIAS = 129, 145, 161, 169
ARG_FROM, ARG_TO = ARG_SRC, ARG_DST
ARG_SRC_1, ARG_ATTR_MULTIPLE_POST_OP_BASE, ARG_WORKSPACE = 2, 32768, 64

MAX_NDIMS = 12
_dims_t = ctypes.c_int64 * MAX_NDIMS
_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)


class DnnlError(MXNetError):
    """A oneDNN call failed: ``call`` is the C function, ``status`` its ``dnnl_status_t``."""

    def __init__(self, call, status, detail=""):
        self.call, self.status = call, status
        super().__init__(f"oneDNN {call} failed: expected dnnl_success, got dnnl_{status_name(status)} ({status})"
                         + (f" {detail}" if detail else ""))


class _ExecArg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", ctypes.c_void_p)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]


# name -> (argtypes, restype); restype None means dnnl_status_t (checked by ``call``)
_PROTOTYPES = {
    "dnnl_version": ((), ctypes.POINTER(_Version)),
    "dnnl_engine_create": ((_pp, ctypes.c_int, ctypes.c_size_t), None),
    "dnnl_stream_create": ((_pp, _p, ctypes.c_uint), None),
    "dnnl_stream_wait": ((_p,), None),
    "dnnl_memory_desc_create_with_tag": ((_pp, ctypes.c_int, _dims_t, ctypes.c_int, ctypes.c_int), None),
    "dnnl_memory_desc_create_with_strides": ((_pp, ctypes.c_int, _dims_t, ctypes.c_int, _dims_t), None),
    "dnnl_memory_desc_create_with_string_tag": ((_pp, ctypes.c_int, _dims_t, ctypes.c_int, ctypes.c_char_p), None),
    "dnnl_memory_desc_destroy": ((_p,), None),
    "dnnl_memory_desc_equal": ((_p, _p), ctypes.c_int),
    "dnnl_memory_desc_get_size": ((_p,), ctypes.c_size_t),
    "dnnl_memory_create": ((_pp, _p, _p, _p), None),
    "dnnl_memory_set_data_handle": ((_p, _p), None),
    "dnnl_memory_destroy": ((_p,), None),
    "dnnl_primitive_desc_query": ((_p, ctypes.c_int, ctypes.c_int, _p), None),
    "dnnl_primitive_desc_query_md": ((_p, ctypes.c_int, ctypes.c_int), _p),
    "dnnl_primitive_desc_destroy": ((_p,), None),
    "dnnl_primitive_create": ((_pp, _p), None),
    "dnnl_primitive_execute": ((_p, _p, ctypes.c_int, ctypes.POINTER(_ExecArg)), None),
    "dnnl_primitive_destroy": ((_p,), None),
    "dnnl_reorder_primitive_desc_create": ((_pp, _p, _p, _p, _p, _p), None),
    "dnnl_primitive_attr_create": ((_pp,), None),
    "dnnl_primitive_attr_destroy": ((_p,), None),
    "dnnl_primitive_attr_set_post_ops": ((_p, _p), None),
    "dnnl_post_ops_create": ((_pp,), None),
    "dnnl_post_ops_destroy": ((_p,), None),
    "dnnl_post_ops_append_eltwise": ((_p, ctypes.c_int, ctypes.c_float, ctypes.c_float), None),
    "dnnl_post_ops_append_binary": ((_p, ctypes.c_int, _p), None),
    "dnnl_convolution_forward_primitive_desc_create": (
        (_pp, _p, ctypes.c_int, ctypes.c_int, _p, _p, _p, _p, _dims_t, _dims_t, _dims_t, _dims_t, _p), None),
    "dnnl_convolution_backward_data_primitive_desc_create": (
        (_pp, _p, ctypes.c_int, _p, _p, _p, _dims_t, _dims_t, _dims_t, _dims_t, _p, _p), None),
    "dnnl_convolution_backward_weights_primitive_desc_create": (
        (_pp, _p, ctypes.c_int, _p, _p, _p, _p, _dims_t, _dims_t, _dims_t, _dims_t, _p, _p), None),
    "dnnl_binary_primitive_desc_create": ((_pp, _p, ctypes.c_int, _p, _p, _p, _p), None),
    "dnnl_pooling_forward_primitive_desc_create": (
        (_pp, _p, ctypes.c_int, ctypes.c_int, _p, _p, _dims_t, _dims_t, _dims_t, _dims_t, _dims_t, _p), None),
    "dnnl_pooling_backward_primitive_desc_create": (
        (_pp, _p, ctypes.c_int, _p, _p, _dims_t, _dims_t, _dims_t, _dims_t, _dims_t, _p, _p), None),
}

_state = {"lib": None, "error": None, "path": None, "engine": None, "stream": None, "openmp": None}
_load_lock = threading.Lock()


def status_name(status):
    """The ``dnnl_status_t`` name of ``status`` without its prefix (``3`` -> ``'unimplemented'``)."""
    return _STATUS.get(status, "unknown_status")


def _candidates():
    """Paths of libdnnl to try, best first: ``HYBRIDLAB_DNNL_LIB`` alone when set, else the files
    the installed oneDNN wheel lists, else the venv's lib folder."""
    env = os.environ.get(ENV_LIB)
    if env:
        return [env]
    found = []
    try:
        from importlib import metadata
        for dist_name in _WHEELS:
            try:
                dist = metadata.distribution(dist_name)
            except metadata.PackageNotFoundError:
                continue
            for f in dist.files or ():
                if os.path.basename(str(f)).startswith("libdnnl.so"):
                    found.append(os.path.normpath(str(dist.locate_file(f))))
    except Exception:     # a broken metadata install must not break import: try the prefix below
        pass
    found.sort(key=len)   # libdnnl.so before libdnnl.so.3 before libdnnl.so.3.2
    for prefix in (sys.prefix, sys.base_prefix):
        found.append(os.path.join(prefix, "lib", "libdnnl.so.3"))
    return found


def load():
    """The loaded library (a ``ctypes.CDLL``), or ``None`` when no usable libdnnl was found
    (:func:`load_error` says why). Tried once per process."""
    return load_once(_state, _load_lock, "oneDNN", ENV_LIB, "the onednn-cpu-gomp wheel", "fast", _candidates, _bind,
                     _passive_openmp)


@contextlib.contextmanager
def _passive_openmp():
    """``OMP_WAIT_POLICY=PASSIVE`` while libdnnl (and with it GNU OpenMP, which reads the variable
    once, when it is loaded) loads, unless the environment sets a wait policy: idle OpenMP threads
    then sleep instead of spinning, as the NumPy code running between two convolutions needs the
    cores. On a busy 2-core machine, ResNet-18's forward at batch 1 measured 560-660 ms with the
    default policy and 55 ms with PASSIVE (the NumPy path alike: 134-185 ms and 86 ms)."""
    if any(os.environ.get(v) for v in _OPENMP_WAIT):
        _state["openmp"] = "as the environment sets it"
        yield
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    _state["openmp"] = "OMP_WAIT_POLICY=PASSIVE (set by hybridlab while loading libdnnl)"
    try:
        yield
    finally:
        os.environ.pop("OMP_WAIT_POLICY", None)


def _bind(lib):
    """Set the prototypes of the functions this binding calls; why ``lib`` does not fit, or ``None``."""
    for name, (argtypes, restype) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.argtypes = list(argtypes)
        fn.restype = ctypes.c_int if restype is None else restype
    v = lib.dnnl_version().contents
    if v.major != 3:
        return f"expected oneDNN 3.x (this binding follows its C API), got {v.major}.{v.minor}"
    return None


def load_error():
    """Why the library did not load (``None`` when it did or was not tried yet)."""
    return _state["error"]


def version():
    """``(major, minor, patch, path)`` of the loaded library."""
    v = _lib().dnnl_version().contents
    return v.major, v.minor, v.patch, _state["path"]


def openmp_wait_policy():
    """How the OpenMP threads of libdnnl wait between parallel regions (see ``_passive_openmp``)."""
    _lib()
    return _state["openmp"]


_omp = threading.local()     # the calling thread's OpenMP thread count, as last set here


def set_num_threads(n):
    """Run this thread's oneDNN calls on ``n`` OpenMP threads (``omp_set_num_threads``: the count
    is per calling thread, and primitives created afterwards are planned for it; the count itself
    comes from ``hybridlab.threads``). Nothing happens when the library has no OpenMP runtime."""
    if getattr(_omp, "n", None) == n:
        return
    fn = _state.get("omp_set")
    if fn is None:
        fn = getattr(_lib(), "omp_set_num_threads", False)   # dlsym searches libdnnl's dependencies
        if fn:
            fn.argtypes, fn.restype = [ctypes.c_int], None
        _state["omp_set"] = fn
    if fn:
        fn(int(n))
    _omp.n = n


def _lib():
    return required(_state, load)


# call(name, *args, detail=""): the C function ``name``; a status other than ``dnnl_success`` raises DnnlError
call = checked_call(_state, load, SUCCESS, DnnlError)


def engine():
    """The process's CPU engine (created on first use)."""
    if _state["engine"] is None:
        with _load_lock:
            if _state["engine"] is None:
                eng, strm = ctypes.c_void_p(), ctypes.c_void_p()
                call("dnnl_engine_create", ctypes.byref(eng), CPU, 0)
                call("dnnl_stream_create", ctypes.byref(strm), eng, STREAM_IN_ORDER)
                _state["engine"], _state["stream"] = eng, strm
    return _state["engine"]


def stream():
    """The in-order stream of :func:`engine` that every primitive runs on."""
    engine()
    return _state["stream"]


def dims(values):
    """A ``dnnl_dims_t`` holding ``values`` (ints; the rest zero)."""
    values = [int(v) for v in values]
    if len(values) > MAX_NDIMS:
        raise MXNetError(f"oneDNN: expected at most {MAX_NDIMS} dimensions, got {len(values)}")
    return _dims_t(*values)


def blocked_tag(ndim, block):
    """oneDNN's string tag of a layout blocked by ``block`` channels (dimension 1) of an
    ``ndim``-dimensional tensor: ``'aBcd8b'`` for (N, C, H, W) by 8, stored as (N, C/8, H, W, 8)."""
    return "aB" + "cdefgh"[:ndim - 2] + f"{int(block)}b"


class MemoryDesc:
    """An owned ``dnnl_memory_desc_t`` of float32 values (``dtype=U8``: bytes, a pooling workspace):
    ``strides`` (in elements) for a plain user array, or ``tag`` (``TAG_ANY`` lets a primitive choose
    its layout; a string such as :func:`blocked_tag`'s names a blocked layout)."""

    def __init__(self, shape, strides=None, tag=None, dtype=F32):
        self.shape = tuple(int(s) for s in shape)
        self.handle = ctypes.c_void_p()
        if isinstance(tag, str):
            call("dnnl_memory_desc_create_with_string_tag", ctypes.byref(self.handle), len(self.shape),
                 dims(self.shape), dtype, tag.encode("ascii"), detail=f"for shape {self.shape} tag {tag}")
        elif strides is not None:
            call("dnnl_memory_desc_create_with_strides", ctypes.byref(self.handle), len(self.shape),
                 dims(self.shape), dtype, dims(strides), detail=f"for shape {self.shape} strides {tuple(strides)}")
        else:
            call("dnnl_memory_desc_create_with_tag", ctypes.byref(self.handle), len(self.shape), dims(self.shape),
                 dtype, PLAIN_TAG[len(self.shape)] if tag is None else tag, detail=f"for shape {self.shape}")

    def __del__(self):
        _destroy("dnnl_memory_desc_destroy", self, "handle")


def _destroy(name, owner, attr):
    """Free ``owner``'s handle ``attr`` with the C function ``name`` (from ``__del__``: at interpreter
    exit the module may be half torn down, when nothing is freed)."""
    handle = getattr(owner, attr, None)
    lib = _state["lib"] if isinstance(_state, dict) else None
    if handle is not None and handle.value and lib is not None:
        getattr(lib, name)(handle)
        setattr(owner, attr, None)


def post_op_arg(index):
    """The execution argument of the second input of binary post-op ``index``
    (``DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1``)."""
    return ARG_ATTR_MULTIPLE_POST_OP_BASE * (index + 1) | ARG_SRC_1


class PostOps:
    """Owned primitive attributes carrying a chain of post-ops (oneDNN runs them on each output
    value inside the primitive, before it is stored): ``steps`` is a sequence of ``("relu",)`` (an
    eltwise ReLU) and ``("mul" | "add", MemoryDesc)`` (a binary op with a second input of that
    descriptor, broadcast: ``(1, C, 1, 1)`` is one value per channel). ``handle`` is the
    ``dnnl_primitive_attr_t`` to pass to a primitive descriptor."""

    _BINARY = {"mul": BINARY_MUL, "add": BINARY_ADD}

    def __init__(self, steps):
        self.handle, self._ops, self.steps = ctypes.c_void_p(), ctypes.c_void_p(), tuple(steps)
        call("dnnl_primitive_attr_create", ctypes.byref(self.handle))
        call("dnnl_post_ops_create", ctypes.byref(self._ops))
        for step in self.steps:
            if step[0] == "relu":
                call("dnnl_post_ops_append_eltwise", self._ops, ELTWISE_RELU, 0.0, 0.0)
            else:
                call("dnnl_post_ops_append_binary", self._ops, self._BINARY[step[0]], step[1].handle,
                     detail=f"(binary post-op {step[0]} of shape {step[1].shape})")
        call("dnnl_primitive_attr_set_post_ops", self.handle, self._ops)

    def __del__(self):
        _destroy("dnnl_post_ops_destroy", self, "_ops")
        _destroy("dnnl_primitive_attr_destroy", self, "handle")


def md_equal(a, b):
    """Whether two memory descriptors (handles) describe the same layout."""
    return bool(_lib().dnnl_memory_desc_equal(a, b))


def md_size(md):
    """Bytes a memory descriptor (handle) needs."""
    return int(_lib().dnnl_memory_desc_get_size(md))


class Memory:
    """An owned ``dnnl_memory_t`` of descriptor ``md`` (a handle) whose buffer is set per call."""

    def __init__(self, md):
        self.handle = ctypes.c_void_p()
        self.address = None          # the buffer last set: a call with the same one skips the library call
        call("dnnl_memory_create", ctypes.byref(self.handle), md, engine(), None)

    def set(self, address):
        if address == self.address:    # (static programs and weights pass the same buffers every call)
            return
        status = _state["lib"].dnnl_memory_set_data_handle(self.handle, address)
        if status != SUCCESS:
            raise DnnlError("dnnl_memory_set_data_handle", status)
        self.address = address

    def __del__(self):
        _destroy("dnnl_memory_destroy", self, "handle")


class Primitive:
    """An owned primitive descriptor (``pd``) and, once :meth:`create` ran, its primitive. ``keep``
    holds objects the descriptor refers to (a backward primitive's forward hint)."""

    def __init__(self, create_fn, *args, detail="", keep=()):
        self.pd, self.prim, self.keep = ctypes.c_void_p(), None, keep
        call(create_fn, ctypes.byref(self.pd), *args, detail=detail)

    def create(self):
        prim = ctypes.c_void_p()
        call("dnnl_primitive_create", ctypes.byref(prim), self.pd)
        self.prim = prim
        return self

    def __del__(self):
        _destroy("dnnl_primitive_destroy", self, "prim")
        _destroy("dnnl_primitive_desc_destroy", self, "pd")


def query_md(prim, what):
    """The memory descriptor (a handle owned by the descriptor) that ``prim`` chose for ``what``."""
    md = _lib().dnnl_primitive_desc_query_md(prim.pd, what, 0)
    if not md:
        raise DnnlError("dnnl_primitive_desc_query_md", 2, f"for query {what}")
    return md


def impl_info(prim):
    """The implementation oneDNN picked for ``prim`` (``'brg:avx2'``, ``'jit:avx2'``, ``'gemm:jit'`` ...)."""
    out = ctypes.c_char_p()
    call("dnnl_primitive_desc_query", prim.pd, QUERY_IMPL_INFO_STR, 0, ctypes.byref(out))
    return out.value.decode()


def reorder(src_md, dst_md):
    """A reorder primitive copying memory of ``src_md`` into ``dst_md`` (handles) on the CPU engine."""
    return Primitive("dnnl_reorder_primitive_desc_create", src_md, engine(), dst_md, engine(), None).create()


def exec_args(args):
    """``[(DNNL_ARG_*, Memory), ...]`` as the argument array of :func:`execute` (made once, reused:
    a memory object's buffer can change between executions)."""
    return len(args), (_ExecArg * len(args))(*[_ExecArg(k, m.handle.value) for k, m in args])


def execute(prim, args):
    """Run ``prim`` on the stream with ``args``: ``[(DNNL_ARG_*, Memory), ...]`` or :func:`exec_args`."""
    n, arr = args if isinstance(args, tuple) else exec_args(args)
    status = _state["lib"].dnnl_primitive_execute(prim.prim, _state["stream"], n, arr)
    if status != SUCCESS:
        raise DnnlError("dnnl_primitive_execute", status)


def wait():
    """Wait until every primitive run on the stream is done."""
    status = _state["lib"].dnnl_stream_wait(_state["stream"])
    if status != SUCCESS:
        raise DnnlError("dnnl_stream_wait", status)
