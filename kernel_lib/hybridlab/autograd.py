"""Autograd: a tape of op calls recorded under ``record()``, and a backward pass over it.

Every op call made while recording, with at least one input that needs a gradient, appends a
``TapeNode`` (op, attributes, inputs, output values). ``backward`` walks the nodes reachable from
the heads in reverse topological order and asks each op's registered ``grad`` for its input
gradients, computed with registered ops (so ``create_graph=True`` records them too and higher-order
gradients work).

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1.0, 2.0, 3.0])
    >>> x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = (x * x).sum()
    >>> y.backward()
    >>> x.grad.asnumpy().tolist()
    [2.0, 4.0, 6.0]
"""
import threading
import weakref

from .base import MXNetError

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training", "Function",
           "set_recording", "set_training", "mark_variables", "backward", "grad", "TapeNode"]


class _State(threading.local):
    recording = False
    training = False


_state = _State()

# Gradient buffers written by backward since their consumer last looked (``is_fresh``): the Trainer's
# stale-gradient check. Keyed by id, with a weak reference to tell a reused id from the same array.
fresh_grads = {}


def _mark_fresh(grad):
    key = id(grad)

    def forget(ref):   # the array died: drop its entry unless the id was reused since
        if fresh_grads.get(key) is ref:
            del fresh_grads[key]
    fresh_grads[key] = weakref.ref(grad, forget)


def take_fresh(grad):
    """True if backward wrote ``grad`` since the last call for it (and forget that it did)."""
    ref = fresh_grads.pop(id(grad), None)
    return ref is not None and ref() is grad


def is_recording():
    """True inside ``record()`` (and not inside ``pause()``)."""
    return _state.recording


def is_training():
    """True in training mode (``record()`` by default, ``train_mode()``): Dropout drops, BatchNorm
    uses batch statistics."""
    return _state.training


def set_recording(is_recording):  # noqa: F811 - MXNet's name
    """Set recording on or off; returns the previous state."""
    prev, _state.recording = _state.recording, bool(is_recording)
    return prev


def set_training(train_mode):  # noqa: F811 - MXNet's name
    """Set training mode on or off; returns the previous state."""
    prev, _state.training = _state.training, bool(train_mode)
    return prev


class _Scope:
    """Context manager behind record/pause/train_mode/predict_mode; restores the previous state."""

    def __init__(self, recording, training):
        self._enter = (recording, training)
        self._prev = None

    def __enter__(self):
        self._prev = (_state.recording, _state.training)
        recording, training = self._enter
        if recording is not None:
            _state.recording = recording
        if training is not None:
            _state.training = training
        return self

    def __exit__(self, *exc):
        _state.recording, _state.training = self._prev
        return False


def record(train_mode=True):  # noqa: F811 - MXNet's name
    """Record op calls for ``backward`` (in training mode unless ``train_mode=False``).

    >>> import hybridlab as mx
    >>> with mx.autograd.record():
    ...     mx.autograd.is_recording(), mx.autograd.is_training()
    (True, True)
    """
    return _Scope(True, train_mode)


def pause(train_mode=False):  # noqa: F811 - MXNet's name
    """Stop recording inside a ``record()`` block (in prediction mode unless ``train_mode=True``)."""
    return _Scope(False, train_mode)


def train_mode():
    """Training mode without changing recording."""
    return _Scope(None, True)


def predict_mode():
    """Prediction mode without changing recording."""
    return _Scope(None, False)


class TapeNode:
    """One recorded op call. ``sources[i]`` says where the gradient of input ``i`` goes: a
    ``(TapeNode, output_index)`` entry, a leaf NDArray (a variable), or ``None`` (a constant)."""

    __slots__ = ("op", "attrs", "inputs", "sources", "out_data", "device", "training", "freed")

    def __init__(self, op, attrs, inputs, out_data, device):
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.sources = [x._node if x._node is not None else (x if x._grad_req != "null" else None)
                        for x in inputs]
        self.out_data = out_data
        self.device = device
        self.training = _state.training   # the forward's mode: its gradient is computed in the same mode
        self.freed = False

    def __repr__(self):
        return f"<TapeNode {self.op.name}>"


def needs_record(inputs):
    """True when an op call on ``inputs`` must be recorded (recording, and some input needs a grad)."""
    if not _state.recording:
        return False
    for x in inputs:
        if x._node is not None or x._grad_req != "null":
            return True
    return False


def mark_variables(variables, gradients, grad_reqs="write"):
    """Make ``variables`` leaves of the graph whose gradients are written into ``gradients``."""
    from .ndarray.ndarray import NDArray
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for var, g, req in zip(variables, gradients, grad_reqs):
        _check_req(req)
        var._grad, var._grad_req, var._node = g, req, None


def _check_req(req):
    if req not in ("write", "add", "null"):
        raise MXNetError(f"grad_req expected one of 'write', 'add', 'null', got {req!r}")


_NOT_IN_GRAPH = ("Cannot differentiate node because it is not in a computational graph. You need to set "
                 "is_recording to true or use autograd.record() to save computational graphs for backward. "
                 "If you want to differentiate the same graph twice, you need to pass retain_graph=True "
                 "to backward.")


def _toposort(heads):
    """TapeNodes reachable from ``heads`` (NDArrays), inputs before users."""
    order, seen = [], set()
    stack = [(h._node[0], False) for h in heads if h._node is not None]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for src in node.sources:
            if isinstance(src, tuple) and id(src[0]) not in seen:
                stack.append((src[0], False))
    return order


def _accumulate(table, key, value, F):
    old = table.get(key)
    table[key] = value if old is None else F.elemwise_add(old, value)


def _run_backward(heads, head_grads, retain_graph, create_graph, train_mode):
    """Gradients of ``heads`` w.r.t. every leaf reached: ``{id(leaf): (leaf, grad)}``."""
    from . import ndarray as F
    from .ndarray.ndarray import NDArray

    if isinstance(heads, NDArray):
        heads = [heads]
    if head_grads is None or isinstance(head_grads, NDArray):
        head_grads = [head_grads] * len(heads) if head_grads is None else [head_grads]
    if len(head_grads) != len(heads):
        raise MXNetError(f"backward: expected {len(heads)} head gradients (one per head), got {len(head_grads)}")

    node_grads = {}   # id(TapeNode) -> {output index: grad}
    leaf_grads = {}   # id(leaf) -> grad
    leaves = {}
    for h, hg in zip(heads, head_grads):
        if hg is None:
            hg = F.ones_like(h.detach())
        elif hg.shape != h.shape:
            raise MXNetError(f"backward: head gradient expected shape {h.shape}, got {hg.shape}")
        if h._node is not None:
            _accumulate(node_grads.setdefault(id(h._node[0]), {}), h._node[1], hg, F)
        elif h._grad_req != "null":
            leaves[id(h)] = h
            _accumulate(leaf_grads, id(h), hg, F)
        else:
            raise MXNetError(_NOT_IN_GRAPH)

    prev_rec, prev_train = set_recording(create_graph), set_training(train_mode)
    order = _toposort(heads)
    try:
        for node in reversed(order):
            grads = node_grads.pop(id(node), None)
            if grads is None:
                continue
            if node.freed:
                raise MXNetError(_NOT_IN_GRAPH)
            if node.op.grad is None:   # a zero_grad op (x > 1, one_hot, ...): nothing flows back
                if not retain_graph:
                    node.freed = True
                    node.inputs, node.out_data = (), ()
                continue
            outputs = [_output_array(node, i) for i in range(len(node.out_data))]
            ograds = [grads.get(i) for i in range(len(outputs))]
            ograds = [g if g is not None else F.zeros_like(o.detach()) for g, o in zip(ograds, outputs)]
            # Each gradient gets its forward's mode (BatchNorm after a predict-mode forward differentiates
            # the moving-statistics formula and leaves the statistics alone).
            in_grads = node.op.gradient(F, node.attrs, list(node.inputs), outputs, ograds, node.training)
            if len(in_grads) != len(node.inputs):
                raise MXNetError(f"{node.op.name}: gradient returned {len(in_grads)} values, "
                                 f"expected {len(node.inputs)} (one per input)")
            for src, g in zip(node.sources, in_grads):
                if src is None or g is None:
                    continue
                if isinstance(src, tuple):
                    _accumulate(node_grads.setdefault(id(src[0]), {}), src[1], g, F)
                else:
                    leaves[id(src)] = src
                    _accumulate(leaf_grads, id(src), g, F)
            if not retain_graph:
                node.freed = True
                node.inputs, node.out_data = (), ()
        # As in MXNet, every variable of the graph gets a gradient: zero where none reached it
        for node in order:
            for src in node.sources:
                if src is not None and src.__class__ is not tuple and id(src) not in leaf_grads:
                    leaves[id(src)] = src
                    leaf_grads[id(src)] = F.zeros_like(src.detach())
    finally:
        set_recording(prev_rec)
        set_training(prev_train)
    return {k: (leaves[k], g) for k, g in leaf_grads.items()}


def _output_array(node, i):
    from .ndarray.ndarray import NDArray
    out = NDArray._wrap(node.out_data[i], node.device)
    out._node = (node, i)
    return out


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: F811
    """Compute gradients of ``heads`` and store them in the ``.grad`` of every variable reached
    (``grad_req`` 'write' overwrites, 'add' accumulates, 'null' skips)."""
    for leaf, g in _run_backward(heads, head_grads, retain_graph, False, train_mode).values():
        req = leaf._grad_req
        if req == "null" or leaf._grad is None:
            continue
        _mark_fresh(leaf._grad)
        if g.shape != leaf.shape:
            raise MXNetError(f"backward: gradient of a variable expected shape {leaf.shape}, got {g.shape}")
        xp = leaf._device.xp
        if req == "write":
            xp.copyto(leaf._grad._data, g._data.astype(leaf._grad.dtype, copy=False))
        else:
            leaf._grad._data += g._data.astype(leaf._grad.dtype, copy=False)


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
    from .ndarray.ndarray import NDArray
    single = isinstance(variables, NDArray)
    variables = [variables] if single else list(variables)
    if retain_graph is None:
        retain_graph = create_graph
    result = _run_backward(heads, head_grads, retain_graph, create_graph, train_mode)
    out = []
    for v in variables:
        entry = result.get(id(v))
        if entry is None:
            from . import ndarray as F
            out.append(F.zeros_like(v.detach()))
        else:
            out.append(entry[1])
    return out



from .custom_function import Function  # noqa: E402,F401  (MXNet's autograd.Function; it builds on the tape above)
