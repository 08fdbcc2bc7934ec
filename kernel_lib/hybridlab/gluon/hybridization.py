"""The hybridization state of one HybridBlock: ``block.hybridization``.

A HybridBlock owns one ``HybridizationState``, next to its CachedOp. It holds everything
``hybridize()`` and the hybridized calls decide and build: the flags and whether the block runs
hybridized (``active``), the traced graph (``inputs``: the input variables, ``graph``: the output
Symbol, and the argument structure ``in_format``/``out_format``), the cached op with one compiled
program (and memory plan) per input signature, and the build history (``history``: why each build
happened, see ``gluon.rebuild_history``).

Read API (what the lab layer and tests use): ``active``, ``flags``, ``inputs``, ``graph``,
``cached_op``, ``history``, ``signatures`` (the compiled input signatures, oldest first),
``pipeline`` (the graph after each pass), ``program(kind=...)`` (a generated program's source),
``memory_plan()`` and ``backward_plan()``. The block itself changes the state (``hybridize``, a
call, ``cast``...); ``trial(block, name)`` lets a tool try other settings on a block and put
everything back afterwards, ``build(block, *args)`` traces and builds ahead of the first call.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_')
    >>> net.initialize()
    >>> state = net.hybridization
    >>> state.active, state.graph is None, state.signatures
    (False, True, [])
    >>> net.hybridize(static_alloc=True)
    >>> _ = net(mx.nd.ones((1, 3)))
    >>> state.active, state.flags[0], [v.name for v in state.inputs], state.graph.list_outputs()
    (True, ('static_alloc', True), ['data'], ['fc_fwd_output'])
    >>> state.signatures
    [Signature(data=(1, 3) float32, fc_weight=(2, 3) float32, fc_bias=(2,) float32, device=cpu(0), predict)]
    >>> [r.reason for r in state.history], [name for name, _ in state.pipeline][:2]
    (['first call'], ['dce', 'cse'])
    >>> print(state.program())         # doctest: +ELLIPSIS
    # hybridlab cached op program: <Symbol fc_fwd>
    ...
    def forward(data, fc_weight, fc_bias):
    ...
    >>> state.memory_plan() is not None, state.backward_plan() is None
    (True, True)
"""
import contextlib

from ..autograd import state as autograd_state
from ..base import MXNetError, MXNetValueError
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from .parameter import DATA_VERSION as _PARAM_DATA_VERSION
from .rebuild_history import RebuildHistory

__all__ = ["HybridizationState", "signature_key", "trial", "build", "ParameterValues"]

_state = autograd_state.flags
_KINDS = ("forward", "train_forward", "backward")


def signature_key(arrays):
    """The block-level input signature of a call on the data ``arrays``: ``(((shape, dtype) per
    array), device, training)``. A new key means a new program (see ``rebuild_history``)."""
    return tuple([(a._data.shape, a._data.dtype) for a in arrays]), arrays[0]._device, _state.training


class HybridizationState:
    """One HybridBlock's hybridization: configuration, traced graph, cached op, build history
    (see the module docstring for the read API)."""

    def __init__(self):
        # configuration: hybridize() / optimize_for()
        self.active = False
        self.flags = []                  # [(flag, value)]: MXNet's CachedOp flags given to hybridize()
        self.partition_if_dynamic = True
        self.shape_guards = True         # re-trace when a call breaks a shape read (gluon.shape_guards)
        self.passes = None               # the cached op's passes (None: the default pipeline; tools vary it)
        self.keep_pipeline = False
        self.backend, self.backend_options = None, {}
        # the traced graph
        self.inputs = None               # input variables (Symbols), None until traced
        self.graph = None                # the output Symbol, None until traced
        self.in_format = self.out_format = None
        self.shape_reads = []            # the shapes user code read while tracing (deferred.shape_reads)
        self.frozen_reads_said = set()   # shape_guards=False: the reads already warned about
        # the cached op and how the block's arguments feed it: (is data, graph name, data index | Parameter)
        self.cached_op = None
        self.op_args = []
        # builds: the records, the invalidations since the last build, the signatures built
        self.history = RebuildHistory()
        self.pending = []                # (reason, detail) of invalidations since the last build
        self.built = set()               # signature_key()s built since the graph was traced
        self.last_key = None             # the signature_key() of the latest build
        self.build_seconds = 0.0         # tracing + passes since the last build record
        self._arguments = None           # (parameter data version, device, argument list, data slots)
        self._fast = None                # the last call's signature and program or plan (see fast_call)
        self._fast_many = None           # the same for a call with several arrays (see fast_call_many)

    # ---- the read API ---------------------------------------------------------------------------
    @property
    def signatures(self):
        """The cached op's compiled input signatures (``compiler.signature.Signature``: data and
        parameters), oldest first; ``[]`` before the first build."""
        return self.cached_op.signatures if self.cached_op is not None else []

    @property
    def pipeline(self):
        """The graph after each pass of the cached op, ``[(pass name, Symbol)]`` (computed when first
        read unless the build kept it); ``[]`` before the first build."""
        return self.cached_op.pipeline if self.cached_op is not None else []

    def program(self, kind="forward", signature=None):
        """The generated Python source of ``kind`` (``"forward"``, ``"train_forward"``,
        ``"backward"``) for ``signature`` (one of ``signatures`` or its index; default: the latest),
        ``None`` when no such program is compiled yet."""
        if kind not in _KINDS:
            raise MXNetValueError(f"program: kind expected one of {', '.join(_KINDS)}, got {kind!r}")
        if self.cached_op is None or not self.cached_op.signatures:
            return None
        if kind != "forward" and self.backward_plan(signature) is None:
            return None
        return self.cached_op.source(signature, kind=kind)

    def memory_plan(self, signature=None):
        """The static_alloc ``MemoryPlan`` of ``signature``'s predict program (default: the latest),
        ``None`` without one (no ``static_alloc``, or a training program)."""
        if self.cached_op is None or not self.cached_op.signatures:
            return None
        sig = self.cached_op.program(signature).signature
        key = (sig.training, sig.device) + tuple(v for sd in zip(sig.shapes, sig.dtypes) for v in sd)
        for k, plan in self.cached_op.memory_plans.items():
            if k == key:
                return plan
        return None

    def backward_plan(self, signature=None):
        """The compiled backward (``compiler.backward.BackwardPlan``: ``symbol``, the ``forward``
        and ``backward`` programs) of ``signature`` (default: the latest built), ``None`` before a
        call under ``autograd.record()`` needed one."""
        if self.cached_op is None:
            return None
        try:
            return self.cached_op.backward_plan(signature)
        except MXNetError:
            return None

    def __repr__(self):
        state = "active" if self.active else "inactive"
        graph = "no graph" if self.graph is None else f"graph {self.graph!r}"
        return f"<HybridizationState {state}, {graph}, {len(self.signatures)} signature(s), " \
               f"{len(self.history)} build(s)>"

    # ---- what the block does with it ------------------------------------------------------------
    def set_graph(self, inputs, graph, in_format, out_format, shape_reads=()):
        self.inputs, self.graph, self.in_format, self.out_format = inputs, graph, in_format, out_format
        self.shape_reads = list(shape_reads)

    def clear(self, reason="first call", detail="", keep_graph=False):
        """Drop the cached op (and the traced graph unless ``keep_graph``): the next call builds
        again, recorded with ``reason``/``detail`` (``"first call"`` adds no reason)."""
        if not keep_graph:
            self.inputs = self.graph = None
            self.shape_reads = []
        self.cached_op = None
        self.op_args = []
        self._arguments = None
        self._fast = self._fast_many = None
        self.built = set()
        if reason != "first call" and self.history:
            self.pending.append((reason, detail))

    def check_format(self, fmt, block_name):
        """The call's argument structure ``fmt`` must be the traced one (trailing ``None``s aside)."""
        if fmt == self.in_format:
            return
        ref = self.in_format
        if isinstance(fmt, list) and isinstance(ref, list) and len(fmt) != len(ref):
            n = min(len(fmt), len(ref))
            longer = fmt if len(fmt) > len(ref) else ref
            if fmt[:n] == ref[:n] and all(f == -1 for f in longer[n:]):
                return
        raise MXNetValueError(f"The argument structure of HybridBlock does not match the cached version. "
                              f"Stored format = {ref}, input format = {fmt} (block '{block_name}')")

    def arguments(self, real):
        """The cached op's arguments for the data arrays ``real``: the parameters' arrays on their
        device (reused while no parameter got new data) with the data in their slots."""
        device = real[0]._device
        cache = self._arguments
        if cache is not None and cache[0] == _PARAM_DATA_VERSION[0] and cache[1] is device:
            cargs = list(cache[2])
            for pos, ref in cache[3]:
                cargs[pos] = real[ref]
            return cargs
        cargs = [real[ref] if is_arg else (ref._data[0] if ref._data is not None and len(ref._data) == 1
                                           else ref.data(device))
                 for is_arg, _, ref in self.op_args]
        self._arguments = (_PARAM_DATA_VERSION[0], device, cargs,
                           [(pos, ref) for pos, (is_arg, _, ref) in enumerate(self.op_args) if is_arg])
        return cargs

    def fast_call(self, x):
        """The result of the last call's program on the NDArray ``x`` when the call has the same
        signature (class, device, shape, dtype, np-ness, training mode; parameters unchanged) and
        the same recording state, else ``None``: the one check of the hot path (``_fast``, made by
        :meth:`remember_fast`). Recorded, the call runs the last recorded call's train forward and
        records its tape node (when the same inputs need gradients)."""
        return None if self._fast is None else self._fast(x)

    def fast_call_many(self, args):
        """``fast_call`` for a call with several arrays ``args`` and no other argument (a loss's
        prediction and label): the last such call's program or plan when every array has its
        signature, else ``None``."""
        return None if self._fast_many is None else self._fast_many(args)

    def _run_train(self, plan, cargs):
        """The recorded call of the cached op's arguments ``cargs`` with ``plan`` when the same of them
        need gradients as when the plan was built, else ``None``."""
        sources = autograd_state.sources_of(cargs)
        if autograd_state.sources_mask(sources) != plan.need:
            return None
        return self.cached_op.run_train(plan, cargs, sources=sources)

    def remember_fast(self, real, cargs, out, monitored, many=False):
        """Keep what the next call may reuse through ``fast_call`` (one array in position 0) or
        ``fast_call_many`` (``many``: the call's arguments were arrays only, ``real``): one output,
        no hooks/profiler (``monitored``); recorded or not."""
        self._fast = self._fast_many = None
        if self.out_format != 0 or not isinstance(out, NDArray) or not self.op_args or monitored:
            return
        if not self.op_args[0][0] or any(x._np != real[0]._np for x in real):
            return
        if _state.recording:
            runs = self.cached_op.train_plan(cargs) if out._node is not None else None
            if runs is not None and out._np != real[0]._np:
                runs = None
        else:
            runs = self.cached_op.program_fn(cargs)
        if runs is None:
            return
        if many:
            self._fast_many = _fast_many(real, cargs, self.op_args, runs, out._np, self._run_train)
        elif len(real) == 1:
            self._fast = _fast_one(real[0], cargs[1:], runs, out._np, self._run_train)


def _fast_one(x, params, runs, out_np, run_train):
    """``fast_call``'s check and run for calls like the one of the data array ``x`` (the cached op's
    first argument; ``params`` the others): ``runs`` is the train plan (recorded) or the program,
    which takes the parameters' raw buffers (an NDArray rebinds its buffer only when a Trainer packs
    it, which bumps the data version checked here, as a Parameter given new arrays does; updates
    write into it). A dense array's class says its np-ness (``NumpyNDArray`` or ``NDArray``)."""
    cls, device, shape, dtype = x.__class__, x._device, x._data.shape, x._data.dtype
    version, training, recording = _PARAM_DATA_VERSION[0], _state.training, _state.recording
    if cls not in DENSE_CLASSES:
        return None
    raw, wrap = tuple(p._data for p in params), NDArray._wrap

    def call(x):
        if (x.__class__ is cls and x._device is device and (data := x._data).shape == shape and data.dtype == dtype
                and _PARAM_DATA_VERSION[0] == version and _state.training == training
                and _state.recording == recording):
            if recording:
                return run_train(runs, [x, *params])
            return wrap(runs(data, *raw), device, out_np)
        return None
    return call


def _fast_many(real, cargs, op_args, runs, out_np, run_train):
    """``fast_call_many``'s check and run for calls like the one of the data arrays ``real``."""
    if any(x.__class__ not in DENSE_CLASSES for x in real):
        return None
    signature = tuple((x.__class__, x._device, x._data.shape, x._data.dtype) for x in real)
    slots = [(pos, ref) for pos, (is_arg, _, ref) in enumerate(op_args) if is_arg]
    cargs = tuple(cargs)
    version, training, recording = _PARAM_DATA_VERSION[0], _state.training, _state.recording

    def call(args):
        if (_PARAM_DATA_VERSION[0] != version or _state.training != training or _state.recording != recording
                or len(args) != len(signature)):
            return None
        for x, (cls, dev, shape, dtype) in zip(args, signature):
            if x.__class__ is not cls or x._device is not dev or x._data.shape != shape or x._data.dtype != dtype:
                return None
        arrays = list(cargs)
        for pos, ref in slots:
            arrays[pos] = args[ref]
        if recording:
            return run_train(runs, arrays)
        return NDArray._wrap(runs(*[a._data for a in arrays]), args[0]._device, out_np)
    return call


def build(block, *args):
    """Trace ``block``'s graph and build its cached op for ``args`` now, as its first hybridized
    call would before running (a tool times the trace and the passes apart from the first run).

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize(); net.hybridize()
    >>> build(net, mx.nd.ones((1, 3)))
    >>> net.hybridization.cached_op is not None, net.hybridization.signatures
    (True, [])
    """
    if not block.hybridization.active:
        raise MXNetError(f"build: expected a hybridized block (call {block.name}.hybridize() first)")
    block._build_cache(*args)


@contextlib.contextmanager
def trial(block, name):
    """Inside: ``block`` and its children may be hybridized, built and called with other settings;
    on exit each gets back its attributes (hybridization state, hooks, op hook, name). Meanwhile
    every HybridBlock starts from a fresh ``HybridizationState``, forward hooks and op hooks are
    off, and the top block is named ``name`` (its events do not reach views of the block).

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
    >>> with trial(net, "trial"):
    ...     net.hybridize(static_alloc=True); _ = net(mx.nd.ones((1, 3)))
    ...     net.name, len(net.hybridization.history)
    ('trial', 1)
    >>> net.hybridization.active, len(net.hybridization.history), net.name == "trial"
    (False, 0, False)
    """
    saved = []

    def save(b):
        attrs = dict(vars(b))
        contents = {k: (v.copy() if not isinstance(v, list) else list(v)) for k, v in attrs.items()
                    if isinstance(v, (list, set, dict)) and not k.startswith("_forward")}
        saved.append((b, attrs, contents))
        b._forward_hooks, b._forward_pre_hooks = type(b._forward_hooks)(), type(b._forward_pre_hooks)()
        b._callback = None
        if "_hybridization" in attrs:
            b._hybridization = HybridizationState()
            if getattr(b, "_graph_is_the_block", False):     # a SymbolBlock has no forward to trace
                old = attrs["_hybridization"]
                b._hybridization.set_graph(old.inputs, old.graph, old.in_format, old.out_format)

    block.apply(save)
    block._name = name
    try:
        yield block
    finally:
        for b, attrs, contents in saved:
            for k, v in contents.items():
                obj = attrs[k]
                obj.clear()
                if isinstance(obj, list):
                    obj.extend(v)
                else:
                    obj.update(v)
            b.__dict__.clear()
            b.__dict__.update(attrs)


class ParameterValues:
    """The data of every initialised parameter of ``block`` as it is now; ``restore()`` writes it
    back into the same arrays. A tool that runs a block several times (``trial``) puts back what the
    runs changed: BatchNorm's statistics, an optimizer-free gradient step.

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(1, in_units=1); net.initialize()
    >>> saved = ParameterValues(net)
    >>> net.weight.data()[:] = 5
    >>> saved.restore(); float(net.weight.data().asnumpy()[0, 0]) != 5
    True
    """

    def __init__(self, block):
        self._saved = [(p, [d.copy() for d in p._data]) for p in block.collect_params().values()
                       if p._data is not None]

    def restore(self):
        for p, datas in self._saved:
            for d, old in zip(p._data, datas):
                d[:] = old
