"""``mx.sym.contrib.foreach``: MXNet 1.x's loop over the first axis, built into a graph.

MXNet builds ``body`` once into a subgraph and runs it with a ``_foreach`` node; hybridlab has no
subgraph operators, so the loop is unrolled: ``data`` is split along axis 0 and ``body`` is called
once per step on Symbols, the outputs stacked along a new axis 0 -- the same values and gradients,
a graph that grows with the length. Unrolling needs the length: it is inferred from ``data``
(shapes given to ``var(shape=...)`` or known from the graph's inputs); when it cannot be,
``LoopLengthUnknown`` says so. A hybridized block whose graph hits that is traced again with
deferred compute, where the input shapes are known (``gluon.hybrid_graph.trace``), so 1.x blocks
calling ``F.contrib.foreach`` hybridize (the graph is rebuilt when the length changes).

Example::

    >>> import hybridlab as mx
    >>> step = lambda x, states: (x + states[0], [states[0] * 2])
    >>> outs, states = mx.sym.contrib.foreach(step, mx.sym.var('data', shape=(3, 2)), [mx.sym.var('s')])
    >>> outs.infer_shape(s=(2,))[1], len(states)
    ([(3, 2)], 1)
"""
from ..base import MXNetError
from .symbol import Symbol

__all__ = ["foreach", "LoopLengthUnknown"]


class LoopLengthUnknown(MXNetError):
    """A loop built into a graph needs its length (axis 0 of its data), and the graph does not
    know it yet."""


def _length(data):
    shape = data.infer_shape_partial()[1][0]
    if not shape or not shape[0]:
        raise LoopLengthUnknown(
            f"foreach: expected data whose length (axis 0) is known, got {data.name!r} of shape "
            f"{tuple(shape) if shape else 'unknown'}. hybridlab unrolls foreach into the graph: give the input "
            "variables their shapes (mx.sym.var(name, shape=...)); a hybridized block is traced with its inputs' shapes.")
    return shape[0]


def _steps(split, sym, length):
    parts = split(sym, num_outputs=length, axis=0, squeeze_axis=True)
    return [parts[i] for i in range(length)] if length > 1 else [parts]


def foreach(body, data, init_states, name="foreach"):
    """Build ``body`` over axis 0 of ``data`` (a Symbol or a nested list of Symbols) into the graph,
    unrolled; see the module docstring. Returns ``(outputs, states)`` in ``body``'s formats.

    >>> import hybridlab as mx
    >>> body = lambda x, s: (x * s, s + x)
    >>> out, last = mx.sym.contrib.foreach(body, mx.sym.var('x', shape=(2, 3)), mx.sym.var('s'))
    >>> x, s = mx.nd.array([[1, 2, 3], [4, 5, 6]]), mx.nd.ones(3)
    >>> res = mx.sym.Group([out, last]).eval(x=x, s=s)
    >>> res[0].asnumpy().tolist(), res[1].asnumpy().tolist()
    ([[1.0, 2.0, 3.0], [8.0, 15.0, 24.0]], [6.0, 8.0, 10.0])
    """
    from ..ndarray.control_flow import flatten, regroup     # here: ndarray imports symbol while loading
    from . import split, stack
    flat_data, data_fmt = flatten(data, "data", Symbol)
    _, state_fmt = flatten(init_states, "init_states", Symbol)
    length = _length(flat_data[0])
    per_data = [_steps(split, d, length) for d in flat_data]
    states = init_states
    steps, out_fmt = [], None
    for i in range(length):
        eles, _ = regroup([p[i] for p in per_data], data_fmt)
        outs, states = body(eles, states)
        outs, out_fmt = flatten(outs, "the output of body", Symbol)
        _, fmt = flatten(states, "the states body returns", Symbol)
        if fmt != state_fmt:
            raise MXNetError(f"foreach: body expected to return states in the format of init_states {state_fmt}, "
                             f"got {fmt}")
        steps.append(outs)
    stacked = [stack(*per_output, axis=0) for per_output in zip(*steps)]
    outputs, _ = regroup(stacked, out_fmt)
    return outputs, states
