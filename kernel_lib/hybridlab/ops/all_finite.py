"""``all_finite`` and ``multi_all_finite``: whether every element of one array (of several arrays) is
finite, as a float32 array of shape ``(1,)`` holding 1.0 or 0.0 (MXNet's mixed-precision check of
gradients before an update).

As in MXNet 1.9.1 each element is tested after a cast to float32, so a float64 value beyond float32's
range (``1e300``) counts as not finite. Only floating-point inputs are accepted. ``init_output=False``
asks MXNet to leave an output buffer's 1 from an earlier call alone, which a result that is a new
array cannot do: it is computed as with ``init_output=True``.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.all_finite(mx.nd.array([1.0, float("inf")])).asnumpy().tolist()
    [0.0]
    >>> mx.nd.multi_all_finite(mx.nd.ones((2,)), mx.nd.zeros((3,)), num_arrays=2).asnumpy().tolist()
    [1.0]
"""
import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_F32 = np.dtype(np.float32)
_INIT = Attr("bool", True, doc="Initialize the output to 1 (see the module docstring).")


def _check_float(name, dtypes):
    for i, d in enumerate(dtypes):
        if d is not None and np.dtype(d).kind != "f":
            raise MXNetError(f"{name}: input {i} expected a floating-point dtype (float16, float32, float64), "
                             f"got {np.dtype(d).name}")


def _finite(ctx, name, arrays):
    _check_float(name, [x.dtype for x in arrays])
    xp = ctx.xp
    with np.errstate(over="ignore"):     # float64 beyond float32's range becomes inf: not finite
        ok = all(bool(xp.isfinite(x.astype(_F32, copy=False)).all()) for x in arrays)
    return xp.full((1,), 1.0 if ok else 0.0, dtype=_F32)


def _types(name):
    def infer_type(a, d):
        _check_float(name, d)
        return [_F32]
    return infer_type


register(OpDef(
    "all_finite", family="reduce", attrs={"init_output": _INIT},
    compute=lambda ctx, a, x: _finite(ctx, "all_finite", [x]),
    infer_shape=lambda a, s: [(1,)], infer_type=_types("all_finite"),
    no_grad_reason="a boolean check; MXNet registers no gradient",
    doc="[1.0] (float32, shape (1,)) when every element of data is finite (tested in float32), else [0.0]."))

register(OpDef(
    "multi_all_finite", family="reduce", count_attr="num_arrays",
    inputs=lambda a: tuple(f"array_{i}" for i in range(a["num_arrays"])),
    attrs={"num_arrays": Attr("int", 1, doc="Number of arrays."), "init_output": _INIT},
    bounds={"num_arrays": (1, None)},
    compute=lambda ctx, a, *arrays: _finite(ctx, "multi_all_finite", arrays),
    infer_shape=lambda a, s: [(1,)], infer_type=_types("multi_all_finite"),
    no_grad_reason="a boolean check; MXNet registers no gradient",
    doc="[1.0] (float32, shape (1,)) when every element of all num_arrays arrays is finite (tested in "
        "float32), else [0.0]."))
