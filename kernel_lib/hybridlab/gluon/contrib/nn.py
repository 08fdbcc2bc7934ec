"""MXNet 1.x's ``gluon.contrib.nn`` layers: ``Concurrent`` / ``HybridConcurrent`` (every child on the
same input, outputs concatenated along ``axis``), ``Identity``, ``PixelShuffle1D/2D/3D`` (sub-pixel
upsampling: channels C*f become a factor f along each spatial axis), ``SyncBatchNorm`` (BatchNorm;
on one device the batch statistics are those of the whole batch, which is what synchronising across
devices computes) and ``SparseEmbedding`` (an Embedding whose weight and weight gradient are
row_sparse, the weight pulled through its Trainer).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.contrib.nn import PixelShuffle2D
    >>> PixelShuffle2D((2, 3))(mx.nd.zeros((1, 12, 3, 5))).shape
    (1, 2, 6, 15)
"""
from ... import ndarray as _nd
from ...base import MXNetError
from ..block import Block
from ..nn.basic_layers import BatchNorm, Identity  # noqa: F401
from ..nn.breadth_layers import Concatenate, HybridConcatenate
from ..hybrid_block import HybridBlock

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D",
           "SparseEmbedding", "SyncBatchNorm"]


class Concurrent(Concatenate):
    """Feeds the input to every child and concatenates their outputs along ``axis`` (MXNet 1.x's name
    for ``gluon.nn.Concatenate``)."""


class HybridConcurrent(HybridConcatenate):
    """``Concurrent`` for HybridBlocks: hybridizable (``gluon.nn.HybridConcatenate``)."""


class SparseEmbedding(Block):
    """Maps integer indices in ``[0, input_dim)`` to rows of ``weight`` ``(input_dim, output_dim)``,
    for very large vocabularies: the weight is a row_sparse Parameter (``row_sparse_data(x)`` pulls
    the rows ``x`` names through the Parameter's Trainer, so a Trainer must exist before the first
    call) and its gradient is row_sparse (only the rows looked up are nonzero). Imperative only
    (a ``Block``), as in MXNet.

    >>> import hybridlab as mx
    >>> emb = mx.gluon.contrib.nn.SparseEmbedding(5, 2, weight_initializer=mx.init.One())
    >>> emb.initialize()
    >>> trainer = mx.gluon.Trainer(emb.collect_params(), 'sgd')
    >>> x = mx.nd.array([0, 3])
    >>> with mx.autograd.record():
    ...     y = emb(x)
    >>> y.backward()
    >>> emb.weight.grad().stype, emb.weight.grad().asnumpy()[:, 0].tolist()
    ('row_sparse', [1.0, 0.0, 0.0, 1.0, 0.0])
    """

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype, "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return _nd.Embedding(x, weight, **self._kwargs)

    def __repr__(self):
        k = self._kwargs
        return f"{type(self).__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


def _factors(factor, n, name):
    factors = (int(factor),) * n if isinstance(factor, int) else tuple(int(f) for f in factor)
    if len(factors) != n or any(f < 1 for f in factors):
        raise MXNetError(f"{name}: factor expected an int or {n} positive ints, got {factor!r}")
    return factors


class PixelShuffle1D(HybridBlock):
    """(N, C*f, W) -> (N, C, W*f)."""

    def __init__(self, factor):
        super().__init__()
        self._factor = _factors(factor, 1, "PixelShuffle1D")[0]

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))            # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))               # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))                # (N, C, W*f)

    def __repr__(self):
        return f"{type(self).__name__}({self._factor})"


class PixelShuffle2D(HybridBlock):
    """(N, C*f1*f2, H, W) -> (N, C, H*f1, W*f2)."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2, "PixelShuffle2D")

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))   # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))     # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))         # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))            # (N, C, H*f1, W*f2)

    def __repr__(self):
        return f"{type(self).__name__}({self._factors})"


class PixelShuffle3D(HybridBlock):
    """(N, C*f1*f2*f3, D, H, W) -> (N, C, D*f1, H*f2, W*f3)."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3, "PixelShuffle3D")

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))   # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                                # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))     # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                  # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                                # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))          # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                  # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                                # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))                  # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self):
        return f"{type(self).__name__}({self._factors})"


class SyncBatchNorm(BatchNorm):
    """Cross-device BatchNorm (MXNet's ``contrib.nn.SyncBatchNorm``): hybridlab runs a block on one
    device, where it is BatchNorm over the whole batch; ``num_devices`` is accepted and checked."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones", **kwargs):
        if num_devices not in (None, 1):
            raise MXNetError(f"SyncBatchNorm: num_devices expected 1 (hybridlab runs a block on one device), "
                             f"got {num_devices}")
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)
