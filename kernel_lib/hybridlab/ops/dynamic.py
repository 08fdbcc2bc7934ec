"""Dynamic-shape operators: nonzero and unique, whose output shape depends on the input values
(``dynamic_shape=True``, like boolean_mask in ``index.py``).

A graph containing them cannot be compiled ahead of the call: a hybridized block runs it split
around them (``partition_if_dynamic``, ``compiler/partitioned.py``), and tracing a 2.0-style
``forward`` computes them on the real values to learn their output shape (``deferred/trace.py``).
Their shape inference only checks the input and returns an unknown output shape (``None``).

* ``nonzero`` (``mx.npx.nonzero``, MXNet's ``_npx_nonzero``): the indices of the nonzero elements
  as an int64 array of shape ``(N, ndim)``, one row per element in row-major order
  (``numpy.argwhere``; NumPy's ``nonzero`` tuple is its transpose).
* ``unique`` (``mx.np.unique``): the sorted unique values of the flattened input (NumPy's
  ``unique`` without its ``return_*`` options).

Neither has a gradient (indices; a set of values).
"""
import numpy as np

from .registry import OpDef, register


def _nonzero_compute(ctx, a, x):
    return ctx.xp.argwhere(x).astype(np.int64, copy=False)


register(OpDef("nonzero", aliases=("_npx_nonzero",), family="index", npx="nonzero", dynamic_shape=True,
               compute=_nonzero_compute, infer_shape=lambda a, s: [None],
               infer_type=lambda a, d: [np.dtype(np.int64)],
               no_grad_reason="returns indices (integers)", zero_grad=True,
               doc="The indices of the nonzero elements: int64 of shape (N, ndim), one row per element in "
                   "row-major order (output shape depends on the values)."))


def _unique_compute(ctx, a, x):
    return ctx.xp.unique(x.reshape(-1))


register(OpDef("unique", aliases=("_npi_unique",), family="index", np="unique", dynamic_shape=True,
               compute=_unique_compute, infer_shape=lambda a, s: [None],
               infer_type=lambda a, d: [d[0]],
               no_grad_reason="returns a set of values (piecewise constant)", zero_grad=True,
               doc="The sorted unique values of the flattened input (output shape depends on the values)."))
