"""Ops that are one plain matrix product, marked to run as one (predict programs only): 1x1
convolutions as GEMMs.

A convolution with a 1x1 kernel, stride 1, no padding or dilation, one group, on channel-first 2-D
data is ``out[n] = W (F, C) @ x[n] (C, H*W)``: the im2col of the NumPy path (a copy of the data into
a column matrix, and of the result back into the batch-first layout) is pure overhead. The registry
says which calls are such products: the op's ``Epilogue.matmul`` (``ops/conv.py``: ``is_matmul``).
The pass turns such nodes into the producer's fused op with ``gemm=True``
(``ops/conv_fused.py``), which then computes one ``matmul`` straight on the data and output arrays
for one sample on the NumPy path; on the oneDNN path the op keeps oneDNN's own 1x1 kernels (they
measured faster: ``benchmarks/inference_passes.py``). Each marked node lists itself in
``meta["epilogue"]``.

The cached op runs this pass for predict signatures only.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import as_matmul
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.Convolution(mx.sym.Convolution(x, kernel=(1, 1), num_filter=4, name='pw'),
    ...                        kernel=(3, 3), num_filter=4, name='c3')
    >>> z = as_matmul.mark_matmuls(y)
    >>> [(n.name, n.op_name) for n in z._nodes() if not n.is_variable]
    [('pw', '_FusedConvolution'), ('c3', 'Convolution')]
"""
from ._epilogue import absorb, fused_attrs
from ._graph import clone

__all__ = ["mark_matmuls"]


def mark_matmuls(symbol, copy=True):
    """``symbol`` with every op that is one plain matrix product marked ``gemm`` (see the module
    docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    for node in sym._nodes():
        if node.is_variable or node.op.epilogue is None or node.op.epilogue.matmul is None:
            continue
        if fused_attrs(node).get("gemm") or not node.op.epilogue.matmul(node.parsed_attrs()):
            continue
        absorb(node, node, {"gemm": "True"}, node.inputs)
    return sym
