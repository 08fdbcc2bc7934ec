"""Input signatures of a cached op, and shape/dtype inference of a graph for one signature.

A ``Signature`` is what a compiled program is specialised for: the shape and dtype of every input,
the device, and the autograd training mode. ``infer_graph`` runs every node's own shape and type
inference (no data) over the graph for a signature, so a wrong input is reported once, when the
signature is first seen, naming the variable, the node and the user's source line, instead of
failing somewhere inside a kernel.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.signature import Signature
    >>> Signature(["data"], [(1, 4)], [np.dtype("float32")], mx.cpu(), False)
    Signature(data=(1, 4) float32, device=cpu(0), predict)
"""
from ..base import MXNetError
from ..ops.attrs import Attr
from ..ops.infer import InferError
from ..symbol.graph import topo_order

__all__ = ["Signature", "infer_graph", "where"]

_SHAPE_ATTR = Attr("shape")


class Signature:
    """Input names, shapes, dtypes, the device and the training mode a program is compiled for."""

    __slots__ = ("names", "shapes", "dtypes", "device", "training")

    def __init__(self, names, shapes, dtypes, device, training):
        self.names = tuple(names)
        self.shapes = tuple(tuple(s) for s in shapes)
        self.dtypes = tuple(dtypes)
        self.device = device
        self.training = bool(training)

    def _key(self):
        return (self.names, self.shapes, self.dtypes, self.device, self.training)

    def __eq__(self, other):
        return isinstance(other, Signature) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def describe(self):
        """One line: ``data=(1, 4) float32, ..., device=cpu(0), train``."""
        ins = ", ".join(f"{n}={s} {d}" for n, s, d in zip(self.names, self.shapes, self.dtypes))
        mode = "train" if self.training else "predict"
        return f"{ins}{', ' if ins else ''}device={self.device}, {mode}"

    def __repr__(self):
        return f"Signature({self.describe()})"


def where(node):
    """`` (created at file:line: code)`` for a node that knows its user source line, else ``''``."""
    src = node.meta.get("source") if node.meta else None
    if not src:
        return ""
    return f" (created at {src['file']}:{src['line']}: {src['code']})"


def _check_variable(node, shape, dtype):
    """A variable declared with ``__shape__`` (0 = any size) must get an input of that shape."""
    declared = node.attrs.get("__shape__")
    if declared is None:
        return
    try:
        expected = _SHAPE_ATTR.parse(declared)
    except (ValueError, MXNetError):
        return
    if not expected:      # "()" is how an unknown shape is often written; only ranks > 0 are checked
        return
    if len(expected) != len(shape) or any(e and e != g for e, g in zip(expected, shape)):
        raise MXNetError(f"CachedOp: input '{node.name}' expected shape {expected} (declared by the "
                         f"variable; 0 = any size), got {tuple(shape)}")


def infer_graph(outputs, inputs, signature):
    """``({id(node): [shape per output]}, {id(node): [dtype per output]})`` for every node reachable
    from ``outputs`` ((node, index) entries) when the variable nodes ``inputs`` get ``signature``.

    Shapes a node cannot infer (value-dependent ops) are ``None``. A shape or type conflict raises
    ``MXNetError`` naming the node, its op, the argument and the variable feeding it, expected vs got.
    """
    shapes, dtypes = {}, {}
    for node, shape, dtype in zip(inputs, signature.shapes, signature.dtypes):
        _check_variable(node, shape, dtype)
        shapes[id(node)], dtypes[id(node)] = [shape], [dtype]
    for node in topo_order(outputs):
        if node.is_variable:
            if id(node) not in shapes:
                raise MXNetError(f"CachedOp: variable '{node.name}' is not an input of this graph")
            continue
        a = node.parsed_attrs()
        in_shapes = [shapes[id(n)][i] for n, i in node.inputs]
        in_dtypes = [dtypes[id(n)][i] for n, i in node.inputs]
        n_out = node.num_outputs()
        try:
            out_shapes = list(node.op.infer_shape(a, list(in_shapes)))
        except InferError as err:
            raise _infer_error(node, a, err, in_shapes) from None
        except MXNetError as err:
            raise _node_error(node, err, in_shapes) from None
        except Exception:   # noqa: BLE001 - an op that cannot infer from unknown (None) input shapes
            if all(s is not None for s in in_shapes):
                raise
            out_shapes = [None] * n_out
        try:
            out_dtypes = list(node.op.infer_type(a, list(in_dtypes)))
        except InferError as err:
            raise _infer_error(node, a, err, in_dtypes, "dtype") from None
        except MXNetError as err:
            raise _node_error(node, err, [getattr(d, "name", d) for d in in_dtypes]) from None
        shapes[id(node)] = (out_shapes + [None] * n_out)[:n_out]
        dtypes[id(node)] = (out_dtypes + [out_dtypes[0] if out_dtypes else None] * n_out)[:n_out]
    return shapes, dtypes


def _infer_error(node, a, err, got_values, what="shape"):
    names = node.input_names()
    idx = err.arg if isinstance(err.arg, int) else (names.index(err.arg) if err.arg in names else None)
    arg = names[idx] if idx is not None and idx < len(names) else err.arg
    feeder = ""
    if idx is not None and idx < len(node.inputs):
        src, k = node.inputs[idx]
        feeder = f" (input '{src.name}')" if src.is_variable else f" (output {k} of node '{src.name}')"
    msg = (f"CachedOp: node '{node.name}' ({node.op.name}): argument '{arg}'{feeder} expected "
           f"{err.expected_text(what)}, got {err.got}")
    if err.why:
        msg += f" ({err.why})"
    known = ", ".join(f"{n}={s}" for n, s in zip(names, got_values))
    return MXNetError(msg + f"; inputs: {known}" + where(node))


def _node_error(node, err, got_values):
    """An op's own inference error, with the node, the inputs feeding it and the user's line added."""
    feeders = ", ".join(f"{name}={v} (from '{src.name}')" for name, v, (src, _) in
                        zip(node.input_names(), got_values, node.inputs))
    return MXNetError(f"CachedOp: node '{node.name}' ({node.op.name}): {err}; inputs: {feeders}{where(node)}")
