"""``Custom``: operators written in Python (MXNet's ``mx.operator.CustomOp`` / ``CustomOpProp``), as
one op of the registry, so they run imperatively, in hybridized graphs, in ``Module`` and show in the
graph view as their own node.

A property class registered under a name (``mx.operator.register("sqr")``) describes the op: its
argument, output and auxiliary-state names, its shape and type inference, and which ``CustomOp``
computes it. ``Custom(*inputs, op_type="sqr", **kwargs)`` is the node; its other attributes are
free text that reaches the property's constructor as strings (as MXNet passes them). The gradient
is the hidden op ``_backward_Custom``, which calls the same operator object's ``backward``.

The property and operator objects hold user code that works on NDArrays, which this layer cannot
import: ``hybridlab.operator`` (the public ``mx.operator``) registers the ``runner`` that wraps the
raw arrays and calls them.

Example (the property only: no NDArray is needed for inference)::

    >>> class SquareProp:
    ...     def __init__(self, scale="1"): self.scale = float(scale)
    ...     def list_arguments(self): return ["data"]
    ...     def list_outputs(self): return ["output"]
    ...     def list_auxiliary_states(self): return []
    ...     def infer_shape(self, in_shape): return in_shape, [in_shape[0]], []
    ...     def infer_type(self, in_type): return in_type, [in_type[0]], []
    >>> from hybridlab.ops.registry import get_op
    >>> PROPS["doc_square"] = SquareProp
    >>> op = get_op("Custom")
    >>> a = op.parse_attrs({"op_type": "doc_square", "scale": 2})
    >>> a["scale"], op.input_names(a), op.infer_shape(a, [(2, 3)])
    ('2', ('data',), [(2, 3)])
    >>> del PROPS["doc_square"]
"""
import numpy as np

from ..base import MXNetError, normalize_dtype
from .attrs import Attr
from .infer import merge_shape
from .registry import OpDef, register

__all__ = ["PROPS", "prop_of", "runner"]

#: op_type -> property class (``mx.operator.register`` fills it)
PROPS = {}

#: what the NDArray layer registers: ``forward(ctx, a, prop, arrays)`` and
#: ``backward(ctx, a, prop, arrays)`` over raw arrays (``hybridlab.operator``)
runner = {}

#: what the symbol layer registers: ``{"Custom": mx.sym.Custom}`` (``mx.operator.PythonOp.get_symbol``
#: builds its nodes with it)
symbol_functions = {}

_instances = {}     # (op_type, extra attributes) -> property object


def _extras(a):
    return tuple(sorted((k, v) for k, v in a.items() if k != "op_type"))


def prop_of(a):
    """The property object of the parsed attributes ``a`` (one per op type and keyword set, made
    with the keywords as strings, as MXNet makes it)."""
    key = (a["op_type"], _extras(a))
    prop = _instances.get(key)
    if prop is None:
        cls = PROPS.get(a["op_type"])
        if cls is None:
            raise MXNetError(f"Custom: op_type {a['op_type']!r} is not registered: expected one of "
                             f"{sorted(PROPS) or '(none)'} (register a CustomOpProp with "
                             f"@mx.operator.register({a['op_type']!r}))")
        try:
            prop = cls(**dict(key[1]))
        except TypeError as err:
            raise MXNetError(f"Custom {a['op_type']!r}: the property {cls.__name__} does not take the "
                             f"keywords {[k for k, _ in key[1]]}: {err}") from None
        _instances[key] = prop
    return prop


def _names(prop):
    return tuple(prop.list_arguments()), tuple(prop.list_outputs()), tuple(prop.list_auxiliary_states())


def _inputs(a):
    args, _, aux = _names(prop_of(a))
    return args + aux


def _aux(a):
    return _names(prop_of(a))[2]


def _three(result, what, prop):
    """(inputs, outputs, aux) from what a property's infer_* returned (MXNet allows leaving aux out)."""
    result = list(result)
    if len(result) == 2:
        result.append([])
    if len(result) != 3:
        raise MXNetError(f"Custom {type(prop).__name__}.{what}: expected (in, out) or (in, out, aux) "
                         f"lists, got {len(result)} values")
    return [list(r) for r in result]


def _custom_shape(a, in_shapes):
    prop = prop_of(a)
    args, outs, aux = _names(prop)
    if any(s is None for s in in_shapes[:len(args)]):
        return [None] * len(outs)        # a property infers from complete argument shapes
    ins, out_shapes, aux_shapes = _three(prop.infer_shape([list(s) for s in in_shapes[:len(args)]]),
                                         "infer_shape", prop)
    why = f"the shape {type(prop).__name__}.infer_shape gives"
    for i, want in enumerate(list(ins) + list(aux_shapes)):
        if i < len(in_shapes):                      # fills the auxiliary states' shapes
            merge_shape(in_shapes, i, tuple(int(d) for d in want), why)
    if len(out_shapes) != len(outs):
        raise MXNetError(f"Custom {type(prop).__name__}.infer_shape: expected {len(outs)} output shapes "
                         f"({', '.join(outs)}), got {len(out_shapes)}")
    return [tuple(int(d) for d in s) for s in out_shapes]


def _custom_type(a, in_dtypes):
    prop = prop_of(a)
    args, outs, aux = _names(prop)
    known = next((d for d in in_dtypes if d is not None), None)
    if known is None and in_dtypes:
        return [None] * len(outs)
    filled = [d if d is not None else known for d in in_dtypes[:len(args)]]
    infer = getattr(prop, "infer_type", None)
    if infer is None:       # CustomOpProp's default: everything takes the first input's type
        ins, out_types, aux_types = filled, [known] * len(outs), [known] * len(aux)
    else:
        ins, out_types, aux_types = _three(infer([np.dtype(d).type for d in filled]), "infer_type", prop)
    for i, d in enumerate(list(ins) + list(aux_types)):
        if i < len(in_dtypes) and in_dtypes[i] is None:
            in_dtypes[i] = normalize_dtype(d)
    return [normalize_dtype(d) for d in out_types]


def _run(direction):
    def compute(ctx, a, *arrays):
        if direction not in runner:
            raise MXNetError("Custom: no runner is registered (import hybridlab.operator)")
        return runner[direction](ctx, a, prop_of(a), arrays)
    return compute


def _custom_grad(F, a, inputs, outputs, ograds):
    args, outs, aux = _names(prop_of(a))
    grads = F._backward_Custom(*ograds, *inputs, *outputs, **a)
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    return grads + [None] * len(aux)


def _backward_inputs(a):
    args, outs, aux = _names(prop_of(a))
    return tuple(f"ograd_{n}" for n in outs) + args + aux + tuple(f"out_{n}" for n in outs)


def _backward_shape(a, in_shapes):
    args, outs, _ = _names(prop_of(a))
    return list(in_shapes[len(outs):len(outs) + len(args)])


def _backward_type(a, in_dtypes):
    args, outs, _ = _names(prop_of(a))
    return list(in_dtypes[len(outs):len(outs) + len(args)])


_ATTRS = {"op_type": Attr("str", doc="the name the property class was registered under "
                                     "(mx.operator.register)")}

register(OpDef(
    "Custom", family="nn", inputs=_inputs, attrs=dict(_ATTRS), open_attrs=True, aux=_aux,
    num_outputs=lambda a: len(prop_of(a).list_outputs()),
    output_names=lambda a: tuple(prop_of(a).list_outputs()),
    needs_train=True, compute=_run("forward"), infer_shape=_custom_shape, infer_type=_custom_type,
    grad=_custom_grad,
    doc="An operator written in Python: the CustomOp of the CustomOpProp registered as op_type "
        "(mx.operator.register). Other keywords reach the property's constructor as strings."))

register(OpDef(
    "_backward_Custom", family="nn", hidden=True, inputs=_backward_inputs, attrs=dict(_ATTRS),
    open_attrs=True, num_outputs=lambda a: len(prop_of(a).list_arguments()),
    needs_train=True, compute=_run("backward"), infer_shape=_backward_shape, infer_type=_backward_type,
    no_grad_reason="CustomOp.backward has no gradient of its own",
    doc="Gradient of Custom: the same operator object's backward(req, out_grad, in_data, out_data, "
        "in_grad, aux); inputs are the output gradients, the arguments, the auxiliary states and "
        "the outputs."))
