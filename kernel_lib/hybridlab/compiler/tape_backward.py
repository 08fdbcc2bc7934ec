"""Compiled backward of the imperative end of the tape: the ops recorded last (a loss written
with ``mx.nd`` after a hybridized network, a whole imperative model) differentiated as one
generated program instead of one registered gradient op call per recorded op.

``backward`` walks the tape from its heads; the longest run of imperative op calls at the end of
that walk (every user of their outputs is among them, as the walk lists inputs before users) is
a graph of its own (``symbol.from_tape.segment``: the graph ``mx.autograd.get_symbol`` gives those
calls, its variables the arrays they read from elsewhere). That graph's gradient is derived and compiled as a cached op's is
(``compiler.backward.derive_backward``, ``compile_backward``) when a structure (ops, attributes,
wiring, shapes, dtypes, device and mode: the key) comes a second time (a training loop's step; a
one-off backward never pays for compiling), then kept. The program reads the values the tape kept
(each call's inputs and outputs) and the head gradients, and returns the gradients of the arrays
read from elsewhere, which the driver passes on as the ops' own gradients would be.

A hybridized block's call just before those calls (a cached op's tape node, whose outputs only
they read: the network under a loss written with ``mx.nd``) joins them: its compiled backward graph
(``BackwardPlan``) takes the calls' gradient of its outputs as its head gradients, and the one
program returns the gradients of the block's inputs too, writing a parameter's into its gradient
buffer where the block's own backward would (``backward``: ``buffers``). Not while the profiler
times hybridized blocks (their backward runs instrumented).

When such a joined program did a ``backward()`` whole (every parameter's gradient written into
its buffer), the next ``backward()`` of a tape of the same structure is replayed (``_Replay``): the
tape is checked against the last one and the program runs at once, without the walk, the key and
the driver's bookkeeping per gradient; any difference declines the replay (see ``_Replay.run``).

Not compiled, so run op by op as before: runs of fewer than two calls, calls on a GPU, of
``autograd.Function`` or of a block's cached op, recorded gradients (``create_graph``), calls whose
attributes are not hashable, while op hooks or the profiler watch imperative ops (they must see
every gradient op), and graphs whose gradient cannot be traced (remembered per key).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1.0, 2.0]); x.attach_grad()
    >>> for _ in range(2):               # the second backward of this structure runs compiled
    ...     with mx.autograd.record():
    ...         y = (mx.nd.exp(x) * 2).sum()
    ...     y.backward()
    >>> [round(v, 3) for v in x.grad.asnumpy().tolist()]
    [5.437, 14.778]
    >>> print(last_program().source.splitlines()[0])
    # hybridlab cached op backward program: imperative backward of exp, _mul_scalar, sum
"""
import threading
import weakref

from numpy import empty, ndarray

from .. import monitor_state, op_monitor
from ..autograd.backward import register_segment_backward
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from ..ops.registry import OpDef
from ..symbol.from_tape import segment
from ..symbol.graph import copy_graph
from .backward import (BackwardPlan, BackwardUnavailable, Derived, compile_backward, derive_backward,
                       variable_shapes)
from .passes.fuse_gradients import fuse_gradients
from .program_error import program_error
from .recording import TapeOp

__all__ = ["run_segment", "last_program"]

MAX_PROGRAMS = 256          # compiled structures kept; new structures past it run op by op
MAX_SEEN = 1024             # structures seen once (forgotten all at once past it)
_programs = {}              # key -> _Segment, or None: its gradient cannot be traced
_seen = set()               # keys seen once: a structure compiles when it comes again (one-offs never do)
_latest = [None]
MAX_REPLAYS = 4             # whole backward()s kept to replay: a loop alternating nets (a GAN's two steps) replays each
_lock = threading.Lock()


def last_program():
    """The ``Program`` of the imperative backward run last (``None`` before any)."""
    return None if _latest[0] is None else _latest[0].ran


def run_segment(order, node_grads, buffers=None):
    """The compiled backward of the imperative calls at the end of ``order`` (the tape walk of
    ``backward``, inputs before users) with the head gradients ``node_grads`` (``{id(tape node):
    {output index: NDArray}}``): ``(start, [(source, gradient NDArray)...])`` for the calls
    ``order[start:]``, one entry per array they read from elsewhere that needs a gradient (its
    ``TapeNode.sources`` entry), or ``None`` when they run op by op. ``order[start]`` may be a
    cached op's call the calls follow (see the module doc); ``buffers(node)`` (``backward``): per
    input of that call, the gradient buffer (an NDArray) its gradient may be written into, or
    ``None`` -- a buffer written is returned as that gradient."""
    start, device, training = len(order), None, None
    while start:
        node = order[start - 1]
        op = node.op
        if op.__class__ is not OpDef or node.freed or op.grad is None or hasattr(op.compute, "_hl_plain"):
            break               # (a compute with _hl_plain: op hooks or the profiler watch imperative ops)
        if device is None:
            device, training = node.device, node.training
        elif (node.device is not device and node.device != device) or node.training != training:
            break
        start -= 1
    if len(order) - start < 2 or device.is_gpu:
        return None
    nodes = order[start:]
    found = _structure(nodes, node_grads)
    if found is None:
        return None
    key, externals, heads = found
    call = _call_before(order, start, node_grads, externals, device, training)
    if call is not None:
        joined_key = key + (id(call.attrs[0]),)
        segment = _compiled(joined_key, nodes, externals, heads, device, training, call)
        if segment is not None:
            _latest[0] = segment
            grads, written = segment.run(nodes, externals, heads, device, call, buffers)
            if start == 1 and written:      # the whole tape, gradients into buffers (backward()): replayable?
                replay = _Replay.of(segment, call, nodes, externals, heads, grads, written)
                if replay is not None:
                    _replays.keep(replay)
            return start - 1, grads
        if _programs.get(joined_key, False) is not None:
            return None       # seen once (or no room): op by op
        # (the joined gradient cannot be traced: the calls alone)
    segment = _compiled(key, nodes, externals, heads, device, training)
    if segment is None:
        return None
    _latest[0] = segment
    return start, segment.run(nodes, externals, heads, device)[0]


def _forget_dead_plans():
    """Drop the compiled structures of cached op calls whose plan is gone (a block built again in a
    notebook makes new plans: their structures would fill the cache)."""
    with _lock:
        for key in [k for k, seg in _programs.items() if seg is not None and seg.plan is not None and seg.plan() is None]:
            del _programs[key]


def _call_before(order, start, node_grads, externals, device, training):
    """The cached op's tape node just before the calls ``order[start:]`` when it joins them: a
    compiled backward plan, no head gradient of its own, every output read by the calls, the same
    device and mode, the profiler not timing hybridized blocks; else ``None``."""
    if not start or monitor_state.switches.symbolic:
        return None
    node = order[start - 1]
    if node.op.__class__ is not TapeOp or node.freed or id(node) in node_grads or node.training != training:
        return None
    if node.device is not device and node.device != device:
        return None
    if node.attrs.__class__ is not tuple or node.attrs[0].__class__ is not BackwardPlan:
        return None
    read = [src[1] for _, src in externals if src.__class__ is tuple and src[0] is node]
    # (each output read through one array: two views of one output would need their gradients summed)
    return node if len(read) == len(set(read)) == len(node.out_data) else None


def _compiled(key, nodes, externals, heads, device, training, call=None):
    """The ``_Segment`` of ``key``: compiled when the key comes a second time (a loop's), then
    kept; ``None`` while it is new, past the cache's bound, or when its gradient cannot be traced."""
    try:
        segment = _programs.get(key, False)
    except TypeError:         # an attribute value that is not hashable
        return None
    if segment is not False and segment is not None and call is not None and segment.plan() is not call.attrs[0]:
        segment = False       # (the key's plan is gone and another has its id: compile again)
    if segment is False:      # not compiled: compile a structure seen before (a loop's), else note it
        if key not in _seen:
            if len(_seen) >= MAX_SEEN:
                _seen.clear()
            _seen.add(key)
            return None
        if len(_programs) >= MAX_PROGRAMS:
            _forget_dead_plans()
            if len(_programs) >= MAX_PROGRAMS:
                return None
        with _lock:
            segment = _Segment.build(nodes, externals, heads, device, training, call)
            _programs[key] = segment
            _seen.discard(key)
    return segment


def _structure(nodes, node_grads):
    """``(key, externals, heads)``: the key of the calls ``nodes`` (see the module doc), the arrays
    they read from elsewhere as ``(NDArray, source)`` in first-read order, and the head gradients
    as ``(node position, output index, NDArray)``; ``None`` for arrays of another kind or head
    gradients of another shape or dtype than their output's."""
    where = {}
    seen, externals, heads = {}, [], []
    key = [nodes[0].device, nodes[0].training]
    append = key.append
    for j, node in enumerate(nodes):
        where[id(node)] = j
        append(node.op)
        append(node.op.attrs_key(node.attrs))
        for x, src in zip(node.inputs, node.sources):
            if src.__class__ is tuple:
                k = where.get(id(src[0]))
                if k is not None:
                    append((k, src[1]))
                    continue
            k = seen.get(id(x))
            if k is None:
                if x.__class__ not in DENSE_CLASSES:
                    return None
                k = seen[id(x)] = len(externals)
                externals.append((x, src))
                d = x._data
                # (which output of another node it is: a call's outputs of one shape read the other way
                # round are another structure)
                append((d.shape, d.dtype, ("output", src[1]) if src.__class__ is tuple else src is not None))
            append(k)
        for d in node.out_data:
            append(d.shape)
            append(d.dtype)
        grads = node_grads.get(id(node))
        if grads:
            for i in sorted(grads):
                g, out = grads[i], node.out_data[i]
                if g.__class__ not in DENSE_CLASSES or g._data.shape != out.shape or g._data.dtype != out.dtype:
                    return None
                heads.append((j, i, g))
                append(("head", j, i))
    return tuple(key), externals, heads


class _Segment:
    """One compiled structure: the backward ``program`` and how to feed it (``_bind_index``: per
    program argument, its position in the values ``run`` lists: the arrays read from elsewhere, the
    calls' outputs, the head gradients, then with a cached op's call (``plan``, weakly: its
    ``BackwardPlan``) the call's inputs and saved values, as ``BackwardPlan.run`` lists them) and
    which arrays its results are the gradients of: first the call's inputs ``plan.grad_inputs``
    (with a call), then the arrays read from elsewhere ``grad_inputs``."""

    def __init__(self, program, bind_index, grad_inputs, derived=None, plan=None):
        self.program, self._bind_index, self.grad_inputs = program, bind_index, grad_inputs
        self._derived = derived          # (Derived, head entries, shapes, dtypes, device, training, title)
        self.plan = weakref.ref(plan) if plan is not None else None
        self._into = {}                  # positions written into given arrays -> program
        self.ran = program               # the program run last (``program`` or an into variant)

    @classmethod
    def build(cls, nodes, externals, heads, device, training, call=None):
        """The segment of these calls (and of the cached op's ``call`` before them) compiled, or
        ``None`` when its gradient cannot be traced."""
        graph, by_array = segment(nodes)       # the graph get_symbol gives these calls, cut at their inputs
        variables = [by_array[id(x)] for x, _ in externals]
        shapes, dtypes = {}, {}
        for var, (x, _) in zip(variables, externals):
            shapes[id(var)], dtypes[id(var)] = [x._data.shape], [x._data.dtype]
        for g, node in zip(graph, nodes):
            shapes[id(g)] = [d.shape for d in node.out_data]
            dtypes[id(g)] = [d.dtype for d in node.out_data]
        outputs = [(graph[j], i) for j, i, _ in heads]
        need = [src is not None for _, src in externals]
        title = "imperative backward of " + ", ".join(node.op.name for node in nodes)
        try:
            d = derive_backward(outputs, variables, shapes, dtypes, device, training, need)
            # positions in run's values: [arrays read from elsewhere, each call's outputs, head gradients]
            of_var = {id(v): k for k, v in enumerate(variables)}
            first_output, at = {}, len(externals)
            for g, node in zip(graph, nodes):
                first_output[id(g)] = at
                at += len(node.out_data)
            bind_index = [at + what if kind == "head" else of_var[id(what[0])] if id(what[0]) in of_var
                          else first_output[id(what[0])] + what[1] for kind, what in d.spec]
            plan, grad_inputs = None, list(d.grad_inputs)
            if call is not None:        # (then the call's inputs and saved values, from at + len(heads))
                plan = call.attrs[0]
                d, grad_inputs, call_index = _joined(d, plan, externals, call, outputs, shapes, dtypes)
                bind_index += [at + len(heads) + i for i in call_index]
                title = f"{title}, after the backward of {plan._derived[2]}"
            program = compile_backward(d, outputs, shapes, dtypes, device, training, title)
        except BackwardUnavailable:
            return None
        return cls(program, bind_index, grad_inputs, (d, outputs, shapes, dtypes, device, training, title), plan)

    def call(self, program, args):
        """``program(*args)`` (``self.program`` or an into variant), noted as the one run last."""
        self.ran = program
        try:
            return program.fn(*args)
        except Exception as err:
            raise program_error(err) from err.__cause__

    def run(self, nodes, externals, heads, device, call=None, buffers=None):
        """``([(source, gradient NDArray)], written)``: the gradients of the arrays read from elsewhere
        (and of the inputs of the cached op's ``call``), from the values the tape kept for ``nodes``
        and ``call`` and the ``heads``' gradients; ``buffers``: see ``run_segment``; ``written``: the
        positions among the call's gradients that went into those buffers (``()``: none)."""
        values = [x._data for x, _ in externals]
        for node in nodes:
            values += node.out_data
        values += [g._data for _, _, g in heads]
        plan = None
        if call is not None:
            plan, saved, datas, _ = call.attrs
            values += datas
            values += saved
        args = list(map(values.__getitem__, self._bind_index))
        program, into, positions = self.program, None, ()
        if call is not None and buffers is not None:
            into = buffers(call)
            if any(b is not None for b in into):
                positions = plan._into_positions([None if b is None else b._data for b in into], args)
                if positions:
                    program = self._into.get(positions)
                    if program is None:
                        d, outputs, shapes, dtypes, dev, training, title = self._derived
                        program = self._into[positions] = compile_backward(d, outputs, shapes, dtypes, dev,
                                                                           training, title, into=positions)
                    args += [into[plan.grad_inputs[p]]._data for p in positions]
        res = self.call(program, args)
        n_call = 0 if call is None else len(plan.grad_inputs)
        if n_call + len(self.grad_inputs) == 1:
            res = (res,)
        out = []
        if call is not None:
            x0 = call.inputs[0]
            for p, (k, g) in enumerate(zip(plan.grad_inputs, res)):
                src = call.sources[k]
                if src is not None:
                    written = p in positions
                    out.append((src, into[k] if written else NDArray._wrap(g, x0._device, x0._np)))
        for k, g in zip(self.grad_inputs, res[n_call:]):
            out.append((externals[k][1], NDArray._wrap(g, device)))
        return out, positions


def _joined(d, plan, externals, call, outputs, shapes, dtypes):
    """``(derived, grad_inputs, call_index)``: the backward graph ``d`` of the calls after the cached
    op's ``call`` (their head entries: ``outputs``) joined with ``plan``'s (the call's compiled
    backward), the calls' gradients of the call's outputs being its head gradients. Its results are
    the gradients of the call's inputs (``plan.grad_inputs``), then those of the other arrays read
    from elsewhere (their positions in ``externals``: ``grad_inputs``); its variables are the
    calls', then the plan's saved values and inputs (``call_index``: their positions in the call's
    inputs then saved values, ``plan._bind_index``'s). Gradient calls that meet across the join
    fuse (``passes/fuse_gradients.py``: a net ending in log_softmax, the loss's pick after it).
    ``shapes``/``dtypes`` get the plan's forward values'."""
    pd = plan._derived[0]
    of_output = {src[1]: k for k, (_, src) in enumerate(externals) if src.__class__ is tuple and src[0] is call}
    grad_of = dict(zip(d.grad_inputs, d.outputs))
    heads = {}
    variables, spec, call_index = list(d.variables), list(d.spec), []
    for var, (kind, what), at in zip(pd.variables, pd.spec, plan._bind_index):
        if kind == "head":
            entry = grad_of.get(of_output[what])
            if entry is None:
                raise BackwardUnavailable(f"no gradient reaches output {what} of the cached op's call")
            heads[id(var)] = entry
        else:
            variables.append(var)
            spec.append((kind, what))
            call_index.append(at)
    shapes.update(plan._fwd_shapes)
    dtypes.update(plan._fwd_dtypes)
    copied = copy_graph(pd.outputs, lambda v: heads.get(id(v)))
    tail = [(k, g) for k, g in zip(d.grad_inputs, d.outputs) if k not in of_output.values()]
    joined = Derived(copied + [g for _, g in tail], [], variables, spec, d.updates + pd.updates)
    fuse_gradients(joined.outputs, variable_shapes(variables, spec, outputs, shapes))
    return joined, [k for k, _ in tail], call_index


class _Replay:
    """A ``backward()`` the compiled program did whole, kept to be done again: a cached op's call,
    the imperative calls after it and ones as the head gradient, every variable being an input of
    the call whose gradient went into its buffer. A training loop's next ``backward()`` is the same
    but for the values, and ``run`` checks just what the walk, the key and the driver would find
    (ops and attributes, wiring, which arrays are one, shapes and dtypes of the arrays read, the
    call's plan, which inputs are variables, their buffers, modes, monitors) against the tape, then
    calls the program: a fraction of their Python work. Anything else: ``None``, nothing done, and
    the driver goes its usual way. Holds no array: the arrays are the tape's, found through it."""

    __slots__ = ("segment", "program", "positions", "into_order", "ops", "attrs", "alike", "links", "constants",
                 "reads", "read_types", "variable_shapes", "head_index", "device", "training")

    @classmethod
    def of(cls, segment, call, nodes, externals, heads, grads, written):
        """The replay of the run just done (``run_segment``'s arguments with ``order`` being
        ``[call] + nodes``, and what ``_Segment.run`` gave: ``grads``, ``written``), or ``None`` when
        it is not one to replay."""
        if len(heads) != 1 or heads[0][0] != len(nodes) - 1 or segment.grad_inputs:
            return None
        variables = [src for src in call.sources if src is not None]
        if len(grads) != len(variables) or not all(g is src._grad for src, g in grads):
            return None         # (a gradient not written into its buffer)
        self = cls()
        self.segment, self.positions = segment, written
        self.into_order = tuple(segment.plan().grad_inputs[p] for p in written)   # (the call's inputs)
        self.program = segment._into[written]
        self.head_index, self.device, self.training = heads[0][1], call.device, call.training
        self.ops = tuple(node.op for node in nodes)
        self.attrs = tuple(node.attrs for node in nodes)
        self.alike = len({(id(op), id(a)) for op, a in zip(self.ops, self.attrs)}) != len(nodes)
        where = {id(call): 0}
        where.update((id(node), j) for j, node in enumerate(nodes, 1))
        first = {id(x): k for k, (x, _) in enumerate(externals)}
        # (position j, input i) reading output o of the node at position k, users first (then ``run``
        # finds every node through a later one); inputs of no node; inputs read from elsewhere
        links, self.constants, self.reads = [], [], []
        for j, node in reversed(list(enumerate(nodes, 1))):
            for i, (x, src) in enumerate(zip(node.inputs, node.sources)):
                if src.__class__ is tuple:
                    k = where.get(id(src[0]))
                    if k is None:
                        return None
                    links.append((j, i, k, src[1]))
                elif src is None:
                    self.constants.append((j, i))
                else:
                    return None     # (a variable the imperative calls read: not the call's input)
                if src is None or k == 0:           # (read from elsewhere: a constant or the call's output)
                    self.reads.append((j, i, first[id(x)]))
        self.links = links
        self.read_types = tuple((x._data.shape, x._data.dtype) for x, _ in externals)
        self.variable_shapes = tuple(v._data.shape for v in variables)
        return self

    def run(self, head):
        """``(tape nodes, gradient buffers written)`` of ``backward()`` of ``head`` done as the
        replayed one was (see the class doc), or ``None`` without doing anything."""
        entry = head._node
        if entry is None or entry[1] != self.head_index or monitor_state.switches.symbolic \
                or op_monitor.installed():
            return None         # (installed: op hooks or the profiler watch imperative ops)
        ops, attrs, training, device = self.ops, self.attrs, self.training, self.device
        found = [None] * (len(ops) + 1)
        found[-1] = node = entry[0]
        if (node.op is not ops[-1] or node.attrs is not attrs[-1] or node.freed or node.training != training
                or (node.device is not device and node.device != device)):
            return None
        try:
            for j, i, k, o in self.links:        # (every node is found through a later one: checked then)
                src = found[j].sources[i]
                if src.__class__ is not tuple or src[1] != o:
                    return None
                node = src[0]
                if found[k] is None:
                    if k and (node.op is not ops[k - 1] or node.attrs is not attrs[k - 1]) or node.freed \
                            or node.training != training or (node.device is not device and node.device != device):
                        return None
                    found[k] = node
                elif found[k] is not node:
                    return None
            for j, i in self.constants:
                if found[j].sources[i] is not None:
                    return None
        except IndexError:          # (fewer inputs than the replayed calls had)
            return None
        call = found[0]
        plan = self.segment.plan()
        # (the plan is built for which of the call's inputs are variables: their sources say the same)
        if (call.op.__class__ is not TapeOp or call.attrs.__class__ is not tuple or plan is None
                or call.attrs[0] is not plan or (self.alike and len(set(map(id, found))) != len(found))):
            return None         # (one node found at two positions: only where two have one op and attributes)
        # the arrays read from elsewhere: the same ones where the replayed were one, of their types
        types = self.read_types
        externals, datas = [None] * len(types), [None] * len(types)
        for j, i, k in self.reads:
            x = found[j].inputs[i]
            if externals[k] is None:
                d = x._data
                if x.__class__ not in DENSE_CLASSES or d.shape != types[k][0] or d.dtype != types[k][1]:
                    return None
                externals[k], datas[k] = x, d
            elif externals[k] is not x:
                return None
        if len(set(map(id, externals))) != len(externals):
            return None
        # the variables: a buffer each, of their own ('write', dense NumPy), no two alike
        buffers, into, shapes, k = [], [], self.variable_shapes, 0
        try:
            for src in call.sources:
                if src is None:
                    into.append(None)
                    continue
                g = src._grad         # (None: not a dense class)
                if g.__class__ not in DENSE_CLASSES or src._grad_req != "write":
                    return None
                d = g._data
                if type(d) is not ndarray or src._data.shape != shapes[k]:
                    return None
                k += 1
                buffers.append(g)
                into.append(d)
        except IndexError:          # (more variables than the replayed call had)
            return None
        if k != len(shapes) or len(set(map(id, buffers))) != k:
            return None
        h = head._data
        out = entry[0].out_data[self.head_index]
        if type(h) is not ndarray or h.shape != out.shape or h.dtype != out.dtype:
            return None
        ones = empty(h.shape, h.dtype)
        ones.fill(1)
        for node in found[1:]:
            datas += node.out_data
        datas.append(ones)
        _, saved, call_datas, _ = call.attrs
        datas += call_datas
        datas += saved
        args = list(map(datas.__getitem__, self.segment._bind_index))
        if plan._into_positions(into, args) != self.positions:
            return None
        for k in self.into_order:
            args.append(into[k])
        self.segment.call(self.program, args)
        _latest[0] = self.segment
        return found, buffers


class _Replays:
    """The last ``MAX_REPLAYS`` replayable backwards (``_Replay``, one per compiled segment), the one
    replayed or made last first: a loop alternating two nets with their losses (a GAN's discriminator
    and generator steps) replays both, where one kept template would be made again at every step."""

    __slots__ = ("replays",)

    def __init__(self):
        self.replays = []

    def __len__(self):
        return len(self.replays)

    def keep(self, replay):
        """Keep ``replay`` first, in place of any of its segment's."""
        others = [r for r in self.replays if r.segment is not replay.segment]
        self.replays = [replay] + others[:MAX_REPLAYS - 1]

    def run(self, head):
        """The first kept replay's ``run(head)`` that does the backward (``None``: none could)."""
        replays = self.replays
        for k, replay in enumerate(replays):
            done = replay.run(head)
            if done is not None:
                if k:
                    replays.insert(0, replays.pop(k))
                return done
        return None


_replays = _Replays()
register_segment_backward(run_segment, _replays)
