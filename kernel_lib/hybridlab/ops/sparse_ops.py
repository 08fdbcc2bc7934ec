"""Operators MXNet 1.x defines for its sparse storage, on the dense values that hold sparse arrays
here (``ndarray/sparse.py``): ``_sparse_retain`` (``mx.nd.sparse.retain``: keep the listed rows of
a row-sparse array), ``_square_sum`` (the sum of squares over axes, MXNet's row-sparse
reduction, used by factorization machines) and ``_contrib_SparseEmbedding`` (the deprecated
embedding with a row-sparse gradient: the same values as ``Embedding``).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    >>> mx.nd._internal._sparse_retain(x, mx.nd.array([0, 2])).asnumpy().tolist()
    [[1.0, 2.0], [0.0, 0.0], [5.0, 6.0]]
    >>> mx.nd._internal._square_sum(x, axis=1).asnumpy().tolist()
    [5.0, 25.0, 61.0]
"""
import numpy as onp

from .attrs import Attr
from .infer import InferError
from .nn import _embedding_compute, _embedding_infer, _embedding_type
from .reduce import reduction
from .registry import OpDef, register


def _retain_rows(ctx, a, data, indices):
    """``data`` with every row not listed in ``indices`` zeroed."""
    xp = ctx.xp
    rows = indices.astype(onp.int64).reshape(-1)
    if rows.size and (int(rows.min()) < 0 or int(rows.max()) >= data.shape[0]):
        raise InferError(1, f"row indices in [0, {data.shape[0]})", f"{rows.tolist()}",
                         "_sparse_retain: indices out of range")
    out = xp.zeros_like(data)
    out[rows] = data[rows]
    return out


def _retain_infer(a, s):
    if s[1] is not None and len(s[1]) != 1:
        raise InferError(1, "a 1-d array of row indices", f"shape {tuple(s[1])}")
    return [s[0]]


register(OpDef(
    "_sparse_retain", family="index", inputs=("data", "indices"), compute=_retain_rows,
    infer_shape=_retain_infer, infer_type=lambda a, d: [d[0]],
    grad=lambda F, a, ins, outs, og: [F._sparse_retain(og[0], ins[1]), None],
    doc="Keeps the rows of ``data`` listed in ``indices`` (1-d) and zeroes the others (MXNet's "
        "row_sparse retain; the result of ``mx.nd.sparse.retain`` is row_sparse). Only ``data`` "
        "gets a gradient: the output gradient's retained rows."))


reduction("_square_sum", lambda xp, x, axes, dt: xp.sum(x * x, axis=axes, keepdims=True, dtype=dt),
          lambda F, x, y, g: F.broadcast_mul(F._mul_scalar(x, scalar=2.0), g), legacy=True,
          doc="Sum of squares over ``axis`` (MXNet's ``_square_sum``: ``sum(square(x))``, written for "
              "row_sparse inputs; the same values for dense ones).")


def _sparse_embedding_grad(F, a, ins, outs, og):
    return [None, F._backward_Embedding(ins[0], og[0], input_dim=a["input_dim"], output_dim=a["output_dim"])]


register(OpDef(
    "_contrib_SparseEmbedding", family="nn", inputs=("data", "weight"),
    attrs={"input_dim": Attr("int", doc="Vocabulary size of the input indices."),
           "output_dim": Attr("int", doc="Dimension of the embedding vectors."),
           "dtype": Attr("dtype", onp.dtype("float32"), choices=("float16", "float32", "float64"),
                         doc="Data type of the weight (and of the output)."),
           "deterministic": Attr("bool", False, doc="Accepted for compatibility: the gradient here is "
                                                     "always deterministic.")},
    bounds={"input_dim": (1, None), "output_dim": (1, None)},
    compute=_embedding_compute, infer_shape=_embedding_infer, infer_type=_embedding_type,
    grad=_sparse_embedding_grad,
    doc="MXNet's deprecated ``contrib.SparseEmbedding``: ``Embedding`` whose weight gradient MXNet "
        "keeps row_sparse; the same values as ``Embedding`` (indices truncated and clipped into "
        "[0, input_dim))."))
