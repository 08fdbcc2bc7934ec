"""Why a hybridized block (re)built its cached op: one record per build, kept on the block.

Every time a HybridBlock compiles a program for its graph (``block.rebuild_history``), a
``RebuildRecord(time, reason, detail, signature)`` is appended. Reasons:

* ``"first call"``: the first build of the block;
* ``"new input signature"``: shapes, dtypes, device or training mode the cached op has not seen;
  ``detail`` says which input changed from what to what (``data: (1, 4) float32 -> (8, 4) float32``);
* ``"hybridize flags changed"``: ``hybridize()`` with other flags (``detail``: ``static_alloc: False
  -> True``);
* ``"child added"`` (``detail``: the child's name), ``"cast"`` (``detail``: the dtype),
  ``"optimize_for"`` (``detail``: the backend), ``"hybridize called again"``, ``"loaded"``;
* ``"hybridized again"``: the first build after ``hybridize(active=False)``.

Turning hybridization off (``hybridize(active=False)``, or ``cast`` and adding a child, which do so
as in MXNet 1.x) builds nothing; it is published as a ``"hybridize_off"`` event (``note_inactive``).

Several invalidations before the next build are joined (``"cast + hybridize flags changed"``).
``print(block.rebuild_history)`` (or ``.table()``) shows them as a table; each build is also
published as a ``"cache_built"`` event with ``reason``, ``detail``, ``signature`` and the data
to draw the graph (``graph``: the Symbol, ``inputs``, ``shapes``, ``dtypes``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.Dense(2, in_units=3)
    >>> net.initialize()
    >>> net.hybridize()
    >>> _ = net(mx.nd.ones((1, 3)))
    >>> _ = net(mx.nd.ones((4, 3)))
    >>> [r.reason for r in net.rebuild_history]
    ['first call', 'new input signature']
    >>> net.rebuild_history[1].detail
    'data: (1, 3) float32 -> (4, 3) float32'
    >>> print(net.rebuild_history)      # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    #  time      reason               detail                                   signature
    0  ...  first call           data=(1, 3) float32, device=cpu(0), predict  data=(1, 3) float32, ...
    1  ...  new input signature  data: (1, 3) float32 -> (4, 3) float32       data=(4, 3) float32, ...
"""
import time
from collections import namedtuple

from ..symbol.graph_diff import GraphDiff

__all__ = ["RebuildRecord", "RebuildHistory", "GraphDiff", "describe_key", "signature_diff", "flags_diff", "note_build", "note_inactive"]

RebuildRecord = namedtuple("RebuildRecord", ["time", "reason", "detail", "signature", "flags", "graph",
                                             "build_ms", "memory_bytes", "retraced"],
                           defaults=((), None, None, None, False))
RebuildRecord.__doc__ = ("One build of a block's cached op: ``time`` (``time.time()``), ``reason`` (str), "
                         "``detail`` (str: what changed), ``signature`` (str: the inputs it was built for), "
                         "``flags`` (the hybridize flags), ``graph`` (the traced Symbol the program was "
                         "compiled from), ``build_ms`` (time spent tracing, running the passes and compiling "
                         "for this build), ``memory_bytes`` (static_alloc's planned bytes, else None), "
                         "``retraced`` (whether the graph was traced anew)")


def _dt(dtype):
    return getattr(dtype, "name", str(dtype))


def describe_key(names, key):
    """``data=(1, 4) float32, device=cpu(0), predict`` for a block's signature key
    ``(((shape, dtype), ...), device, training)``."""
    shapes, device, training = key
    ins = ", ".join(f"{n}={sh} {_dt(dt)}" for n, (sh, dt) in zip(names, shapes))
    return f"{ins}, device={device}, {'train' if training else 'predict'}"


def signature_diff(names, old, new):
    """What changed between two signature keys: ``data: (1, 4) float32 -> (8, 4) float32; ...``."""
    if old is None:
        return describe_key(names, new)
    changes = [f"{n}: {s0} {_dt(d0)} -> {s1} {_dt(d1)}" for n, (s0, d0), (s1, d1) in zip(names, old[0], new[0])
               if (s0, d0) != (s1, d1)]
    if len(old[0]) != len(new[0]):
        changes.append(f"input count {len(old[0])} -> {len(new[0])}")
    if old[1] != new[1]:
        changes.append(f"device {old[1]} -> {new[1]}")
    if old[2] != new[2]:
        changes.append(f"mode {'train' if old[2] else 'predict'} -> {'train' if new[2] else 'predict'}")
    return "; ".join(changes) or "same as an earlier signature (built again after an invalidation)"


def flags_diff(old, new):
    """``static_alloc: False -> True, ...`` for two ``[(flag, value), ...]`` lists."""
    old, new = dict(old), dict(new)
    return ", ".join(f"{k}: {old.get(k)} -> {new.get(k)}" for k in dict.fromkeys(list(old) + list(new))
                     if old.get(k) != new.get(k))


class RebuildHistory(list):
    """The block's ``RebuildRecord`` list; ``str()``/``table()`` format it as a table."""

    def add(self, reason, detail, signature, **more):
        """Append a record (``more``: the optional fields ``flags``, ``graph``, ``build_ms``...)."""
        record = RebuildRecord(time.time(), reason, detail, signature, **more)
        self.append(record)
        return record

    def diff(self, i, j):
        """How build ``j``'s graph differs from build ``i``'s: a ``GraphDiff`` (nodes matched by name)."""
        a, b = self[i].graph, self[j].graph
        if a is None or b is None:
            raise ValueError(f"RebuildHistory.diff: builds {i} and {j} expected to keep their graphs, got "
                             f"{'none' if a is None else 'a graph'} and {'none' if b is None else 'a graph'}")
        return GraphDiff(a, b)

    def table(self):
        """The records as a text table: number, time, reason, detail, signature."""
        rows = [("#", "time", "reason", "detail", "signature")]
        rows += [(str(i), time.strftime("%H:%M:%S", time.localtime(r.time)), r.reason, r.detail, r.signature)
                 for i, r in enumerate(self)]
        widths = [max(len(row[c]) for row in rows) for c in range(4)]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4]
                         for row in rows)

    def __str__(self):
        return self.table() if self else "(no builds yet)"

    def __repr__(self):
        return f"<RebuildHistory: {len(self)} build(s){': ' if self else ''}" \
               f"{', '.join(r.reason for r in self)}>"


def note_build(block, key):
    """``block`` (a HybridBlock) built its cached op for the new signature ``key``
    (``hybridization.signature_key``): append the record (reason: first call, the pending
    invalidations, or the signature diff) to its ``hybridization.history`` and publish
    ``cache_built`` (see ``hybridlab.events``: the block's name and id, reason, detail, signature,
    the record's index, and the graph Symbol with its data inputs' names, shapes and dtypes)."""
    state = block.hybridization
    names = [v.name for v in state.inputs]
    sig = describe_key(names, key)
    if state.pending:
        reason = " + ".join(dict.fromkeys(r for r, _ in state.pending))
        detail = "; ".join(d for _, d in state.pending if d)
    elif not state.history:
        reason, detail = "first call", sig
    else:
        reason, detail = "new input signature", signature_diff(names, state.last_key, key)
        if dict(state.flags).get("static_shape"):
            detail += " (static_shape: the program is specialised to the new shapes)"
    state.built.add(key)
    state.last_key = key
    state.pending = []
    cop = state.cached_op
    compiled = cop.program().compile_seconds if cop.signatures else 0.0
    build_s, state.build_seconds = state.build_seconds, 0.0
    plan = state.memory_plan()
    retraced = not state.history or state.history[-1].graph is not state.graph
    state.history.add(reason, detail, sig, flags=tuple(state.flags), graph=state.graph,
                      build_ms=(build_s + compiled) * 1e3, retraced=retraced,
                      memory_bytes=plan.planned_bytes if plan is not None else None)
    from .. import events
    if events.has_subscribers("cache_built"):
        shapes, device, training = key
        short = ", ".join(f"{sh} {dt}" for sh, dt in shapes) + f", device={device}, " + \
            ("train" if training else "predict")
        events.publish("cache_built", block=block.name, block_id=id(block), reason=reason, detail=detail,
                       signature=short, history=len(state.history) - 1, graph=state.graph, inputs=names,
                       shapes={n: sh for n, (sh, _) in zip(names, shapes)},
                       dtypes={n: dt for n, (_, dt) in zip(names, shapes)})


def note_inactive(block, detail):
    """``block`` stopped running hybridized (its calls now run imperatively): publish
    ``hybridize_off`` (``block``, ``block_id``, ``reason``: ``events.NOT_HYBRIDIZED``, ``detail``)."""
    from .. import events
    if events.has_subscribers("hybridize_off"):
        events.publish("hybridize_off", block=block.name, block_id=id(block), reason=events.NOT_HYBRIDIZED,
                       detail=detail)
