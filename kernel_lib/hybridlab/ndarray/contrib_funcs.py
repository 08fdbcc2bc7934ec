"""The Python functions of MXNet 1.x's ``mx.nd.contrib`` that are compositions of registered ops,
not operators: ``isinf``, ``isfinite`` and ``isnan`` (1 where true, 0 elsewhere, in the input's
dtype, as the comparisons they are made of; their gradients are zero like any comparison's).
``mx.nd.contrib`` (``ndarray/__init__.py``) adds them to the ``_contrib_*`` operators.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([float('inf'), -float('inf'), float('nan'), -1])
    >>> from hybridlab.ndarray.contrib_funcs import isinf, isfinite, isnan
    >>> isinf(x).asnumpy().tolist(), isfinite(x).asnumpy().tolist(), isnan(x).asnumpy().tolist()
    ([1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0])
    >>> isinf(mx.nd.array([1, 2], dtype='int32')).asnumpy().tolist()
    [0, 0]
"""
import numpy as np

from . import dispatch

__all__ = ["isinf", "isfinite", "isnan"]


def _abs(data):
    return dispatch.invoke_name("abs", [data], {})


def _never(data):
    """Integer and boolean data hold no infinity and no NaN (and their scalar comparisons cast the
    scalar to the dtype, which inf does not fit)."""
    return data.dtype.kind in "biu"


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0 (``abs(data) == inf``).

    >>> import hybridlab as mx
    >>> mx.nd.contrib.isinf(mx.nd.array([1.0, -float('inf')])).asnumpy().tolist()
    [0.0, 1.0]
    """
    if _never(data):
        return dispatch.invoke_name("zeros_like", [data], {})
    return dispatch.invoke_name("_equal_scalar", [_abs(data)], {"scalar": np.inf})


def isfinite(data):
    """1 where ``data`` is neither infinite nor NaN, else 0.

    >>> import hybridlab as mx
    >>> mx.nd.contrib.isfinite(mx.nd.array([1.0, float('nan'), float('inf')])).asnumpy().tolist()
    [1.0, 0.0, 0.0]
    """
    if _never(data):
        return dispatch.invoke_name("ones_like", [data], {})
    not_nan = dispatch.invoke_name("_equal", [data, data], {})
    not_inf = dispatch.invoke_name("_not_equal_scalar", [_abs(data)], {"scalar": np.inf})
    return dispatch.invoke_name("broadcast_logical_and", [not_inf, not_nan], {})


def isnan(data):
    """1 where ``data`` is NaN, else 0 (``data != data``).

    >>> import hybridlab as mx
    >>> mx.nd.contrib.isnan(mx.nd.array([float('nan'), -1.0])).asnumpy().tolist()
    [1.0, 0.0]
    """
    return dispatch.invoke_name("_not_equal", [data, data], {})
