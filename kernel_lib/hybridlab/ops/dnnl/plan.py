"""A oneDNN primitive ready to run on NumPy arrays (:class:`Plan`), and the one cache of plans
that every oneDNN op of hybridlab (convolutions, layout reorders, channel affine maps) shares.

A plan's arguments (:class:`Arg`) each have the user's layout (the array a call passes) and the
layout the primitive chose; when they differ, a reorder copies the array in (or the result out)
through a per-run workspace. Plans are built once per key (which names the primitive's kind,
shapes, layouts and the thread count, as oneDNN splits the work when it creates a primitive) and
kept in a bounded LRU cache (:data:`MAX_PLANS`); calls run under one lock, as they share the stream
and the plans' memory objects.

Example::

    >>> import numpy as np
    >>> from hybridlab.ops import dnnl
    >>> from hybridlab.ops.dnnl import plan
    >>> x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((2, 1, 3, 3), np.float32)
    >>> y = np.empty((1, 2, 1, 1), np.float32)
    >>> g = dnnl.Geometry(stride=(1, 1), dilate=(1, 1), pad_l=(0, 0), pad_r=(0, 0), groups=1)
    >>> not dnnl.available() or (dnnl.forward(x, w, None, y, g) and plan.cached_count() >= 1)
    True
"""
import collections
import ctypes
import threading

import numpy as np

from . import library as L
from ... import threads

__all__ = ["Arg", "Plan", "run", "cached", "plan_of", "cached_count", "clear_cache", "aligned", "address", "MAX_PLANS"]

MAX_PLANS = 1024         # cached plans (a ResNet-50 training step at one batch size needs about 160)

_plans = collections.OrderedDict()      # key -> Plan, or None when oneDNN has no implementation
_lock = threading.Lock()


def address(array):
    """The address of a C-contiguous NumPy array's first element (``from_buffer``: a third of the
    time of ``array.ctypes.data``, which read-only arrays still need)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):
        return array.ctypes.data


def aligned(nbytes):
    """A 64-byte aligned uint8 buffer of ``nbytes`` (oneDNN's preferred alignment)."""
    buf = np.empty(nbytes + 64, np.uint8)
    off = (-buf.ctypes.data) % 64
    return buf[off:off + nbytes]


WORKSPACE_KEPT = 64 << 20    # bytes: the largest run workspace kept between runs
_work = []     # [buffer, address]: the workspace every run shares (runs hold the lock), grown on demand


def _workspace(nbytes):
    """``(buffer, address)`` of a 64-byte aligned scratch buffer of at least ``nbytes``, where a run's
    reordered arguments live until the stream is done. Up to ``WORKSPACE_KEPT`` bytes it is one buffer
    shared by every plan's run (under the lock) and kept between runs: a new buffer per run cost an
    allocation and new addresses for the memory objects; larger ones are the run's own."""
    if nbytes > WORKSPACE_KEPT:
        buf = aligned(nbytes)
        return buf, buf.ctypes.data
    if not _work or _work[0].nbytes < nbytes:
        _work[:] = ()                       # the old buffer goes first
        buf = aligned(max(nbytes, 1 << 20))
        _work[:] = [buf, buf.ctypes.data]
    return _work[0], _work[1]


class Arg:
    """One argument of a primitive: the user's layout (``user_md``, a ``MemoryDesc``), the layout
    the primitive chose (``chosen``, a descriptor handle), and the reorder between them when they
    differ."""

    def __init__(self, dnnl_arg, user_md, chosen, output):
        self.arg, self.user_md, self.output = dnnl_arg, user_md, output
        self.user = L.Memory(user_md.handle)
        self.inner, self.reorder, self.nbytes = None, None, 0
        if not L.md_equal(chosen, user_md.handle):
            self.nbytes = L.md_size(chosen)
            self.inner = L.Memory(chosen)
            self.reorder = L.reorder(chosen, user_md.handle) if output else L.reorder(user_md.handle, chosen)


class Plan:
    """A primitive with its arguments (:class:`Arg`, in the order :meth:`run` takes the arrays).
    The memory objects are the plan's, so the argument lists of every execution are made once; a
    run only points the memory objects at the call's arrays."""

    def __init__(self, kind, prim, args):
        self.kind, self.prim, self.args = kind, prim, args
        self._steps_in = [(k, a.reorder, L.exec_args([(L.ARG_FROM, a.user), (L.ARG_TO, a.inner)]))
                          for k, a in enumerate(args) if a.inner is not None and not a.output]
        self._main = (prim, L.exec_args([(a.arg, a.inner or a.user) for a in args]))
        self._steps_out = [(a.reorder, L.exec_args([(L.ARG_FROM, a.inner), (L.ARG_TO, a.user)]))
                           for a in args if a.inner is not None and a.output]
        self._moved = [k for k, a in enumerate(args) if a.inner is not None]     # arguments reordered

    def run(self, arrays, ready=None):
        """Execute on ``arrays`` (NumPy arrays, one per argument; outputs written in place).
        ``ready``: ``{argument index: address}`` of inputs already in the primitive's layout
        (``weight_cache.py``): their reorders are skipped."""
        for arg, arr in zip(self.args, arrays):
            arg.user.set(address(arr))
        work = None
        moved = [k for k in self._moved if not (ready and k in ready)]
        if moved:     # one workspace holds every other reordered argument, each at a 64-byte aligned offset
            sizes = [-(-self.args[k].nbytes // 64) * 64 for k in moved]
            work, start = _workspace(sum(sizes))
            for k, size in zip(moved, sizes):
                self.args[k].inner.set(start)
                start += size
        for k in ready or ():
            self.args[k].inner.set(ready[k])
        for k, prim, prepared in self._steps_in:
            if not (ready and k in ready):
                L.execute(prim, prepared)
        L.execute(*self._main)
        for prim, prepared in self._steps_out:
            L.execute(prim, prepared)
        L.wait()
        del work          # (a run's own workspace is needed until the stream is done)

    def reorder_in(self, k, array, target):
        """Reorder input ``array`` of argument ``k`` into the primitive's layout at address ``target``."""
        arg = self.args[k]
        arg.user.set(address(array))
        arg.inner.set(target)
        L.execute(arg.reorder, L.exec_args([(L.ARG_FROM, arg.user), (L.ARG_TO, arg.inner)]))
        L.wait()

    def __repr__(self):
        moved = [a.arg for a in self.args if a.inner is not None]
        return f"<dnnl Plan {self.kind} {L.impl_info(self.prim)} reordered args {moved}>"


def cached(key, build):
    """The plan of ``key`` (``build()`` makes it when missing; ``None``: oneDNN has no implementation).
    Call with the lock held (:func:`run` does)."""
    nthreads = threads.current()
    L.set_num_threads(nthreads)
    key = key + (nthreads,)
    plan = _plans.get(key, _plans)
    if plan is not _plans:
        _plans.move_to_end(key)
        return plan
    try:
        plan = build()
    except L.DnnlError as err:
        if err.status != L.UNIMPLEMENTED:
            raise
        plan = None
    _plans[key] = plan
    while len(_plans) > MAX_PLANS:
        _plans.popitem(last=False)
    return plan


_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8))    # values, pooling workspaces


def run(key, build, arrays, ready=None):
    """Run the plan of ``key`` on ``arrays`` (``None`` entries skipped); ``False`` when oneDNN has no
    implementation for it (nothing was written). ``ready(plan, key, arrays)`` may give the
    addresses of inputs already reordered (see :meth:`Plan.run`); it runs under the lock."""
    for a in arrays:
        if a is not None and (a.dtype not in _DTYPES or not a.flags.c_contiguous):
            raise ValueError(f"oneDNN {key[0]}: expected C-contiguous float32 (or uint8) arrays, got {a.dtype} "
                             f"{'contiguous' if a.flags.c_contiguous else 'strided'} {a.shape}")
    with _lock:
        plan = cached(key, build)
        if plan is None:
            return False
        arrays = [a for a in arrays if a is not None]
        plan.run(arrays, ready(plan, key, arrays) if ready is not None else None)
    return True


def plan_of(key, build):
    """The cached plan of ``key``, built when missing (``repr`` names oneDNN's implementation)."""
    with _lock:
        return cached(key, build)


def cached_count():
    """How many plans the cache holds."""
    return len(_plans)


def clear_cache():
    """Forget every cached plan (their primitives are destroyed)."""
    with _lock:
        _plans.clear()
        _work[:] = ()
