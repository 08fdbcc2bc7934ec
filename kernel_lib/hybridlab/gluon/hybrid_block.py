"""``HybridBlock``: a Block whose computation can be turned into a graph and run as a compiled
program (``hybridize()``), in both Gluon styles:

* MXNet 1.x: define ``hybrid_forward(self, F, x, *args, **params)``. ``F`` is ``mx.nd`` when the
  block runs imperatively and ``mx.sym`` while its graph is built (the first call after
  ``hybridize()``, or ``net(mx.sym.var('data'))``); the block's Parameters come in as keyword
  arguments named like the attributes that hold them.
* MXNet 2.0: define ``forward(self, x)`` with ``mx.np``/``mx.npx`` (or ``mx.nd``) calls; the graph
  is built by tracing it with deferred compute (``mx._deferred_compute``).

After ``hybridize()``, the first call builds the graph (the input variables and the output
Symbol) and a ``CachedOp`` (``block.cached_op``; ``print`` shows the generated Python), both kept
in the block's ``HybridizationState`` (``block.hybridization``: flags, graph, signatures, programs,
build history; see ``gluon.hybridization``); how the graph is traced and the cached op built is
``gluon.hybrid_graph``. Hybridized children are traced into their parent's graph. Each build (the
first call, a new input signature, a call after the cache was invalidated) is recorded in
``block.rebuild_history`` with its reason (``print(block.rebuild_history)``: a table; see
``gluon.rebuild_history``) and published as a ``"cache_built"`` event (``hybridlab.events``).

``register_op_hook(callback, monitor_all)`` reports every op's outputs (and inputs) to
``callback(name, op_name, array)``: hybridized, through an instrumented variant of the generated
program; imperatively, per op call (``gluon.monitoring``). The profiler (``mx.profiler``) times
block calls and ops the same way. Neither costs anything while unused.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.HybridSequential()
    >>> net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> x = mx.nd.ones((1, 4))
    >>> before = net(x).asnumpy()
    >>> net.hybridize()
    >>> bool(abs(net(x).asnumpy() - before).max() < 1e-6)
    True
    >>> net.hybridization.graph.list_outputs()[0].endswith('_fwd_output')
    True
"""
import sys
import warnings
from inspect import unwrap as _inspect_unwrap

from .. import ndarray
from ..base import MXNetValueError
from ..device import current_device
from ..numpy_extension import is_np_array as _np_mode
from .. import deferred as _dc
from ..ndarray.ndarray import DENSE_CLASSES, NDArray
from ..symbol.symbol import Symbol
from ..symbol.user_traceback import escapes_to_user, full_traceback_wanted, without_package_frames
from .. import monitor_state
from ..monitor_state import quiet as _quiet
from . import monitoring as _monitoring
from .block import Block
from .hybridization import HybridizationState, signature_key
from .parameter import DeferredInitializationError
from .rebuild_history import flags_diff, note_build, note_inactive
from .hybrid_graph import build_cached_op, graph_scope, infer_attrs, symbolic_forward, trace, traced_forward
from .shape_guards import guard_broken
from .utils import _check_all_np_ndarrays, flatten, regroup, shape_is_known

__all__ = ["HybridBlock"]

_ONE = [0]    # the input format of a single array argument
_switches = monitor_state.switches    # .running: the profiler records (block calls take the monitored path)


def _gather(args):
    """(has Symbol, has NDArray, devices, first device) of nested arguments (MXNet's helper)."""
    if isinstance(args, NDArray):
        return False, True, {args.device}, args.device
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_sym = has_nd = False
        devices, first = set(), None
        for a in args:
            s, n, d, f = _gather(a)
            has_sym, has_nd, devices = has_sym or s, has_nd or n, devices | d
            first = first if first is not None else f
        return has_sym, has_nd, devices, first
    return False, False, set(), None


def _flat_inputs(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat_inputs(a)
        else:
            yield a


def _np_style(out):
    """``out`` (an NDArray or nested lists/tuples of them) viewed with ``mx.np`` semantics."""
    if isinstance(out, NDArray):
        return out if out._np else out.as_np_ndarray()
    if isinstance(out, list):
        return [_np_style(o) for o in out]
    if isinstance(out, tuple):
        items = [_np_style(o) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    return out


def _kinds(out):
    """The kinds of the arrays in ``out`` (nested lists/tuples): a set of ``_np`` flags."""
    if isinstance(out, NDArray):
        return {out._np}
    if isinstance(out, (list, tuple)):
        return set().union(*(_kinds(o) for o in out))
    return set()


def _unwrap(fn):
    """``fn`` as defined, under mx.util.use_np's scope wrappers (on every call: plain functions,
    the common case, without inspect.unwrap's loop)."""
    return _inspect_unwrap(fn) if hasattr(fn, "__wrapped__") else fn


class HybridBlock(Block):
    """A Block that can be hybridized: see the module docstring for the two styles."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hybridization = HybridizationState()

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._child_added(value, "changing the children blocks", stacklevel=3)

    def _child_added(self, child, how, stacklevel):
        """Adding a child turns hybridization off (as in MXNet 1.x) and drops the cached graph."""
        state = self._hybridization
        if state.active:
            warnings.warn(f"Currently the model has been hybridized. Automatically deactivate the "
                          f"hybridization when {how}.", stacklevel=stacklevel)
            state.active = False
            note_inactive(self, f"child {child.name} added (hybridize() again to rebuild)")
        self._clear_cached_op("child added", child.name)

    @property
    def hybridization(self):
        """This block's ``HybridizationState`` (``gluon.hybridization``): flags, traced graph,
        signatures and their programs, build history."""
        return self._hybridization

    @property
    def rebuild_history(self):
        """Why the cached op was (re)built, one record per build (``gluon.rebuild_history``)."""
        return self._hybridization.history

    # ---- style ------------------------------------------------------------------------------
    def _is_legacy(self):
        """MXNet 1.x style: ``hybrid_forward`` defined and ``forward`` not overridden."""
        cls = type(self)
        return (_unwrap(cls.forward) is HybridBlock.forward
                and _unwrap(cls.hybrid_forward) is not HybridBlock.hybrid_forward)

    @property
    def cached_op(self):
        """The CachedOp running the hybridized graph (``None`` before the first hybridized call);
        ``print(block.cached_op)`` shows its generated Python source."""
        return self._hybridization.cached_op

    # ---- calling ----------------------------------------------------------------------------
    def __call__(self, x, *args):
        __tracebackhide__ = True      # the entry frame: IPython and pytest leave it out of tracebacks
        try:
            fast = self._hybridization._fast     # the hot path: the last call's program, same signature
            if (fast is not None and not args and self._callback is None and not _switches.running
                    and not self._forward_pre_hooks and not self._forward_hooks and not _dc.state.tracing.active):
                out = fast(x)
                if out is not None:
                    if _np_mode():
                        _check_all_np_ndarrays(out)
                    return out
            if self._callback is not None or _switches.running:     # op hooks / profiler: gluon.monitoring
                out = _monitoring.call_monitored(self, self._call, (x,) + args)
            else:
                out = self._call(x, *args)
            if _np_mode():
                _check_all_np_ndarrays(out)        # np mode: a Block returns mx.np arrays only (as MXNet)
            return out
        except Exception as err:      # into user code: without hybridlab's frames (symbol.user_traceback)
            if full_traceback_wanted() or not escapes_to_user(sys._getframe(1), self):
                raise
            raise without_package_frames(err)    # hybridlab's frames left out: HYBRIDLAB_FULL_TRACEBACK=1 keeps them

    def _call(self, x, *args):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                hook(self, (x,) + args)
        forward = type(self).forward
        if forward is HybridBlock.forward or _unwrap(forward) is HybridBlock.forward:   # MXNet 1.x style
            out = self.forward(x, *args)
        else:
            out = self._call_forward_style(x, *args)
        if self._forward_hooks:
            for hook in list(self._forward_hooks.values()):
                hook(self, (x,) + args, out)
        return out

    def forward(self, x, *args):
        """MXNet 1.x dispatch: NDArrays run ``hybrid_forward(mx.nd, ...)`` (or the cached op when
        hybridized), Symbols build the graph with ``hybrid_forward(mx.sym, ...)``."""
        if self._hybridization.active and not args and x.__class__ in DENSE_CLASSES and not _dc.state.tracing.active:
            return self._call_cached_op(x)           # the hot path: one array into the cached op
        arrays_only = x.__class__ in DENSE_CLASSES
        for a in args:              # (a loop: a loss's one label, no generator frame)
            if a.__class__ not in DENSE_CLASSES:
                arrays_only = False
                break
        if arrays_only:
            first = x               # (the common call, arrays only: a loss's prediction and label)
        else:
            has_sym, has_nd, _, _ = _gather([x, *args])
            if has_sym and has_nd:
                raise ValueError(f"{self.name}: expected the inputs to be all Symbols or all NDArrays (None for "
                                 f"a missing one), got both")
            if has_sym:
                return symbolic_forward(self, x, *args)
            # the first array: an input before it may be None (an optional input, as MXNet allows)
            first = next((a for a in _flat_inputs([x, *args]) if a is not None), None)
            if first is None:
                raise ValueError(f"{self.name}: all inputs are None: expected at least one NDArray")
            if not isinstance(first, NDArray):
                raise AssertionError(f"HybridBlock requires the first argument to forward be either Symbol or "
                                     f"NDArray, but got {type(first)}")
        deferred = _dc.state.tracing.active
        if self._hybridization.active and not deferred:
            arrays = (x, *args) if arrays_only else [a for a in _flat_inputs([x, *args]) if isinstance(a, NDArray)]
            self._check_devices({a._device for a in arrays})
            return self._call_cached_op(x, *args)
        if deferred:
            out = traced_forward(self, x, *args)
        elif first._device is current_device():     # (the common call: no device scope to enter)
            out = self._imperative_forward(first._device, x, args)
        else:
            with first.device as device:
                out = self._imperative_forward(device, x, args)
        # mx.np in, mx.np out (as the cached op path: the layers' mx.nd ops give mx.nd arrays); outputs of
        # both kinds stay as they are, for __call__ to reject in np mode as MXNet does
        return _np_style(out) if first._np and len(_kinds(out)) == 1 else out

    def _imperative_forward(self, device, x, args):
        """``hybrid_forward(mx.nd, ...)`` with the parameters' arrays on ``device`` (initialized now
        where their initialization was deferred to this call)."""
        if not self._reg_params:        # (a loss: no parameters, no dictionary to build)
            return self.hybrid_forward(ndarray, x, *args)
        try:
            params = {k: p.data(device) for k, p in self._reg_params.items()}
        except DeferredInitializationError:
            self._finish_own_deferred_init(x, *args)
            params = {k: p.data(device) for k, p in self._reg_params.items()}
        return self.hybrid_forward(ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to define the computation with ``F`` (``mx.nd`` or ``mx.sym``), MXNet 1.x style."""
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x, ...) (MXNet 2.0) or "
                                  f"hybrid_forward(self, F, x, ...) (MXNet 1.x)")

    def _call_forward_style(self, *args):
        """MXNet 2.0 style: the user's ``forward`` runs imperatively, traced, or as the cached op."""
        has_sym, has_nd, devices, first = _gather(list(args))
        if has_sym:
            raise TypeError(f"{type(self).__name__} defines forward() (MXNet 2.0 style) and was called with a "
                            f"Symbol: only hybrid_forward(self, F, ...) blocks (MXNet 1.x style) can build a graph "
                            f"from Symbols. Call it with arrays (net.hybridize(); net(x)) to get its graph, or "
                            f"write it with hybrid_forward(F, ...).")
        if not has_nd:
            raise ValueError("In HybridBlock, there must be one NDArray in the input. Please check the type of "
                             "the args.\n")
        if _dc.is_deferred_compute():
            with graph_scope(self):
                return self.forward(*args)
        if self._hybridization.active:
            self._check_devices(devices)
            return self._call_cached_op(*args)
        self._finish_own_deferred_init(*args)
        return self.forward(*args)

    @staticmethod
    def _check_devices(devices):
        if len(devices) > 1:
            raise ValueError("Find multiple devices in the input, After hybridized, the HybridBlock only supports "
                             "one input device. You can print the ele.device in the input arguments to inspect "
                             f"their devices. Find all devices = {devices}")

    # ---- deferred initialisation ------------------------------------------------------------
    def _finish_own_deferred_init(self, *args):
        pending = [p for p in self._reg_params.values() if p._deferred_init]
        if not pending:
            return
        with _quiet():     # initialisation ops are not the block's ops: op hooks and the profiler skip them
            if not all(shape_is_known(p.shape) for p in pending):
                self._deferred_infer_shape(*args)
            for p in pending:
                p._finish_deferred_init()

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as e:   # MXNet's ValueError, and an MXNetError: a model's bad input is not a crash
            raise MXNetValueError(f"Deferred initialization failed because shape cannot be inferred. {e}") from e

    def infer_shape(self, *args):
        """Infer the shapes of this block's parameters from the inputs ``args`` (MXNet 1.x style: by
        the graph's shape inference; MXNet 2.0 style: by tracing ``forward`` once)."""
        if self._is_legacy():
            self._infer_attrs("infer_shape", "shape", *args)
            return
        trace(self, *args)
        unknown = [f"{k} {p.shape}" for k, p in self._reg_params.items() if not shape_is_known(p.shape)]
        if unknown:
            raise RuntimeError(f"{type(self).__name__} has parameters with unknown shape after tracing forward once: "
                               f"{', '.join(unknown)}. No op could infer them from the inputs (an op's shape "
                               f"inference fills the shapes of its direct inputs only). Specify the shape in "
                               f"__init__ or implement {type(self).__name__}.infer_shape(self, *args) to set "
                               f"the parameter shapes from the first input.")

    def infer_type(self, *args):
        """Infer the dtypes of this block's parameters from the inputs ``args``."""
        self._infer_attrs("infer_type", "dtype", *args)

    def _infer_attrs(self, infer_fn, attr, *args):
        infer_attrs(self, infer_fn, attr, *args)

    # ---- graph building (gluon.hybrid_graph) ------------------------------------------------
    def _builds_symbolically(self):
        """1.x style all the way down and not in np mode: the graph is built with ``F = mx.sym``
        (else it is traced with deferred compute, which MXNet 2.0 style children need, and which
        gives 1.x code under ``npx.set_np()`` all of ``F.np`` / ``F.npx``: mx.np's functions)."""
        return (not _np_mode()) and self._is_legacy() and all(c._builds_symbolically()
                                                              for c in self._children.values())

    def _build_cache(self, *args):
        """Trace the graph (unless traced) and create the cached op for ``args``
        (``hybrid_graph.build_cached_op``); a failure is published as ``"hybridize_error"``."""
        try:
            build_cached_op(self, *args)
        except Exception as err:
            from .. import events
            events.publish("hybridize_error", block=self.name, block_id=id(self), error=err)
            raise

    def _call_cached_op(self, *args):
        state = self._hybridization
        monitored = self._callback is not None or _switches.running
        many = len(args) > 1 and all(a.__class__ in DENSE_CLASSES for a in args)
        if not monitored:       # same array signatures and parameters as last call?
            res = state.fast_call(args[0]) if len(args) == 1 else state.fast_call_many(args) if many else None
            if res is not None:
                return res
        built_now = state.cached_op is None
        if built_now:
            self._build_cache(*args)
        if len(args) == 1 and args[0].__class__ in DENSE_CLASSES:
            flat, fmt = args, _ONE
        else:
            flat, fmt = flatten(args, "input")
        state.check_format(fmt, self.name)
        real = [a for a in flat if a is not None]
        if state.shape_reads and not built_now and signature_key(real) not in state.built \
                and guard_broken(self, real):
            return self._call_cached_op(*args)           # traced again for these inputs
        cargs = state.arguments(real)
        cop = state.cached_op
        compiled = cop.compile_count
        out = cop(*cargs) if not monitored else _monitoring.run_cached_op(self, cargs)
        if cop.compile_count != compiled:   # a program was built for this call: record why
            key = signature_key(real)
            if key not in state.built:
                note_build(self, key)
        outs = [out] if isinstance(out, NDArray) else out
        if real and real[0]._np:       # mx.np in, mx.np out (the layers' mx.nd ops give mx.nd arrays)
            for o in outs:
                if not o._np:
                    o._set_np_style(True)
        state.remember_fast(real, cargs, out, monitored, many)
        return regroup(outs, state.out_format)

    def _clear_cached_op(self, reason="first call", detail=""):
        """Drop the cached graph and op; the next call builds again, recorded with ``reason`` and
        ``detail`` (``"first call"`` adds no reason)."""
        self._hybridization.clear(reason, detail)

    # ---- configuration ----------------------------------------------------------------------
    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(f"Children of HybridBlock must also be HybridBlock, but {block} has type "
                             f"{type(block)}. If you are using Sequential, please try HybridSequential instead.")
        super().register_child(block, name)
        if "_hybridization" in self.__dict__:
            self._child_added(block, "adding new children block", stacklevel=4)

    def hybridize(self, active=True, partition_if_dynamic=True, static_alloc=False, static_shape=False,
                  inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, backend=None, clear=True,
                  keep_pipeline=False, shape_guards=True, **kwargs):
        """Activate (or deactivate) running this block and its HybridBlock children as a cached,
        compiled graph. The flags are MXNet's CachedOp flags (kept in ``hybridization.flags``). As in
        MXNet 1.9.1, other keyword arguments (backend options) and ``backend``/``clear`` are accepted and
        ignored here (``optimize_for`` applies a backend). ``keep_pipeline=True`` keeps the graph after
        each pass at every build (``hybridization.pipeline``; without it a build copies nothing and the
        pipeline is computed when first read; a ``cache_built`` listener, such as a ``GraphView``,
        asks for it too). ``shape_guards`` (hybridlab's): a call whose inputs change a shape the
        2.0-style forward read while tracing traces again (``gluon.shape_guards``); ``False`` keeps
        the traced numbers, as MXNet does, and warns.

        >>> import hybridlab as mx
        >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
        >>> net.hybridize(keep_pipeline=True); _ = net(mx.nd.ones((1, 3)))
        >>> [name for name, _ in net.hybridization.pipeline][:2]
        ['dce', 'cse']
        """
        flags = [("static_alloc", static_alloc), ("static_shape", static_shape), ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            flags.append(("backward_bulk_size", backward_bulk_size))
        state = self._hybridization
        reason, detail = "first call", ""
        was_active = state.active
        if not active:      # turned off: the flags of the next build are compared with the last active ones
            if state.history and not any(r == "hybridized again" for r, _ in state.pending):
                reason, detail = "hybridized again", "after hybridize(active=False)"
            flags = state.flags or flags
        elif state.flags and flags != state.flags:
            reason, detail = "hybridize flags changed", flags_diff(state.flags, flags)
        elif state.built and not state.pending:
            reason, detail = "hybridize called again", "same flags"
        state.active = active
        state.partition_if_dynamic = partition_if_dynamic
        state.keep_pipeline = bool(keep_pipeline)
        state.shape_guards = bool(shape_guards)
        state.flags = flags
        self._clear_cached_op(reason, detail)
        if not active and (was_active or self.rebuild_history):
            note_inactive(self, "hybridize(active=False): the cached graph is dropped, calls run imperatively")
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(f'"{self}" is being hybridized while still having forward hook/pre-hook. If "{self}" is a '
                          f'child of HybridBlock, the hooks will not take effect.', stacklevel=2)
        super().hybridize(active, partition_if_dynamic=partition_if_dynamic, static_alloc=static_alloc,
                          static_shape=static_shape, inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                          backward_bulk_size=backward_bulk_size, keep_pipeline=keep_pipeline,
                          shape_guards=shape_guards)

    def optimize_for(self, x, *args, backend=None, clear=False, partition_if_dynamic=True, static_alloc=False,
                     static_shape=False, inline_limit=2, forward_bulk_size=None, backward_bulk_size=None,
                     **backend_opts):
        """Hybridize with the graph partitioned by ``backend`` (``compiler.backends``; "default" runs the
        pass pipeline; docs/passes.md shows how to write one), building the cached op for ``x, *args``
        (recorded in ``rebuild_history`` as "optimize_for"). ``clear=True`` drops a previous backend.

        >>> import hybridlab as mx
        >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
        >>> net.optimize_for(mx.nd.ones((1, 3)), backend="default")
        >>> [name for name, _ in net.hybridization.pipeline][:2]
        ['dce', 'cse']
        """
        from ..compiler.backends import get_backend
        if backend is None and not clear:
            raise ValueError("optimize_for: expected a backend name (see hybridlab.compiler.backends), got None")
        if backend is not None:
            get_backend(backend)          # an unknown name fails here, listing the registered ones
        self.hybridize(True, partition_if_dynamic, static_alloc, static_shape, inline_limit, forward_bulk_size,
                       backward_bulk_size)
        state = self._hybridization
        state.backend, state.backend_options = backend, backend_opts
        self._clear_cached_op("optimize_for")
        state.pending = [("optimize_for", f"backend {backend}")]   # the reason even for a first build
        self._build_cache(x, *args)
        self(x, *args)

    def cast(self, dtype):
        if self._hybridization.active:
            warnings.warn("Currently the model has been hybridized. Automatically deactivate the hybridization when "
                          "cast the block to use another data type.", stacklevel=2)
            self._hybridization.active = False
            note_inactive(self, f"cast to {getattr(dtype, '__name__', dtype)} (hybridize() again to rebuild)")
        self._clear_cached_op("cast", str(getattr(dtype, "__name__", dtype)))
        super().cast(dtype)

    def register_op_hook(self, callback, monitor_all=False):
        """Install MXNet's op hook ``callback(name, op_name, array)`` here and in the children: once
        per op per call with its outputs (``<node>_output``), with ``monitor_all`` first its inputs
        (``<node>_<input name>``, or ``<node>_input<i>`` for the ops MXNet registers without input names:
        ``compiler.instrument.input_label``). See ``gluon.monitoring`` and ``compiler.instrument`` (names, the
        imperative case, a raising callback). ``callback=None`` removes it.

        >>> import hybridlab as mx
        >>> from hybridlab.gluon import nn
        >>> net = nn.Dense(2, activation='relu', in_units=3, prefix='fc_')
        >>> net.initialize()
        >>> net.hybridize()
        >>> names = []
        >>> net.register_op_hook(lambda name, op_name, arr: names.append((name, op_name)), monitor_all=True)
        >>> _ = net(mx.nd.ones((1, 3)))
        >>> names      # doctest: +NORMALIZE_WHITESPACE
        [('fc_fwd_data', 'FullyConnected'), ('fc_fwd_weight', 'FullyConnected'),
         ('fc_fwd_bias', 'FullyConnected'), ('fc_fwd_output', 'FullyConnected'),
         ('fc_relu_fwd_input0', 'Activation'), ('fc_relu_fwd_output', 'Activation')]
        """
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    # ---- export -----------------------------------------------------------------------------
    def precheck(self, *inputs):
        """Before hybridizing: every construct of this block's forward that fails or is frozen when
        hybridized, for a call on ``inputs`` (a printable ``gluon.precheck.PrecheckReport``; the block
        is left as it was).

        >>> import hybridlab as mx
        >>> net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
        >>> net.precheck(mx.nd.ones((1, 3))).verdict
        'hybridizes cleanly'
        """
        from .precheck import precheck
        return precheck(self, *inputs)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (keys ``arg:``/``aux:`` + graph names)
        that MXNet 1.9's ``SymbolBlock.imports`` loads; returns the two file names. With ``path=None``
        returns ``(symbol, {key: array})`` instead of writing."""
        from .hybrid_export import export_block
        return export_block(self, path, epoch, remove_amp_cast)
