"""Max pooling before the activation: ``Pooling(max)(relu(x))`` becomes ``relu(Pooling(max)(x))``.

The maximum of a window commutes with a non-decreasing function, so the activation can run on the
pooled values: a quarter of them after 2x2 pooling, in the forward pass and in its gradient. The
gradients are equal too: where a window's maximum is positive both graphs send the gradient to the
window's first maximum; where it is not, relu's zero gradient stops it in both.

The pass asks the registry, not op names: an op whose ``monotone(attrs)`` holds (relu; ``Activation``
with ``act_type='relu'``), read only by an op whose ``window_max(attrs)`` holds (``Pooling`` with
``pool_type='max'``), and not a graph output. The activation node keeps its name and records
``meta["moved_after"]`` (the pooling node's name), so the graph view can tell what moved.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import pool_first
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.Pooling(mx.sym.relu(x, name='act'), kernel=(2, 2), stride=(2, 2), name='pool')
    >>> z = pool_first.pool_before_activation(mx.sym.flatten(y, name='flat'))
    >>> [n.name for n in z._nodes() if not n.is_variable]
    ['pool', 'act', 'flat']
"""
from ._graph import clone, consumers, heads, is_pure, substitute

__all__ = ["pool_before_activation"]


def _movable(node, uses, outs):
    """The activation feeding the max-pooling ``node``, when it can move after it (else ``None``)."""
    if node.is_variable or not node.op.window_max(node.parsed_attrs()) or len(node.inputs) != 1:
        return None
    act, i = node.inputs[0]
    if act.is_variable or not is_pure(act) or not act.op.monotone(act.parsed_attrs()):
        return None
    if len(act.inputs) != 1 or act.num_outputs() != 1 or uses.get((id(act), i)) != 1 or (id(act), i) in outs:
        return None
    return act


def pool_before_activation(symbol, copy=True):
    """``symbol`` with every movable activation moved after the max pooling that reads it (see the
    module docstring). ``copy=False`` rewrites the given graph's nodes in place."""
    sym = clone(symbol) if copy else symbol
    nodes = sym._nodes()
    if not any(not n.is_variable and n.op.window_max(n.parsed_attrs()) for n in nodes):
        return sym                 # no max pooling: nothing to move (and no consumer count to make)
    uses, outs = consumers(sym), heads(sym)
    pairs = [(node, act) for node in nodes if (act := _movable(node, uses, outs)) is not None]
    for pool, act in pairs:
        source = act.inputs[0]
        sym = substitute(sym, {id(pool): act})    # the pool's readers (and outputs) read the activation
        pool.inputs = [source]
        act.inputs = [(pool, 0)]
        act.meta["moved_after"] = pool.name
    return sym
