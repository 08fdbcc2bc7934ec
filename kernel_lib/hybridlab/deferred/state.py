"""The tracing flag NDArray checks, and the data of an array while tracing (``TracedValue``).

It imports nothing above ``base``: the dispatcher reads ``tracing.active`` on every op call. The
tracer itself (``deferred/trace.py``) sits in the symbol layer, above the ndarray layer; it
registers what the layers below need from it in ``tracer`` when it loads: ``record`` (the
dispatcher's tracing path), ``where`` (the user's source line) and ``describe_read`` (what the user
did and in which Gluon style), for ``TracedValue``'s error messages; the compiler registers its
``interpreter``, which computes the values a dynamic-shape op needs while tracing.

A value read while tracing fails with one message in the words of the block's style (MXNet 1.x
``hybrid_forward``: ``F.where``; MXNet 2.0 ``forward`` or ``mx.np`` arrays: ``mx.np.where``)::

    >>> import hybridlab as mx
    >>> x = mx._deferred_compute.placeholder((2,)).as_np_ndarray()
    >>> mx._deferred_compute.set_variable(x, mx.sym.var('x'))
    >>> with mx._deferred_compute.context():
    ...     bool(x.sum() > 0)
    Traceback (most recent call last):
    hybridlab.base.MXNetError: cannot read the truth value (bool(), if, while) of an array of shape () while the
    graph is being traced at ...: `bool(x.sum() > 0)`. While hybridizing, arrays have a shape and a dtype but no
    values, so an `if` or `while` cannot depend on them. Compute both branches and choose with
    `mx.np.where(cond, a, b)`, or call the block without hybridize() to look at the values.

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

__all__ = ["tracing", "tracer", "is_deferred_compute", "context", "TracedValue", "rewrite_advice"]


class _Tracing(threading.local):
    active = False
    values = None   # the trace's variable values: name -> NDArray (context(values=...)), else None
    memo = None     # (node, output index) -> NDArray: values computed for dynamic ops in this trace
    shape_reads = None   # the list collecting the shapes user code reads (context(shape_reads=...))
    precheck = None      # a pre-check's findings (gluon.precheck): reads and writes recorded, not raised


tracing = _Tracing()


class _Tracer:
    """Set by ``deferred.trace`` when it loads: ``record(op, inputs, kwargs, np_style)`` records one op
    call as a graph node; ``where()`` is `` at file:line: `code` `` of the user's line (or '');
    ``describe_read(data, what)`` is ``(what the user did, np_words)`` for a failing read of the
    ``TracedValue`` ``data`` (``np_words``: the block is MXNet 2.0 style); in a pre-check
    (``tracing.precheck``), ``precheck_read(array, what)`` records a value read and returns the real
    value, ``precheck_write(data)`` records an item assignment, ``precheck_rebind(array)`` an
    in-place operator (``x += 1``) that rebinds the name, ``precheck_index(array, key)`` indexing that
    a Symbol does not have (a 1.x block). Set by ``deferred.shape_reads``:
    ``read_shape(arr, what)``, called when user code reads the shape, ``len()``, ``ndim`` or
    ``size`` of a traced array (a shape guard). Set by ``compiler.interpreter``: ``interpreter``
    (the class that runs a graph node by node)."""

    record = None
    interpreter = None   # compiler.interpreter.Interpreter (registered by the compiler: it runs graphs)
    read_shape = None
    precheck_read = None
    precheck_write = None
    precheck_rebind = None
    precheck_index = None

    @staticmethod
    def where():
        return ""

    @staticmethod
    def describe_read(data, what):
        return what, False


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


# the rewrite each error suggests, in the words of the block's style: (MXNet 1.x ``hybrid_forward``
# with ``F``, MXNet 2.0 ``forward`` with ``mx.np``/``mx.npx``), indexed by ``np_words``
_LOOK = "or call the block without hybridize() to look at the values."
_REWRITE = {
    "branch": (f"Compute both branches and choose with `F.where(cond, a, b)`, {_LOOK}",
               f"Compute both branches and choose with `mx.np.where(cond, a, b)`, {_LOOK}"),
    "read": (f"Keep the computation in `F` ops (`F.where(cond, a, b)` for choices, `F.slice_axis` and "
             f"`F.reshape` codes for shapes), {_LOOK}",
             f"Keep the computation in `mx.np` / `mx.npx` ops (`mx.np.where(cond, a, b)` for choices, indexing "
             f"and `mx.npx.reshape` codes for shapes), {_LOOK}"),
    "write": ("Build a new array instead: `F.where(mask, value, x)` replaces elements, `F.concat` joins "
              "`F.slice_axis` pieces.",
              "Build a new array instead: `mx.np.where(mask, value, x)` replaces elements, "
              "`mx.np.concatenate` joins slices."),
}


def rewrite_advice(kind, np_words):
    """The rewrite advised for ``kind`` (``"branch"``, ``"read"`` or ``"write"``) in the words of
    the block's style (``np_words``: MXNet 2.0 ``mx.np``/``mx.npx``, else 1.x ``F``)."""
    return _REWRITE[kind][bool(np_words)]


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
        what, np_words = tracer.describe_read(self, what)
        branch = what.startswith("the truth value")
        why = ", so an `if` or `while` cannot depend on them" if branch else ""
        raise MXNetError(f"cannot read {what} of an array of shape {self.shape} while the graph is being traced"
                         f"{tracer.where()}. While hybridizing, arrays have a shape and a dtype but no values"
                         f"{why}. {_REWRITE['branch' if branch else 'read'][np_words]}")

    def __getattr__(self, name):
        self._no_value(f"'{name}'")

    def __setitem__(self, key, value):
        if tracing.precheck is not None:       # a pre-check notes the write and goes on without it
            return tracer.precheck_write(self)
        _, np_words = tracer.describe_read(self, "item assignment")
        raise MXNetError(f"item assignment is not supported while the graph is being traced{tracer.where()}. "
                         f"While hybridizing, an array is a node of the graph, which cannot be written in place. "
                         f"{_REWRITE['write'][np_words]}")

    def __array__(self, *args, **kwargs):
        self._no_value()

    def __repr__(self):
        return f"TracedValue(shape={self.shape}, dtype={self.dtype})"
