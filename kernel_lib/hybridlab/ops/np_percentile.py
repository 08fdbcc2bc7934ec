"""``_npi_percentile`` (``mx.np.percentile``, ``quantile`` and ``median`` call it): the ``q``-th
percentiles of ``a`` along ``axis`` (an int, a tuple, or None for all), as NumPy's with ``method=
interpolation`` ('linear', 'lower', 'higher', 'midpoint', 'nearest'). ``q`` is the input ``q`` (a
0-d or 1-d array, so a hybridized graph takes it as data) or, when given, the number ``q_scalar``;
a 1-d ``q`` puts its axis first in the output. Values of ``q`` outside [0, 100] raise ValueError.
The output is float64 for float64 data and float32 otherwise (MXNet's rule); the inputs get zero
gradients (MXNet's ``MakeZeroGradNodes``).

Example::

    >>> import hybridlab as mx
    >>> a = mx.np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
    >>> mx.nd._npi_percentile(a, q_scalar=50, axis=(1,)).tolist()
    [2.0, 5.0]
    >>> mx.nd._npi_percentile(a, mx.np.array([0.0, 100.0]), interpolation="lower").tolist()
    [1.0, 7.0]
"""
import numpy as onp

from ..base import MXNetError, MXNetValueError
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _axes(a, ndim):
    axis = a["axis"]
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(ax + ndim if ax < 0 else ax for ax in axis)
    if any(not 0 <= ax < ndim for ax in axes) or len(set(axes)) != len(axes):
        raise MXNetError(f"_npi_percentile: attribute 'axis' expected distinct axes of a {ndim}-d array, "
                         f"got {tuple(axis)}")
    return axes


def _infer_shape(a, in_shapes):
    data = in_shapes[0]
    if data is None or (len(in_shapes) > 1 and in_shapes[1] is None):
        return [None]
    axes = _axes(a, len(data))
    rest = tuple(1 if i in axes else d for i, d in enumerate(data) if a["keepdims"] or i not in axes)
    qshape = tuple(in_shapes[1]) if len(in_shapes) > 1 else ()
    if len(qshape) > 1:
        raise MXNetError(f"_npi_percentile: q expected a 0-d or 1-d array, got shape {qshape}")
    return [qshape + rest]


def _infer_type(a, in_dtypes):
    return [onp.dtype(onp.float64 if in_dtypes[0] == onp.float64 else onp.float32)]


def _compute(ctx, a, data, q=None):
    xp = ctx.xp
    q = xp.asarray(a["q_scalar"] if q is None else q, dtype=onp.float64)
    if q.size and bool(xp.any((q < 0) | (q > 100))):
        raise MXNetValueError(f"_npi_percentile: q expected values in [0, 100], got values from "
                              f"{float(xp.min(q))} to {float(xp.max(q))}")
    axes = _axes(a, data.ndim)
    x = data.astype(onp.float64)
    try:
        out = xp.percentile(x, q, axis=axes, method=a["interpolation"], keepdims=a["keepdims"])
    except TypeError:   # an array module without ``method=`` (older CuPy): its ``interpolation=``
        out = xp.percentile(x, q, axis=axes, interpolation=a["interpolation"], keepdims=a["keepdims"])
    return xp.asarray(out).astype(onp.float64 if data.dtype == onp.float64 else onp.float32)


register(OpDef(
    "_npi_percentile", inputs=lambda a: ("a",) if a["q_scalar"] is not None else ("a", "q"),
    all_inputs=("a", "q"), compute=_compute, family="reduce",
    attrs={"axis": Attr("shape?", None, doc="Axes to reduce (None: all)."),
           "interpolation": Attr("enum", "linear", choices=_METHODS,
                                 doc="How a percentile between two data points is computed."),
           "keepdims": Attr("bool", False, doc="Keep the reduced axes as size 1."),
           "q_scalar": Attr("float?", None, doc="The percentile as a number (None: the input q).")},
    infer_shape=_infer_shape, infer_type=_infer_type, zero_grad=True,
    no_grad_reason="percentiles: MXNet gives the inputs zero gradients",
    doc="Percentiles q (in [0, 100]) of a along axis, with NumPy's interpolation methods."))
