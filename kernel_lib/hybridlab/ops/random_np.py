"""``_npi_gamma``: MXNet's NumPy-style gamma sampler (``mx.np.random.gamma`` calls it). Each of the
two parameters, ``shape`` (k) and ``scale`` (theta), is either an attribute (a number) or, when
that attribute is None, an input array (``input1`` for the first missing one, ``input2`` for the
second, as MXNet names them). Array parameters broadcast against each other and against ``size``;
the output has shape ``size`` when it is given, else the parameters' broadcast shape.

As MXNet, the op checks its parameters where it runs (numbers and array values alike) and raises
``ValueError`` ("expected shape > 0", "expected scale > 0"). The draw is ``standard_gamma(k, size)
* theta`` from the device generator (float64, cast to ``dtype``: float32 unless it says
otherwise); the output gets no gradient (MXNet's ``MakeZeroGradNodes``).

Example::

    >>> import hybridlab as mx
    >>> k = mx.np.array([1.0, 2.0, 3.0])
    >>> mx.nd._npi_gamma(k, shape=None, scale=2.0, size=(4, 3)).shape
    (4, 3)
    >>> try:
    ...     mx.nd._npi_gamma(shape=1.0, scale=0.0, size=(2,))
    ... except ValueError as err:
    ...     print(err)
    _npi_gamma: expected scale > 0, got 0.0
"""
import numpy as onp

from ..base import MXNetError, MXNetValueError
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_PARAMS = ("shape", "scale")


def _inputs(a):
    return ("input1", "input2")[:sum(a[p] is None for p in _PARAMS)]


def _size(a):
    size = a["size"]
    if size is None:
        return None
    if any(d < 0 for d in size):
        raise MXNetError(f"_npi_gamma: attribute 'size' expected non-negative dimensions, got {tuple(size)}")
    return tuple(size)


def _out_shape(a, in_shapes):
    size = _size(a)
    try:
        full = onp.broadcast_shapes(*in_shapes) if in_shapes else ()
        if size is not None:
            if onp.broadcast_shapes(size, full) != size:
                raise ValueError
            return size
    except ValueError:
        raise MXNetError(f"_npi_gamma: the parameters' shapes {', '.join(map(str, in_shapes))} expected to "
                         f"broadcast to size {size}, got shapes that do not") from None
    return full


def _infer_shape(a, in_shapes):
    if any(s is None for s in in_shapes):
        size = _size(a)
        return [size]
    return [_out_shape(a, [tuple(s) for s in in_shapes])]


def _infer_type(a, in_dtypes):
    return [a["dtype"] or onp.dtype(onp.float32)]


def _compute(ctx, a, *arrays):
    xp = ctx.xp
    it = iter(arrays)
    values = {p: (a[p] if a[p] is not None else next(it)) for p in _PARAMS}
    for p in _PARAMS:
        v = values[p]
        if isinstance(v, float):
            if not v > 0:
                raise MXNetValueError(f"_npi_gamma: expected {p} > 0, got {v}")
        elif v.size and not bool(xp.all(v > 0)):
            raise MXNetValueError(f"_npi_gamma: expected {p} > 0 for every element, got an array with "
                                  f"minimum {float(xp.min(v))}")
    shape = _out_shape(a, [tuple(x.shape) for x in arrays])
    k, theta = (v if isinstance(v, float) else v.astype(onp.float64) for v in values.values())
    out = ctx.rng.standard_gamma(k if isinstance(k, float) else xp.broadcast_to(k, shape), shape) * theta
    return xp.asarray(out).astype(a["dtype"] or onp.float32)


register(OpDef(
    "_npi_gamma", inputs=_inputs, all_inputs=("input1", "input2"), compute=_compute,
    attrs={"shape": Attr("float?", None, doc="Shape k (> 0); None: an input array gives it."),
           "scale": Attr("float?", None, doc="Scale theta (> 0); None: an input array gives it."),
           "size": Attr("shape?", None, doc="Output shape (None: the parameters' broadcast shape)."),
           "ctx": Attr("device?", None, doc="Device of the output (default: the current device)."),
           "dtype": Attr("dtype?", None, choices=("float32", "float64", "float16"),
                         doc="Output dtype (None: float32).")},
    infer_shape=_infer_shape, infer_type=_infer_type, family="random", needs_rng=True, device_attr="ctx",
    zero_grad=True, no_grad_reason="random sampling: the output is not a differentiable function of the inputs",
    doc="Samples from the gamma distribution Gamma(shape, scale); each parameter is a number attribute "
        "or an input array broadcast to ``size``."))
