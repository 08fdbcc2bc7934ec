"""``mx.nd.contrib.foreach``: MXNet 1.x's loop over the first axis, run imperatively.

``foreach(body, data, init_states)`` calls ``out, states = body(data[i], states)`` for each ``i``
along axis 0 of ``data`` (an NDArray or a nested list of NDArrays of the same length) and returns
the outputs stacked along a new axis 0 (in ``body``'s output format) and the last states. Under
autograd every step is recorded, so gradients flow through the loop; under a hybridized block's
deferred-compute trace the loop is unrolled into the graph (the length is a shape guard).
``mx.sym.contrib.foreach`` (``symbol/control_flow.py``) builds the same loop into a graph.

Example::

    >>> import hybridlab as mx
    >>> step = lambda x, states: (x + states[0], [states[0] * 2])
    >>> outs, states = mx.nd.contrib.foreach(step, mx.nd.array([[1, 2], [3, 4], [5, 6]]), [mx.nd.ones(2)])
    >>> outs.asnumpy().tolist(), states[0].asnumpy().tolist()
    ([[2.0, 3.0], [5.0, 6.0], [9.0, 10.0]], [8.0, 8.0])
"""
from ..base import MXNetError
from ..deferred import state as _deferred
from . import dispatch
from .ndarray import NDArray

__all__ = ["foreach", "flatten", "regroup"]


def flatten(args, what, kind=NDArray):
    """(the arrays of the nested list ``args``, its format: 0 for one array, else a list of the
    items' formats), checking every leaf is a ``kind``."""
    if isinstance(args, kind):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise MXNetError(f"foreach: {what} expected a {kind.__name__} or a nested list of {kind.__name__}s, "
                         f"got {type(args).__name__}")
    flat, fmts = [], []
    for item in args:
        arrays, fmt = flatten(item, what, kind)
        flat.extend(arrays)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """The nested structure ``fmt`` (from ``flatten``) rebuilt from the flat ``args``: (it, the
    arrays left over)."""
    if isinstance(fmt, int):
        return (args[0], args[1:]) if fmt == 0 else (args[:fmt], args[fmt:])
    out = []
    for f in fmt:
        item, args = regroup(args, f)
        out.append(item)
    return out, args


def foreach(body, data, init_states):
    """Run ``body`` over axis 0 of ``data``; see the module docstring. Returns ``(outputs, states)``.

    >>> import hybridlab as mx
    >>> body = lambda xs, s: ([xs[0] * xs[1], s], s + xs[0])
    >>> (prod, acc), last = mx.nd.contrib.foreach(body, [mx.nd.array([1, 2]), mx.nd.array([3, 4])], mx.nd.zeros(1))
    >>> prod.asnumpy().tolist(), acc.asnumpy().tolist(), last.asnumpy().tolist()
    ([[3.0], [8.0]], [[0.0], [1.0]], [3.0])
    """
    flat_data, _ = flatten(data, "data")
    flatten(init_states, "init_states")
    single = isinstance(data, NDArray)
    first = data if single else flat_data[0]
    length = first.shape[0]
    if _deferred.tracing.shape_reads is not None:      # tracing: the graph unrolls `length` steps
        _deferred.tracer.read_shape(first, "len", own=True)
    if length == 0:
        raise MXNetError("foreach: data expected at least one step along axis 0, got length 0")
    states = init_states
    steps, out_fmt = [], None
    for i in range(length):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        outs, out_fmt = flatten(outs, "the output of body")
        steps.append(outs)
    stacked = [dispatch.invoke_name("stack", list(per_output), {"axis": 0, "num_args": len(per_output)})
               for per_output in zip(*steps)]
    outputs, _ = regroup(stacked, out_fmt)
    return outputs, states
