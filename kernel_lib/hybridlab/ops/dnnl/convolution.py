"""oneDNN convolutions on float32 NumPy arrays: forward, backward data and backward weights.

Each function takes C-contiguous arrays in the user's layout (channel-first ``(N, C, *spatial)``
with weights ``(F, C / groups, *kernel)``, or, with ``channel_last``, ``(N, *spatial, C)`` and
``(F, *kernel, C / groups)``), writes its result into the given output array and returns ``True``;
``False`` when oneDNN has no implementation for the case (the caller then computes it another way).
A :class:`Geometry` holds stride, dilation (MXNet's: 1 means none), padding before and after, and
groups.

The primitive is created with ``format_tag any`` for its tensors, so oneDNN picks its fastest
internal layouts (blocked ones such as ``nChw8c`` on AVX2); reorders copy the user's arrays in and
the results out when the chosen layout differs. A :class:`Plan` (primitive, reorders, memory
objects) is built once per key (kind, shapes, layout, geometry, bias) and cached; calls run under
one lock, as they share the stream and the plans' memory objects.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> x, w = np.ones((1, 1, 4, 4), np.float32), np.ones((2, 1, 3, 3), np.float32)
    >>> y = np.empty((1, 2, 2, 2), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g) and y.ravel().tolist() == [9.0] * 8)
    True
"""
import collections
import threading

import numpy as np

from . import library as L
from ... import threads

__all__ = ["Geometry", "Plan", "forward", "backward_data", "backward_weights", "plan_info", "clear_cache",
           "MAX_PLANS"]

MAX_PLANS = 512          # cached plans (a ResNet-50 training step at one batch size needs about 160)

Geometry = collections.namedtuple("Geometry", "stride dilate pad_l pad_r groups")

_plans = collections.OrderedDict()      # key -> Plan, or None when oneDNN has no implementation
_lock = threading.Lock()


def _cf(shape, channel_last):
    """The channel-first dimensions and element strides of a C-contiguous array of ``shape``."""
    shape = tuple(int(s) for s in shape)
    strides, acc = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= shape[i]
    if channel_last:
        order = (0, len(shape) - 1) + tuple(range(1, len(shape) - 1))
        return tuple(shape[i] for i in order), tuple(strides[i] for i in order)
    return shape, tuple(strides)


def _grouped(dims, strides, groups):
    """Weights ``(F, C/g, *K)`` as oneDNN's grouped ``(g, F/g, C/g, *K)`` (axis 0 split)."""
    if groups == 1:
        return dims, strides
    return (groups, dims[0] // groups) + dims[1:], (strides[0] * (dims[0] // groups),) + strides


def _user_md(array_shape, channel_last, groups=1):
    dims, strides = _cf(array_shape, channel_last)
    dims, strides = _grouped(dims, strides, groups)
    return L.MemoryDesc(dims, strides)


def _any(md):
    return L.MemoryDesc(md.shape, tag=L.TAG_ANY)


def _spatial(geom):
    return (L.dims(geom.stride), L.dims([d - 1 for d in geom.dilate]), L.dims(geom.pad_l), L.dims(geom.pad_r))


def _aligned(nbytes):
    """A 64-byte aligned uint8 buffer of ``nbytes`` (oneDNN's preferred alignment)."""
    buf = np.empty(nbytes + 64, np.uint8)
    off = (-buf.ctypes.data) % 64
    return buf[off:off + nbytes]


class _Arg:
    """One argument of a convolution primitive: the user's plain layout, the layout the primitive
    chose (``chosen``, a descriptor handle), and the reorder between them when they differ."""

    def __init__(self, dnnl_arg, user_md, chosen, output):
        self.arg, self.user_md, self.output = dnnl_arg, user_md, output
        self.user = L.Memory(user_md.handle)
        self.inner, self.reorder, self.nbytes = None, None, 0
        if not L.md_equal(chosen, user_md.handle):
            self.nbytes = L.md_size(chosen)
            self.inner = L.Memory(chosen)
            self.reorder = L.reorder(chosen, user_md.handle) if output else L.reorder(user_md.handle, chosen)


class Plan:
    """A convolution primitive with its arguments (:class:`_Arg`, in the order :meth:`run` takes
    the arrays). The memory objects are the plan's, so the argument lists of every execution are
    made once; a run only points the memory objects at the call's arrays."""

    def __init__(self, kind, prim, args):
        self.kind, self.prim, self.args = kind, prim, args
        self._steps_in = [(a.reorder, L.exec_args([(L.ARG_FROM, a.user), (L.ARG_TO, a.inner)]))
                          for a in args if a.inner is not None and not a.output]
        self._conv = (prim, L.exec_args([(a.arg, a.inner or a.user) for a in args]))
        self._steps_out = [(a.reorder, L.exec_args([(L.ARG_FROM, a.inner), (L.ARG_TO, a.user)]))
                           for a in args if a.inner is not None and a.output]
        # one workspace per run holds every reordered argument, each at a 64-byte aligned offset
        self._offsets, self.workspace = [], 0
        for a in args:
            self._offsets.append(self.workspace if a.inner is not None else None)
            self.workspace += -(-a.nbytes // 64) * 64

    def run(self, arrays):
        """Execute on ``arrays`` (NumPy arrays, one per argument; outputs written in place)."""
        work = _aligned(self.workspace) if self.workspace else None
        base = work.__array_interface__["data"][0] if self.workspace else 0
        for arg, arr, off in zip(self.args, arrays, self._offsets):
            arg.user.set(arr.__array_interface__["data"][0])
            if off is not None:
                arg.inner.set(base + off)
        for prim, prepared in self._steps_in + [self._conv] + self._steps_out:
            L.execute(prim, prepared)
        L.wait()
        del work          # the workspace is needed until the stream is done

    def __repr__(self):
        moved = [a.arg for a in self.args if a.inner is not None]
        return f"<dnnl Plan {self.kind} {L.impl_info(self.prim)} reordered args {moved}>"


def _hint(src, weights, dst, geom):
    """A forward primitive descriptor of any layouts: the hint backward descriptors need."""
    a_src, a_w, a_dst = _any(src), _any(weights), _any(dst)      # kept alive through the call
    return L.Primitive("dnnl_convolution_forward_primitive_desc_create", L.engine(), L.FORWARD_TRAINING,
                       L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, None, a_dst.handle,
                       *_spatial(geom), None, detail=_detail("forward hint", src, weights, dst, geom))


def _detail(kind, src, weights, dst, geom):
    return f"(convolution {kind}: src {src.shape}, weights {weights.shape}, dst {dst.shape}, {geom})"


def _build(kind, shapes, channel_last, geom, with_bias, post=()):
    src, dst = _user_md(shapes[0], channel_last), _user_md(shapes[2], channel_last)
    weights = _user_md(shapes[1], channel_last, geom.groups)
    bias = L.MemoryDesc((shapes[1][0],)) if with_bias else None
    bias_handle = bias.handle if bias is not None else None
    detail = _detail(kind, src, weights, dst, geom) + (f" post-ops {post}" if post else "")
    a_src, a_w, a_dst = _any(src), _any(weights), _any(dst)      # "any": the primitive picks the layouts
    if kind == "forward":
        # post-ops: per-channel vectors (1, F, 1, ...) for the binary ones, ReLU as an eltwise one
        channel = (1, shapes[1][0]) + (1,) * (len(shapes[0]) - 2)
        steps = [(p,) if p == "relu" else (p, L.MemoryDesc(channel)) for p in post]
        attr = L.PostOps(steps) if steps else None
        # forward_training with post-ops too: forward_inference picked brgconv kernels on AVX2, 2x slower
        # for 1x1 convolutions than the jit ones forward_training gets (with or without post-ops)
        prim = L.Primitive("dnnl_convolution_forward_primitive_desc_create", L.engine(), L.FORWARD_TRAINING,
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, bias_handle, a_dst.handle, *_spatial(geom),
                           attr.handle if attr is not None else None, detail=detail, keep=(attr,)).create()
        args = [_Arg(L.ARG_SRC, src, L.query_md(prim, L.QUERY_SRC_MD), False),
                _Arg(L.ARG_WEIGHTS, weights, L.query_md(prim, L.QUERY_WEIGHTS_MD), False)]
        if bias is not None:
            args.append(_Arg(L.ARG_BIAS, bias, bias.handle, False))
        args += [_Arg(L.post_op_arg(i), step[1], step[1].handle, False) for i, step in enumerate(steps)
                 if len(step) == 2]
        args.append(_Arg(L.ARG_DST, dst, L.query_md(prim, L.QUERY_DST_MD), True))
    elif kind == "backward_data":
        hint = _hint(src, weights, dst, geom)
        prim = L.Primitive("dnnl_convolution_backward_data_primitive_desc_create", L.engine(),
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, a_dst.handle,
                           *_spatial(geom), hint.pd, None, detail=detail, keep=(hint,)).create()
        args = [_Arg(L.ARG_DIFF_DST, dst, L.query_md(prim, L.QUERY_DIFF_DST_MD), False),
                _Arg(L.ARG_WEIGHTS, weights, L.query_md(prim, L.QUERY_WEIGHTS_MD), False),
                _Arg(L.ARG_DIFF_SRC, src, L.query_md(prim, L.QUERY_DIFF_SRC_MD), True)]
    else:
        hint = _hint(src, weights, dst, geom)
        prim = L.Primitive("dnnl_convolution_backward_weights_primitive_desc_create", L.engine(),
                           L.CONVOLUTION_DIRECT, a_src.handle, a_w.handle, bias_handle, a_dst.handle, *_spatial(geom),
                           hint.pd, None, detail=detail, keep=(hint,)).create()
        args = [_Arg(L.ARG_SRC, src, L.query_md(prim, L.QUERY_SRC_MD), False),
                _Arg(L.ARG_DIFF_DST, dst, L.query_md(prim, L.QUERY_DIFF_DST_MD), False),
                _Arg(L.ARG_DIFF_WEIGHTS, weights, L.query_md(prim, L.QUERY_DIFF_WEIGHTS_MD), True)]
        if bias is not None:
            args.append(_Arg(L.ARG_DIFF_BIAS, bias, bias.handle, True))
    return Plan(kind, prim, args)


def _plan(kind, shapes, channel_last, geom, with_bias, post=()):
    """The cached plan (``None``: oneDNN has no implementation). Call with ``_lock`` held.
    Plans are per thread count (``hybridlab.threads``): oneDNN splits the work when it creates them."""
    nthreads = threads.current()
    L.set_num_threads(nthreads)
    key = (kind, shapes, channel_last, geom, with_bias, nthreads, post)
    plan = _plans.get(key, _plans)
    if plan is not _plans:
        _plans.move_to_end(key)
        return plan
    try:
        geom = Geometry(*(tuple(int(v) for v in x) for x in geom[:4]), int(geom.groups))
        plan = _build(kind, shapes, bool(channel_last), geom, with_bias, post)
    except L.DnnlError as err:
        if err.status != L.UNIMPLEMENTED:
            raise
        plan = None
    _plans[key] = plan
    while len(_plans) > MAX_PLANS:
        _plans.popitem(last=False)
    return plan


def _check(arrays):
    for a in arrays:
        if a is not None and (a.dtype != np.float32 or not a.flags.c_contiguous):
            raise ValueError(f"oneDNN convolution: expected C-contiguous float32 arrays, got {a.dtype} "
                             f"{'contiguous' if a.flags.c_contiguous else 'strided'} {a.shape}")


def _run(kind, shapes, arrays, geom, channel_last, with_bias, post=()):
    _check(arrays)
    with _lock:
        plan = _plan(kind, shapes, channel_last, geom, with_bias, post)
        if plan is None:
            return False
        plan.run([a for a in arrays if a is not None])
    return True


def forward(src, weights, bias, dst, geom, channel_last=False, scale=None, shift=None, relu=False):
    """``dst = conv(src, weights) + bias`` (``bias`` may be ``None``); see the module docstring.
    Post-ops run inside the primitive on each output value before it is stored: ``* scale`` and
    ``+ shift`` (arrays of one value per filter, either may be ``None``), then ``max(., 0)`` when
    ``relu`` (a folded BatchNorm and a relu: ``ops/conv_fused.py``).

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((2, 1, 3, 3), np.float32)
    >>> y = np.empty((1, 2, 1, 1), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> s, t = np.array([1.0, -1.0], np.float32), np.array([1.0, 2.0], np.float32)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g, scale=s, shift=t, relu=True)
    ...                          and y.ravel().tolist() == [10.0, 0.0])
    True
    """
    post = tuple(name for name, v in (("mul", scale), ("add", shift)) if v is not None) + (("relu",) if relu else ())
    return _run("forward", (src.shape, weights.shape, dst.shape), (src, weights, bias, scale, shift, dst), geom,
                channel_last, bias is not None, post)


def backward_data(diff_dst, weights, diff_src, geom, channel_last=False):
    """``diff_src``: the gradient of a convolution of ``diff_src``'s shape w.r.t. its input."""
    return _run("backward_data", (diff_src.shape, weights.shape, diff_dst.shape), (diff_dst, weights, diff_src),
                geom, channel_last, False)


def backward_weights(src, diff_dst, diff_weights, diff_bias, geom, channel_last=False):
    """``diff_weights`` (and ``diff_bias`` unless ``None``): the gradients of a convolution of
    ``src`` w.r.t. its weights and bias, for the output gradient ``diff_dst``."""
    return _run("backward_weights", (src.shape, diff_weights.shape, diff_dst.shape),
                (src, diff_dst, diff_weights, diff_bias), geom, channel_last, diff_bias is not None)


def plan_info(kind, shapes, geom, channel_last=False, with_bias=False):
    """The cached :class:`Plan` for these shapes (``(src, weights, dst)`` in the user's layout),
    built when missing: ``repr`` names oneDNN's implementation and the reordered arguments."""
    with _lock:
        return _plan(kind, shapes, channel_last, geom, with_bias)


def clear_cache():
    """Forget every cached plan (their primitives are destroyed)."""
    with _lock:
        _plans.clear()
