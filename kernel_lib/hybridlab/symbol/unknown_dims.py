"""MXNet 1.x's unknown dimensions in creation ops: in a legacy symbolic graph, ``sym.zeros(shape=(0,
H))`` (``_zeros``, ``_ones``, ``_full``) leaves the 0 dimension to shape inference, which fills it
from the node's readers (MXNet's executor allocates the output from the inferred shape, not the
attribute). The legacy RNN cells' begin states are made this way (the batch size is unknown when the
graph is built).

Compiled programs run exact shapes (a 0 is an empty axis), so an executor binding such a graph first
asks ``resolve_unknown_dims`` for a copy whose creation nodes carry the shapes partial inference
finds for the bound arrays. Under ``npx.set_np()`` (NumPy shape semantics) a 0 is an empty axis and
nothing is resolved.

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


def _unresolved(node):
    if node.op is None or node.op.name not in _CREATION:
        return False
    return 0 in tuple(node.parsed_attrs()["shape"])


def resolve_unknown_dims(symbol, shapes):
    """``symbol`` itself when no creation node has a 0 (unknown) dimension in its ``shape``;
    otherwise a copy where each such node's shape is the one inferred from ``shapes`` (variable
    name -> shape of the bound array). A node whose shape stays incomplete keeps its attribute."""
    if is_np_shape():
        return symbol
    nodes = topo_order(symbol._outputs)
    if not any(_unresolved(n) for n in nodes):
        return symbol
    values = {(id(n), 0): tuple(shapes[n.name]) for n in nodes if n.is_variable and n.name in shapes}
    propagate(nodes, [(SHAPE, values)])
    found = {}
    for n in nodes:
        if _unresolved(n):
            shape = values.get((id(n), 0))
            if shape is not None and 0 not in shape:
                found[id(n)] = shape
    if not found:
        return symbol

    def copy_node(node, inputs):
        attrs = dict(node.attrs)
        if id(node) in found:
            attrs["shape"] = str(found[id(node)])
        copy = Node(node.op, node.name, attrs, inputs)
        copy.meta = dict(node.meta)
        return copy
    return type(symbol)(copy_graph(symbol._outputs, lambda v: None, copy_node))
