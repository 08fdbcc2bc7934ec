"""``mx.np._internal``: MXNet's internal NumPy operators, one function per registered op named
``_npi_<name>`` (canonical name or alias), under ``<name>`` (``_npi_boolean_mask_assign_scalar`` is
``mx.np._internal.boolean_mask_assign_scalar``), with NumPy semantics as the ``mx.np`` functions.

Example::

    >>> import hybridlab as mx
    >>> x = mx.np.array([1.0, 2.0, 3.0])
    >>> mx.np._internal.boolean_mask_assign_scalar(x, x > 1.5, 0.0).tolist()
    [1.0, 0.0, 0.0]
"""
from ..ndarray.namespace import make_function as _make_function
from ..ops.registry import NsName as _NsName, all_ops as _all_ops

_PREFIX = "_npi_"


def _populate(namespace):
    names = []
    for op in _all_ops():
        for full in (op.name,) + op.aliases:
            if full.startswith(_PREFIX):
                name = full[len(_PREFIX):]
                namespace[name] = _make_function(op, _NsName(name), np_style=True)
                names.append(name)
    return names


__all__ = _populate(globals())
