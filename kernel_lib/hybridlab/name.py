"""Automatic names for graph nodes (MXNet's ``mx.name``): ``fullyconnected0``, ``fullyconnected1``...
and ``Prefix`` scopes (Gluon 1.x ``name_scope`` names nodes ``dense0_fwd``).

Example::

    >>> import hybridlab as mx
    >>> with mx.name.NameManager():
    ...     a = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2)
    ...     b = mx.sym.FullyConnected(a, num_hidden=2)
    >>> b.name
    'fullyconnected1'
    >>> with mx.name.Prefix('net_'):
    ...     mx.sym.relu(mx.sym.var('x'), name='fwd').name
    'net_fwd'
"""
import threading

__all__ = ["NameManager", "Prefix", "current"]

_local = threading.local()


class NameManager:
    """Gives each unnamed node ``<hint><count>`` with one counter per hint. As a context manager
    it becomes the current manager (counters start again from 0 inside)."""

    def __init__(self):
        self._counter = {}
        self._old = None

    def get(self, name, hint):
        """``name`` if given, else the next automatic name for ``hint`` (the op name, lower-cased)."""
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}"

    def __enter__(self):
        # the managers entered before are kept per thread, not on this object, so that one manager
        # entered again inside its own block (a block's name scope, nested) restores the outer one
        stack = getattr(_local, "entered", None)
        if stack is None:
            stack = _local.entered = []
        self._old = current()      # the enclosing manager (subclasses delegate to it)
        stack.append(self._old)
        _local.current = self
        return self

    def __exit__(self, *exc):
        _local.current = _local.entered.pop()
        return False


class Prefix(NameManager):
    """A manager that prepends ``prefix`` to every name, given or automatic."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


_default = NameManager()


def current():
    """The current ``NameManager``."""
    return getattr(_local, "current", None) or _default
