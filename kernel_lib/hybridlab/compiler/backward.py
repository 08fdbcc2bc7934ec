"""Backward of a cached op: the gradient graph derived on the graph IR and compiled like the forward.

``derive_backward`` walks the forward graph in reverse and traces each node's registered gradient
(``op.gradient(F=mx.nd, ...)``) with deferred compute over value-less stand-ins for the forward values
(stand-ins carry shapes and dtypes, so gradients that read ``x.shape`` / ``x.ndim`` work). Every
forward value a gradient reads becomes a variable of the backward graph (a *saved* entry); head
gradients are variables too. Gradients meeting at one value are summed with ``elemwise_add``, as
autograd does. Only nodes on a path from an input that needs a gradient are differentiated, and only
the saved entries the gradient graph actually reads are kept (pruning).

``BackwardPlan`` compiles two programs with the forward's code generator:

* ``forward``: the forward that also returns the saved intermediates (``train forward``),
* ``backward``: saved entries + head gradients -> the input gradients.

Side effects of gradients are not traced: BatchNorm's gradient updates the moving statistics in
place (MXNet 1.9 on CPU), so its stand-ins for the moving statistics carry no data, and the backward
program gets an explicit statement per node whose op declares a ``train_side_effect`` that applies
in the forward's mode (``ops.registry.SideEffect``) instead.

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.backward import BackwardPlan
    >>> from hybridlab.compiler.signature import Signature
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.tanh(mx.sym._mul_scalar(x, scalar=2, name='m'), name='t')
    >>> sig = Signature(['x'], [(2,)], [np.dtype('float32')], mx.cpu(), True)
    >>> shapes, dtypes = sig.infer(y._outputs, [x._outputs[0][0]])
    >>> plan = BackwardPlan(y._outputs, [x._outputs[0][0]], sig, shapes, dtypes, need=[True])
    >>> out, *saved = plan.forward.fn(np.array([0.0, 1.0], dtype=np.float32))
    >>> grads = plan.run(saved, [np.array([0.0, 1.0], dtype=np.float32)], [np.ones(2, np.float32)])
    >>> [round(float(v), 4) for v in grads[0]]      # 2 * (1 - tanh(2x)^2)
    [2.0, 0.1413]
    >>> print(plan.backward.source)      # doctest: +ELLIPSIS
    # hybridlab cached op backward program: ...
    def backward(t_output_head_grad, t_output):
        # t_backward_square0 = square -> (2,) float32 ...
        t_backward_square0 = square(ctx, attrs0, t_output)
    ...
        return m_backward__mul_scalar0
    <BLANKLINE>
"""
from numpy import dtype, ndarray

from .. import autograd, deferred
from .. import name as _name
from ..base import MXNetError
from ..symbol.graph import Node, topo_order
from ..symbol.symbol import Symbol
from .codegen import compile_program
from .passes._graph import gradient_path
from .passes.fuse_gradients import fuse_gradients
from .passes.train_variants import keep_workspaces
from .signature import Signature

__all__ = ["BackwardPlan", "derive_backward", "compile_backward", "BackwardUnavailable"]


class BackwardUnavailable(MXNetError):
    """The graph's backward cannot be compiled (a value-dependent shape, a gradient that cannot be
    traced); the cached op then records the graph op by op instead (the message says why)."""


class _AuxStandIn:
    """Stands for a mutated (aux) input in a traced gradient: no data, so the in-place update a
    gradient would do (its op's ``train_side_effect``) is skipped while tracing."""

    __slots__ = ("shape", "dtype", "_data", "_node", "_grad_req", "_trace")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
        self._data = self._node = self._trace = None
        self._grad_req = "null"

    @property
    def ndim(self):
        return len(self.shape)


class Derived:
    """The traced gradient graph: ``outputs`` (entries, one per input that gets a gradient),
    ``grad_inputs`` (their forward input indices), ``variables`` (backward graph variables with
    ``spec``: ``("saved", (node, i))`` or ``("head", k)``) and ``updates`` (side-effect steps:
    ``(node, SideEffect, the variables its update reads)``)."""

    def __init__(self, outputs, grad_inputs, variables, spec, updates):
        self.outputs, self.grad_inputs = outputs, grad_inputs
        self.variables, self.spec, self.updates = variables, spec, updates


def derive_backward(outputs, inputs, shapes, dtypes, device, training, need):
    """Trace the gradient graph of ``outputs`` w.r.t. the ``inputs`` (variable nodes) with
    ``need[k]`` true. Raises ``BackwardUnavailable`` when a value is needed whose shape is unknown."""
    from .. import ndarray as F
    from ..ndarray.ndarray import NDArray
    requires, active = gradient_path(outputs, inputs, need)

    saved = {}   # (id(node), i) -> (variable node, stand-in NDArray)
    order = []   # variables in creation order with their spec

    def shape_of(node, i):
        shape = (shapes.get(id(node)) or [None] * (i + 1))[i]
        if shape is None:
            raise BackwardUnavailable(f"the gradient of the graph reads output {i} of node '{node.name}', "
                                      f"whose shape depends on values")
        return shape, dtypes[id(node)][i]

    def stand_in(node, i):
        hit = saved.get((id(node), i))
        if hit is None:
            shape, dtype = shape_of(node, i)
            var = Node(None, node.output_name(i))
            arr = NDArray._wrap(deferred.TracedValue(shape, dtype), device)
            arr._trace = (var, 0)
            hit = saved[(id(node), i)] = (var, arr)
            order.append((var, ("saved", (node, i))))
        return hit[1]

    acc = {}

    def accumulate(key, g):
        old = acc.get(key)
        acc[key] = g if old is None else F.elemwise_add(old, g)

    updates, claimed = [], set()
    prev = autograd.set_recording(False)
    try:
        with deferred.context():
            for k, (node, i) in enumerate(outputs):
                shape, dtype = shape_of(node, i)
                var = Node(None, f"{node.output_name(i)}_head_grad")
                arr = NDArray._wrap(deferred.TracedValue(shape, dtype), device)
                arr._trace = (var, 0)
                order.append((var, ("head", k)))
                accumulate((id(node), i), arr)
            for node in reversed(active):
                n_out = node.num_outputs()
                ograds = [acc.pop((id(node), i), None) for i in range(n_out)]
                if all(g is None for g in ograds):
                    continue
                outs = [stand_in(node, i) for i in range(n_out)]
                with _name.Prefix(f"{node.name}_backward_"):
                    ograds = [g if g is not None else F.zeros_like(o) for g, o in zip(ograds, outs)]
                    aux = node.aux_input_indices()
                    ins = [_AuxStandIn(*shape_of(s, i)) if k in aux else stand_in(s, i)
                           for k, (s, i) in enumerate(node.inputs)]
                    in_grads = node.op.gradient(F, node.parsed_attrs(), ins, outs, ograds, training)
                _claim(ograds + list(in_grads), node, claimed)
                if len(in_grads) != len(node.inputs):
                    raise MXNetError(f"{node.op.name}: gradient returned {len(in_grads)} values, expected "
                                     f"{len(node.inputs)} (one per input) [node '{node.name}']")
                for (src, i), g in zip(node.inputs, in_grads):
                    if g is not None and (id(src), i) in requires:
                        if getattr(g, "_trace", None) is None:
                            raise BackwardUnavailable(f"the gradient of node '{node.name}' ({node.op.name}) "
                                                      f"returned a value that is not traced")
                        accumulate((id(src), i), g)
                effect = node.op.train_side_effect
                if effect is not None and effect.when(node.parsed_attrs(), training):
                    entries = [(node, i) if kind == "output" else node.inputs[i] for kind, i in effect.reads]
                    for s, i in entries:
                        stand_in(s, i)
                    updates.append((node, effect, [saved[(id(s), i)][0] for s, i in entries]))
    except BackwardUnavailable:
        raise
    except Exception as err:   # noqa: BLE001 - a gradient that cannot be traced: say which node
        raise BackwardUnavailable(f"tracing the gradient failed: {type(err).__name__}: {err}") from err
    finally:
        autograd.set_recording(prev)

    grad_outputs, grad_inputs = [], []
    for k, (node, flag) in enumerate(zip(inputs, need)):
        g = acc.get((id(node), 0))
        if flag and g is not None:
            grad_outputs.append(g._trace)
            grad_inputs.append(k)
    fuse_gradients(grad_outputs, variable_shapes([v for v, _ in order], [s for _, s in order], outputs, shapes))
    reachable = {id(n) for n in topo_order(grad_outputs)}
    reachable |= {id(v) for _, _, vs in updates for v in vs}
    kept = [(v, spec) for v, spec in order if id(v) in reachable]
    return Derived(grad_outputs, grad_inputs, [v for v, _ in kept], [s for _, s in kept], updates)


def _claim(arrays, fwd_node, claimed):
    """Mark the gradient nodes just traced for ``fwd_node``: ``meta['backward_of']`` names it and
    ``meta['source']`` is its user line (not the line that compiled the backward)."""
    stack = [a._trace[0] for a in arrays if getattr(a, "_trace", None) is not None]
    while stack:
        node = stack.pop()
        if id(node) in claimed or node.is_variable:
            continue
        claimed.add(id(node))
        node.meta["backward_of"] = fwd_node.name
        node.meta["source"] = fwd_node.meta.get("source")
        stack.extend(src for src, _ in node.inputs)


def _traced_types(outputs, variables, signature):
    """The backward graph's ``({id(node): [shape per output]}, {id(node): [dtype per output]})``:
    its ``variables`` get ``signature``'s, its op nodes carry what tracing inferred for them
    (``node.meta``: the graph was traced for this very signature, so it is not inferred again)."""
    shapes, dtypes = {}, {}
    for node, shape, dtype in zip(variables, signature.shapes, signature.dtypes):
        shapes[id(node)], dtypes[id(node)] = [shape], [dtype]
    for node in topo_order(outputs):
        if not node.is_variable:
            n_out = node.num_outputs()
            got = list(node.meta["dtypes"])[:n_out]
            shapes[id(node)] = (list(node.meta["shapes"]) + [None] * n_out)[:n_out]
            dtypes[id(node)] = got + [got[0] if got else None] * (n_out - len(got))
    return shapes, dtypes


def spec_entry(spec, outputs):
    """The forward entry ``(node, i)`` a backward variable with ``spec`` stands for (``Derived.spec``):
    the saved value's, or the output (of ``outputs``, the head entries) a head gradient is for."""
    kind, what = spec
    return what if kind == "saved" else outputs[what]


def variable_shapes(variables, specs, outputs, fwd_shapes):
    """``{id(variable): shape or None}`` of backward variables from their specs and the forward
    values' shapes ``fwd_shapes`` (``{id(node): [per output]}``): what ``fuse_gradients`` reads."""
    shapes = {}
    for var, spec in zip(variables, specs):
        node, i = spec_entry(spec, outputs)
        shapes[id(var)] = (fwd_shapes.get(id(node)) or [None] * (i + 1))[i]
    return shapes


def compile_backward(d, outputs, fwd_shapes, fwd_dtypes, device, training, title, instrument=False, into=()):
    """The backward program of ``d`` (``derive_backward``'s result for the forward entries
    ``outputs``, whose graph's values have the shapes and dtypes ``fwd_shapes``/``fwd_dtypes``):
    it takes ``d.variables`` (saved forward values and head gradients) and returns the gradients of
    ``d.grad_inputs``; gradient side effects are statements of it (see ``SideEffect``)."""
    names = [v.name for v in d.variables]
    shapes_in, dtypes_in = [], []
    for spec in d.spec:
        node, i = spec_entry(spec, outputs)
        shapes_in.append(fwd_shapes[id(node)][i])
        dtypes_in.append(fwd_dtypes[id(node)][i])
    sig = Signature(names, shapes_in, dtypes_in, device, training)
    shapes, dtypes = _traced_types(d.outputs, d.variables, sig)
    # the side effects are statements of the generated program; codegen names them and makes
    # the node name in their comment inert (see compiler.source_text)
    effects = [(f"{node.name}: {node.op.name} training-mode side effect of its gradient ({effect.doc})",
                effect.update, node.parsed_attrs(), vs) for node, effect, vs in d.updates]
    return compile_program(d.outputs, d.variables, sig, shapes, dtypes, title=title, instrument=instrument,
                           kind="backward", effects=effects, into=into)


class BackwardPlan:
    """The compiled training pair of one signature and one gradient mask ``need`` (which inputs
    get a gradient): ``forward`` returns the outputs then the saved intermediates, ``backward``
    maps saved values + head gradients to the input gradients. ``symbol`` is the backward graph
    (its variables: saved entries and ``<output>_head_grad``), ``run`` calls the backward."""

    def __init__(self, outputs, inputs, signature, shapes, dtypes, need, title=""):
        self.need = tuple(bool(k) for k in need)
        # ops whose gradients reuse forward workspaces run their training variants (within a budget)
        outputs, self.kept_workspaces, shapes, dtypes = keep_workspaces(outputs, inputs, self.need, shapes, dtypes,
                                                                        device=signature.device)
        self._outputs, self._fwd_shapes, self._fwd_dtypes = list(outputs), shapes, dtypes
        d = derive_backward(outputs, inputs, shapes, dtypes, signature.device, signature.training, self.need)
        self.grad_inputs = d.grad_inputs
        self.symbol = Symbol(d.outputs) if d.outputs else None
        input_pos = {id(n): k for k, n in enumerate(inputs)}
        self.saved_entries = []      # forward op entries the train forward returns after the outputs
        self._bind = []              # per backward variable: ("input", k) | ("saved", j) | ("head", k)
        for spec in d.spec:
            kind, what = spec
            if kind == "head":
                self._bind.append(spec)
            elif what[0].is_variable:
                self._bind.append(("input", input_pos[id(what[0])]))
            else:
                self._bind.append(("saved", len(self.saved_entries)))
                self.saved_entries.append(what)
        self.n_outputs = len(outputs)
        # the same, as positions in ``input_data + saved + head_grads`` (what ``run`` reads)
        offset = {"input": 0, "saved": len(inputs), "head": len(inputs) + len(self.saved_entries)}
        self._bind_index = [offset[kind] + k for kind, k in self._bind]
        fwd_outs = list(outputs) + self.saved_entries
        self.forward = compile_program(fwd_outs, inputs, signature, shapes, dtypes, title=f"{title} (train forward)")
        self._single_forward = len(fwd_outs) == 1
        self.backward = self._compile_backward(d, signature, title)
        self.updates = d.updates
        self._derived, self._instrumented = (d, signature, title), None
        self._into = {}              # positions of the gradients written into given arrays -> program
        self._into_checked = None    # (ids of the last into arrays, positions, their owners' ids, those as a set, the arrays)
        # per input: the (shape, dtype) of its gradient, or None (an array to write it into must match)
        self._grad_types = [None] * len(inputs)
        for (node, i), k in zip(d.outputs, self.grad_inputs):
            self._grad_types[k] = (tuple(self.backward.shapes[id(node)][i]), dtype(self.backward.dtypes[id(node)][i]))

    def instrumented_backward(self):
        """The instrumented variant of ``backward`` (built on first use, then kept): its ``fn`` takes
        one more argument, a monitor (see ``compiler.instrument``); the profiler times the backward's
        nodes with it."""
        if self._instrumented is None:
            self._instrumented = self._compile_backward(*self._derived, instrument=True)
        return self._instrumented

    def _compile_backward(self, d, signature, title, instrument=False, into=()):
        return compile_backward(d, self._outputs, self._fwd_shapes, self._fwd_dtypes, signature.device,
                                signature.training, title, instrument=instrument, into=into)

    def _into_positions(self, into, args):
        """The backward's output positions whose gradient goes into its ``into`` array: one of the
        gradient's shape and dtype, a C-contiguous writable NumPy array whose memory the backward
        does not read (its arguments ``args``, compared by the arrays owning the memory). The
        arrays' own checks are kept for the last ``into`` seen (a training loop offers the same
        gradient buffers every step)."""
        ids = tuple(map(id, into))
        last = self._into_checked
        if last is None or last[0] != ids:
            owners, positions = {}, []
            for p, k in enumerate(self.grad_inputs):
                buf = into[k]
                if (buf is not None and type(buf) is ndarray and self._grad_types[k] == (buf.shape, buf.dtype)
                        and buf.flags.c_contiguous and buf.flags.writeable):
                    positions.append(p)
                    owners[p] = id(buf if buf.base is None else buf.base)
            # (``into`` kept: its ids stay valid)
            last = self._into_checked = (ids, tuple(positions), owners, frozenset(owners.values()), into)
        _, positions, owners, taken, _ = last
        for a in args:      # (no set built: the common case, no shared memory, costs one pass)
            base = a.base
            if id(a if base is None else base) in taken:
                read = {id(x if x.base is None else x.base) for x in args}
                return tuple(p for p in positions if owners[p] not in read)
        return positions

    def split(self, result):
        """(outputs, saved) of what ``forward.fn`` returned."""
        if self._single_forward:
            return (result,), ()
        return result[:self.n_outputs], result[self.n_outputs:]

    def run(self, saved, input_data, head_grads, monitor=None, into=None):
        """Input gradients (raw arrays; ``None`` where no gradient) from the ``saved`` values of one
        train forward, the raw forward ``input_data`` and one head gradient per output; with a
        ``monitor`` (``compiler.instrument``), through the instrumented backward. ``into``: per
        input, a NumPy array to write its gradient into (returned in its place), or ``None``;
        arrays that cannot take it (another shape or dtype, not contiguous, memory the backward
        reads) are left alone and that gradient comes as a new array."""
        pool = [*input_data, *saved, *head_grads]
        args = [pool[i] for i in self._bind_index]
        positions = self._into_positions(into, args) if into is not None and monitor is None else ()
        if positions:
            prog = self._into.get(positions)
            if prog is None:
                prog = self._into[positions] = self._compile_backward(*self._derived, into=positions)
            res = prog.fn(*args, *[into[self.grad_inputs[p]] for p in positions])
        elif monitor is None:
            res = self.backward.fn(*args)
        else:
            prog = self.instrumented_backward()
            monitor.start(prog.nodes, prog.signature.device)
            res = prog.fn(*args, monitor)
        if len(self.grad_inputs) == 1:
            res = (res,)
        grads = [None] * len(input_data)
        for k, g in zip(self.grad_inputs, res or ()):
            grads[k] = g
        return grads
