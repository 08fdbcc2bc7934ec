"""Fold a per-channel affine map into the op that produces its input (predict programs only):
BatchNorm into the preceding Convolution.

In predict mode a BatchNorm normalises with its moving statistics, a per-channel affine map
``bn(y) = y * scale + shift`` (``scale = gamma / sqrt(moving_var + eps)``, ``shift = beta -
moving_mean * scale``). The registry says so: BatchNorm declares a ``ChannelAffine``
(``predict_affine``) whose ``scale_shift`` writes those two vectors with registered ops. A producer
that can run such a map inside its call declares an ``Epilogue`` (Convolution, ``ops/conv.py``) naming
its fused op (``_FusedConvolution``, ``ops/conv_fused.py``). This pass asks those fields only.

The parameters stay graph inputs: a user may load new parameters or train between calls, so the
pass freezes no values. It adds the few per-channel graph ops ``scale_shift`` writes (named
``<bn>_fold_<op>``: a handful of vector operations on one value per channel, run on every call) and
turns the BatchNorm node into the producer's fused op with ``affine=True``, reading the producer's
inputs plus ``scale`` and ``shift``. The node keeps the BatchNorm's name (output names stay) and
lists the names it computes in ``meta["epilogue"]`` for the graph view.

Applies when the producer's output is read by nothing else (and is no graph output), runs no
epilogue yet, the map is along the producer's channel axis (``Epilogue.channel_axes``), and the
BatchNorm's other outputs (mean, var) are unread. A map that cannot fold (its input is read
elsewhere too, as the sum of a pre-activation residual block is) still becomes one pass over the
data: a ``_ChannelAffine`` node (``ops/channel_affine.py``) reading ``scale`` and ``shift``, which
``fuse_activation`` may give a relu. Training programs run the graph before this pass: the cached
op uses it for predict signatures only (``CachedOp``), where a BatchNorm always uses its moving
statistics.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import fold_affine
    >>> x = mx.sym.var('x')
    >>> c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, no_bias=True, name='c')
    >>> y = mx.sym.relu(mx.sym.BatchNorm(c, fix_gamma=False, name='bn'), name='r')
    >>> z = fold_affine.fold_affine_maps(y)
    >>> for n in z._nodes():
    ...     if not n.is_variable:
    ...         print(n.name, n.op_name, [s.name for s, _ in n.inputs])
    bn_fold__plus_scalar _plus_scalar ['bn_moving_var']
    bn_fold_rsqrt rsqrt ['bn_fold__plus_scalar']
    bn_fold_elemwise_mul elemwise_mul ['bn_gamma', 'bn_fold_rsqrt']
    bn_fold_elemwise_mul1 elemwise_mul ['bn_moving_mean', 'bn_fold_elemwise_mul']
    bn_fold_elemwise_sub elemwise_sub ['bn_beta', 'bn_fold_elemwise_mul1']
    bn _FusedConvolution ['x', 'c_weight', 'bn_fold_elemwise_mul', 'bn_fold_elemwise_sub']
    r relu ['bn']
    >>> z._nodes()[-2].meta["epilogue"]
    ['c', 'bn']
    >>> sorted(z.list_inputs()) == sorted(y.list_inputs())      # the parameters stay inputs
    True
"""
from ...ops.registry import get_op
from ...symbol.graph import topo_order
from ...symbol.symbol import Symbol
from ._epilogue import absorb, free_output, fused_attrs
from ._graph import clone, consumers, heads, retarget

__all__ = ["fold_affine_maps"]


def _producer(node, uses, outs):
    """The node whose call ``node`` (an op with ``predict_affine``, with inputs) folds into, else ``None``."""
    prod, i = node.inputs[0]
    if prod.is_variable or prod.op.epilogue is None or not free_output(prod, i, uses, outs):
        return None
    done = fused_attrs(prod)
    if done.get("affine") or done.get("act_type"):
        return None
    if node.op.predict_affine.axis(node.parsed_attrs()) not in prod.op.epilogue.channel_axes(prod.parsed_attrs()):
        return None
    return prod


def _scale_shift(node, known):
    """The ``(scale, shift)`` entries the op's ``ChannelAffine`` writes for ``node``, as new graph
    nodes named after it (``known``: the ids of the graph's nodes, which keep their names)."""
    from ... import symbol as F              # mx.sym: graph-building namespace, loaded with the ops
    scale, shift = node.op.predict_affine.scale_shift(F, node.parsed_attrs(), [Symbol([e]) for e in node.inputs])
    entries = [scale._outputs[0], shift._outputs[0]]
    taken = set()
    for n in topo_order(entries):
        if id(n) in known:
            continue
        base = name = f"{node.name}_fold_{n.op.name}"
        k = 0
        while name in taken:
            k += 1
            name = f"{base}{k}"
        taken.add(name)
        n.name = name
        n.meta = {k: v for k, v in node.meta.items() if k in ("scope", "source")}
    return entries


def fold_affine_maps(symbol, copy=True):
    """``symbol`` with every foldable per-channel affine map computed inside its producer's call
    (see the module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    nodes = sym._nodes()
    if not any(not n.is_variable and n.op.predict_affine is not None for n in nodes):
        return sym
    uses, outs = consumers(sym), heads(sym)
    known = {id(n) for n in nodes}        # once: walking each map's inputs again made the pass quadratic
    for node in nodes:
        if node.is_variable or node.op.predict_affine is None or not node.inputs:
            continue
        if any(uses.get((id(node), k)) or (id(node), k) in outs for k in range(1, node.num_outputs())):
            continue                                # its side outputs (BatchNorm's mean / var) are read
        prod = _producer(node, uses, outs)
        if prod is not None:
            absorb(node, prod, {"affine": "True"}, list(prod.inputs) + _scale_shift(node, known))
        else:
            axis = node.op.predict_affine.axis(node.parsed_attrs())
            retarget(node, _AFFINE, {"axis": str(axis)}, [node.inputs[0]] + _scale_shift(node, known))
            node.meta.pop("inplace", None)
            node.meta["epilogue"] = [node.name]
    return sym


_AFFINE = get_op("_ChannelAffine")
