"""Shape guards: the shapes user code read while a graph was traced.

A 2.0-style ``forward`` that reads ``x.shape[0]`` while tracing turns the number into a constant of
the graph (``x.reshape((x.shape[0], -1))`` records ``newshape=(2, -1)``). MXNet 2.0 then runs the
same graph for a batch of 3 and returns a wrong shape; ``if x.dtype == np.float16`` picks a branch
for good. The tracer records every such read (of ``shape``, ``len()``, ``ndim``, ``size``,
``dtype`` or ``device``, by code outside hybridlab) as a ``ShapeRead``: the graph entry it was read
from, what was read, the value, and the user's line. ``broken(reads, info_of)`` says which reads a
new input signature changes, so the block traces again instead of computing a wrong result
(``gluon/shape_guards.py``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.deferred import shape_reads, trace
    >>> x = trace.placeholder((2, 3))
    >>> trace.set_variable(x, mx.sym.var('x'))
    >>> reads = []
    >>> with mx._deferred_compute.context(shape_reads=reads):
    ...     y = x.reshape((x.shape[0], -1))
    >>> [(r.what, r.value) for r in reads]
    [('shape', (2, 3))]
    >>> [r.change(shape_reads.ArrayInfo((3, 3), "float32", mx.cpu())) for r in reads]
    ['x.shape[0] 2 -> 3']
"""
import re
import sys
from collections import namedtuple

import numpy as np

from ..symbol.provenance import in_package, user_source
from . import state

__all__ = ["ShapeRead", "ArrayInfo", "broken", "record_read"]


ArrayInfo = namedtuple("ArrayInfo", ["shape", "dtype", "device"])
ArrayInfo.__doc__ = "What a read can see of an array without its values: shape, dtype, device."


class ShapeRead:
    """``what`` (``"shape"``, ``"len"``, ``"ndim"``, ``"size"``, ``"dtype"`` or ``"device"``) of the
    graph entry ``entry`` (``(node, output index)``) was read while tracing and was ``value``;
    ``source``: the user's line (``{"file", "line", "code"}``) or ``None``."""

    __slots__ = ("entry", "what", "value", "source")

    def __init__(self, entry, what, value, source):
        self.entry, self.what, self.value, self.source = entry, what, value, source

    @property
    def label(self):
        """The array as the graph names it: the variable's name, or ``node`` / ``node[i]``."""
        node, i = self.entry
        return node.name if node.is_variable or node.num_outputs() == 1 else f"{node.name}[{i}]"

    def project(self, info):
        """What this read would give for an array described by ``info`` (an ``ArrayInfo``)."""
        shape = info.shape
        if self.what == "shape":
            return tuple(shape)
        if self.what == "len":
            return shape[0] if shape else None
        if self.what == "ndim":
            return len(shape)
        if self.what == "dtype":
            return np.dtype(info.dtype).name
        if self.what == "device":
            return str(info.device)
        size = 1
        for d in shape:
            size *= d
        return size

    def holds(self, info):
        return self.project(info) == self.value

    def change(self, info):
        """``'x.shape[0] 2 -> 3'``: what differs for an array described by ``info`` (one item per
        changed dimension of a ``shape`` read)."""
        if info is None:
            return f"{self.label}.{self.what} {self.value} -> unknown (not inferred for the new inputs)"
        new = self.project(info)
        if self.what != "shape":
            call = {"len": f"len({self.label})"}.get(self.what, f"{self.label}.{self.what}")
            return f"{call} {self.value} -> {new}"
        if len(new) != len(self.value):
            return f"{self.label}.shape {self.value} -> {new}"
        return ", ".join(f"{self.label}.shape[{k}] {a} -> {b}" for k, (a, b) in enumerate(zip(self.value, new))
                         if a != b)

    def baked_into(self, nodes):
        """``[(node, [attribute names])]``: the op nodes of ``nodes`` built on the read's line whose
        attributes hold the number(s) it read (``newshape`` of the reshape after ``x.shape[0]``)."""
        if not self.source:
            return []
        line = (self.source["file"], self.source["line"])
        values = {str(v) for v in (self.value if isinstance(self.value, tuple) else (self.value,))}
        found = []
        for node in nodes:
            src = node.meta.get("source") if not node.is_variable else None
            if not src or (src["file"], src["line"]) != line:
                continue
            hit = [k for k, v in node.attrs.items() if not k.startswith("__") and values & set(_words(v))]
            if hit:
                found.append((node, hit))
        return found

    def where(self):
        """``'file:line'`` of the read (``'?'`` when the line is unknown)."""
        src = self.source
        return f"{src['file']}:{src['line']}" if src else "?"

    def reason(self, info):
        """The rebuild reason: ``'shape read at net.py:12 changed: x.shape[0] 2 -> 3'``."""
        return f"{self.what} read at {self.where()} changed: {self.change(info)}"

    def __repr__(self):
        return f"<ShapeRead {self.label}.{self.what} = {self.value} at {self.where()}>"


def _words(text):
    """The numbers and names in an attribute string (``'(2, -1)'`` -> ``['2', '-1']``)."""
    return re.findall(r"-?[\w.]+", str(text))


def broken(reads, info_of):
    """The first read of ``reads`` that a new signature breaks, with what the entry is then:
    ``(read, ArrayInfo)``, or ``None`` when every read still holds. ``info_of(entry)`` gives an
    entry's ``ArrayInfo`` under the new signature (``None``: unknown, which counts as broken)."""
    for read in reads:
        info = info_of(read.entry)
        if info is None or not read.holds(info):
            return read, info
    return None


def record_read(arr, what, own=False):
    """``tracer.read_shape``: NDArray's properties call it (through ``ndarray._traced_read``) when
    ``what`` of a traced array is read. Kept only when the reader (the caller of the property, three
    frames up) is user code: hybridlab reads shapes to infer, and its own layers write
    shape-independent graphs -- except where hybridlab says ``own=True``: a read of its own that
    shapes the graph (``contrib.foreach`` unrolls ``len(data)`` steps), kept at the user's line."""
    reads = state.tracing.shape_reads
    entry = arr._trace
    if reads is None or entry is None or (not own and in_package(sys._getframe(3).f_code.co_filename)):
        return
    source = user_source()
    key = (entry, what, source and (source["file"], source["line"]))
    for r in reads:
        if (r.entry, r.what, r.source and (r.source["file"], r.source["line"])) == key:
            return
    read = ShapeRead(entry, what, None, source)
    read.value = read.project(ArrayInfo(arr._data.shape, arr._data.dtype, arr._device))
    reads.append(read)


state.tracer.read_shape = record_read
