"""cuDNN convolutions on CuPy arrays: forward, backward data and backward filter.

Each function takes CuPy arrays in the user's layout (channel-first ``(N, C, *spatial)`` with filters
``(F, C / groups, *kernel)``, or, with ``channel_last``, ``(N, *spatial, C)`` and ``(F, *kernel, C /
groups)``), 1-D, 2-D or 3-D, of float16, float32 or float64; it writes its result into the given
C-contiguous output array (on the arrays' GPU, in CuPy's current stream) and returns ``True``, or
returns ``False`` when cuDNN offers no algorithm for the case or its algorithm refuses it when run
(the caller computes it another way, into the same array: measuring algorithms may have written there;
a refused case is remembered). ``geom`` holds ``stride``, ``dilate`` (MXNet's: 1 means none), ``pad_l``
(symmetric padding) and ``groups`` (``conv_path.geometry``). 1-D convolutions run as 2-D ones of
height 1, as in MXNet.

Precision: float32 convolutions compute with cuDNN's FMA math only (no TF32 tensor cores, whose
10-bit mantissas would break the float32 tolerance every path keeps against the NumPy path); float16
ones accumulate in float32 on tensor cores; float64 in float64.

Algorithms (``tune``, MXNet's ``cudnn_tune``): ``'off'`` takes the first algorithm cuDNN's heuristics
rank; ``'limited_workspace'`` and ``'fastest'`` run each candidate once (``cudnnFind...Ex``) and take
the fastest, within ``workspace_mb`` megabytes of workspace for ``'limited_workspace'`` (MXNet's
``workspace`` attribute) and with any workspace for ``'fastest'``. ``None`` follows
``MXNET_CUDNN_AUTOTUNE_DEFAULT`` as MXNet does (0 off, 1 limited_workspace (the default), 2 fastest).
The descriptors and the chosen algorithm are planned once per key (kind, shapes, dtype, layout,
geometry, device, tuning) and kept (:data:`MAX_PLANS`, least recently used dropped).

:func:`usable` answers whether a GPU can take this path: the library loads, a handle is created on
that device and a small forward, backward-data and backward-filter convolution there equal a NumPy
reference (checked once per device; :func:`unusable_reason` says why not, and a ``RuntimeWarning`` says
it once where the library loaded but the GPU failed the check).

Example::

    >>> from hybridlab.ops import cudnn
    >>> from hybridlab.device import cupy_or_none
    >>> cupy_or_none() is None or not cudnn.usable(0) or cudnn.self_check(0) is None
    True
"""
import collections
import ctypes
import os
import warnings

import numpy as np

from ...base import MXNetError
from . import library as L

__all__ = ["forward", "backward_data", "backward_filter", "usable", "unusable_reason", "self_check",
           "plan_info", "clear_cache", "MAX_PLANS", "ENV_AUTOTUNE"]

ENV_AUTOTUNE = "MXNET_CUDNN_AUTOTUNE_DEFAULT"
MAX_PLANS = 1024
ALIGNMENT = 256                             # bytes: CuPy's allocation granularity; views elsewhere are copied
_TUNES = {"0": "off", "1": "limited_workspace", "2": "fastest"}
_NOT_SUPPORTED = range(3000, 4000)          # cuDNN 9's CUDNN_STATUS_NOT_SUPPORTED family
_NOT_SUPPORTED_V8 = 9                       # cuDNN 8's CUDNN_STATUS_NOT_SUPPORTED
_FIND_ALL = 1 << 40                         # 'fastest': no workspace limit of our own

# kind -> (the C name part, which descriptors: ("t"ensor or "f"ilter) for input 1, input 2, output)
_KINDS = {"forward": ("Forward", "tft"), "backward_data": ("BackwardData", "ftt"),
          "backward_filter": ("BackwardFilter", "ttf")}
_RUN = {"forward": "cudnnConvolutionForward", "backward_data": "cudnnConvolutionBackwardData",
        "backward_filter": "cudnnConvolutionBackwardFilter"}

_plans = collections.OrderedDict()
_usable = {}            # device id -> None (usable) or the reason it is not


class _Plan:
    """Descriptors (input 1, input 2, output, convolution), the algorithm and its workspace bytes."""
    __slots__ = ("descs", "conv", "algo", "workspace", "dtype", "kind")

    def __repr__(self):
        if self.algo is None:
            return f"<cuDNN {self.kind} plan {self.dtype}: no algorithm (the caller's code runs)>"
        return (f"<cuDNN {self.kind} plan {self.dtype}: algorithm {self.algo}, workspace {self.workspace} B, "
                f"math {self.conv.math}>")


def _cf(shape, channel_last):
    """Channel-first dimensions and element strides of a C-contiguous array of ``shape``, 1-D lifted to
    2-D (a height of 1 before the width), as cuDNN's descriptors take them."""
    shape = [int(s) for s in shape]
    strides, acc = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i], acc = acc, acc * shape[i]
    order = [0, len(shape) - 1] + list(range(1, len(shape) - 1)) if channel_last else list(range(len(shape)))
    dims, steps = [shape[i] for i in order], [strides[i] for i in order]
    if len(dims) == 3:
        dims.insert(2, 1)
        steps.insert(2, steps[2] * dims[3])
    return dims, steps


def _filter_dims(shape, channel_last):
    dims, _ = _cf(shape, channel_last)
    return dims


def _spatial(geom):
    """pad, stride, dilate per spatial axis (1-D lifted: no padding, stride and dilation 1 on the height)."""
    pad, stride, dilate = list(geom.pad_l), list(geom.stride), list(geom.dilate)
    if len(pad) == 1:
        pad, stride, dilate = [0] + pad, [1] + stride, [1] + dilate
    return pad, stride, dilate


def _descriptors(kind, dtype, shapes, channel_last, geom):
    """The three array descriptors (in the C functions' order) and the convolution descriptor."""
    descs = []
    for letter, shape in zip(_KINDS[kind][1], shapes):
        if letter == "f":
            descs.append(L.FilterDesc(dtype, _filter_dims(shape, channel_last), channel_last))
        else:
            descs.append(L.TensorDesc(dtype, *_cf(shape, channel_last)))
    compute = "float64" if dtype == "float64" else "float32"
    math = L.FMA_MATH if dtype == "float32" else (L.TENSOR_OP_MATH if dtype == "float16" else L.DEFAULT_MATH)
    return descs, L.ConvDesc(*_spatial(geom), geom.groups, compute, math)


def _is_not_supported(err):
    return err.status in _NOT_SUPPORTED or err.status == _NOT_SUPPORTED_V8


def _tune(tune):
    if tune is None:
        env = os.environ.get(ENV_AUTOTUNE, "1").strip()
        return _TUNES.get(env, "limited_workspace")
    return tune


def _candidates(perf, count, limit, dtype):
    """The ranked results cuDNN returned that ran, fit ``limit`` bytes and keep float32 off TF32."""
    for p in perf[:count]:
        if p.status != L.SUCCESS or p.memory > limit:
            continue
        if dtype == "float32" and p.mathType not in (L.DEFAULT_MATH, L.FMA_MATH):
            continue
        yield p


def _choose(kind, h, plan, pointers, tune, limit):
    """``(algorithm, math type)`` for ``plan``, or ``None`` when cuDNN offers none (see the module docstring)."""
    name = _KINDS[kind][0]
    descs = [d.handle for d in plan.descs]
    n = 16
    perf, count = (L._Perf * n)(), ctypes.c_int()
    L.call(f"cudnnGetConvolution{name}Algorithm_v7", h, descs[0], descs[1], plan.conv.handle, descs[2], n,
           ctypes.byref(count), perf)
    ranked = list(_candidates(perf, count.value, limit, plan.dtype))
    if tune != "off" and ranked:
        import cupy
        size = max(p.memory for p in ranked)
        try:
            workspace = cupy.empty(size, np.uint8) if size else None
        except cupy.cuda.memory.OutOfMemoryError:      # no room to try them all: the heuristics' choice
            return ranked[0].algo, (L.FMA_MATH if plan.dtype == "float32" else ranked[0].mathType)
        found, fcount = (L._Perf * n)(), ctypes.c_int()
        try:
            L.call(f"cudnnFindConvolution{name}AlgorithmEx", h, descs[0], pointers[0], descs[1], pointers[1],
                   plan.conv.handle, descs[2], pointers[2], n, ctypes.byref(fcount), found,
                   None if workspace is None else workspace.data.ptr, size)
        except L.CudnnError:            # measuring failed (memory, an engine): the heuristics' ranking stands
            fcount.value = 0
        ranked = list(_candidates(found, fcount.value, size, plan.dtype)) or ranked
    if not ranked:
        return None
    best = ranked[0]
    return best.algo, (L.FMA_MATH if plan.dtype == "float32" else best.mathType)


def _plan(kind, arrays, channel_last, geom, tune, workspace_mb, h):
    x1, x2, out = arrays
    dtype = out.dtype.name
    tune = _tune(tune)
    key = (kind, dtype, x1.shape, x2.shape, out.shape, bool(channel_last), tuple(geom.stride), tuple(geom.dilate),
           tuple(geom.pad_l), int(geom.groups), out.device.id, tune, workspace_mb)
    plan = _plans.get(key)
    if plan is not None:
        _plans.move_to_end(key)
        return plan
    plan = _Plan()
    plan.kind, plan.dtype, plan.algo, plan.workspace = kind, dtype, None, 0
    try:
        plan.descs, plan.conv = _descriptors(kind, dtype, (x1.shape, x2.shape, out.shape), channel_last, geom)
        limit = _FIND_ALL if tune == "fastest" else int(workspace_mb) << 20
        chosen = _choose(kind, h, plan, [a.data.ptr for a in arrays], tune, limit)
        if chosen is not None:
            algo, math = chosen
            if math != plan.conv.math:
                plan.conv.set_math(math)
            size = ctypes.c_size_t()
            d = plan.descs
            L.call(f"cudnnGetConvolution{_KINDS[kind][0]}WorkspaceSize", h, d[0].handle, d[1].handle,
                   plan.conv.handle, d[2].handle, algo, ctypes.byref(size))
            plan.algo, plan.workspace = algo, size.value
    except L.CudnnError as err:          # kept as a plan without an algorithm: the caller's code runs
        if not _is_not_supported(err):
            raise
    _plans[key] = plan
    if len(_plans) > MAX_PLANS:
        _plans.popitem(last=False)
    return plan


def _scalars(dtype):
    kind = ctypes.c_double if dtype == "float64" else ctypes.c_float
    return kind(1.0), kind(0.0)


def _aligned(cupy, a):
    """``a`` C-contiguous at an address cuDNN's fastest algorithms accept (a view into a larger array
    may start anywhere; CuPy's own allocations are aligned): a copy where it is not."""
    a = cupy.ascontiguousarray(a)
    return a if a.data.ptr % ALIGNMENT == 0 else a.copy()


def _run(kind, x1, x2, out, channel_last, geom, tune, workspace_mb):
    import cupy
    if not (out.flags.c_contiguous and x1.dtype == x2.dtype == out.dtype and out.dtype.name in L.DATA_TYPES):
        return False
    if min(x1.size, x2.size, out.size) == 0:
        return False
    x1, x2 = _aligned(cupy, x1), _aligned(cupy, x2)
    dest = out if out.data.ptr % ALIGNMENT == 0 else cupy.empty(out.shape, out.dtype)
    with out.device:
        h = L.handle(out.device.id, cupy.cuda.get_current_stream().ptr)
        plan = _plan(kind, (x1, x2, dest), channel_last, geom, tune, workspace_mb, h)
        if plan.algo is None:
            return False
        workspace = cupy.empty(plan.workspace, np.uint8) if plan.workspace else None
        alpha, beta = _scalars(plan.dtype)
        d = plan.descs
        try:
            L.call(_RUN[kind], h, ctypes.byref(alpha), d[0].handle, x1.data.ptr, d[1].handle, x2.data.ptr,
                   plan.conv.handle, plan.algo, None if workspace is None else workspace.data.ptr,
                   plan.workspace, ctypes.byref(beta), d[2].handle, dest.data.ptr, detail=repr(plan))
        except L.CudnnError as err:     # the algorithm refused the case after all: the caller's code, from now on
            if not _is_not_supported(err):
                raise
            plan.algo = None
            return False
    if dest is not out:
        out[...] = dest
    return True


def forward(x, w, y, geom, channel_last=False, tune=None, workspace_mb=1024):
    """``y = conv(x, w)`` (no bias); ``True`` when computed (see the module docstring)."""
    return _run("forward", x, w, y, channel_last, geom, tune, workspace_mb)


def backward_data(dy, w, dx, geom, channel_last=False, tune=None, workspace_mb=1024):
    """``dx``: the gradient w.r.t. the data of the convolution with filters ``w`` whose output gradient
    is ``dy`` (also a Deconvolution of ``dy`` without bias)."""
    return _run("backward_data", w, dy, dx, channel_last, geom, tune, workspace_mb)


def backward_filter(x, dy, dw, geom, channel_last=False, tune=None, workspace_mb=1024):
    """``dw``: the gradient w.r.t. the filters of the convolution of ``x`` whose output gradient is ``dy``."""
    return _run("backward_filter", x, dy, dw, channel_last, geom, tune, workspace_mb)


def plan_info():
    """The kept plans, most recent last (``repr`` of each: algorithm, workspace, math type)."""
    return [repr(p) for p in _plans.values()]


def clear_cache():
    """Drop every kept plan (their descriptors are destroyed)."""
    _plans.clear()


# ---- the check each GPU passes before it takes this path ------------------------------------------------
class _Geometry:
    stride, dilate, pad_l, groups = (1, 1), (1, 1), (1, 1), 1


def _reference(x, w, dy):
    """Forward, backward-data and backward-filter of a 3x3, pad-1, stride-1 convolution in float64 NumPy."""
    xp = np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))       # (C, H, W, 3, 3)
    y = np.einsum("chwij,fcij->fhw", win, w)[None]
    dw = np.einsum("chwij,fhw->fcij", win, dy[0])
    dxp = np.zeros_like(xp)
    h, wd = x.shape[2:]
    for i in range(3):
        for j in range(3):
            dxp[:, i:i + h, j:j + wd] += np.einsum("fhw,fc->chw", dy[0], w[:, :, i, j])
    return y, dxp[None, :, 1:-1, 1:-1], dw


def self_check(device_id):
    """``None`` when cuDNN's forward, backward-data and backward-filter convolutions on GPU ``device_id``
    equal a float64 NumPy reference on a small case (float32 tolerance), else what differed."""
    import cupy
    rng = np.random.default_rng(0)
    x, w, dy = (rng.standard_normal(s) for s in ((1, 2, 5, 6), (3, 2, 3, 3), (1, 3, 5, 6)))
    want = _reference(x, w, dy)
    with cupy.cuda.Device(device_id):
        gx, gw, gdy = (cupy.asarray(a, np.float32) for a in (x, w, dy))
        outs = [cupy.empty((1, 3, 5, 6), np.float32), cupy.empty((1, 2, 5, 6), np.float32),
                cupy.empty((3, 2, 3, 3), np.float32)]
        done = [forward(gx, gw, outs[0], _Geometry, tune="off"), backward_data(gdy, gw, outs[1], _Geometry, tune="off"),
                backward_filter(gx, gdy, outs[2], _Geometry, tune="off")]
        got = [cupy.asnumpy(o) for o in outs]
    for name, ok, g, r in zip(("forward", "backward data", "backward filter"), done, got, want):
        if not ok:
            return f"cuDNN offered no {name} algorithm for a 3x3 float32 convolution"
        if not np.allclose(g, r, rtol=1e-4, atol=1e-4):
            return f"cuDNN's {name} differs from NumPy's by up to {float(np.abs(g - r).max()):.3g}"
    return None


def usable(device_id):
    """Whether convolutions on GPU ``device_id`` can take cuDNN (checked once per device; see the module
    docstring)."""
    if device_id not in _usable:
        if L.load() is None:
            reason = L.load_error()
        else:
            try:
                reason = self_check(device_id)
            except (MXNetError, ImportError, RuntimeError) as err:     # no GPU, no CuPy, a driver error
                reason = f"{type(err).__name__}: {err}"
            if reason is not None:      # the library is there but this GPU cannot use it: say so, once
                warnings.warn(f"cuDNN is not used on GPU {device_id}: {reason}; its convolutions run the im2col "
                              "code (cudnn.unusable_reason)", RuntimeWarning, stacklevel=2)
        _usable[device_id] = reason
    return _usable[device_id] is None


def unusable_reason(device_id):
    """Why GPU ``device_id`` does not take cuDNN (``None`` when it does or was not checked yet)."""
    return _usable.get(device_id)
