"""Dynamic-shape operators: nonzero and unique, whose output shape depends on the input values
(``dynamic_shape=True``, like boolean_mask in ``index.py``).

A graph containing them cannot be compiled ahead of the call: a hybridized block runs it split
around them (``partition_if_dynamic``, ``compiler/partitioned.py``), and tracing a 2.0-style
``forward`` computes them on the real values to learn their output shape (``deferred/trace.py``).
Their shape inference only checks the input and returns an unknown output shape (``None``).

* ``nonzero`` (``mx.npx.nonzero``, MXNet's ``_npx_nonzero``): the indices of the nonzero elements
  as an int64 array of shape ``(N, ndim)``, one row per element in row-major order
  (``numpy.argwhere``; NumPy's ``nonzero`` tuple is its transpose).
* ``unique`` (``mx.np.unique``, MXNet's ``_npi_unique``): the sorted unique values of the flattened
  input (or sub-arrays along ``axis``), with NumPy's ``return_index/inverse/counts`` outputs.

Neither has a gradient (indices; a set of values).
"""
import numpy as np

from .attrs import Attr
from .registry import OpDef, register


def _nonzero_compute(ctx, a, x):
    if x.ndim == 0:       # as MXNet (and NumPy 1.x): a 0-d input counts as a 1-element vector, (N, 1)
        x = x.reshape(1)
    return ctx.xp.argwhere(x).astype(np.int64, copy=False)


register(OpDef("nonzero", aliases=("_npx_nonzero",), family="index", npx="nonzero", dynamic_shape=True,
               compute=_nonzero_compute, infer_shape=lambda a, s: [None],
               infer_type=lambda a, d: [np.dtype(np.int64)],
               no_grad_reason="returns indices (integers)", zero_grad=True,
               doc="The indices of the nonzero elements: int64 of shape (N, ndim), one row per element in "
                   "row-major order (output shape depends on the values)."))


_UNIQUE_FLAGS = ("return_index", "return_inverse", "return_counts")


def _unique_outputs(a):
    return 1 + sum(bool(a[f]) for f in _UNIQUE_FLAGS)


def _unique_compute(ctx, a, x):
    xp = ctx.xp
    if not any(a[f] for f in _UNIQUE_FLAGS) and a["axis"] is None:
        return xp.unique(x.reshape(-1))
    res = xp.unique(x.reshape(-1) if a["axis"] is None else x, return_index=a["return_index"],
                    return_inverse=a["return_inverse"], return_counts=a["return_counts"], axis=a["axis"])
    if not isinstance(res, tuple):
        return res
    # the index outputs as MXNet: int64 vectors (NumPy 2 shapes the inverse like the input)
    return (res[0],) + tuple(r.reshape(-1).astype(np.int64, copy=False) for r in res[1:])


register(OpDef("unique", aliases=("_npi_unique",), family="index", np="unique", dynamic_shape=True,
               attrs={"return_index": Attr("bool", False, doc="also the index of each value's first occurrence"),
                      "return_inverse": Attr("bool", False, doc="also the indices rebuilding the input"),
                      "return_counts": Attr("bool", False, doc="also each value's count"),
                      "axis": Attr("int?", None, doc="unique sub-arrays along this axis (None: flattened)")},
               num_outputs=_unique_outputs,
               compute=_unique_compute, infer_shape=lambda a, s: [None] * _unique_outputs(a),
               infer_type=lambda a, d: [d[0]] + [np.dtype(np.int64)] * (_unique_outputs(a) - 1),
               no_grad_reason="returns a set of values (piecewise constant)", zero_grad=True,
               doc="The sorted unique values of the flattened input (or sub-arrays along `axis`), and as asked "
                   "the first indices, the inverse and the counts (int64); output shapes depend on the values."))
