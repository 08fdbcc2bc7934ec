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

from ..autograd.backward import register_segment_backward
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from ..ops.registry import OpDef
from ..symbol.from_tape import segment
from .backward import BackwardUnavailable, compile_backward, derive_backward

__all__ = ["run_segment", "last_program"]

MAX_PROGRAMS = 256          # compiled structures kept; new structures past it run op by op
MAX_SEEN = 1024             # structures seen once (forgotten all at once past it)
_programs = {}              # key -> _Segment, or None: its gradient cannot be traced
_seen = set()               # keys seen once: a structure compiles when it comes again (one-offs never do)
_latest = [None]
_lock = threading.Lock()


def last_program():
    """The ``Program`` of the imperative backward compiled or run last (``None`` before any)."""
    return None if _latest[0] is None else _latest[0].program


def run_segment(order, node_grads):
    """The compiled backward of the imperative calls at the end of ``order`` (the tape walk of
    ``backward``, inputs before users) with the head gradients ``node_grads`` (``{id(tape node):
    {output index: NDArray}}``): ``(start, [(source, gradient NDArray)...])`` for the calls
    ``order[start:]``, one entry per array they read from elsewhere that needs a gradient (its
    ``TapeNode.sources`` entry), or ``None`` when they run op by op."""
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
    try:
        segment = _programs.get(key, False)
    except TypeError:         # an attribute value that is not hashable
        return None
    if segment is False:      # not compiled: compile a structure seen before (a loop's), else note it
        if key not in _seen:
            if len(_seen) >= MAX_SEEN:
                _seen.clear()
            _seen.add(key)
            return None
        if len(_programs) >= MAX_PROGRAMS:
            return None
        with _lock:
            segment = _programs.get(key, False)
            if segment is False:
                segment = _programs[key] = _Segment.build(nodes, externals, heads, device, training)
                _seen.discard(key)
    if segment is None:
        return None
    _latest[0] = segment
    return start, segment.run(nodes, externals, heads, device)


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
                append((d.shape, d.dtype, src is not None))
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
    """One compiled structure: the backward ``program`` and how to feed it (``_bind``: per program
    argument, ``("input", k)`` an array read from elsewhere, ``("output", j, i)`` output ``i`` of
    call ``j``, ``("head", h)`` the ``h``-th head gradient) and which arrays its results are the
    gradients of (``grad_inputs``)."""

    def __init__(self, program, bind, grad_inputs):
        self.program, self._bind, self.grad_inputs = program, bind, grad_inputs

    @classmethod
    def build(cls, nodes, externals, heads, device, training):
        """The segment of these calls compiled, or ``None`` when its gradient cannot be traced."""
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
            program = compile_backward(d, outputs, shapes, dtypes, device, training, title)
        except BackwardUnavailable:
            return None
        of_var = {id(v): k for k, v in enumerate(variables)}
        of_node = {id(g): j for j, g in enumerate(graph)}
        bind = []
        for kind, what in d.spec:
            if kind == "head":
                bind.append(("head", what))
            elif id(what[0]) in of_var:
                bind.append(("input", of_var[id(what[0])]))
            else:
                bind.append(("output", of_node[id(what[0])], what[1]))
        return cls(program, bind, list(d.grad_inputs))

    def run(self, nodes, externals, heads, device):
        """``[(source, gradient NDArray)]`` of the arrays read from elsewhere, from the values the
        tape kept for ``nodes`` and the ``heads``' gradients."""
        args = []
        for spec in self._bind:
            kind = spec[0]
            if kind == "input":
                args.append(externals[spec[1]][0]._data)
            elif kind == "output":
                args.append(nodes[spec[1]].out_data[spec[2]])
            else:
                args.append(heads[spec[1]][2]._data)
        res = self.program.fn(*args)
        if len(self.grad_inputs) == 1:
            res = (res,)
        return [(externals[k][1], NDArray._wrap(g, device)) for k, g in zip(self.grad_inputs, res)]


register_segment_backward(run_segment)
