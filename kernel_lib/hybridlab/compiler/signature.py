"""Input signatures of a cached op.

A ``Signature`` is what a compiled program is specialised for: the shape and dtype of every input,
the device, and the autograd training mode. ``Signature.infer`` runs the graph's shape and type
inference (``symbol.infer.infer_graph``: every node's own inference, no data) for it, once, when
the signature is first seen: a wrong input is reported then, naming the variable, the node and the
user's source line, instead of failing somewhere inside a kernel.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.signature import Signature
    >>> sig = Signature(["data"], [(1, 4)], [np.dtype("float32")], mx.cpu(), False)
    >>> sig
    Signature(data=(1, 4) float32, device=cpu(0), predict)
    >>> x = mx.sym.var("data")
    >>> y = mx.sym.exp(x, name="e")
    >>> shapes, dtypes = sig.infer(y._outputs, [x._outputs[0][0]])
    >>> shapes[id(y._outputs[0][0])]
    [(1, 4)]
"""
import numpy as np

from ..symbol.infer import infer_graph

__all__ = ["Signature"]

_DTYPE_NAMES = {}     # dtype -> its name (NumPy computes ``dtype.name`` anew on every read)


def dtype_name(dtype):
    """``'float32'`` for ``np.float32`` (or its dtype), ``'?'`` for ``None`` (not inferred)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = "?" if dtype is None else np.dtype(dtype).name
    return name


class Signature:
    """Input names, shapes, dtypes, the device and the training mode a program is compiled for."""

    __slots__ = ("names", "shapes", "dtypes", "device", "training", "_text")

    def __init__(self, names, shapes, dtypes, device, training):
        self.names = tuple(names)
        self.shapes = tuple(tuple(s) for s in shapes)
        self.dtypes = tuple(dtypes)
        self.device = device
        self.training = bool(training)
        self._text = None

    def _key(self):
        return (self.names, self.shapes, self.dtypes, self.device, self.training)

    def __eq__(self, other):
        return isinstance(other, Signature) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def describe(self):
        """One line: ``data=(1, 4) float32, ..., device=cpu(0), train`` (made once: the program's
        header, its repr and rebuild reasons all print it)."""
        if self._text is None:
            ins = ", ".join(f"{n}={s} {dtype_name(d)}" for n, s, d in zip(self.names, self.shapes, self.dtypes))
            mode = "train" if self.training else "predict"
            self._text = f"{ins}{', ' if ins else ''}device={self.device}, {mode}"
        return self._text

    def infer(self, outputs, inputs, nodes=None):
        """``({id(node): [shape per output]}, {id(node): [dtype per output]})`` of the graph of
        ``outputs`` when its variable nodes ``inputs`` get this signature's shapes and dtypes (see
        ``symbol.infer.infer_graph``; ``nodes``: its op nodes in order, when the caller has them).
        As in MXNet, an input's shape wins over the one its variable declares (``__shape__`` only
        fills shapes nobody gave: ``sym.var('data', shape=(1, 3, 224, 224))`` runs at batch 32)."""
        return infer_graph(outputs, inputs, self.shapes, self.dtypes, nodes)

    def __repr__(self):
        return f"Signature({self.describe()})"
