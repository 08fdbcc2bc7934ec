"""Packed parameters: the weights, gradients and optimizer states of several parameters, each kind
in ONE flat buffer, so that an elementwise update rule runs once over all of them (a handful of
NumPy calls per step instead of a handful per parameter: MXNet's ``multi_sgd_mom_update`` /
``multi_adam_update`` in spirit).

Packing copies each array's values into its slice of the flat buffer and rebinds the NDArray to a
view of that slice (``NDArray._data``): the NDArrays users hold stay the same objects and see every
later write. ``Pack.intact`` says whether every array is still the view packing made (a parameter
given new arrays, states loaded from a file: the pack no longer holds them, and the per-parameter
update runs on whatever the arrays are). Only dense NumPy arrays of one floating dtype are packed.

Example::

    >>> import hybridlab as mx
    >>> ws = [mx.nd.ones((2, 2)), mx.nd.ones((3,))]
    >>> gs = [mx.nd.ones((2, 2)), mx.nd.ones((3,))]
    >>> pack = Pack.build(ws, gs, [None, None])
    >>> pack.weight.shape, ws[0]._data.base is pack.weight
    ((7,), True)
    >>> pack.weight[:] = 5; ws[1].asnumpy().tolist()
    [5.0, 5.0, 5.0]
    >>> pack.intact(ws, gs, [None, None])
    True
"""
import numpy as np

from ..ndarray.ndarray import DENSE_CLASSES

__all__ = ["Pack"]


class Pack:
    """Flat ``weight``, ``grad`` and ``state`` buffers (``state``: ``None``, one array, or a tuple of
    arrays: the structure of each parameter's optimizer state) of the parameters packed, in order,
    and a ``scratch`` array like ``grad`` for the update's temporaries."""

    def __init__(self, weights, grads, states, parts):
        arrays = _all(weights, grads, parts)
        self.weight = _pack(weights)
        self.grad = _pack(grads)
        flats = tuple(_pack(part) for part in parts)
        self.state = None if states[0] is None else flats[0] if not isinstance(states[0], tuple) else flats
        self.scratch = np.empty_like(self.grad)      # the update's temporary (a new one each step costs page faults)
        self._given = (list(weights), list(grads), list(states))
        self._arrays = arrays
        self._views = [a._data for a in arrays]

    @classmethod
    def build(cls, weights, grads, states):
        """Pack ``weights``, ``grads`` (NDArrays) and ``states`` (per weight: ``None``, an NDArray
        or a tuple of NDArrays, all alike) and return the ``Pack``; ``None`` (nothing changed) when
        they cannot be: fewer than two, another array kind or device type, dtypes that differ, a
        gradient or state of another shape, an array given twice, states of different structures."""
        if len(weights) < 2 or not len(weights) == len(grads) == len(states):
            return None
        parts = _state_parts(states)
        if parts is None:
            return None
        arrays = _all(weights, grads, parts)
        dtype = weights[0]._data.dtype if weights[0].__class__ in DENSE_CLASSES else None
        if dtype is None or dtype.kind != "f" or len({id(a) for a in arrays}) != len(arrays):
            return None
        for a in arrays:
            if a.__class__ not in DENSE_CLASSES or type(a._data) is not np.ndarray or a._data.dtype != dtype:
                return None
        for k, w in enumerate(weights):
            shape = w._data.shape
            if grads[k]._data.shape != shape or any(part[k]._data.shape != shape for part in parts):
                return None
        return cls(weights, grads, states, parts)

    def intact(self, weights, grads, states):
        """Whether ``weights``, ``grads`` and ``states`` are the arrays packed, in order, each still
        the view of the pack it was given."""
        # (a state is None, an NDArray or a tuple of them: the same state objects hold the same arrays)
        for given, mine in zip((weights, grads, states), self._given):
            if len(given) != len(mine):
                return False
            for a, b in zip(given, mine):
                if a is not b:
                    return False
        for a, view in zip(self._arrays, self._views):
            if a._data is not view:
                return False
        return True


def _all(weights, grads, parts):
    """Every NDArray of a pack, in the pack's order: weights, gradients, then each state component's."""
    return list(weights) + list(grads) + [a for part in parts for a in part]


def _state_parts(states):
    """Per state component, the list of that component's NDArray for every parameter (``[]`` for
    states that are all ``None``; one component for plain NDArray states), or ``None`` when the
    states differ in structure or hold something else."""
    first = states[0]
    if first is None:
        return [] if all(s is None for s in states) else None
    if not isinstance(first, tuple):
        return [list(states)] if all(s.__class__ in DENSE_CLASSES for s in states) else None
    n = len(first)
    if not all(isinstance(s, tuple) and len(s) == n and all(c.__class__ in DENSE_CLASSES for c in s)
               for s in states):
        return None
    return [[s[j] for s in states] for j in range(n)]


def _pack(arrays):
    """One flat buffer holding the values of the NDArrays ``arrays`` in order, each rebound to a
    view of its slice."""
    flat = np.empty(sum(a._data.size for a in arrays), arrays[0]._data.dtype)
    start = 0
    for a in arrays:
        n = a._data.size
        view = flat[start:start + n].reshape(a._data.shape)
        view[...] = a._data
        a._data = view
        start += n
    return flat
