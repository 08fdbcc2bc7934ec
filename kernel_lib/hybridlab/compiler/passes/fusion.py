"""Elementwise fusion: a tree of elementwise/broadcast ops whose intermediate values are read only
inside the tree becomes ONE ``_fused_elemwise`` node (see ``ops/fused.py``): one output buffer and
one call instead of one allocation and one kernel per op.

The pass asks the registry, not op names: a node can be fused when its op's family is elementwise
or broadcast, it is pure, has one output, and its op has a ``lowering`` (``OpDef.lowering``: the
op as a step of a fused kernel; ``ops.fused.lowerable``). Groups grow from their last node (the root) towards their producers; a
producer joins when every node reading it is already in the group and it is not a graph output. The fused node keeps the
root's name and meta (so output names, scopes and source lines stay) and lists its members in
``meta["fused_from"]``, their source lines in ``meta["fused_sources"]``. Groups need at least
``min_size`` ops (default 2). ``fused_members(node)`` unfolds a fused node again into stand-in
nodes of its steps (for the debugging tools: which member made a NaN, which one warned).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> from hybridlab.compiler.passes import fusion
    >>> x, b = mx.sym.var('x'), mx.sym.var('b')
    >>> y = mx.sym.relu(mx.sym.broadcast_add(mx.sym.exp(x, name='e'), b, name='add'), name='act')
    >>> fused = fusion.fuse_elementwise(y)
    >>> [(n.name, n.op_name) for n in fused._nodes() if not n.is_variable]
    [('act', '_fused_elemwise')]
    >>> fused._nodes()[-1].meta["fused_from"]
    ['e', 'add', 'act']
    >>> CachedOp(fused)(mx.nd.array([[0.0, 0.0]]), mx.nd.array([-2.0, 1.0])).asnumpy().tolist()
    [[0.0, 2.0]]
"""
import json

from ...ops.fused import lowerable, plan
from ...symbol.graph import Node
from ...ops.registry import get_op
from ._graph import clone, is_pure, retarget

__all__ = ["fuse_elementwise", "fused_members"]

_FUSED = get_op("_fused_elemwise")


def _candidate(node):
    return (not node.is_variable and node.op.family in ("elemwise", "broadcast") and is_pure(node)
            and node.num_outputs() == 1 and lowerable(node.op))


def fuse_elementwise(symbol, min_size=2, copy=True):
    """``symbol`` with fusable elementwise trees replaced by ``_fused_elemwise`` nodes."""
    sym = clone(symbol) if copy else symbol
    readers = {}
    order = sym._nodes()
    for node in order:
        for src, i in node.inputs:
            readers.setdefault((id(src), i), set()).add(id(node))
    outs = {(id(n), i) for n, i in sym._outputs}
    assigned = set()
    groups = []
    for root in reversed(order):
        if id(root) in assigned or not _candidate(root):
            continue
        members, frontier = {id(root): root}, [root]
        while frontier:
            node = frontier.pop()
            for src, i in node.inputs:
                if (id(src) not in members and id(src) not in assigned and _candidate(src)
                        and readers[(id(src), i)] <= members.keys() and (id(src), i) not in outs):
                    members[id(src)] = src
                    frontier.append(src)
        if len(members) >= min_size:
            assigned.update(members)
            groups.append((root, [n for n in order if id(n) in members]))
    for root, steps in groups:
        _fuse(root, steps)
    return sym


def _fuse(root, steps):
    index = {id(n): k for k, n in enumerate(steps)}
    external, program = [], []
    for n in steps:
        refs = []
        for src, i in n.inputs:
            if id(src) in index:
                refs.append(("step", index[id(src)]))
            else:
                if (src, i) not in external:
                    external.append((src, i))
                refs.append(("in", external.index((src, i))))
        program.append((n, refs))
    n_in = len(external)
    text = json.dumps([[n.op.name, dict(n.attrs), [r if kind == "in" else n_in + r for kind, r in refs]]
                       for n, refs in program], separators=(",", ":"))
    names = [n.name for n in steps]
    sources = [n.meta.get("source") for n in steps]
    retarget(root, _FUSED, {"num_args": str(n_in), "program": text}, external)
    root.meta["fused_from"] = names
    root.meta["fused_sources"] = sources


def fused_members(node):
    """``(inputs, steps)`` of a node this pass made, or ``None`` for any other node: ``inputs`` are
    variable stand-ins named after the values the fused node reads, ``steps`` one stand-in node per
    member (its name, op, attributes and user source line, reading ``inputs`` and earlier steps),
    so ``Interpreter([(steps[-1], 0)])`` runs the member chain op by op."""
    if node.op is not _FUSED:
        return None
    names = node.meta.get("fused_from") or []
    sources = node.meta.get("fused_sources") or []
    values = [Node(None, src.output_name(i)) for src, i in node.inputs]
    inputs = list(values)
    for j, step in enumerate(plan(node.parsed_attrs())):
        member = Node(step.op, names[j] if j < len(names) else f"{node.name}_step{j}", step.attrs,
                      [(values[r], 0) for r in step.refs])
        member.meta["source"] = sources[j] if j < len(sources) else node.meta.get("source")
        values.append(member)
    return inputs, values[len(inputs):]
