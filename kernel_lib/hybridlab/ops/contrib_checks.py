"""MXNet's ``_contrib_allclose`` (``mx.nd.contrib.allclose``): whether two arrays of one shape are
equal within tolerances, as a 0-d uint8 array (MXNet 1.9.1 returns shape ``()`` even outside NumPy
mode). The ``isinf`` / ``isfinite`` / ``isnan`` of ``mx.nd.contrib`` are Python compositions of
registered ops in MXNet and here (``ndarray/contrib_funcs.py``), not operators.

Elements are close when ``a == b``, or ``|a - b| <= atol + rtol * |b|`` (NumPy's asymmetric test,
in float64 with the tolerances rounded to float32 as MXNet stores them; so ``inf`` is close to
``inf`` and even to ``-inf``, and ``1`` to ``inf``), or, with ``equal_nan`` (MXNet's default: True,
unlike NumPy), both are NaN.

Example::

    >>> import hybridlab as mx
    >>> nan = float('nan')
    >>> y = mx.nd.contrib.allclose(mx.nd.array([1.0, nan]), mx.nd.array([1.000001, nan]))
    >>> y.shape, y.dtype, int(y.asnumpy())
    ((), dtype('uint8'), 1)
    >>> int(mx.nd.contrib.allclose(mx.nd.array([1.0, nan]), mx.nd.array([1.000001, nan]), equal_nan=False).asnumpy())
    0
"""
import numpy as np

from .attrs import Attr
from .infer import InferError, same_shape
from .registry import OpDef, register


def _allclose_infer(a, s):
    try:
        same_shape(a, s)
    except InferError as err:
        raise InferError(err.arg, err.expected, err.got, "a and b must have the same shape") from None
    return [()]


def _allclose_compute(ctx, a, x, y):
    xp = ctx.xp
    _allclose_infer(a, [x.shape, y.shape])
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    rtol, atol = float(np.float32(a["rtol"])), float(np.float32(a["atol"]))
    with np.errstate(invalid="ignore"):
        close = (xd == yd) | (xp.abs(xd - yd) <= atol + rtol * xp.abs(yd))
    if a["equal_nan"]:
        close = close | (xp.isnan(xd) & xp.isnan(yd))
    return xp.all(close).astype(np.uint8).reshape(())


register(OpDef("_contrib_allclose", inputs=("a", "b"), family="reduce",
               attrs={"rtol": Attr("float", 1e-05, doc="Relative tolerance."),
                      "atol": Attr("float", 1e-08, doc="Absolute tolerance."),
                      "equal_nan": Attr("bool", True, doc="NaNs in a and b at one position compare equal.")},
               compute=_allclose_compute, infer_shape=_allclose_infer,
               infer_type=lambda a, d: [np.dtype(np.uint8)],
               no_grad_reason="a boolean result; MXNet registers no gradient",
               doc="1 (a 0-d uint8 array) when every element of a is close to b's: a == b, or "
                   "|a - b| <= atol + rtol * |b|, or both NaN with equal_nan; else 0."))
