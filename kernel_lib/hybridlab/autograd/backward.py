"""The backward driver: walk the tape from the heads, inputs after their users, and ask each op's
registered gradient for its input gradients. Gradients are computed with registered ops, so
``create_graph=True`` records them too and higher-order gradients work. Each gradient runs in its
forward's mode (``TapeNode.training``).

Loading ``hybridlab.autograd`` attaches ``backward`` to NDArray (``attach``): the ndarray layer
reads the tape's state (``autograd.state``) but does not import this driver, which imports it.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([3.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * x
    >>> mx.autograd.grad(y, [x])[0].asnumpy().tolist()
    [6.0]
"""
from sys import getrefcount as _refcount

from numpy import empty as _empty, ndarray as _ndarray

from .. import ndarray as F
from ..base import MXNetError
from ..write_versions import wrote
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from .state import check_grad_req, flags as _flags, mark_fresh, set_recording, set_training

__all__ = ["backward", "grad", "mark_variables", "run_backward", "tape_order", "attach", "register_segment_backward"]

_NOT_IN_GRAPH = ("Cannot differentiate node because it is not in a computational graph. You need to set "
                 "is_recording to true or use autograd.record() to save computational graphs for backward. "
                 "If you want to differentiate the same graph twice, you need to pass retain_graph=True "
                 "to backward.")


_segment_backward = [None]    # compiler.tape_backward.run_segment, registered by that layer (above this one)
_replays = [None]             # and what replays the last whole backwards (empty: none kept)


def register_segment_backward(fn, replays=None):
    """Let ``fn(order, node_grads, buffers)`` differentiate the imperative calls at the end of the
    tape walk ``order`` at once: it returns ``(start, [(source, gradient)...])`` for
    ``order[start:]`` or ``None`` (then they run op by op); ``buffers(node)`` (``backward`` only,
    else ``None``): per input of a node, the gradient buffer its gradient may be written into (see
    ``run_backward``). ``replays``: a sized object (empty while it keeps nothing) whose ``run(head)``
    does ``backward`` of the one array ``head`` with ones as its gradient again the way ``fn`` did a
    recent one whole, every variable's gradient written into its buffer, and returns ``(tape nodes,
    buffers written)``, or ``None`` (having done nothing) where the tape differs. The compiler
    registers its compiled backward (``compiler.tape_backward``)."""
    _segment_backward[0], _replays[0] = fn, replays


def mark_variables(variables, gradients, grad_reqs="write"):
    """Make ``variables`` leaves of the graph whose gradients are written into ``gradients``.

    >>> import hybridlab as mx
    >>> x, gx = mx.nd.array([2.0]), mx.nd.zeros((1,))
    >>> mx.autograd.mark_variables(x, gx)
    >>> with mx.autograd.record():
    ...     y = x * 3
    >>> y.backward()
    >>> gx.asnumpy().tolist()
    [3.0]
    """
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for var, g, req in zip(variables, gradients, grad_reqs):
        check_grad_req(req)
        var._grad, var._grad_req, var._node = g, req, None


def tape_order(heads):
    """TapeNodes reachable from ``heads`` (NDArrays), inputs before users."""
    return _walk(heads, False)[0]


def leaf_key(x):
    """Which variable the leaf array ``x`` is: its gradient buffer, shared by the views of one
    variable (``as_np_ndarray``, ``as_nd_ndarray``), else the array itself."""
    return id(x) if x._grad is None else id(x._grad)


def _accumulate(table, key, value):
    old = table.get(key)
    table[key] = value if old is None else F.elemwise_add(old, value)


def run_backward(heads, head_grads, retain_graph, create_graph, train_mode, store=False):
    """Gradients of ``heads`` w.r.t. every leaf reached: ``{leaf_key(leaf): (leaf, grad)}``.
    ``store`` (``backward``: the gradients go into the variables' buffers): a node that can
    (``gradient_into``: a cached op's compiled backward) writes the gradient of a variable with
    ``grad_req`` 'write' that it alone feeds straight into the variable's buffer, which is then that
    variable's gradient here."""
    if isinstance(heads, NDArray):
        heads = [heads]
    if head_grads is None or isinstance(head_grads, NDArray):
        head_grads = [head_grads] * len(heads) if head_grads is None else [head_grads]
    if len(head_grads) != len(heads):
        raise MXNetError(f"backward: expected {len(heads)} head gradients (one per head), got {len(head_grads)}")

    node_grads = {}   # id(TapeNode) -> {output index: grad}
    leaf_grads = {}   # leaf_key(leaf) -> (leaf, grad): what is returned
    for h, hg in zip(heads, head_grads):
        if hg is None:
            if type(h._data) is _ndarray and h.__class__ in DENSE_CLASSES:   # (what ones_like gives, without dispatch)
                ones = _empty(h._data.shape, h._data.dtype)
                ones.fill(1)            # (numpy.ones is empty + copyto in Python: twice the cost)
                hg = NDArray._wrap(ones, h._device, h._np)
            else:
                hg = F.ones_like(h.detach())
        elif hg.shape != h.shape and not (h._node is not None and h._node[0].op.grad is None):
            # (an op without gradient, shape_array say, never reads its head gradient: MXNet skips it)
            raise MXNetError(f"backward: head gradient expected shape {h.shape}, got {hg.shape}")
        if h._node is not None:
            _accumulate(node_grads.setdefault(id(h._node[0]), {}), h._node[1], hg)
        elif h._grad_req != "null":
            _pass_on(((h, hg),), node_grads, leaf_grads)
        else:
            raise MXNetError(_NOT_IN_GRAPH)

    prev_rec, prev_train = set_recording(create_graph), set_training(train_mode)
    order, uses = _walk(heads, not retain_graph)

    # the arrays a variable that is a head itself is known by (its own, its gradient buffer's)
    head_leaves = {id(x) for h in heads if h._node is None for x in (h, h._grad)}

    def buffers(node):
        """Per input of ``node``, the gradient buffer its gradient may be written into, or None."""
        return [None if src is None or src.__class__ is tuple else _direct_buffer(src, uses, head_leaves)
                for src in node.sources]

    store = store and not create_graph
    try:
        end = len(order)
        compiled = (_segment_backward[0](order, node_grads, buffers if store else None)
                    if _segment_backward[0] and not create_graph else None)
        if compiled is not None:          # the imperative calls at the end, differentiated at once
            end, grads = compiled
            for node in order[end:]:
                node_grads.pop(id(node), None)
                if not retain_graph:
                    _free(node)
            _pass_on(grads, node_grads, leaf_grads)
        for node in reversed(order[:end]):
            grads = node_grads.pop(id(node), None)
            if grads is None:
                continue
            if node.freed:
                raise MXNetError(_NOT_IN_GRAPH)
            if node.op.grad is None:   # a zero_grad op (x > 1, one_hot, ...): nothing flows back
                if not retain_graph:
                    _free(node)
                continue
            if len(node.out_data) == 1 and 0 in grads:      # (the common case, without the general lists)
                outputs, ograds = [_output_array(node, 0)], [grads[0]]
            else:
                outputs = [_output_array(node, i) for i in range(len(node.out_data))]
                ograds = [grads.get(i) for i in range(len(outputs))]
                ograds = [g if g is not None else F.zeros_like(o.detach()) for g, o in zip(ograds, outputs)]
            # Each gradient gets its forward's mode (BatchNorm after a predict-mode forward differentiates
            # the moving-statistics formula and leaves the statistics alone).
            into = buffers(node) if store and getattr(node.op, "gradient_into", None) is not None else None
            if into is not None and any(b is not None for b in into):
                in_grads = node.op.gradient_into(F, node.attrs, list(node.inputs), outputs, ograds, node.training, into)
            else:
                in_grads = node.op.gradient(F, node.attrs, list(node.inputs), outputs, ograds, node.training)
            if len(in_grads) != len(node.inputs):
                raise MXNetError(f"{node.op.name}: gradient returned {len(in_grads)} values, "
                                 f"expected {len(node.inputs)} (one per input)")
            _pass_on(zip(node.sources, in_grads), node_grads, leaf_grads)
            if not retain_graph:
                _free(node)
        # As in MXNet, every variable of the graph gets a gradient: zero where none reached it
        for key, (_, src) in uses.items():
            if key not in leaf_grads:
                leaf_grads[key] = (src, F.zeros_like(src.detach()))
    finally:
        set_recording(prev_rec)
        set_training(prev_train)
    return leaf_grads


def _pass_on(pairs, node_grads, leaf_grads):
    """Add each ``(source, gradient)`` of ``pairs`` to where its source's gradient is summed: a tape
    node's output (``node_grads``) or a variable (``leaf_grads``: ``{leaf_key: (variable, sum)}``);
    ``None`` ones are skipped."""
    for src, g in pairs:
        if src is None or g is None:
            continue
        if src.__class__ is tuple:
            _accumulate(node_grads.setdefault(id(src[0]), {}), src[1], g)
        else:
            key = leaf_key(src)
            old = leaf_grads.get(key)
            leaf_grads[key] = (src, g if old is None else F.elemwise_add(old[1], g))


def _drop_null_grads(inputs):
    """As MXNet's backward clears the graph it frees: the variables among ``inputs`` (a tape node's)
    with ``grad_req`` 'null' lose their gradient buffers (constants from then on)."""
    for x in inputs:        # (NDArrays: recording read their _node and _grad_req)
        if x._node is None and x._grad_req == "null":
            x._grad = None


def _free(*nodes):
    """The graph a backward without ``retain_graph`` has gone through is freed, as in MXNet."""
    for node in nodes:
        node.freed = True
        node.inputs, node.out_data = (), ()


def _walk(heads, drop_null):
    """The TapeNodes reachable from ``heads``, inputs before users, and, in the same walk,
    ``{leaf_key: (how many inputs of those nodes it is, the variable)}`` of the variables they
    read; with ``drop_null``, as MXNet's backward clears the graph it frees, a variable read with
    ``grad_req`` 'null' loses its gradient buffer (``.grad`` is None after: it is a constant from
    then on)."""
    order, seen, uses = [], set(), {}      # (tape nodes hash by identity)
    stack = [(h._node[0], False) for h in heads if h._node is not None]
    pop, push = stack.pop, stack.append
    while stack:
        node, expanded = pop()
        if expanded:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        push((node, True))
        if drop_null:
            _drop_null_grads(node.inputs)
        for src in node.sources:
            if src is None:
                continue
            if src.__class__ is tuple:
                if src[0] not in seen:
                    push((src[0], False))
            else:
                key = leaf_key(src)
                counted = uses.get(key)
                uses[key] = (1, src) if counted is None else (counted[0] + 1, src)
    return order, uses


def _direct_buffer(leaf, uses, head_leaves):
    """The gradient buffer of the variable ``leaf`` when one input of one node alone gives its
    gradient (``uses``: see ``_walk``; no sum to form), with ``grad_req`` 'write' and a dense NumPy
    buffer, and it is not a head itself (``head_leaves``: the ids of the head variables and of their
    gradient buffers): a node may write its gradient straight into the buffer. Else ``None``."""
    g = leaf._grad
    if (g is None or leaf._grad_req != "write" or g.__class__ not in DENSE_CLASSES or type(g._data) is not _ndarray
            or uses[id(g)][0] != 1 or id(g) in head_leaves):
        return None
    return g


def _output_array(node, i):
    out = NDArray._wrap(node.out_data[i], node.device)
    out._node = (node, i)
    return out


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: F811
    """Compute gradients of ``heads`` and store them in the ``.grad`` of every variable reached
    (``grad_req`` 'write' overwrites, 'add' accumulates, 'null' skips).

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1.0, 2.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = 2 * x
    >>> mx.autograd.backward([y])
    >>> x.grad.asnumpy().tolist()
    [2.0, 2.0]
    """
    if isinstance(heads, NDArray):
        heads = [heads]
    replays = _replays[0]
    if (head_grads is None and len(heads) == 1 and replays and _segment_backward[0] is not None
            and _replayed(replays, heads[0], retain_graph, train_mode)):
        return
    result = run_backward(heads, head_grads, retain_graph, False, train_mode, store=True)
    while result:
        leaf, g = result.popitem()[1]        # popped: ``g`` is then referenced here only, if by no one else
        req = leaf._grad_req
        if req == "null" or leaf._grad is None:
            continue
        mark_fresh(leaf._grad)
        if g._data.shape != leaf._data.shape:
            raise MXNetError(f"backward: gradient of a variable expected shape {leaf.shape}, got {g.shape}")
        if req == "write":
            if g is not leaf._grad and not _adopt(leaf._grad, g):     # (``g is leaf._grad``: written in place)
                leaf._device.xp.copyto(leaf._grad._data, g._data.astype(leaf._grad.dtype, copy=False))
        else:
            leaf._grad._data += g._data.astype(leaf._grad.dtype, copy=False)
        wrote(leaf._grad)


def _replayed(replay, head, retain_graph, train_mode):
    """``backward`` of ``head`` by the compiler's replay (``register_segment_backward``), with what
    ``run_backward`` and ``backward`` do around a compiled program: the modes, freeing the graph
    (``retain_graph``), the gradients marked fresh and written. False when it declines."""
    prev_rec, prev_train = _flags.recording, _flags.training      # (set_recording, set_training)
    _flags.recording, _flags.training = False, bool(train_mode)
    try:
        done = replay.run(head)
    finally:
        _flags.recording, _flags.training = prev_rec, prev_train
    if done is None:
        return False
    nodes, buffers = done
    if not retain_graph:
        for node in nodes:
            _drop_null_grads(node.inputs)
        _free(*nodes)
    mark_fresh(*buffers)
    wrote(*buffers)
    return True


def _adopt(buf, g):
    """Write the gradient ``g`` into the gradient buffer ``buf`` (grad_req 'write') by handing ``buf``
    the memory of ``g`` instead of copying it, where no one can tell the difference: both NumPy
    arrays of one dtype, shape and layout, ``g`` a fresh array that nothing else references (not an
    input, not a view, not shared between two gradients: CPython's reference counts say so) and the
    old buffer seen by no view or other holder either. Returns False (copy instead) otherwise."""
    if buf.__class__ not in DENSE_CLASSES:      # sparse buffers keep their own copy semantics
        return False
    new, old = g._data, buf._data
    if type(new) is not _ndarray or type(old) is not _ndarray or new.dtype != old.dtype or new.shape != old.shape:
        return False
    # the references counted: the caller's name ``g``, the NDArrays' attributes, our names, the argument
    # (one more: someone else holds it; a view of an array holds it through its base)
    if _refcount(g) > 3 or _refcount(new) > 3 or _refcount(old) > 3:
        return False
    fn, fo = new.flags, old.flags
    # (an old buffer that is a view: its memory belongs to another array, a Trainer's packed gradients)
    if not (fn.owndata and fn.writeable and fn.c_contiguous and fo.owndata and fo.c_contiguous and fo.writeable):
        return False
    buf._data = new
    g._data = old      # (g is dropped by the caller)
    return True


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):  # noqa: F811
    """Gradients of ``heads`` w.r.t. ``variables``, returned (not stored in ``.grad``).

    With ``create_graph=True`` the gradient computation is itself recorded, so the results can be
    differentiated again (higher-order gradients).

    >>> import hybridlab as mx
    >>> x = mx.nd.array([3.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * x * x
    ...     dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    >>> dy.backward()
    >>> x.grad.asnumpy().tolist()   # d2y/dx2 = 6x
    [18.0]
    """
    single = isinstance(variables, NDArray)
    variables = [variables] if single else list(variables)
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(heads, head_grads, retain_graph, create_graph, train_mode)
    out = []
    for v in variables:
        entry = result.get(leaf_key(v))
        out.append(F.zeros_like(v.detach()) if entry is None else entry[1])
    return out


def _ndarray_backward(self, out_grad=None, retain_graph=False, train_mode=True):
    """Back-propagate from this array (``out_grad`` defaults to ones).

    >>> import hybridlab as mx
    >>> x = mx.nd.array([4.0]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * x
    >>> y.backward()
    >>> x.grad.asnumpy().tolist()
    [8.0]
    """
    backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)


def attach(ndarray_class):
    """Make ``backward`` a method of ``ndarray_class`` (NDArray): the ndarray layer cannot import us.

    >>> import hybridlab as mx
    >>> mx.nd.NDArray.backward is _ndarray_backward
    True
    """
    ndarray_class.backward = _ndarray_backward
