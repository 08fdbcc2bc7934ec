"""``amp_multicast``: MXNet's mixed-precision cast of several tensors to one common floating type
(what ``mx.contrib.amp.convert_symbol`` puts in front of ops that must see one dtype, such as
``elemwise_add``). ``amp_cast``, its one-input sibling, lives with ``Cast`` in ``ops/elemwise.py``.

Only float16, bfloat16 and float32 inputs are cast; every other input (float64, integers, bool)
passes unchanged. The common type is float32 when any input is float32, else the first input's
dtype; with ``cast_narrow=True`` it is the low-precision type (float16 or bfloat16) of the last
input that has one, else float32 (MXNet 1.9.1's AMPMultiCastType).

Example::

    >>> import hybridlab as mx
    >>> a, b = mx.nd.ones((2,), dtype="float16"), mx.nd.ones((2,))
    >>> [o.dtype.name for o in mx.nd.amp_multicast(a, b, num_outputs=2)]
    ['float32', 'float32']
    >>> [o.dtype.name for o in mx.nd.amp_multicast(a, b, num_outputs=2, cast_narrow=True)]
    ['float16', 'float16']
    >>> c = mx.nd.ones((2,), dtype="bfloat16")
    >>> [o.dtype.name for o in mx.nd.amp_multicast(c, b, num_outputs=2)]
    ['float32', 'float32']
    >>> [o.dtype.name for o in mx.nd.amp_multicast(c, b, num_outputs=2, cast_narrow=True)]
    ['bfloat16', 'bfloat16']
"""
import numpy as _np

from ..base import is_bfloat16
from .attrs import Attr
from .registry import OpDef, register

__all__ = []

_LOW = (_np.dtype(_np.float16), _np.dtype(_np.float32))    # the dtypes amp casts between, with bfloat16


def _common(a, dtypes):
    """The dtype every float16/bfloat16/float32 input becomes (None when it is not known yet)."""
    if a["cast_narrow"]:
        narrow = _np.dtype(_np.float32)
        for d in dtypes:
            if d is not None and (d == _np.float16 or is_bfloat16(d)):
                narrow = _np.dtype(d)
        return narrow
    if any(d == _np.float32 for d in dtypes if d is not None):
        return _np.dtype(_np.float32)
    return None if dtypes[0] is None else _np.dtype(dtypes[0])


def _out_dtypes(a, dtypes):
    common = _common(a, dtypes)
    return [None if d is None else (common if (_np.dtype(d) in _LOW or is_bfloat16(d)) and common is not None else _np.dtype(d))
            for d in dtypes]


def _compute(ctx, a, *arrays):
    outs = _out_dtypes(a, [x.dtype for x in arrays])
    return tuple(x.astype(d) if x.dtype != d else x.copy() for x, d in zip(arrays, outs))


def _check_count(a, in_shapes):
    return [None if s is None else tuple(s) for s in in_shapes]


register(OpDef(
    "amp_multicast", family="elemwise", count_attr="num_outputs",
    inputs=lambda a: tuple(f"data_{i}" for i in range(a["num_outputs"])),
    num_outputs=lambda a: a["num_outputs"],
    attrs={"num_outputs": Attr("int", doc="Number of input/output pairs cast to one common type."),
           "cast_narrow": Attr("bool", False, doc="Cast to the narrowest type (float16) instead of the widest.")},
    bounds={"num_outputs": (1, None)},
    compute=_compute, infer_shape=_check_count, infer_type=_out_dtypes,
    grad=lambda F, a, ins, outs, og: [F.Cast(g, dtype=x.dtype) for x, g in zip(ins, og)],
    doc="Cast float16/bfloat16/float32 inputs to their common widest type (float32 if any input is float32, else "
        "the first input's dtype), or with ``cast_narrow`` to the narrowest (the last float16 or bfloat16 input's "
        "type); other "
        "inputs pass unchanged. The gradients are cast back to each input's dtype."))
