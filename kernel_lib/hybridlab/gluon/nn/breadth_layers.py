"""``Embedding`` (index -> row lookup) and the parallel containers ``HybridConcatenate`` /
``Concatenate``, which run every child on the same input and concatenate the outputs on ``axis``
(MXNet 1.9's ``gluon.nn.basic_layers``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> emb = nn.Embedding(10, 3)
    >>> emb.initialize()
    >>> emb(mx.nd.array([[1, 2], [3, 4]])).shape
    (2, 2, 3)
    >>> cat = nn.HybridConcatenate(axis=1)
    >>> cat.add(nn.Dense(2), nn.Dense(3))
    >>> cat.initialize()
    >>> cat(mx.nd.ones((4, 5))).shape
    (4, 5)
"""
from ... import ndarray as _nd
from .basic_layers import HybridSequential, Sequential
from ..hybrid_block import HybridBlock
from .input_check import check_op_args

__all__ = ["Embedding", "HybridConcatenate", "Concatenate"]


class Embedding(HybridBlock):
    """Maps integer indices in ``[0, input_dim)`` to rows of ``weight`` ``(input_dim, output_dim)``;
    the output has shape ``x.shape + (output_dim,)``."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, sparse_grad=False,
                 **kwargs):
        super().__init__(**kwargs)
        check_op_args(self, "Embedding", [("input_dim", input_dim, "input_dim"),
                                          ("output_dim", output_dim, "output_dim"), ("dtype", dtype, "dtype")])
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        # sparse_grad: a row_sparse gradient (mx.nd.sparse, stored densely: the same values)
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, allow_deferred_init=True,
                                      grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return f"{self.__class__.__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class HybridConcatenate(HybridSequential):
    """Runs each child on the input and concatenates their outputs along ``axis`` (hybridizable)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Concatenate(Sequential):
    """Runs each child on the input and concatenates their outputs along ``axis`` (imperative)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return _nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)
