"""MXNet 1.x node names for graphs traced by deferred compute.

A 1.x-style layer calls ``F.FullyConnected(..., name='fwd')``. Built with ``F = mx.sym`` the node
is named ``<block prefix>fwd``; traced with deferred compute, ``F`` is ``mx.nd``, whose functions
compute (or record) and have no node to name. ``NamingNamespace(mx.nd)`` is ``mx.nd`` where
``name=`` names the node the call records, so traced graphs carry the same names
(``hybridsequential0_dense0_fwd``) and their exports resemble MXNet's.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.trace_names import NamingNamespace
    >>> F = NamingNamespace(mx.nd)
    >>> dc = mx._deferred_compute
    >>> x = dc.placeholder((1, 3)); dc.set_variable(x, mx.sym.var('data'))
    >>> with dc.context(), mx.name.Prefix('dense0_'):
    ...     y = F.relu(x, name='fwd')
    >>> dc.get_symbol(y).name
    'dense0_fwd'
    >>> F.__name__
    'hybridlab.ndarray'
"""
from .. import name as _name

__all__ = ["NamingNamespace"]


class _NameOnce(_name.NameManager):
    """Gives ``given`` to the first node of op ``hint`` named inside; defers everything else to
    the enclosing manager (so prefixes and counters stay as they are)."""

    def __init__(self, given, hint):
        super().__init__()
        self._given = given
        self._hint = hint

    def get(self, name, hint):
        if name is None and hint == self._hint and self._given is not None:
            name, self._given = self._given, None
        return self._old.get(name, hint)


class NamingNamespace:
    """``module`` (``mx.nd``) whose op functions accept ``name=`` for the node they record."""

    def __init__(self, module):
        self._module = module
        self._wrapped = {}

    def __getattr__(self, attr):
        fn = getattr(self._module, attr)
        op = getattr(fn, "op", None)
        if op is None or not callable(fn):
            return fn
        wrapped = self._wrapped.get(attr)
        if wrapped is None:
            hint = op.name.lower()

            def wrapped(*args, name=None, **kwargs):
                if name is None:
                    return fn(*args, **kwargs)
                with _NameOnce(name, hint):
                    return fn(*args, **kwargs)
            wrapped.__name__ = wrapped.__qualname__ = attr
            wrapped.__doc__ = fn.__doc__
            self._wrapped[attr] = wrapped
        return wrapped

    def __repr__(self):
        return repr(self._module)
