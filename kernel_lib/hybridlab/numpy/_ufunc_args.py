"""NumPy's ufunc keywords (``where``, ``casting``, ``order``, ``dtype``, ``subok``) on ``mx.np``'s
ufunc-like functions, checked as MXNet checks them: a keyword at its NumPy default is accepted, a
legal NumPy value MXNet does not implement raises ``NotImplementedError``, anything else (an
unknown keyword, a value NumPy would not understand) raises ``TypeError``. ``bool_unary`` wraps a
unary predicate (``isnan``...) with that check and refuses an ``out`` array that is not bool.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.numpy._ufunc_args import check_ufunc_kwargs
    >>> check_ufunc_kwargs("isnan", {"casting": "same_kind"})     # the default: accepted
    >>> try:
    ...     check_ufunc_kwargs("isnan", {"casting": "safe"})
    ... except NotImplementedError as err:
    ...     print(err)
    isnan: casting='safe' is not implemented (only the default 'same_kind' is)
"""
import functools

import numpy as _onp

from ..base import MXNetNotImplementedError, MXNetTypeError

__all__ = ["check_ufunc_kwargs", "bool_unary"]

_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None, "subok": True}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def _legal(key, value):
    """Whether ``value`` is a value NumPy understands for ufunc keyword ``key`` (MXNet's list)."""
    if key == "where":
        return True
    if key == "casting":
        return value in _CASTINGS
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        try:
            return _onp.dtype(value).name in _DTYPES
        except TypeError:
            return False
    if key == "subok":
        return isinstance(value, bool)
    return False


def check_ufunc_kwargs(name, kwargs):
    """Raise for the ufunc keywords of ``kwargs`` that are not at their defaults (see the module)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise MXNetTypeError(f"{name}: {key!r} is an invalid keyword (expected one of "
                                 f"{', '.join(_DEFAULTS)})")
        default = _DEFAULTS[key]
        if value is default or (not isinstance(value, _onp.ndarray) and _same(value, default)):
            continue
        if _legal(key, value):
            raise MXNetNotImplementedError(f"{name}: {key}={value!r} is not implemented (only the default "
                                           f"{default!r} is)")
        raise MXNetTypeError(f"{name}: {key}={value!r} not understood (expected a NumPy ufunc {key})")


def _same(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def bool_unary(fn):
    """Wrap ``fn(x, out=None)``, a predicate giving a bool array, with the ufunc keyword check and
    a ``TypeError`` for an ``out`` whose dtype is not bool."""
    @functools.wraps(fn)
    def wrapper(x, out=None, **kwargs):
        check_ufunc_kwargs(fn.__name__, kwargs)
        if out is not None and _onp.dtype(out.dtype) != _onp.bool_:
            raise MXNetTypeError(f"{fn.__name__}: out expected a bool array, got dtype {out.dtype}")
        return fn(x, out=out)
    return wrapper
