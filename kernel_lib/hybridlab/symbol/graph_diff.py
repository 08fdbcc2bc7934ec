"""Two graphs compared node by node, nodes matched by name (``GraphDiff``): what two builds of a
block traced differently (``gluon.rebuild_history``), what an export round trip changed
(``gluon.export_check``).

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> old = mx.sym.relu(mx.sym.exp(x, name='e'), name='r')
    >>> new = mx.sym.tanh(mx.sym.exp(x, name='e'), name='t')
    >>> d = GraphDiff(old, new)
    >>> d.added, d.removed, d.changed, bool(d)
    (['t'], ['r'], {}, True)
"""
from .graph import topo_order

__all__ = ["GraphDiff"]


class GraphDiff:
    """``added`` / ``removed``: node names (in graph order) only in the new / the old graph;
    ``changes``: ``{name: {"op": (old, new), "attrs": {key: (old, new)}, "inputs": (old, new)}}``
    (only what differs; inputs as ``[(node name, output index)]``) for the nodes in both, and
    ``changed``: the same as one line of text per node. ``skip_dunder``: leave attributes named
    ``__...__`` (a variable's ``__shape__``, ``__dtype__``) out of the comparison."""

    def __init__(self, old, new, skip_dunder=False):
        a = {n.name: n for n in topo_order(old.entries)}
        b = {n.name: n for n in topo_order(new.entries)}
        self.added = [n for n in b if n not in a]
        self.removed = [n for n in a if n not in b]
        self.changes = {}
        for name in (n for n in b if n in a):
            change = _change(a[name], b[name], skip_dunder)
            if change:
                self.changes[name] = change

    @property
    def changed(self):
        """``{name: 'op relu -> tanh; act_type: relu -> tanh; inputs [...] -> [...]'}``."""
        out = {}
        for name, c in self.changes.items():
            what = [f"op {c['op'][0]} -> {c['op'][1]}"] if "op" in c else []
            what += [f"{k}: {x} -> {y}" for k, (x, y) in c.get("attrs", {}).items()]
            what += [f"inputs {c['inputs'][0]} -> {c['inputs'][1]}"] if "inputs" in c else []
            out[name] = "; ".join(what)
        return out

    def __bool__(self):
        return bool(self.added or self.removed or self.changes)

    def __str__(self):
        if not self:
            return "same graph"
        lines = [f"+ {n}" for n in self.added] + [f"- {n}" for n in self.removed]
        lines += [f"~ {n}: {w}" for n, w in self.changed.items()]
        return "\n".join(lines)


def _change(x, y, skip_dunder):
    change = {}
    if x.op_name != y.op_name:
        change["op"] = (x.op_name, y.op_name)
    keys = sorted(k for k in set(x.attrs) | set(y.attrs)
                  if x.attrs.get(k) != y.attrs.get(k) and not (skip_dunder and k.startswith("__")))
    if keys:
        change["attrs"] = {k: (x.attrs.get(k), y.attrs.get(k)) for k in keys}
    ins_x, ins_y = [(s.name, i) for s, i in x.inputs], [(s.name, i) for s, i in y.inputs]
    if ins_x != ins_y:
        change["inputs"] = (ins_x, ins_y)
    return change
