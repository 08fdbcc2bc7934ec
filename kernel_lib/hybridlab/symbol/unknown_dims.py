"""MXNet 1.x's unknown dimensions in creation ops: in a symbolic graph, ``sym.zeros(shape=(0, H))``
or ``shape=(-1, H)`` (``_zeros``, ``_ones``, ``_full``) leaves that dimension to shape inference,
which fills it from the node's readers (MXNet's executor allocates the output from the inferred
shape, not the attribute). The legacy RNN cells' begin states are made this way (the batch size is
unknown when the graph is built). Likewise a legacy sampler without a shape (``sym.random.normal()``,
``_random_*`` with ``shape=()``) takes the shape of its readers, and ``arange(infer_range=True)``
without a stop the length of its readers (its stop is set to give it).

Compiled programs run exact shapes (a 0 is an empty axis), so an executor binding such a graph first
asks ``resolve_unknown_dims`` for a copy whose creation nodes carry the shapes partial inference
finds for the bound arrays. Under ``npx.set_np()`` (NumPy shape semantics) a 0 is an empty axis and
only -1 dimensions are resolved.

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> y = x + mx.sym.zeros(shape=(0, 3), name='z')
    >>> resolved = resolve_unknown_dims(y, {'x': (2, 3)})
    >>> resolved.attr_dict()['z']['shape'], y.attr_dict()['z']['shape']
    ('(2, 3)', '(0, 3)')
    >>> y.eval(x=mx.nd.ones((2, 3)))[0].shape
    (2, 3)
"""
from ..numpy_extension import is_np_shape
from .graph import Node, copy_graph, topo_order
from .infer import SHAPE, propagate

__all__ = ["resolve_unknown_dims"]

_CREATION = frozenset(("_zeros", "_ones", "_full"))


def _unresolved(node, np_shape=False):
    if node.op is not None and node.op.name == "_arange":     # arange(infer_range=True) without stop
        a = node.parsed_attrs()
        return a["infer_range"] and a["stop"] is None
    if (node.op is not None and node.op.family == "random" and node.op.n_inputs == 0 and not np_shape
            and "shape" in node.op.attrs):
        return not node.parsed_attrs()["shape"]     # a legacy sampler without a shape: its readers give it
    if node.op is None or node.op.name not in _CREATION:
        return False
    return any(d < 0 or d == 0 and not np_shape for d in node.parsed_attrs()["shape"])


def resolve_unknown_dims(symbol, shapes):
    """``symbol`` itself when no creation node has an unknown (-1, or legacy 0) dimension in its
    ``shape``; otherwise a copy where each such node's shape is the one inferred from ``shapes``
    (variable name -> shape of the bound array). A node whose shape stays incomplete keeps its
    attribute."""
    np_shape = is_np_shape()
    nodes = topo_order(symbol._outputs)
    if not any(_unresolved(n, np_shape) for n in nodes):
        return symbol
    values = {(id(n), 0): tuple(shapes[n.name]) for n in nodes if n.is_variable and n.name in shapes}
    propagate(nodes, [(SHAPE, values)])
    found = {}
    for n in nodes:
        if _unresolved(n, np_shape):
            shape = values.get((id(n), 0))
            if shape is not None and 0 not in shape:
                found[id(n)] = shape
    if not found:
        return symbol

    def copy_node(node, inputs):
        attrs = dict(node.attrs)
        if id(node) in found and node.op.name == "_arange":    # the stop that gives the inferred length
            a = node.parsed_attrs()
            attrs["stop"] = str(a["start"] + (found[id(node)][0] // a["repeat"]) * a["step"])
        elif id(node) in found:
            attrs["shape"] = str(found[id(node)])
        copy = Node(node.op, node.name, attrs, inputs, node.subgraphs)
        copy.meta = dict(node.meta)
        return copy
    return type(symbol)(copy_graph(symbol._outputs, lambda v: None, copy_node))
