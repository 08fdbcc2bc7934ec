"""Convolution weights kept in the layout oneDNN's primitive wants, between calls, for as long as
nobody writes them: what MXNet's oneDNN build does with an inference's weights. At batch 1 the
reorder of every weight on every call was a tenth of a ResNet-50 forward.

A predict program's convolution whose weights are a graph input (a parameter: the layout plan sets
``cached_weight``, ``compiler/passes/layout.py``) asks :func:`address` for its weights: the first
call reorders them into a buffer kept here; later calls reuse it while ``write_versions`` says the
array was not written (every in-place write of an NDArray counts: optimizer steps, ``set_data``,
``x[:] = ...``, ``out=``, ``copyto``, kvstore pulls, ...). An entry goes with its weight array (a
weak reference) and at most :data:`MAX_ENTRIES` are kept (least recently used dropped first);
arrays shared with foreign code through DLPack are never cached.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> from hybridlab.ops.dnnl import weight_cache
    >>> x, w = np.ones((1, 8, 4, 4), np.float32), np.ones((8, 8, 3, 3), np.float32)
    >>> y = np.empty((1, 8, 2, 2), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g, cache_weights=True) and weight_cache.held(w) >= 0
    ...                          and float(y[0, 0, 0, 0]) == 72.0)
    True
"""
from ... import write_versions
from . import library as L
from .plan import aligned

__all__ = ["address", "ready_weights", "held", "clear", "MAX_ENTRIES"]

MAX_ENTRIES = 1024

_kept = write_versions.Kept(MAX_ENTRIES)      # (id(weight), plan key, argument index) -> reordered buffer
_entries = _kept.entries


def address(plan, plan_key, k, weight):
    """The address of ``weight`` (input ``k`` of ``plan``) in the primitive's layout, reordered now
    only when first seen or written since. Call with the plan lock held (``plan.run``'s ``ready``)."""
    key = (id(weight), plan_key, k)
    entry = _kept.fresh(key, weight)
    if entry is not None:
        return entry.value[1]
    entry = _kept.renew(key, weight)
    if entry.value is None:
        buf = aligned(plan.args[k].nbytes)
        entry.value = (buf, buf.__array_interface__["data"][0])
        _kept.account(entry, buf.nbytes)
    plan.reorder_in(k, weight, entry.value[1])
    return entry.value[1]


def ready_weights(plan, plan_key, arrays):
    """``Plan.run``'s ``ready`` for a convolution: its reordered weights from the cache (``{}`` when the
    primitive takes them as they are, or they are shared with foreign code)."""
    for k, arg in enumerate(plan.args):
        if arg.arg == L.ARG_WEIGHTS and arg.inner is not None and not write_versions.is_exported(arrays[k]):
            return {k: address(plan, plan_key, k, arrays[k])}
    return {}


def held(weight):
    """How many reordered copies of ``weight`` are kept."""
    return _kept.held(weight)


def clear():
    """Drop every kept copy."""
    _kept.clear()
