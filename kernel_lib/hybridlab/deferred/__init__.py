"""Deferred compute (``mx._deferred_compute``): trace imperative code into a Symbol graph.

Inside ``context()``, every op call on NDArrays records a graph node (with its Block scope path and
the user's source line) instead of computing; its outputs are NDArrays that know their shape and
dtype (inferred by the op, without data) but have no values. ``set_variable`` names the arrays that
are graph inputs, ``get_symbol`` returns the graph of some outputs.

* ``deferred/state.py``: the flag NDArray and the dispatcher check, ``context()``, ``TracedValue``
  (the ndarray layer; it imports nothing above ``base``).
* ``deferred/trace.py``: the tracer (the symbol layer).

Example::

    >>> import hybridlab as mx
    >>> dc = mx._deferred_compute
    >>> x = dc.placeholder((2, 3))
    >>> dc.set_variable(x, mx.sym.var('x'))
    >>> with dc.context():
    ...     y = mx.np.tanh(x * 2)
    ...     print(y.shape)
    (2, 3)
    >>> dc.get_symbol(y).list_arguments()
    ['x']

Ops whose output shape depends on the values (``OpDef.dynamic_shape``: boolean_mask, nonzero,
unique) need values: give ``context(values=...)`` the real arrays of the graph variables (a dict or
a function of the variable name, as MXNet 2.0's deferred compute keeps the real inputs). Tracing
stays value-less; at a dynamic op, the values its inputs need are computed from the recorded graph
(once, kept for the trace), the op runs, and its output is again a value-less array, now of the
actual shape, so the ops after it trace as usual::

    >>> m = dc.placeholder((3,))
    >>> dc.set_variable(m, mx.sym.var('m'))
    >>> with dc.context(values={'x': mx.nd.ones((2, 3)), 'm': mx.nd.array([1, 0, 1])}):
    ...     z = mx.nd.boolean_mask(mx.nd.transpose(x) * 2, m)
    ...     print(z.shape)
    (2, 2)
    >>> dc.get_symbol(z).list_arguments()
    ['x', 'm']
"""
from .state import TracedValue, context, is_deferred_compute  # noqa: F401
from .trace import clear, get_symbol, placeholder, set_variable  # noqa: F401
from . import precheck_reads, shape_reads  # noqa: F401  (register tracer.precheck_*, tracer.read_shape)

__all__ = ["is_deferred_compute", "context", "set_variable", "get_symbol", "clear", "placeholder",
           "TracedValue"]
