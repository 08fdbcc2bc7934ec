"""``mx.util``: the np-mode helpers MXNet 2.0 code imports (``use_np``, ``set_np``, ``is_np_array``...).

Example::

    >>> import hybridlab as mx
    >>> @mx.util.use_np
    ... def f():
    ...     return mx.util.is_np_array()
    >>> f()
    True
"""
import functools
import inspect
from tempfile import TemporaryDirectory      # MXNet's util.TemporaryDirectory: entering gives the folder's path

from .numpy_extension import is_np_array, is_np_shape, reset_np, set_np, _np_mode

__all__ = ["use_np", "use_np_array", "use_np_shape", "np_array", "np_shape", "is_np_array", "is_np_shape",
           "set_np", "reset_np", "set_np_shape", "getenv", "setenv", "TemporaryDirectory"]


class _Scope:
    """Context manager (and decorator) that sets the np-mode flags and restores them on exit."""

    def __init__(self, **flags):
        self._flags, self._saved = flags, None

    def __enter__(self):
        self._saved = dict(_np_mode)
        _np_mode.update(self._flags)
        return self

    def __exit__(self, *exc):
        _np_mode.update(self._saved)

    def __call__(self, func):
        return _decorate(func, lambda: _Scope(**self._flags))


def _decorate(obj, make_scope):
    if inspect.isclass(obj):
        # as MXNet: every method and property, inherited ones included (a decorated Block's ``__call__``
        # and ``initialize`` run in the scope too); each is wrapped once, on this class
        for name, member in inspect.getmembers(obj, lambda m: inspect.isfunction(m) or isinstance(m, property)):
            if isinstance(inspect.getattr_static(obj, name), staticmethod):
                continue
            if isinstance(member, property):
                setattr(obj, name, property(*(None if f is None else _decorate(f, make_scope)
                                              for f in (member.fget, member.fset, member.fdel)), member.__doc__))
            else:
                setattr(obj, name, _decorate(member, make_scope))
        return obj

    @functools.wraps(obj)
    def wrapper(*args, **kwargs):
        with make_scope():
            return obj(*args, **kwargs)
    return wrapper


def np_array(active=True):
    """Scope (``with``) or decorator turning NumPy-array semantics on (``active``) or off."""
    return _Scope(array=active)


def np_shape(active=True):
    """Scope or decorator turning NumPy-shape semantics on or off."""
    return _Scope(shape=active)


def use_np_array(func):
    """Decorator: run ``func`` (every method of a class) with NumPy-array semantics on."""
    return _Scope(array=True)(func)


def use_np_shape(func):
    """Decorator: run ``func`` (every method of a class) with NumPy-shape semantics on."""
    return _Scope(shape=True)(func)


def use_np(func):
    """Decorator: run ``func`` (every method of a class, e.g. a Gluon block) in np mode, as MXNet's.

    >>> import hybridlab as mx
    >>> mx.util.use_np(lambda: mx.util.is_np_shape())()
    True
    """
    return _Scope(array=True, shape=True)(func)


def set_np_shape(active):
    """Turn NumPy-shape semantics on or off; returns the previous state."""
    prev = _np_mode["shape"]
    _np_mode["shape"] = bool(active)
    return prev


def getenv(name):
    """An environment variable's value (None if unset)."""
    import os
    return os.environ.get(name)


def setenv(name, value):
    """Set (``value`` not None) or unset an environment variable."""
    import os
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)
