"""``mx.autograd.Function``: a differentiable function written by hand, as in MXNet 1.x. Subclass it,
compute the outputs in ``forward`` (not recorded) and the input gradients in ``backward`` from the
output gradients; ``save_for_backward`` keeps what ``backward`` needs. Under ``record()`` a call is one
tape node whose gradient is ``backward``. Each instance is called once.

Example::

    >>> import hybridlab as mx
    >>> class Sigmoid(mx.autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + mx.nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    >>> x = mx.nd.array([0.0, 2.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = Sigmoid()(x)
    >>> y.backward()
    >>> [round(v, 4) for v in x.grad.asnumpy().tolist()]
    [0.25, 0.105]
"""
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ops.registry import OpDef
from .state import TapeNode, flags, needs_record, pause

__all__ = ["Function"]


class _FunctionOp:
    """What a Function's tape node holds in place of an ``OpDef``: a name and ``grad``, run through
    the one call path of gradients, ``OpDef.gradient``; ``backward`` runs in its forward's mode."""

    __slots__ = ("name", "function")
    grad_mode = True
    gradient = OpDef.gradient

    def __init__(self, function):
        self.name, self.function = type(function).__name__, function

    def grad(self, F, attrs, inputs, outputs, ograds, training):
        with pause(train_mode=training):
            grads = self.function.backward(*ograds)
        grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
        if len(grads) != len(inputs):
            raise MXNetError(f"{self.name}.backward: expected {len(inputs)} gradients (one per forward input), "
                             f"got {len(grads)}")
        for k, (g, x) in enumerate(zip(grads, inputs)):
            if g is not None and tuple(g.shape) != tuple(x.shape):
                raise MXNetError(f"{self.name}.backward: gradient {k} expected shape {x.shape}, got {g.shape}")
        return grads

    def __repr__(self):
        return f"<Function {self.name}>"


class Function:
    """Base class of hand-written differentiable functions (see the module docstring)."""

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep ``args`` as ``self.saved_tensors`` for ``backward``."""
        self.saved_tensors = args

    def forward(self, *inputs):
        """The outputs (NDArrays) of ``inputs``; runs without recording."""
        raise NotImplementedError(f"{type(self).__name__}: expected forward(self, *inputs) to be defined")

    def backward(self, *output_grads):
        """The gradients of the inputs (one per input) from the gradients of the outputs."""
        raise NotImplementedError(f"{type(self).__name__}: expected backward(self, *output_grads) to be defined")

    def __call__(self, *inputs):
        if self._used:
            raise MXNetError(f"{type(self).__name__}: each Function instance can only be called once; expected a "
                             "new instance per call")
        self._used = True
        bad = [type(x).__name__ for x in inputs if not isinstance(x, NDArray)]
        if bad:
            raise MXNetError(f"{type(self).__name__}: expected NDArray inputs, got {bad}")
        with pause(train_mode=flags.training):
            outputs = self.forward(*inputs)
        if not needs_record(inputs):
            return outputs
        outs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        # an output that is an input (or already on the tape) gets its own handle for the new node
        outs = [o.copy() if any(o is x for x in inputs) or o._node is not None else o for o in outs]
        node = TapeNode(_FunctionOp(self), None, list(inputs), tuple(o._data for o in outs), inputs[0]._device)
        for i, o in enumerate(outs):
            o._node = (node, i)
        return type(outputs)(outs) if isinstance(outputs, (list, tuple)) else outs[0]
