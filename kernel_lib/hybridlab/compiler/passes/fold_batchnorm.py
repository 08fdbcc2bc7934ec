"""Fold a predict-mode BatchNorm into the Convolution it reads (predict programs only).

In predict mode a BatchNorm normalises with its moving statistics, a per-channel affine map:
``bn(y) = y * scale + shift`` with ``scale = gamma / sqrt(moving_var + eps)`` (``gamma`` taken as 1
under ``fix_gamma``) and ``shift = beta - moving_mean * scale``. When ``y`` is a convolution's
output read by nothing else, ``bn(conv(x, w) + b) = conv(x, w * scale) + (b * scale + shift)``: the
BatchNorm disappears into the convolution's weights and bias.

The parameters stay graph inputs: a user may load new parameters or train between calls, so the
pass does not freeze values. It adds the few per-channel graph ops that compute ``scale`` and
``shift`` from the BatchNorm's inputs on every call (``<bn>_fold_scale``, ``<bn>_fold_shift``: a
handful of vector operations on one value per channel), and turns the BatchNorm node into a
``_FusedConvolution`` with ``bn_fold`` (``ops/conv_fused.py``) reading the convolution's data and
weight plus ``scale`` and ``shift``. That op scales the weights when they are smaller than the
output (one convolution with a bias, no pass over the output) and the output in place otherwise.
The node keeps the BatchNorm's name (output names stay) and records ``meta["conv_fused"]``
(the names it absorbed) for the graph view.

Applies to a ``Convolution`` whose output 0 only the BatchNorm reads (and is not a graph output),
with the BatchNorm normalising the convolution's channel axis (``axis=1`` channel-first, the last
axis channel-last) and its mean/var outputs unread. Training programs run the graph before this
pass: the cached op uses it for predict signatures only (``CachedOp``), where a BatchNorm always
uses its moving statistics.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import fold_batchnorm
    >>> x = mx.sym.var('x')
    >>> c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, no_bias=True, name='c')
    >>> y = mx.sym.relu(mx.sym.BatchNorm(c, fix_gamma=False, name='bn'), name='r')
    >>> z = fold_batchnorm.fold_into_convolutions(y)
    >>> for n in z._nodes():
    ...     if not n.is_variable:
    ...         print(n.name, n.op_name, [s.name for s, _ in n.inputs])
    bn_fold_var_eps _plus_scalar ['bn_moving_var']
    bn_fold_inv_std rsqrt ['bn_fold_var_eps']
    bn_fold_scale elemwise_mul ['bn_gamma', 'bn_fold_inv_std']
    bn_fold_mean_scaled elemwise_mul ['bn_moving_mean', 'bn_fold_scale']
    bn_fold_shift elemwise_sub ['bn_beta', 'bn_fold_mean_scaled']
    bn _FusedConvolution ['x', 'c_weight', 'bn_fold_scale', 'bn_fold_shift']
    r relu ['bn']
    >>> sorted(z.list_inputs()) == sorted(y.list_inputs())      # the parameters stay inputs
    True
"""
from ...ops.conv import channel_last
from ...ops.registry import get_op
from ...symbol.graph import Node
from ._graph import clone, consumers, heads, retarget

__all__ = ["fold_into_convolutions", "CONVOLUTIONS"]

CONVOLUTIONS = ("Convolution", "_FusedConvolution")     # the ops the inference passes rewrite
_FUSED = get_op("_FusedConvolution")


def _channel_axis(a):
    nd = len(a["kernel"])
    return nd + 1 if channel_last(a, nd, "Convolution") else 1


def _foldable(bn, uses, outs):
    """The Convolution ``bn`` (a BatchNorm node) folds into, else ``None``."""
    if bn.is_variable or bn.op.name != "BatchNorm" or len(bn.inputs) != 5:
        return None
    conv, i = bn.inputs[0]
    if conv.is_variable or conv.op.name != "Convolution" or i != 0:
        return None
    if uses.get((id(conv), 0)) != 1 or (id(conv), 0) in outs:
        return None
    if any(uses.get((id(bn), k)) or (id(bn), k) in outs for k in (1, 2)):
        return None                             # the mean / inverse std outputs are read
    a, b = conv.parsed_attrs(), bn.parsed_attrs()
    ndim = len(a["kernel"]) + 2
    if not -ndim <= b["axis"] < ndim or b["axis"] % ndim != _channel_axis(a):
        return None
    return conv


def _node(op, name, inputs, meta, attrs=None):
    n = Node(get_op(op), name, attrs or {}, inputs)
    n.meta = {k: v for k, v in meta.items() if k in ("scope", "source")}
    return n


def fold_into_convolutions(symbol, copy=True):
    """``symbol`` with every foldable Convolution + BatchNorm pair as one ``_FusedConvolution``
    (see the module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    nodes = sym._nodes()
    if not any(not n.is_variable and n.op.name == "BatchNorm" for n in nodes):
        return sym
    uses, outs = consumers(sym), heads(sym)
    for bn in nodes:
        conv = _foldable(bn, uses, outs)
        if conv is None:
            continue
        b, a = bn.parsed_attrs(), conv.parsed_attrs()
        gamma, beta, mean, var = bn.inputs[1:]
        name, meta = bn.name, bn.meta
        var_eps = _node("_plus_scalar", f"{name}_fold_var_eps", [var], meta, {"scalar": repr(float(b["eps"]))})
        scale = _node("rsqrt", f"{name}_fold_inv_std", [(var_eps, 0)], meta)
        if not b["fix_gamma"]:
            scale = _node("elemwise_mul", f"{name}_fold_scale", [gamma, (scale, 0)], meta)
        shift = _node("elemwise_sub", f"{name}_fold_shift",
                      [beta, (_node("elemwise_mul", f"{name}_fold_mean_scaled", [mean, (scale, 0)], meta), 0)], meta)
        if not a["no_bias"]:                    # the conv's bias goes through the BatchNorm too
            bias_scaled = _node("elemwise_mul", f"{name}_fold_bias_scaled", [conv.inputs[2], (scale, 0)], meta)
            shift = _node("elemwise_add", f"{name}_fold_bias_shift", [(bias_scaled, 0), (shift, 0)], meta)
        attrs = dict(conv.attrs, no_bias="True", bn_fold="True")
        retarget(bn, _FUSED, attrs, conv.inputs[:2] + [(scale, 0), (shift, 0)])
        bn.meta.pop("inplace", None)
        bn.meta["conv_fused"] = [conv.name, name]
    return sym
