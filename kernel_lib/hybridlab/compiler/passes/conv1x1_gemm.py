"""1x1 convolutions as plain matrix products (predict programs only).

A convolution with a 1x1 kernel, stride 1, no padding or dilation, one group, on channel-first 2-D
data is ``out[n] = W (F, C) @ x[n] (C, H*W)``: the im2col of the NumPy path (a copy of the data into
a column matrix, and of the result back into the batch-first layout) is pure overhead. The pass
marks such ``Convolution`` / ``_FusedConvolution`` nodes ``gemm=True`` (turning a ``Convolution``
into a ``_FusedConvolution``, ``ops/conv_fused.py``), which then computes one ``matmul`` straight on
the data and output arrays. On the oneDNN path the op keeps oneDNN's own 1x1 kernels unless
``conv_fused.GEMM_ON_ONEDNN`` is set (they measured faster: ``benchmarks/inference_passes.py``).
Each marked node records ``meta["gemm"] = True``.

The cached op runs this pass for predict signatures only.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import conv1x1_gemm
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.Convolution(mx.sym.Convolution(x, kernel=(1, 1), num_filter=4, name='pw'),
    ...                        kernel=(3, 3), num_filter=4, name='c3')
    >>> z = conv1x1_gemm.convs_as_gemm(y)
    >>> [(n.name, n.op_name) for n in z._nodes() if not n.is_variable]
    [('pw', '_FusedConvolution'), ('c3', 'Convolution')]
"""
from ...ops.conv_fused import gemm_applies
from ...ops.registry import get_op
from ._graph import clone, retarget
from .fold_batchnorm import CONVOLUTIONS

__all__ = ["convs_as_gemm"]

_FUSED = get_op("_FusedConvolution")


def convs_as_gemm(symbol, copy=True):
    """``symbol`` with every 1x1 convolution that is a plain matrix product marked ``gemm`` (see
    the module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    for node in sym._nodes():
        if node.is_variable or node.op.name not in CONVOLUTIONS or not gemm_applies(node.parsed_attrs()):
            continue
        if node.parsed_attrs().get("gemm"):
            continue
        retarget(node, _FUSED, dict(node.attrs, gemm="True"), node.inputs)
        node.meta.pop("inplace", None)
        node.meta["gemm"] = True
    return sym
