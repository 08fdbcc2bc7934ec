"""Gradient calls fused in backward graphs: a call of an op that declares an ``InputFusion``
(``ops/op_fields.py``), whose input is output 0 of a call of the op it names that nothing else
reads, becomes one call of the fused op (log_softmax's gradient after pick's: softmax
cross-entropy's gradient, one kernel call instead of a scatter, a sum along the axis and the
rest). ``compiler.backward.derive_backward`` runs it on every gradient graph it traces, so cached
ops' backward programs and the compiled imperative backward share it; the fused node keeps the
consumer's name and lists both in ``meta["fused"]``. Nothing here knows an op by name.

Example::

    >>> import hybridlab as mx
    >>> loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    >>> loss.hybridize()
    >>> z = mx.nd.array([[1.0, 2.0], [0.5, 0.0]]); z.attach_grad()
    >>> with mx.autograd.record():
    ...     l = loss(z, mx.nd.array([1, 0]))
    >>> l.backward()
    >>> [(n.op_name, [name.split("_", 1)[1] for name in n.meta["fused"]])
    ...  for n in loss.cached_op.backward_plan().symbol._nodes() if "fused" in n.meta]
    [('_backward_pick_log_softmax', ['pick0_backward__backward_pick0', 'log_softmax0_backward__backward_log_softmax0'])]
"""
from ...ops.registry import get_op
from ...symbol.graph import topo_order
from ._graph import retarget

__all__ = ["fuse_gradients"]


def fuse_gradients(outputs, variable_shapes):
    """Rewrite, in place, the calls of the graph of ``outputs`` (entries) that fuse with the call
    producing their input (see the module docstring); ``variable_shapes``: ``{id(variable node):
    shape}`` (op nodes carry theirs in ``meta["shapes"]``, as traced graphs do). Returns how many
    calls were fused."""

    def shape_of(node, i):
        if node.is_variable:
            return variable_shapes.get(id(node))
        shapes = node.meta.get("shapes")
        return shapes[i] if shapes and i < len(shapes) else None

    nodes = topo_order(outputs)
    if not any(not n.is_variable and n.op.input_fusion is not None for n in nodes):
        return 0
    reads = {}
    for node in nodes:
        for src, i in node.inputs:
            reads[(id(src), i)] = reads.get((id(src), i), 0) + 1
    for node, i in outputs:
        reads[(id(node), i)] = reads.get((id(node), i), 0) + 1
    fused = 0
    for node in nodes:
        fusion = None if node.is_variable else node.op.input_fusion
        if fusion is None or fusion.input >= len(node.inputs):
            continue
        producer, i = node.inputs[fusion.input]
        if producer.is_variable or producer.op is not get_op(fusion.producer) or i != 0 \
                or reads.get((id(producer), 0)) != 1:
            continue
        inputs = list(producer.inputs) + [e for k, e in enumerate(node.inputs) if k != fusion.input]
        attrs = fusion.attrs(node.parsed_attrs(), producer.parsed_attrs(), [shape_of(src, k) for src, k in inputs])
        if attrs is None:
            continue
        names = (producer.meta.get("fused") or [producer.name]) + [node.name]
        retarget(node, get_op(fusion.op), attrs, inputs)
        node.meta["fused"] = names
        fused += 1
    return fused
