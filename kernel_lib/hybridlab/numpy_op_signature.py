"""``mxnet.numpy_op_signature``: the public ``mx.np`` / ``mx.npx`` function of a registered
operator's internal name (``_np_sum`` -> ``mx.np.sum``, ``_npx_relu`` -> ``mx.npx.relu``,
``_np_random_uniform`` -> ``mx.np.random.uniform``), as MXNet's tests look them up. Importing it
(``import hybridlab`` does) gives each function that ``_numpy_op_doc`` documents the NumPy signature
written there.

Example::

    >>> import hybridlab as mx
    >>> _get_builtin_op("_np_sum") is mx.np.sum, _get_builtin_op("sum") is None
    (True, True)
"""
import inspect as _inspect

from . import _numpy_op_doc
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


def _register_op_signatures():
    """Set ``__signature__`` of every ``mx.np`` / ``mx.npx`` function ``_numpy_op_doc`` documents
    (names without such a function here are skipped)."""
    for name in dir(_numpy_op_doc):
        if not name.startswith(("_np_", "_npx_")):
            continue
        try:
            op = _get_builtin_op(name)
        except MXNetValueError:
            continue
        op.__signature__ = _inspect.signature(getattr(_numpy_op_doc, name))


_register_op_signatures()
