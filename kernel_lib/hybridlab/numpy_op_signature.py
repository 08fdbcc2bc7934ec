"""``mxnet.numpy_op_signature``: the public ``mx.np`` / ``mx.npx`` function of a registered
operator's internal name (``_np_sum`` -> ``mx.np.sum``, ``_npx_relu`` -> ``mx.npx.relu``,
``_np_random_uniform`` -> ``mx.np.random.uniform``), as MXNet's tests look them up.

Example::

    >>> import hybridlab as mx
    >>> _get_builtin_op("_np_sum") is mx.np.sum, _get_builtin_op("sum") is None
    (True, True)
"""
from . import numpy as _np
from . import numpy_extension as _npx
from .base import MXNetValueError

__all__ = ["_get_builtin_op"]

# MXNet's submodules of each namespace, in the order its internal op names use them
_SUBMODULES = {"_np_": ("random", "linalg"), "_npx_": ("image", "random")}


def _get_builtin_op(op_name):
    """The ``mx.np`` / ``mx.npx`` function named by ``op_name`` (``None`` for other names)."""
    for prefix, root in (("_npx_", _npx), ("_np_", _np)):
        if op_name.startswith(prefix):
            break
    else:
        return None
    rest, module = op_name[len(prefix):], root
    for sub in _SUBMODULES[prefix]:
        if rest.startswith(sub + "_"):
            module = getattr(root, sub, None)
            if module is None:
                raise MXNetValueError(f"Cannot find submodule {sub} in module {root.__name__}")
            rest = rest[len(sub) + 1:]
            break
    op = getattr(module, rest, None)
    if op is None:
        raise MXNetValueError(f"Cannot find operator {rest} in module {module.__name__}")
    return op
