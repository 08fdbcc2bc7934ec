"""The tracing flag NDArray checks, and the data of an array while tracing (``TracedValue``).

It imports nothing above ``base``: the dispatcher reads ``tracing.active`` on every op call. The
tracer itself (``deferred/trace.py``) sits in the symbol layer, above the ndarray layer; it
registers what the layers below need from it in ``tracer`` when it loads: ``record`` (the
dispatcher's tracing path) and ``where`` (the user's source line, for error messages); the compiler
registers its ``interpreter``, which computes the values a dynamic-shape op needs while tracing.

Example::

    >>> from hybridlab.deferred import state
    >>> with state.context():
    ...     state.is_deferred_compute()
    True
    >>> state.tracing.active
    False
"""
import threading

from ..base import MXNetError, normalize_dtype

__all__ = ["tracing", "tracer", "is_deferred_compute", "context", "TracedValue"]


class _Tracing(threading.local):
    active = False
    values = None   # the trace's variable values: name -> NDArray (context(values=...)), else None
    memo = None     # (node, output index) -> NDArray: values computed for dynamic ops in this trace
    shape_reads = None   # the list collecting the shapes user code reads (context(shape_reads=...))


tracing = _Tracing()


class _Tracer:
    """Set by ``deferred.trace`` when it loads: ``record(op, inputs, kwargs, np_style)`` records one op
    call as a graph node; ``where()`` is `` at file:line: code`` of the user's line (or ''). Set by
    ``compiler.interpreter``: ``interpreter`` (the class that runs a graph node by node)."""

    record = None
    interpreter = None   # compiler.interpreter.Interpreter (registered by the compiler: it runs graphs)

    @staticmethod
    def where():
        return ""


tracer = _Tracer()


def is_deferred_compute():
    """True while tracing (inside ``context()``).

    >>> import hybridlab as mx
    >>> mx._deferred_compute.is_deferred_compute()
    False
    """
    return tracing.active


class context:
    """Trace op calls into graph nodes instead of computing them.

    ``values``: the real arrays of the graph variables (a dict, or a function of the variable name
    returning an NDArray), needed only by dynamic-shape ops: without it, tracing one raises.
    ``shape_reads``: a list that collects the shapes user code reads (``deferred.shape_reads``).

    >>> import hybridlab as mx
    >>> with mx._deferred_compute.context():
    ...     mx._deferred_compute.is_deferred_compute()
    True
    """

    def __init__(self, values=None, shape_reads=None):
        self._prev = None
        self._values = values
        self._shape_reads = shape_reads

    def __enter__(self):
        self._prev = (tracing.active, tracing.values, tracing.memo, tracing.shape_reads)
        tracing.active = True
        if self._values is not None:
            tracing.values, tracing.memo = self._values, {}
        tracing.shape_reads = self._shape_reads
        return self

    def __exit__(self, *exc):
        tracing.active, tracing.values, tracing.memo, tracing.shape_reads = self._prev
        return False


class TracedValue:
    """The data of an array while tracing: a shape and a dtype, no values.

    >>> TracedValue((2, 3), "float32")
    TracedValue(shape=(2, 3), dtype=float32)
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = normalize_dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        out = 1
        for d in self.shape:
            out *= d
        return out

    def _no_value(self, what="its values"):
        raise MXNetError(f"cannot read {what} of an array of shape {self.shape} while the graph is being traced"
                         f"{tracer.where()}: while hybridizing, arrays only have a shape and a dtype. Keep the "
                         f"computation in ops (F.where for conditions, F.slice_axis / reshape codes for shapes), "
                         f"or call the block without hybridize() to inspect values.")

    def __getattr__(self, name):
        self._no_value(f"'{name}'")

    def __setitem__(self, key, value):
        raise MXNetError(f"item assignment is not supported while the graph is being traced{tracer.where()}: a "
                         f"graph node cannot be written in place. Use F.where(mask, value, x) or F.concat of slices.")

    def __array__(self, *args, **kwargs):
        self._no_value()

    def __repr__(self):
        return f"TracedValue(shape={self.shape}, dtype={self.dtype})"
