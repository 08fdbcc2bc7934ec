"""``_contrib_arange_like`` (``mx.nd.contrib.arange_like``, ``mx.npx.arange_like``): evenly spaced values
shaped like the input (or, with ``axis``, as long as that axis), in the input's dtype.

Element i holds ``start + (i // repeat) * step``. Only the input's shape and dtype are read, so its
gradient is zero (recorded as such, as MXNet does).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.zeros((2, 3))
    >>> mx.nd.contrib.arange_like(x).asnumpy().tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    >>> mx.nd.contrib.arange_like(x, axis=-1, start=1.0, step=0.5).asnumpy().tolist()
    [1.0, 1.5, 2.0]
"""
import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .infer import normalize_axis, prod
from .registry import NsName, OpDef, register

__all__ = []


def _shape(a, d):
    if a["axis"] is None:
        return tuple(d)
    return (d[normalize_axis(a["axis"], len(d))],)


def _compute(ctx, a, x):
    if a["repeat"] < 1:
        raise MXNetError(f"_contrib_arange_like: attribute 'repeat' expected a positive count, got {a['repeat']}")
    shape = _shape(a, x.shape)
    i = ctx.xp.arange(prod(shape), dtype=onp.float64)
    values = a["start"] + ctx.xp.floor(i / a["repeat"]) * a["step"]
    return values.reshape(shape).astype(x.dtype)


register(OpDef(
    "_contrib_arange_like", family="creation", npx=NsName("arange_like"),
    attrs={"start": Attr("float", 0.0, doc="Start of the interval (included)."),
           "step": Attr("float", 1.0, doc="Spacing between values."),
           "repeat": Attr("int", 1, doc="Times each value is repeated."),
           "ctx": Attr("str", "", doc="Accepted for compatibility; the output is on the input's device."),
           "axis": Attr("int?", None, doc="Arange along this axis of the input (a 1-D output of its "
                                          "length); None: the input's whole shape.")},
    compute=_compute, infer_shape=lambda a, s: [None if s[0] is None else _shape(a, s[0])],
    infer_type=lambda a, d: [d[0]], zero_grad=True,
    no_grad_reason="depends only on the input's shape: its gradient is zero",
    doc="start + (i // repeat) * step for every element i of the input's shape (or of one axis), in the "
        "input's dtype."))
