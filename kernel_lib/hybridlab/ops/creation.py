"""Creation operators: arrays made from attributes alone (no inputs) -- ``_zeros``, ``_ones``,
``_full``, ``_arange``, ``_linspace``, ``_eye``, ``_npi_indices``.

Their output lands on the device named by the ``ctx`` attribute, or on the current device; the
dtype attribute defaults to float32 as MXNet's ``InitOpParam`` does. The user-facing functions
(``mx.nd.zeros``, ``mx.np.arange``, ...) live in ``ndarray/creation.py`` and ``numpy/creation.py``.

Example::

    >>> import hybridlab as mx
    >>> mx.nd._arange(start=2, stop=8, step=2, repeat=2).asnumpy().tolist()
    [2.0, 2.0, 4.0, 4.0, 6.0, 6.0]
"""
import math

import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_NO_GRAD = "creation op: no inputs, the output is a constant"


def _common(dtype_default="float32"):
    return {"ctx": Attr("device?", None, doc="Device of the output (default: the current device)."),
            "dtype": Attr("dtype", onp.dtype(dtype_default), doc="Data type of the output.")}


def _bad(op, attr, expected, got):
    return MXNetError(f"{op}: attribute '{attr}' expected {expected}, got {got!r}")


def _check_shape(op, shape):
    if any(d < 0 for d in shape):
        raise _bad(op, "shape", "non-negative dimensions", tuple(shape))
    return tuple(shape)


def _out_type(a, in_dtypes):
    return [a["dtype"]]


def creation(name, compute, infer_shape, attrs, doc, aliases=()):
    """Register a no-input creation op."""
    return register(OpDef(name, inputs=(), compute=compute, infer_shape=infer_shape, infer_type=_out_type,
                          attrs=attrs, aliases=aliases, family="creation", device_attr="ctx",
                          no_grad_reason=_NO_GRAD, doc=doc))


# ---- _zeros, _ones, _full -------------------------------------------------------------------------
def _shape_attrs(**extra):
    return {"shape": Attr("shape", (), doc="The shape of the output."), **_common(), **extra}


def _fill_shape(a, in_shapes):
    """The ``shape`` attribute. In a symbolic graph a -1 dimension (and, in MXNet's legacy shape
    semantics, a 0) is left to shape inference, which fills it from the node's readers (MXNet's
    ``InitShape``; ``symbol.unknown_dims``); an array is only ever made with every size known."""
    return [tuple(a["shape"])]


creation("_zeros", lambda ctx, a: ctx.xp.zeros(_check_shape("_zeros", a["shape"]), dtype=a["dtype"]), _fill_shape,
         _shape_attrs(), "An array of zeros with the given shape and dtype.")
creation("_ones", lambda ctx, a: ctx.xp.ones(_check_shape("_ones", a["shape"]), dtype=a["dtype"]), _fill_shape,
         _shape_attrs(), "An array of ones with the given shape and dtype.")


def _full_compute(ctx, a):
    value = a["value"]
    dtype = a["dtype"]
    if dtype.kind in "iu" and math.isfinite(value):
        value = int(value)  # C++ static_cast<DType>: truncation toward zero
    return ctx.xp.full(_check_shape("_full", a["shape"]), value, dtype=dtype)


creation("_full", _full_compute, _fill_shape,
         _shape_attrs(value=Attr("float", doc="Value with which to fill the new array.")),
         "An array filled with ``value`` (cast to dtype).")


# ---- _arange ---------------------------------------------------------------------------------------
def _range_bounds(a):
    """(start, stop) as MXNet's RangeParamParser sees them: a missing stop means [0, start)."""
    start, stop = a["start"], a["stop"]
    if stop is None and not a["infer_range"]:
        start, stop = 0.0, start
    return start, stop


def _arange_shape(a, in_shapes):
    start, stop = _range_bounds(a)
    step, repeat = a["step"], a["repeat"]
    if step == 0:
        raise _bad("_arange", "step", "a non-zero value", step)
    if repeat <= 0:
        raise _bad("_arange", "repeat", "a value > 0", repeat)
    if stop is None:  # infer_range=True: the size comes from graph inference, not from attributes
        return [None]
    if (step > 0 and not start < stop) or (step < 0 and not start > stop):
        raise _bad("_arange", "start/stop", f"start {'<' if step > 0 else '>'} stop for step {step}",
                   (start, stop))
    return [(int(math.ceil((stop - start) / step)) * repeat,)]


def _arange_compute(ctx, a):
    start, stop = _range_bounds(a)
    if stop is None:
        raise MXNetError("_arange: infer_range=True without stop: expected the output size from a graph's "
                         "shape inference, got an imperative call (give stop)")
    (n,), = _arange_shape(a, [])
    xp, dtype = ctx.xp, a["dtype"]
    step = a["step"]
    if dtype.kind in "iu":  # MXNet casts start/step to the integer type first (via index_t)
        start, step = int(start), int(step)
    idx = (xp.arange(n, dtype=onp.int64) // a["repeat"])
    if dtype.kind == "f":
        s, st = dtype.type(start), dtype.type(step)
        return (s + idx.astype(dtype) * st).astype(dtype, copy=False)
    return (start + idx * step).astype(dtype)


creation("_arange", _arange_compute, _arange_shape, {
    "start": Attr("float", doc="Start of the interval (included); the stop when stop is None."),
    "stop": Attr("float?", None, doc="End of the interval (excluded)."),
    "step": Attr("float", 1.0, doc="Spacing between values."),
    "repeat": Attr("int", 1, doc="How many times each element is repeated."),
    "infer_range": Attr("bool", False, doc="Infer stop from the output size (graphs only)."),
    **_common()}, "Evenly spaced values in [start, stop), each repeated ``repeat`` times.")


# ---- _linspace -------------------------------------------------------------------------------------
def _linspace_shape(a, in_shapes):
    if a["num"] < 0:
        raise _bad("_linspace", "num", "a non-negative count", a["num"])
    return [(a["num"],)]


def _linspace_compute(ctx, a):
    num = a["num"]
    steps = num - 1 if a["endpoint"] else num
    step = (a["stop"] - a["start"]) / steps if steps > 0 else 0.0
    return (a["start"] + step * ctx.xp.arange(num, dtype=onp.float64)).astype(a["dtype"])


creation("_linspace", _linspace_compute, _linspace_shape, {
    "start": Attr("float", doc="The first value."),
    "stop": Attr("float", doc="The last value (when endpoint=True)."),
    "num": Attr("int", doc="Number of samples (non-negative)."),
    "endpoint": Attr("bool", True, doc="Whether stop is the last sample."),
    **_common()}, "``num`` evenly spaced samples from start to stop (computed in float64 as "
                  "``start + i * step``, then cast).")


# ---- _eye ------------------------------------------------------------------------------------------
def _eye_shape(a, in_shapes):
    if a["N"] < 0 or a["M"] < 0:
        raise _bad("_eye", "N/M", "non-negative sizes", (a["N"], a["M"]))
    return [(a["N"], a["M"] if a["M"] > 0 else a["N"])]


def _eye_compute(ctx, a):
    (n, m), = _eye_shape(a, [])
    return ctx.xp.eye(n, m, k=a["k"], dtype=a["dtype"])


creation("_eye", _eye_compute, _eye_shape, {
    "N": Attr("int", doc="Number of rows."),
    "M": Attr("int", 0, doc="Number of columns (0: N)."),
    "k": Attr("int", 0, doc="Diagonal index: 0 main, > 0 upper, < 0 lower."),
    **_common()}, "A 2-D array with ones on the k-th diagonal and zeros elsewhere.")


# ---- _npi_indices ----------------------------------------------------------------------------------
def _indices_shape(a, in_shapes):
    dims = _check_shape("_npi_indices", a["dimensions"])
    return [(len(dims),) + dims]


creation("_npi_indices", lambda ctx, a: ctx.xp.indices(_indices_shape(a, [])[0][1:], dtype=a["dtype"]),
         _indices_shape, {"dimensions": Attr("shape", doc="The shape of the grid."), **_common("int32")},
         "``np.indices``: an array of shape ``(len(dimensions),) + dimensions`` whose i-th entry holds "
         "each position's coordinate along axis i.")
