"""Static memory planning for ``static_alloc``: every intermediate value of a graph, for one input
signature, gets a slot in a small set of reusable buffers, allocated once and reused on every call.

``plan(symbol, input_shapes, input_dtypes)`` (or ``plan_graph`` with a cached op's inferred shapes)
walks the op nodes in program order (``topo_order``, the order codegen emits) and decides, for each
output value, one *storage*:

``buffer``  the node's op has an ``out=`` kernel (``OpDef.out_kernel``) covering its attributes, and
            its inputs and output share one floating dtype: the value lives in buffer ``b`` of
            the plan; a buffer is taken from the free list (best fit within ``match_range`` times
            the size, growing a smaller one if needed: MXNet's GraphAllocator policy) and given back
            after the value's last reader ran. *In place*: an elementwise node whose input dies at
            this node, with the output's shape and dtype, writes over that input's buffer.
``output``  a head of the graph: allocated fresh by the kernel on every call, so the arrays handed
            to the caller stay valid after the next call (an output buffer is never reused).
``kernel``  no out kernel (or the value may be seen through a view that reaches an output): the
            kernel allocates it per call, as without planning.

Ops without an out kernel may return views of their inputs (``Reshape``, ``Flatten``, slices): their
inputs are kept alive as long as the result is, and an input that may be viewed by a graph output
is never put in a shared buffer.

The plan reports three byte counts: ``unplanned_bytes`` (every value alive until the end),
``imperative_bytes`` (peak when each value is freed after its last use, as the imperative path and
the unplanned program do) and ``planned_bytes`` (the buffers plus the peak of what is still
allocated per call). Each node's decision is stored in ``node.meta["memory"]``.

**Wiring a plan into a generated program** (what codegen does for ``static_alloc``)::

    plan = plan_graph(outputs, shapes, dtypes)          # shapes/dtypes from Signature.infer
    pool = ArenaPool()                                  # one per cached op (and device)
    pool.bind(plan, xp, target=env)                     # env: the program's globals; adds one
                                                        # typed view per planned value, named
                                                        # plan.view_name(node, 0) (and its row 0,
                                                        # plan.row_name, for a (1, n) value)
    for node in op nodes:                               # when emitting each statement
        call = plan.out_call(node)                      # (kernel, view name) or None
        if call:  env[kname] = call[0]  and emit  f"{t} = {kname}(ctx, {attrs}, {call[1]}, {args})"
        else:     emit the usual f"{t} = {kernel}(ctx, {attrs}, {args})"

``plan.global_names()`` lists the names to reserve in the namer. Views stay valid across calls;
``ArenaPool`` shares buffer storage between the plans of one cached op (calls never overlap), so
compiling a plan per input signature (no ``static_shape``) costs the largest plan's memory, not the
sum; when a buffer grows, every bound ``target`` is refreshed in place. ``execute`` runs a plan
node by node (a reference interpreter, for tests).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.memory import plan
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.exp(mx.sym.relu(mx.sym.square(x, name='sq'), name='r'), name='e')
    >>> y = mx.sym.negative(y, name='out')
    >>> p = plan(y, {'x': (256,)})
    >>> print(p)      # doctest: +NORMALIZE_WHITESPACE
    MemoryPlan: 4 values, 1 buffer(s)
      planned 2048 B (buffers 1024 B + per call 1024 B), imperative 2048 B, unplanned 4096 B
      sq              square   (256,) float32  buffer 0
      r               relu     (256,) float32  buffer 0 (in place of sq)
      e               exp      (256,) float32  buffer 0 (in place of r)
      out             negative (256,) float32  output
"""
import weakref
from math import prod

import numpy as np

from ..base import MXNetError
from ..symbol.graph import topo_order
from .interpreter import Interpreter
from .source_text import check_identifier

__all__ = ["MemoryPlan", "Value", "ArenaPool", "plan", "plan_graph", "execute", "out_kernel"]


class Value:
    """One op output: where it lives (``storage``, ``buffer``) and when (``step`` it is written,
    ``last_use``: the last step that reads it, extended through views)."""

    __slots__ = ("node", "index", "shape", "dtype", "nbytes", "step", "last_use", "storage", "buffer",
                 "inplace_of", "pinned")

    def __init__(self, node, index, shape, dtype, step):
        self.node, self.index, self.shape, self.dtype, self.step = node, index, tuple(shape), np.dtype(dtype), step
        self.nbytes = prod(self.shape) * self.dtype.itemsize
        self.last_use = step
        self.storage, self.buffer, self.inplace_of, self.pinned = "kernel", None, None, False

    @property
    def key(self):
        return (id(self.node), self.index)

    @property
    def name(self):
        return self.node.name if self.index == 0 else f"{self.node.name}[{self.index}]"

    def __repr__(self):
        return (f"<Value {self.name} {self.shape} {self.dtype.name} {self.storage}"
                f"{'' if self.buffer is None else f' b{self.buffer}'} steps {self.step}..{self.last_use}>")


class MemoryPlan:
    """The planned storage of every op output of one graph for one signature (see the module doc)."""

    def __init__(self, values, buffer_sizes, kernels, n_steps):
        self.values = values                  # in program order
        self.buffer_sizes = buffer_sizes      # bytes per buffer id
        self._by_key = {v.key: v for v in values}
        self._kernels = kernels               # id(node) -> out kernel for nodes writing into a buffer
        self.n_steps = n_steps
        self.buffer_bytes = sum(buffer_sizes)
        self.unplanned_bytes = sum(v.nbytes for v in values)
        self.imperative_bytes = _peak(values, n_steps, lambda v: True)
        self.per_call_bytes = _peak(values, n_steps, lambda v: v.storage != "buffer")
        self.planned_bytes = self.buffer_bytes + self.per_call_bytes

    def value(self, node, index=0):
        """The ``Value`` of output ``index`` of ``node``."""
        return self._by_key[(id(node), index)]

    def view_name(self, node, index=0):
        """The global name a program binds the typed view of a planned value under (``None`` when
        the value is not in a buffer)."""
        v = self._by_key.get((id(node), index))
        if v is None or v.storage != "buffer":
            return None
        # built from integers only (buffer, the node's step), never from the node's name: it is emitted
        name = f"buf{int(v.buffer)}_n{int(v.step)}" + (f"_{int(index)}" if index else "")
        return check_identifier(name)

    def row_name(self, node, index=0):
        """The global name a program binds row 0 of a planned value of shape ``(1, n)`` under (its
        view's name + ``_row``; ``None`` for other values): a one-row value is computed through its
        row (a matrix-vector product writes a 1-d array), and a view made per call costs more than
        the arithmetic at batch 1."""
        name = self.view_name(node, index)
        v = self._by_key[(id(node), index)] if name is not None else None
        return None if v is None or len(v.shape) != 2 or v.shape[0] != 1 else check_identifier(name + "_row")

    def out_call(self, node):
        """``(out kernel, view name)`` when ``node`` writes its single output into a buffer, else
        ``None`` (the node runs its ordinary ``compute``)."""
        kernel = self._kernels.get(id(node))
        return None if kernel is None else (kernel, self.view_name(node, 0))

    def global_names(self):
        """Every name ``ArenaPool.bind`` adds to a program's globals."""
        names = [self.view_name(v.node, v.index) for v in self.values if v.storage == "buffer"]
        return names + [r for v in self.values if (r := self.row_name(v.node, v.index)) is not None]

    def summary(self):
        """Byte counts as a dict (for events and the graph JSON)."""
        return {"buffers": len(self.buffer_sizes), "buffer_bytes": self.buffer_bytes,
                "per_call_bytes": self.per_call_bytes, "planned_bytes": self.planned_bytes,
                "imperative_bytes": self.imperative_bytes, "unplanned_bytes": self.unplanned_bytes,
                "inplace": sum(v.inplace_of is not None for v in self.values)}

    def __str__(self):
        lines = [f"MemoryPlan: {len(self.values)} values, {len(self.buffer_sizes)} buffer(s)",
                 f"  planned {self.planned_bytes} B (buffers {self.buffer_bytes} B + per call "
                 f"{self.per_call_bytes} B), imperative {self.imperative_bytes} B, "
                 f"unplanned {self.unplanned_bytes} B"]
        width = max([len(v.name) for v in self.values] + [12])
        opw = max([len(v.node.op.name) for v in self.values] + [8])
        for v in self.values:
            where = v.storage if v.buffer is None else f"buffer {v.buffer}"
            if v.inplace_of is not None:
                where += f" (in place of {v.inplace_of.name})"
            lines.append(f"  {v.name:<{width}}    {v.node.op.name:<{opw}} {v.shape} {v.dtype.name}  {where}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<MemoryPlan {len(self.values)} values, {len(self.buffer_sizes)} buffers, planned "
                f"{self.planned_bytes} B vs imperative {self.imperative_bytes} B>")


def _peak(values, n_steps, counted):
    """Peak live bytes when values are allocated at their step (before the step's dead inputs are
    freed) and freed after their last use; only ``counted`` values."""
    delta_alloc = [0] * (n_steps + 1)
    delta_free = [0] * (n_steps + 2)
    for v in values:
        if counted(v):
            delta_alloc[v.step] += v.nbytes
            delta_free[v.last_use] += v.nbytes
    live = peak = 0
    for s in range(n_steps + 1):
        live += delta_alloc[s]
        peak = max(peak, live)
        live -= delta_free[s]
    return peak


def plan(symbol, input_shapes, input_dtypes=None, *, inplace=True, match_range=16):
    """Plan ``symbol``'s memory for ``input_shapes`` (``{name: shape}``; parameters are inferred, as
    in ``infer_shape``) and ``input_dtypes`` (``{name: dtype}``; default float32 for every named
    input). Returns a ``MemoryPlan``; per-node decisions go to ``node.meta["memory"]``."""
    from ..symbol.infer import annotate
    shapes = {k: tuple(v) for k, v in dict(input_shapes).items()}
    dtypes = dict(input_dtypes or {k: "float32" for k in shapes})
    annotate(symbol, shapes, dtypes)
    nodes = topo_order(symbol._outputs)
    got_shapes, got_dtypes = {}, {}
    for n in nodes:
        ss, ds = n.meta.get("shapes") or [None], n.meta.get("dtypes") or [None]
        for i, (s, d) in enumerate(zip(ss, ds)):
            if s is None or 0 in s or d is None:
                raise MXNetError(f"memory plan: expected a known shape and dtype for output {i} of node "
                                 f"'{n.name}' ({n.op_name}), got shape {s}, dtype {d}; give the inputs' "
                                 f"shapes (given: {shapes})")
        got_shapes[id(n)], got_dtypes[id(n)] = list(ss), list(ds)
    return plan_graph(symbol._outputs, got_shapes, got_dtypes, inplace=inplace, match_range=match_range)


def plan_graph(outputs, shapes, dtypes, *, inplace=True, match_range=16, nodes=None):
    """Plan the graph of ``outputs`` ((node, index) heads) given ``{id(node): [shape per output]}``
    and ``{id(node): [dtype per output]}`` (what ``Signature.infer`` returns); ``nodes``: its op
    nodes in topological order, when the caller has them."""
    ops = nodes if nodes is not None else [n for n in topo_order(outputs) if not n.is_variable]
    values, by_key, node_values = [], {}, []
    for step, node in enumerate(ops):
        vs = []
        for i in range(node.num_outputs()):
            shape, dtype = shapes[id(node)][i], dtypes[id(node)][i]
            if shape is None or dtype is None:
                raise MXNetError(f"memory plan: expected a known shape and dtype for output {i} of node "
                                 f"'{node.name}' ({node.op.name}), got shape {shape}, dtype {dtype} "
                                 f"(value-dependent shapes cannot be planned)")
            v = Value(node, i, shape, dtype, step)
            by_key[v.key] = v
            vs.append(v)
        values.extend(vs)
        node_values.append(vs)
    n_steps = len(ops)
    for step, node in enumerate(ops):
        for src, i in node.inputs:
            v = by_key.get((id(src), i))
            if v is not None:
                v.last_use = max(v.last_use, step)
    heads = {(id(n), i) for n, i in outputs}
    for key in heads:
        if key in by_key:
            by_key[key].last_use, by_key[key].pinned = n_steps, True

    # storages, and views: an op without an out kernel may return a view of its inputs
    kernels = {}
    for step in range(n_steps - 1, -1, -1):
        node, vs = ops[step], node_values[step]
        in_dtypes = [dtypes[id(s)][i] for s, i in node.inputs]
        kernel = out_kernel(node, in_dtypes + [v.dtype for v in vs])
        for v in vs:
            if v.key in heads:
                v.storage = "output"
            elif kernel is not None and not v.pinned:
                v.storage = "buffer"
        if kernel is None:
            end = max(v.last_use for v in vs)
            pinned = any(v.pinned for v in vs)
            for src, i in node.inputs:
                u = by_key.get((id(src), i))
                if u is not None:
                    u.last_use = max(u.last_use, end)
                    u.pinned = u.pinned or pinned
        elif vs[0].storage == "buffer":
            kernels[id(node)] = kernel

    buffer_sizes = _assign(ops, node_values, by_key, inplace, match_range)
    memory_plan = MemoryPlan(values, buffer_sizes, kernels, n_steps)
    for node, vs in zip(ops, node_values):
        node.meta["memory"] = {"storage": [v.storage for v in vs], "buffer": [v.buffer for v in vs],
                               "nbytes": [v.nbytes for v in vs],
                               "inplace_of": [v.inplace_of.name if v.inplace_of is not None else None
                                              for v in vs]}
    return memory_plan


def out_kernel(node, dtypes):
    """The kernel writing ``node``'s one output into a buffer, or ``None`` when the node allocates its
    own result: no out kernel for its op or these attributes, several outputs, or ``dtypes`` (its
    inputs' and output's) not all one floating dtype (so no casting question arises). Static memory
    plans and backward programs writing into gradient buffers (``codegen``'s ``into``) ask it."""
    spec = node.op.out_kernel if node.op is not None else None
    if spec is None or node.num_outputs() != 1 or not dtypes or any(d is None for d in dtypes):
        return None
    dt = np.dtype(dtypes[0])
    if dt.kind != "f" or any(np.dtype(d) != dt for d in dtypes) or not spec.covers(node.parsed_attrs()):
        return None
    return spec.kernel


def _assign(ops, node_values, by_key, inplace, match_range):
    """Greedy buffer assignment in program order; returns the size of each buffer id."""
    sizes, free, refs = [], [], {}     # refs: buffer id -> number of live values in it
    for step, node in enumerate(ops):
        dying = [by_key[(id(s), i)] for s, i in dict.fromkeys(node.inputs) if (id(s), i) in by_key]
        dying = [u for u in dying if u.last_use == step and u.storage == "buffer"]
        taken = set()
        for v in node_values[step]:
            if v.storage != "buffer":
                continue
            if inplace and node.op.out_kernel.inplace:
                for u in dying:
                    if u.buffer not in taken and refs[u.buffer] == 1 and u.shape == v.shape and u.dtype == v.dtype:
                        v.buffer, v.inplace_of = u.buffer, u
                        break
            if v.buffer is None:
                v.buffer = _take(free, sizes, v.nbytes, match_range)
                refs[v.buffer] = 0
            taken.add(v.buffer)
            refs[v.buffer] += 1
        for u in dying:
            refs[u.buffer] -= 1
            if refs[u.buffer] == 0:
                free.append(u.buffer)
        for v in node_values[step]:      # written but never read
            if v.storage == "buffer" and v.last_use == step:
                refs[v.buffer] -= 1
                if refs[v.buffer] == 0:
                    free.append(v.buffer)
    return sizes


def _take(free, sizes, nbytes, match_range):
    """A free buffer for ``nbytes``: the smallest one that fits within ``match_range`` times the
    size, else the largest smaller one within range (grown), else a new one."""
    fits = [b for b in free if nbytes <= sizes[b] <= nbytes * match_range]
    if fits:
        b = min(fits, key=lambda b: sizes[b])
    else:
        small = [b for b in free if sizes[b] < nbytes and sizes[b] * match_range >= nbytes]
        if not small:
            sizes.append(nbytes)
            return len(sizes) - 1
        b = max(small, key=lambda b: sizes[b])
        sizes[b] = nbytes
    free.remove(b)
    return b


class ArenaPool:
    """Buffer storage shared by the plans of one cached op on one device: buffer ``i`` of every
    plan bound here is the same allocation, grown to the largest request (calls never overlap, so
    the plans of different signatures may share it). ``bind`` writes the typed views of a plan into
    ``target`` (a program's globals); when a buffer grows, every bound target is refreshed.

    Example::

        >>> import numpy as np
        >>> import hybridlab as mx
        >>> from hybridlab.compiler.memory import ArenaPool, plan
        >>> x = mx.sym.var('x')
        >>> y = mx.sym.exp(mx.sym.relu(x, name='r'), name='e') * 2
        >>> pool = ArenaPool()
        >>> env = pool.bind(plan(y, {'x': (4,)}), np)
        >>> sorted(env)[0].startswith('buf0_')
        True
        >>> _ = pool.bind(plan(y, {'x': (64,)}), np)   # a second signature: buffer 0 grows
        >>> pool.nbytes
        256
    """

    def __init__(self):
        self._buffers = {}      # (xp name, buffer id) -> flat uint8 array
        self._bound = []        # (weakref to plan, target dict, xp)

    @property
    def nbytes(self):
        """Bytes held by the pool."""
        return sum(int(b.nbytes) for b in self._buffers.values())

    def bind(self, plan, xp, target=None):
        """Allocate (or grow) the buffers ``plan`` needs with array module ``xp`` and put one typed
        view per planned value into ``target`` (default: a new dict), under ``plan.view_name``."""
        target = {} if target is None else target
        grew = False
        for b, size in enumerate(plan.buffer_sizes):
            key = (xp.__name__, b)
            old = self._buffers.get(key)
            if old is None or old.nbytes < size:
                self._buffers[key] = xp.empty(max(size, 1), dtype=np.uint8)
                grew = grew or old is not None
        self._bound = [(r, t, m) for r, t, m in self._bound if r() is not None]
        self._bound.append((weakref.ref(plan), target, xp))
        for ref, tgt, mod in (self._bound if grew else self._bound[-1:]):
            p = ref()
            if p is not None:
                tgt.update(self._views(p, mod))
        return target

    def _views(self, plan, xp):
        views = {}
        for v in plan.values:
            if v.storage == "buffer":
                flat = self._buffers[(xp.__name__, v.buffer)]
                view = views[plan.view_name(v.node, v.index)] = flat[:v.nbytes].view(v.dtype).reshape(v.shape)
                row = plan.row_name(v.node, v.index)
                if row is not None:
                    views[row] = view[0]
        return views


def execute(plan, views, ctx, outputs, inputs, arrays):
    """Run the planned graph node by node (reference interpreter): ``views`` from
    ``ArenaPool.bind``, ``ctx`` an ``OpContext``, ``inputs`` the variable nodes matching the raw
    ``arrays``. Returns the list of head values."""
    return _PlannedRun(plan, views, ctx, outputs).run({n.name: a for n, a in zip(inputs, arrays)})


class _PlannedRun(Interpreter):
    """Raw arrays through each op's compute, writing into the planned view where the plan says."""

    def __init__(self, plan, views, ctx, outputs):
        super().__init__(outputs)
        self.plan, self.views, self.ctx = plan, views, ctx

    def step(self, node, inputs):
        call = self.plan.out_call(node)
        if call is not None:
            out = call[0](self.ctx, node.parsed_attrs(), self.views[call[1]], *inputs)
        else:
            out = node.op.compute(self.ctx, node.parsed_attrs(), *inputs)
        return list(out) if isinstance(out, tuple) else [out]
