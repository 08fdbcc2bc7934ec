"""Run the training variants of ops in compiled training steps, keeping their workspaces within a budget.

Some gradients rebuild what the forward already computed: a convolution's weight gradient multiplies
the output gradient with the same column matrix the forward built from the data (``ops/conv.py``),
and max pooling's gradient finds each window's maximum again. ``BackwardPlan`` runs this pass on the
training graph before deriving the backward. An op with a ``train_variant`` in the registry whose
named input gets a gradient (and whose predicate, when it has one, accepts its attributes and input
shapes) runs that variant instead, which also returns its workspace as hidden outputs; the backward
reads them, and the train forward returns them with the other saved values:

* ``Convolution`` (weight gets a gradient, on the NumPy convolution path of the program's device:
  ``ops/conv_path.py``) ->
  ``_Convolution_columns`` (``ops/conv_columns.py``): the im2col columns, read by
  ``_backward_Convolution_weight_columns`` (LeNet's first layer at batch 64: one im2col, about 100 us
  of a 2.6 ms step);
* ``Pooling`` (max, 2x2 windows with stride 2 tiling the input) -> ``_Pooling_first_max``
  (``ops/pool_first_max.py``): one byte per window, read by ``_backward_Pooling_first_max``.

Columns hold C/num_group * prod(kernel) values per output position (25x the data for a 5x5 kernel),
so ops are rewritten in graph order only while all kept workspaces fit ``budget`` bytes
(``WORKSPACE_BUDGET``, 64 MiB); the rest rebuild them. Predict programs, the cached op's own graph
and ``create_graph`` gradients are not touched.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes.train_variants import keep_workspaces
    >>> from hybridlab.compiler.signature import Signature
    >>> from hybridlab.ops import conv_path
    >>> y = mx.sym.Convolution(mx.sym.var('x'), kernel=(3, 3), num_filter=2, name='c')
    >>> inputs = [n for n in y._nodes() if n.is_variable]
    >>> sig = Signature([n.name for n in inputs], [(1, 1, 5, 5), (2, 1, 3, 3), (2,)], [np.dtype('float32')] * 3,
    ...                 mx.cpu(), True)
    >>> shapes, dtypes = sig.infer(y._outputs, inputs)
    >>> with conv_path.use("numpy"):
    ...     outputs, kept, shapes, dtypes = keep_workspaces(y._outputs, inputs, [False, True, True], shapes, dtypes)
    >>> kept, outputs[0][0].op.name, y._outputs[0][0].op.name
    (['c'], '_Convolution_columns', 'Convolution')
    >>> shapes[id(outputs[0][0])]        # the output, then the kept columns
    [(1, 2, 3, 3), (1, 9, 9)]
"""
import copy

import numpy as np

from ...device import cpu
from ...ops.infer import prod
from ...ops.registry import get_op
from ...symbol.graph import topo_order
from ._graph import gradient_path, retarget

__all__ = ["keep_workspaces", "WORKSPACE_BUDGET"]

WORKSPACE_BUDGET = 64 << 20      # bytes of workspaces one training program may keep from forward to backward


def _variant_outputs(variant, a, in_shapes, in_dtypes):
    """``(shapes, dtypes, bytes of the hidden outputs)`` of ``variant``'s outputs for these inputs."""
    shapes = [tuple(s) for s in variant.infer_shape(a, list(in_shapes))]
    types = list(variant.infer_type(a, list(in_dtypes)))
    types += [types[0]] * (len(shapes) - len(types))
    first = variant.n_visible(a)
    return shapes, types, sum(prod(s) * np.dtype(d).itemsize for s, d in zip(shapes[first:], types[first:]))


def keep_workspaces(outputs, inputs, need, shapes, dtypes, budget=None, device=None):
    """``(outputs, names, shapes, dtypes)``: the training graph with the chosen ops running their
    training variant (op nodes copied, variables shared: ``inputs`` stay the graph's inputs), the
    names of those nodes, and the inferred ``shapes``/``dtypes`` tables (``{id(node): [per
    output]}``) with the copies added (what the variants infer, so the graph is not inferred again);
    the given ``outputs`` and tables unchanged, and no names, when none qualifies. ``budget``: bytes
    of workspaces to keep (default ``WORKSPACE_BUDGET``); ``device``: the program's (the CPU when not
    given), which the variants' predicates see."""
    budget = WORKSPACE_BUDGET if budget is None else budget
    device = cpu() if device is None else device
    requires, _ = gradient_path(outputs, inputs, need)
    chosen, total = {}, 0           # id(node) -> the variant's (output shapes, output dtypes)
    for node in topo_order(outputs):
        if node.is_variable or node.op.train_variant is None:
            continue
        variant, reader, *applies = node.op.train_variant
        a = node.parsed_attrs()
        src, j = node.inputs[node.op.input_names(a).index(reader)]
        in_shapes = [(shapes.get(id(s)) or [None] * (i + 1))[i] for s, i in node.inputs]
        if (id(src), j) not in requires or any(s is None for s in in_shapes):
            continue
        if applies and not applies[0](a, in_shapes, device):
            continue
        out_shapes, out_dtypes, size = _variant_outputs(get_op(variant), a, in_shapes,
                                                        [dtypes[id(s)][i] for s, i in node.inputs])
        if total + size <= budget:
            chosen[id(node)] = (out_shapes, out_dtypes)
            total += size
    if not chosen:
        return outputs, [], shapes, dtypes
    copies, names, shapes, dtypes = {}, [], dict(shapes), dict(dtypes)
    for node in topo_order(outputs):
        if node.is_variable:
            continue
        new = copy.copy(node)
        new.meta = dict(node.meta)
        inputs_of_new = [(copies.get(id(s), s), i) for s, i in node.inputs]
        if id(node) in chosen:
            retarget(new, get_op(node.op.train_variant[0]), node.attrs, inputs_of_new)
            new.meta["train_variant_of"] = node.op.name
            names.append(node.name)
            shapes[id(new)], dtypes[id(new)] = chosen[id(node)]
        else:
            new.inputs = inputs_of_new
            shapes[id(new)], dtypes[id(new)] = shapes[id(node)], dtypes[id(node)]
        copies[id(node)] = new
    return [(copies.get(id(n), n), i) for n, i in outputs], names, shapes, dtypes
