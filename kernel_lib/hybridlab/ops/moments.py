"""Statistics: ``moments`` (MXNet 1.x: mean and biased variance as two outputs) and NumPy's
``std``/``var`` (``_npi_std``/``_npi_var``: ``axis``, ``dtype``, ``ddof``, ``keepdims``).

* ``moments(data, axes, keepdims=False)``: ``axes`` must be given (MXNet rejects None/()); reducing
  every axis without keepdims gives shape (1,) as the other 1.x reductions.
* ``np.std``/``np.var``: divisor ``N - ddof``; the result has the input's dtype unless ``dtype`` says
  otherwise. As MXNet 1.9.1, an integer input takes its mean in integer arithmetic (truncated) and an
  integer result is truncated. Gradients (MXNet 1.9.1 gives none, a zero gradient) are the exact ones:
  ``g * 2 (x - mean) / (N - ddof)`` for var, ``g * (x - mean) / ((N - ddof) * std)`` for std.

Example::

    >>> import hybridlab as mx
    >>> mean, var = mx.nd.moments(mx.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), axes=(0,))
    >>> mean.asnumpy().tolist(), var.asnumpy().tolist()
    ([2.5, 3.5, 4.5], [2.25, 2.25, 2.25])
    >>> round(float(mx.np.var(mx.np.array([1.0, 2.0, 3.0, 4.0]), ddof=1)), 4)
    1.6667
"""
import numpy as onp

from .attrs import Attr
from .infer import InferError
from .reduce import reduce_axes, reduced_shape, restore_reduced
from .registry import NsName, OpDef, register

__all__ = []


def _count(shape, axes):
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


# ---- moments ------------------------------------------------------------------------------------
def _moments_axes(a, ndim):
    if not a["axes"]:
        raise InferError(0, "explicit reduction axes (MXNet does not support empty axes; pass every "
                            "axis for global moments)", f"axes={a['axes']}")
    return reduce_axes(a["axes"], ndim)


def _moments_infer(a, s):
    d = s[0]
    if d is None:
        return [None, None]
    out = reduced_shape(tuple(d), _moments_axes(a, len(d)), a["keepdims"], True)
    return [out, out]


def _moments_compute(ctx, a, x):
    axes = _moments_axes(a, x.ndim)
    acc = x.dtype if x.dtype.kind == "f" else onp.dtype(onp.float64)
    xf = x.astype(acc, copy=False)
    mean = xf.mean(axis=axes, keepdims=True)
    var = ((xf - mean) ** 2).mean(axis=axes, keepdims=True)
    shape = reduced_shape(x.shape, axes, a["keepdims"], True)
    return mean.reshape(shape).astype(x.dtype), var.reshape(shape).astype(x.dtype)


def _moments_grad(F, a, ins, outs, og):
    x = ins[0]
    axes = _moments_axes(a, x.ndim)
    n = float(_count(x.shape, axes))
    g_mean = restore_reduced(F, og[0], x.ndim, axes)
    g_var = restore_reduced(F, og[1], x.ndim, axes)
    centered = F.broadcast_sub(x, F.mean(x, axis=axes, keepdims=True))
    dx = F.broadcast_add(F._mul_scalar(F.broadcast_mul(centered, g_var), scalar=2.0 / n),
                         F._div_scalar(g_mean, scalar=n))
    return [dx]


register(OpDef(
    "moments", family="reduce", num_outputs=2,
    attrs={"axes": Attr("shape?", None, doc="Axes to compute the mean and variance over (required in "
                                             "practice: MXNet rejects None)."),
           "keepdims": Attr("bool", False, doc="Keep the reduced axes as size-1 dimensions.")},
    compute=_moments_compute, infer_shape=_moments_infer, infer_type=lambda a, d: [d[0], d[0]],
    grad=_moments_grad,
    doc="The mean and the (biased) variance of data over ``axes``, as two outputs."))


# ---- np.std / np.var ----------------------------------------------------------------------------
def _np_axes(a, ndim):
    return reduce_axes(a["axis"], ndim, legacy=False)


def _stat_type(a, d):
    if a["dtype"] is not None:
        return [onp.dtype(a["dtype"])]
    return [d[0]]


def _stat_infer(a, s):
    d = s[0]
    if d is None:
        return [None]
    return [reduced_shape(tuple(d), _np_axes(a, len(d)), a["keepdims"], False)]


def _variance(xp, x, axes, ddof, out_dtype):
    """Sum of squared deviations / (N - ddof), keepdims; MXNet's integer arithmetic for integer data."""
    n = _count(x.shape, axes)
    if x.dtype.kind in "iub":
        total = x.astype(onp.int64).sum(axis=axes, keepdims=True)
        mean = xp.trunc(total / max(n, 1)).astype(onp.int64)
        work = onp.dtype(out_dtype) if onp.dtype(out_dtype).kind == "f" else onp.dtype(onp.float64)
        dev = (x.astype(onp.int64) - mean).astype(work)
    else:
        work = onp.promote_types(x.dtype, out_dtype) if onp.dtype(out_dtype).kind == "f" else x.dtype
        xf = x.astype(work, copy=False)
        dev = xf - xf.mean(axis=axes, keepdims=True)
    with onp.errstate(divide="ignore", invalid="ignore"):
        return (dev * dev).sum(axis=axes, keepdims=True) / work.type(max(n - ddof, 0))


def _finish(xp, v, x, a, out_dtype):
    shape = reduced_shape(x.shape, _np_axes(a, x.ndim), a["keepdims"], False)
    if onp.dtype(out_dtype).kind != "f":
        v = xp.trunc(v)
    return v.reshape(shape).astype(out_dtype)


def _var_compute(ctx, a, x):
    out_dtype = _stat_type(a, [x.dtype])[0]
    return _finish(ctx.xp, _variance(ctx.xp, x, _np_axes(a, x.ndim), a["ddof"], out_dtype), x, a, out_dtype)


def _std_compute(ctx, a, x):
    out_dtype = _stat_type(a, [x.dtype])[0]
    v = _variance(ctx.xp, x, _np_axes(a, x.ndim), a["ddof"], out_dtype)
    return _finish(ctx.xp, ctx.xp.sqrt(v), x, a, out_dtype)


def _stat_grad(is_std):
    def grad(F, a, ins, outs, og):
        x, g = ins[0], og[0]
        axes = _np_axes(a, x.ndim)
        if not axes:
            return [F.zeros_like(x)]
        if g.dtype != x.dtype:
            g = F.Cast(g, dtype=x.dtype)
        denom = float(max(_count(x.shape, axes) - a["ddof"], 0))
        g = restore_reduced(F, g, x.ndim, axes)
        centered = F.broadcast_sub(x, F.mean(x, axis=axes, keepdims=True))
        if is_std:
            std = restore_reduced(F, outs[0], x.ndim, axes)
            if std.dtype != x.dtype:
                std = F.Cast(std, dtype=x.dtype)
            return [F._div_scalar(F.broadcast_div(F.broadcast_mul(centered, g), std), scalar=denom)]
        return [F._mul_scalar(F.broadcast_mul(centered, g), scalar=2.0 / denom)]
    return grad


def _stat_attrs():
    return {"axis": Attr("shape?", None, doc="Axes to reduce; None: all; (): none."),
            "dtype": Attr("dtype?", None, choices=("float16", "float32", "float64", "int32", "int64", "int8"),
                          doc="Result dtype; None: the input's."),
            "ddof": Attr("int", 0, doc="Delta degrees of freedom: the divisor is N - ddof."),
            "keepdims": Attr("bool", False, doc="Keep the reduced axes as size-1 dimensions.")}


for _name, _compute, _is_std, _what in (("_npi_std", _std_compute, True, "Standard deviation"),
                                        ("_npi_var", _var_compute, False, "Variance")):
    register(OpDef(
        _name, family="reduce", inputs=("a",), attrs=_stat_attrs(),
        np=NsName(_name[len("_npi_"):], args=("axis", "dtype")),
        compute=_compute, infer_shape=_stat_infer, infer_type=_stat_type, grad=_stat_grad(_is_std),
        doc=f"{_what} over ``axis`` (all axes when None) with divisor N - ddof (numpy.{_name[5:]})."))
