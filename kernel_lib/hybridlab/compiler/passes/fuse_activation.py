"""An activation computed inside the call of the op that produces its input (predict programs
only): Convolution (+ bias, + folded BatchNorm) + relu as one kernel call.

An op that applies an elementwise activation to its one input declares it
(``elementwise_activation``: ``relu``, ``Activation(act_type=...)``); a producer whose fused op can
run activations declares an ``Epilogue`` listing their kinds (Convolution and ``_FusedConvolution``:
``relu``). When the activation alone reads the producer's output, the activation node becomes the
producer's fused op with ``act_type`` set: one call, no second output buffer (on the oneDNN path a
post-op of the convolution primitive, ``ops/conv_fused.py``). The node keeps the activation's name
(output names stay) and lists the names it computes in ``meta["epilogue"]``.

The cached op runs this pass for predict signatures only; training programs keep the activation (its
gradient reads the activation's output).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import fuse_activation
    >>> c = mx.sym.Convolution(mx.sym.var('x'), kernel=(3, 3), num_filter=4, name='c')
    >>> y = fuse_activation.fuse_activations(mx.sym.Activation(c, act_type='relu', name='act'))
    >>> [(n.name, n.op_name, n.attrs["act_type"], n.meta["epilogue"]) for n in y._nodes() if not n.is_variable]
    [('act', '_FusedConvolution', 'relu', ['c', 'act'])]
"""
from ._epilogue import absorb, free_output, fused_attrs
from ._graph import clone, consumers, heads

__all__ = ["fuse_activations"]


def fuse_activations(symbol, copy=True):
    """``symbol`` with every activation that alone reads a producer's output computed inside the
    producer's call (see the module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    nodes = sym._nodes()
    if not any(not n.is_variable and n.op.epilogue is not None for n in nodes):
        return sym
    uses, outs = consumers(sym), heads(sym)
    for act in nodes:
        if act.is_variable or len(act.inputs) != 1:
            continue
        kind = act.op.activation_kind(act.parsed_attrs())
        prod, i = act.inputs[0]
        if kind is None or prod.is_variable or prod.op.epilogue is None or kind not in prod.op.epilogue.activations:
            continue
        if not free_output(prod, i, uses, outs) or fused_attrs(prod).get("act_type"):
            continue
        absorb(act, prod, {"act_type": kind}, prod.inputs)
    return sym
