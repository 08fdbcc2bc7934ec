"""Keep convolution columns for the weight gradient in compiled training steps, within a budget.

A convolution's weight gradient multiplies the output gradient with the same column matrix the
forward built from the data (``ops/conv.py``); rebuilding it is one im2col per layer and step
(LeNet's first layer at batch 64: about 100 us of a 2.6 ms step). ``BackwardPlan`` runs this pass
on the training graph before deriving the backward. An op with a ``train_variant`` in the registry
whose named input gets a gradient runs that variant instead: a ``Convolution`` whose weight gets a
gradient becomes ``_Convolution_columns`` (``ops/conv_columns.py``), which also returns its
columns; the backward reads them in ``_backward_Convolution_weight_columns``, and the train forward
returns them with the other saved values. The columns hold C/num_group * prod(kernel) values per
output position (25x the data for a 5x5 kernel), so ops are rewritten in graph order only while
all kept workspaces fit ``budget`` bytes (``COLUMNS_BUDGET``, 64 MiB); the rest rebuild them.
Predict programs, the cached op's own graph and ``create_graph`` gradients are not touched.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes.conv_columns import keep_conv_columns
    >>> from hybridlab.compiler.signature import Signature, infer_graph
    >>> y = mx.sym.Convolution(mx.sym.var('x'), kernel=(3, 3), num_filter=2, name='c')
    >>> inputs = [n for n in y._nodes() if n.is_variable]
    >>> sig = Signature([n.name for n in inputs], [(1, 1, 5, 5), (2, 1, 3, 3), (2,)], [np.dtype('float32')] * 3,
    ...                 mx.cpu(), True)
    >>> shapes, dtypes = infer_graph(y._outputs, inputs, sig)
    >>> outputs, kept = keep_conv_columns(y._outputs, inputs, [False, True, True], shapes, dtypes)
    >>> kept, outputs[0][0].op.name, y._outputs[0][0].op.name
    (['c'], '_Convolution_columns', 'Convolution')
"""
import copy

import numpy as np

from ...ops.infer import prod
from ...ops.registry import get_op
from ...symbol.graph import topo_order
from ._graph import gradient_path, retarget

__all__ = ["keep_conv_columns", "COLUMNS_BUDGET"]

COLUMNS_BUDGET = 64 << 20      # bytes of columns one training program may keep from forward to backward


def keep_conv_columns(outputs, inputs, need, shapes, dtypes, budget=None):
    """``(outputs, names)``: the training graph with the chosen convolutions rewritten (op nodes
    copied, variables shared: ``inputs`` stay the graph's inputs) and the names of those nodes; the
    given ``outputs`` unchanged, and no names, when none qualifies. ``budget``: bytes of columns to
    keep (default ``COLUMNS_BUDGET``)."""
    budget = COLUMNS_BUDGET if budget is None else budget
    requires, _ = gradient_path(outputs, inputs, need)
    chosen, total = set(), 0
    for node in topo_order(outputs):
        if node.is_variable or node.op.train_variant is None:
            continue
        variant, reader = node.op.train_variant
        a = node.parsed_attrs()
        src, j = node.inputs[node.op.input_names(a).index(reader)]
        in_shapes = [(shapes.get(id(s)) or [None] * (i + 1))[i] for s, i in node.inputs]
        if (id(src), j) not in requires or any(s is None for s in in_shapes):
            continue
        workspace = get_op(variant).infer_shape(a, list(in_shapes))[1]
        size = prod(workspace) * np.dtype(dtypes[id(node)][0]).itemsize
        if total + size <= budget:
            chosen.add(id(node))
            total += size
    if not chosen:
        return outputs, []
    copies, names = {}, []
    for node in topo_order(outputs):
        if node.is_variable:
            continue
        new = copy.copy(node)
        new.meta = dict(node.meta)
        inputs_of_new = [(copies.get(id(s), s), i) for s, i in node.inputs]
        if id(node) in chosen:
            retarget(new, get_op(node.op.train_variant[0]), node.attrs, inputs_of_new)
            new.meta["keeps_columns"] = True
            names.append(node.name)
        else:
            new.inputs = inputs_of_new
        copies[id(node)] = new
    return [(copies.get(id(n), n), i) for n, i in outputs], names
