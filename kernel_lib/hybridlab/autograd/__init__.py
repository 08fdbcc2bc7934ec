"""``mx.autograd``: a tape of op calls recorded under ``record()``, and a backward pass over it.

Every op call made while recording, with at least one input that needs a gradient, appends a tape
node (op, attributes, inputs, output values). ``backward`` walks the nodes reachable from the heads
in reverse topological order and asks each op's registered ``grad`` for its input gradients.

* ``autograd/state.py``: the flags and scopes (``record``, ``pause``, ...) and the tape node; it imports
  nothing above ``base``, so the ndarray layer reads it.
* ``autograd/backward.py``: the backward driver (``backward``, ``grad``, ``mark_variables``).
* ``autograd/function.py``: hand-written differentiable functions (``Function``).
* ``autograd/history.py``: ``get_symbol``, the recorded history of an array as a Symbol (built by
  ``symbol/from_tape.py``, which registers itself there).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1.0, 2.0, 3.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = (x * x).sum()
    >>> y.backward()
    >>> x.grad.asnumpy().tolist()
    [2.0, 4.0, 6.0]
"""
from .state import (is_recording, is_training, pause, predict_mode, record, set_recording, set_training,  # noqa: F401
                    train_mode)
from .backward import attach as _attach_backward, backward, grad, mark_variables  # noqa: F401
from .function import Function  # noqa: F401
from .history import get_symbol  # noqa: F401
from ..ndarray.ndarray import NDArray

_attach_backward(NDArray)   # NDArray.backward: the ndarray layer cannot import the driver

# NDArray too: MXNet's module has it at its top level, so ``from mxnet.autograd import *`` gives it
__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training", "set_recording",
           "set_training", "mark_variables", "backward", "grad", "get_symbol", "Function", "NDArray"]
