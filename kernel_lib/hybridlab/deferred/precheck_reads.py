"""What a pre-check trace notes instead of failing (``gluon.precheck``): while ``tracing.precheck``
holds a ``Findings``, a value read of a traced array (``if x.sum() > 0``, ``print(x)``,
``x.asnumpy()``, ``x.item()``) is recorded with the user's line and answered with the real value
(computed from the call's real inputs by the compiler's interpreter), and an item assignment is
recorded and skipped, so the trace goes on and every problem of the forward is found in one run.
The nodes recorded so far are kept too (``nodes``): the partial graph up to a failure.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.deferred import precheck_reads, state, trace
    >>> x = trace.placeholder((2,))
    >>> trace.set_variable(x, mx.sym.var('x'))
    >>> found = precheck_reads.Findings()
    >>> with mx._deferred_compute.context(values={'x': mx.nd.array([1.0, -2.0])}):
    ...     state.tracing.precheck = found
    ...     y = mx.nd.relu(x)
    ...     value = y.asnumpy()
    >>> state.tracing.precheck = None
    >>> value.tolist(), [(f.kind, f.what) for f in found.reads], [n.op_name for n in found.nodes]
    ([1.0, 0.0], [('value read', 'asnumpy()')], ['relu'])
"""
import numpy as np

from ..symbol.provenance import user_source
from . import state

__all__ = ["Findings", "Read"]


class Read:
    """A value read (``kind`` ``"value read"`` or ``"branch"``) or an item assignment (``"in-place
    write"``) at the user's ``source`` line; ``what`` says what was read; ``np_words``: the block
    is MXNet 2.0 style; ``entry``: the graph entry read (``(node, i)`` or ``None``)."""

    __slots__ = ("kind", "what", "source", "np_words", "entry")

    def __init__(self, kind, what, source, np_words, entry):
        self.kind, self.what, self.source, self.np_words, self.entry = kind, what, source, np_words, entry

    def __repr__(self):
        where = f"{self.source['file']}:{self.source['line']}" if self.source else "?"
        return f"<Read {self.kind}: {self.what} at {where}>"


# one line reads a value once as far as the user is concerned: `if x.sum() > 0` reads the truth
# value, which reads asnumpy() underneath
_GROUP = {"branch": "read", "value read": "read"}


class Findings:
    """The reads and writes of one pre-check trace (one per user line and kind), and its nodes.
    ``symbolic``: the block is MXNet 1.x style, so hybridized its ``hybrid_forward`` runs on Symbols
    (indexing means "pick an output" there)."""

    def __init__(self, symbolic=False):
        self.reads = []
        self.nodes = []
        self.symbolic = symbolic

    def add(self, kind, what, np_words, entry=None):
        source = user_source()
        line = source and (source["file"], source["line"])
        group = _GROUP.get(kind, kind)
        if any(_GROUP.get(r.kind, r.kind) == group and (r.source and (r.source["file"], r.source["line"])) == line
               for r in self.reads):
            return
        self.reads.append(Read(kind, what, source, np_words, entry))


def precheck_read(arr, what):
    """``tracer.precheck_read``: note the read, answer with the real value."""
    found = state.tracing.precheck
    described, np_words = state.tracer.describe_read(arr._data, what)
    kind = "branch" if described.startswith("the truth value") else "value read"
    found.add(kind, described, np_words, arr._trace)
    return _real_value(arr)


def precheck_write(data):
    """``tracer.precheck_write``: note the item assignment (the trace goes on without it)."""
    _, np_words = state.tracer.describe_read(data, "item assignment")
    state.tracing.precheck.add("in-place write", "item assignment", np_words)


def precheck_rebind(arr):
    """``tracer.precheck_rebind``: note an in-place operator on a traced array (it rebinds the name)."""
    _, np_words = state.tracer.describe_read(arr._data, "in-place operator")
    state.tracing.precheck.add("in-place op", "an in-place operator (x += y)", np_words, arr._trace)


def precheck_index(arr, key):
    """``tracer.precheck_index``: in a 1.x block, note ``x[key]`` (the trace goes on with NumPy's
    meaning). On a Symbol an integer picks an output (``x[0]`` is ``x`` itself, not its first row) and
    any other key raises."""
    found = state.tracing.precheck
    if found.symbolic:
        found.add("symbol indexing", f"x[{_key_text(key)}]", False, arr._trace)


def _key_text(key):
    parts = key if isinstance(key, tuple) else (key,)
    return ", ".join(":" if p == slice(None) else "..." if p is Ellipsis else
                     type(p).__name__ if hasattr(p, "shape") else repr(p) for p in parts)


def _real_value(arr):
    """The value of the traced ``arr`` for the call's real inputs (zeros when it has none)."""
    from .trace import value_of_entry
    if arr._trace is not None and state.tracing.values is not None:
        try:
            return value_of_entry(arr._trace, arr._device)._data
        except Exception:      # noqa: BLE001 - a value the trace cannot compute: zeros keep it going
            pass
    return np.zeros(arr._data.shape, dtype=arr._data.dtype)


state.tracer.precheck_read = precheck_read
state.tracer.precheck_write = precheck_write
state.tracer.precheck_rebind = precheck_rebind
state.tracer.precheck_index = precheck_index
