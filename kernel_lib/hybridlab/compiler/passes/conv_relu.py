"""Convolution (+ bias, + folded BatchNorm) + relu as one kernel call (predict programs only).

A relu that is the only reader of a convolution's output runs in place on that fresh output inside
the convolution's call: ``Convolution`` (or the ``_FusedConvolution`` a folded BatchNorm made,
``fold_batchnorm.py``) followed by ``relu`` / ``Activation(act_type='relu')`` becomes one
``_FusedConvolution`` with ``act_type='relu'`` (``ops/conv_fused.py``): no second output buffer,
no second call. The node keeps the relu's name (output names stay) and adds the names it absorbed
to ``meta["conv_fused"]``.

The cached op runs this pass for predict signatures only; training programs keep the relu (its
gradient reads the relu's output).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import conv_relu
    >>> c = mx.sym.Convolution(mx.sym.var('x'), kernel=(3, 3), num_filter=4, name='c')
    >>> y = conv_relu.fuse_conv_relu(mx.sym.Activation(c, act_type='relu', name='act'))
    >>> [(n.name, n.op_name, n.attrs["act_type"]) for n in y._nodes() if not n.is_variable]
    [('act', '_FusedConvolution', 'relu')]
"""
from ...ops.registry import get_op
from ._graph import clone, consumers, heads, retarget
from .fold_batchnorm import CONVOLUTIONS

__all__ = ["fuse_conv_relu", "is_relu"]

_FUSED = get_op("_FusedConvolution")


def is_relu(node):
    """Whether ``node`` computes relu of its one input (``relu``, ``Activation(act_type='relu')``)."""
    if node.is_variable or len(node.inputs) != 1 or not node.op.monotone(node.parsed_attrs()):
        return False
    return node.op.name == "relu" or node.parsed_attrs().get("act_type") == "relu"


def fuse_conv_relu(symbol, copy=True):
    """``symbol`` with every relu that alone reads a convolution's output fused into it (see the
    module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    nodes = sym._nodes()
    if not any(not n.is_variable and n.op.name in CONVOLUTIONS for n in nodes):
        return sym
    uses, outs = consumers(sym), heads(sym)
    for act in nodes:
        if not is_relu(act):
            continue
        conv, i = act.inputs[0]
        if conv.is_variable or conv.op.name not in CONVOLUTIONS or i != 0:
            continue
        if uses.get((id(conv), 0)) != 1 or (id(conv), 0) in outs or conv.parsed_attrs().get("act_type"):
            continue
        absorbed = conv.meta.get("conv_fused") or [conv.name]
        retarget(act, _FUSED, dict(conv.attrs, act_type="relu"), conv.inputs)
        act.meta.pop("inplace", None)
        act.meta["conv_fused"] = absorbed + [act.name]
    return sym
