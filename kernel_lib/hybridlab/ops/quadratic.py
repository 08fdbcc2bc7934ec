"""MXNet's ``_contrib_quadratic`` (``mx.nd.contrib.quadratic``): ``a * x**2 + b * x + c`` elementwise,
computed as MXNet does, ``x * (a * x + b) + c`` with the coefficients stored as float32: float16
rounded after each step, the other dtypes but float64 in float32, integer results truncated. Its
gradient, ``(2 a x + b) * head``, is the op itself with coefficients ``(0, 2a, b)``.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.contrib.quadratic(mx.nd.array([[1, 2], [3, 4]]), a=1, b=2, c=3).asnumpy().tolist()
    [[6.0, 11.0], [18.0, 27.0]]
"""
import numpy as np

from .attrs import Attr
from .infer import same_shape
from .registry import OpDef, register

__all__ = []


def _compute(ctx, a, x):
    a_, b, c = (np.float32(a[k]) for k in ("a", "b", "c"))
    if x.dtype == np.float16:   # MXNet's half arithmetic: each step in float32, rounded to float16
        w = x.astype(np.float32)

        def r(v):
            return v.astype(np.float16).astype(np.float32)
        inner = r(r(a_ * w) + b)
        return (r(w * inner) + c).astype(np.float16)
    # float64 is computed in float64, the other dtypes in float32 (integers then truncated)
    work = np.float64 if x.dtype == np.float64 else np.float32
    w = x.astype(work, copy=False)
    out = w * (w.dtype.type(a_) * w + w.dtype.type(b)) + w.dtype.type(c)
    return out.astype(x.dtype, copy=False)


register(OpDef(
    "_contrib_quadratic", family="elemwise",
    attrs={"a": Attr("float", 0.0, doc="Coefficient of the quadratic term."),
           "b": Attr("float", 0.0, doc="Coefficient of the linear term."),
           "c": Attr("float", 0.0, doc="Constant term.")},
    compute=_compute, infer_shape=same_shape, infer_type=lambda a, d: [d[0]],
    grad=lambda F, a, ins, outs, og: [F.elemwise_mul(og[0], F._contrib_quadratic(
        ins[0], a=0.0, b=2.0 * float(np.float32(a["a"])), c=a["b"]))],
    doc="a * x**2 + b * x + c, elementwise (coefficients stored as float32)."))
