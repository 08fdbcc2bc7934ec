"""CachedOp: a Symbol run as generated Python code, compiled once per input signature.

``CachedOp(symbol, flags)`` is called with one NDArray per ``symbol.list_inputs()`` name, in that
order. The first call with a new signature (input shapes, dtypes, device, training mode) checks the
inputs by running every node's shape/type inference, then generates and compiles one straight-line
Python function for the graph (see ``codegen``). Later calls with that signature cost one dict
lookup and one function call: no per-node dispatch, attribute parsing or shape checks.

Under ``autograd.record()`` with an input that needs a gradient, a call runs a *train forward*
(the program that also returns the intermediates the backward reads) and records ONE tape node; its
gradient runs the compiled backward program (``backward.BackwardPlan``: the gradient graph derived
on the graph IR from the registry's gradients, compiled per signature and per set of inputs that
need gradients). ``source(kind="backward")`` prints it, ``backward_symbol()`` gives its graph. The
op-by-op recorded path remains only where the backward cannot be compiled (``fallbacks`` says why)
and for ``autograd.grad(..., create_graph=True)``, whose gradient must itself be recorded.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=2, name='fc'), act_type='relu', name='act')
    >>> op = CachedOp(y, flags={'static_alloc': True})
    >>> op.input_names
    ['data', 'fc_weight', 'fc_bias']
    >>> out = op(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), mx.nd.array([-5.0, 1.0]))
    >>> out.asnumpy().tolist()
    [[0.0, 4.0], [0.0, 4.0]]
    >>> op.signatures
    [Signature(data=(2, 3) float32, fc_weight=(2, 3) float32, fc_bias=(2,) float32, device=cpu(0), predict)]
    >>> print(op)      # doctest: +ELLIPSIS
    # hybridlab cached op program: <Symbol act>
    ...
    # static_alloc: planned 32 B (buffers 16 B + per call 16 B), imperative 32 B, unplanned 32 B
    def forward(data, fc_weight, fc_bias):
        # fc = FullyConnected -> (2, 2) float32 ...
        fc = add(dot(data, transposed(fc_weight), out=buf0_n0), fc_bias, out=buf0_n0)
        # act = Activation -> (2, 2) float32 ...
        act = maximum(fc, 0)
        del fc
        return act

Training through it: one tape node per call, its gradient the compiled backward program (pruned to
the gradients needed: here only the weight's)::

    >>> w = mx.nd.ones((2, 3)); w.attach_grad()
    >>> with mx.autograd.record():
    ...     out = op(mx.nd.ones((2, 3)), w, mx.nd.array([-5.0, 1.0]))
    >>> out.backward()
    >>> w.grad.asnumpy().tolist()
    [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]
    >>> print(op.source(kind="backward"))      # doctest: +ELLIPSIS
    # hybridlab cached op backward program: <Symbol act>
    ...
    def backward(act_output_head_grad, act_output, data):
    ...
        return fc_backward_dot1
    <BLANKLINE>
    >>> op.backward_symbol().list_inputs()
    ['act_output_head_grad', 'act_output', 'data']
"""
import os
import time

from .. import monitor_state
from ..autograd import state as autograd_state
from ..base import MXNetError
from ..device import current_device
from ..ndarray.ndarray import NDArray
from ..ops import cached_op as _cached_op_def
from ..symbol.graph import topo_order
from ..symbol.subgraph_inline import expand
from ..symbol.symbol import Symbol
from .codegen import compile_program, make_entry
from .flags import parse_flags
from .instrument import run_nodes, run_program
from .memory import ArenaPool, plan_graph
from .partitioned import partition_dynamic
from .passes import PREDICT_PASSES, run_pipeline
from .passes.layout import applies as layout_applies, plan_layouts
from .program_error import program_error
from .recording import RecordedCalls, TapeOp, needs_record
from .signature import Signature

__all__ = ["CachedOp"]

_state = autograd_state.flags

USE_PREDICT_PASSES = os.environ.get("HYBRIDLAB_PREDICT_PASSES", "1").strip() != "0"   # read at import
MAX_PROGRAMS = 128     # oldest signatures are dropped beyond this (each program is small, but unbounded
                       # growth with ever-changing shapes would leak)


class CachedOp(RecordedCalls):
    """Run ``symbol`` as a compiled program per input signature.

    ``flags``: MXNet's hybridize flags (``static_alloc``, ``static_shape``, ``inline_limit``,
    ``forward_bulk_size``, ``backward_bulk_size``, ``data_indices``, ``param_indices``), kept in
    ``self.flags``. ``on_compile(program, reason)``, if given, is called after each new program is
    built (``reason`` says which signature change caused it). ``keep_pipeline``: keep the graph
    after each pass while building (else ``pipeline`` computes it when first read);
    ``backend_stages``: ``[(name, Symbol)]`` a backend ran before (shown first in ``pipeline``);
    ``passes``: the passes to run (names from ``passes.PASSES``; ``None``: ``DEFAULT_PASSES``), which
    the debugging tools vary to find the pass that changes a result.

    Call with one NDArray per ``input_names`` entry; returns an NDArray for a single-output symbol,
    else a list. ``source()`` / ``print(op)`` show the generated code of the latest signature,
    ``signatures`` lists the compiled ones, ``program(sig)`` gives the compiled ``Program``.
    """

    def __init__(self, symbol, flags=None, on_compile=None, partition_if_dynamic=True, keep_pipeline=False,
                 backend_stages=(), passes=None):
        symbol = expand(symbol)   # _CachedOp nodes (get_symbol's hybridized calls): the ops of their graphs
        self.symbol = symbol
        self.passes = passes      # run_pipeline's passes (None: the default pipeline)
        self.flags = parse_flags(flags)
        self.on_compile = on_compile
        self.keep_pipeline = bool(keep_pipeline)
        self.compile_count = 0   # programs compiled so far: callers detect a (re)build cheaply
        self._pools = {}         # device -> ArenaPool: static_alloc buffers shared by this op's plans
        self.memory_plans = {}   # signature key -> MemoryPlan (static_alloc)
        traced = topo_order(symbol._outputs)      # once: every question below about the traced graph
        dynamic = [n.name for n in traced if not n.is_variable and n.op.dynamic_shape]
        # partition_if_dynamic: ops whose output shape depends on values (boolean_mask) cannot be
        # compiled ahead of the call: the graph is split around them (compiler.partitioned)
        self._partition = partition_dynamic(symbol, inline_limit=self.flags.get("inline_limit", 2)) \
            if dynamic else None
        if self._partition is not None and not partition_if_dynamic:
            raise MXNetError(f"CachedOp: the graph has ops with value-dependent output shapes "
                             f"({', '.join(dynamic)}); "
                             f"expected hybridize(partition_if_dynamic=True) to run it split around them")
        self._backend_stages = list(backend_stages)
        self._predict = None     # (outputs, inputs, ops) predict programs run, when the predict passes changed it
        # the layout plan (per predict signature, passes/layout.py) goes with the predict passes
        self._plan_layouts = passes is None and USE_PREDICT_PASSES
        if self._partition is None:
            self._outputs, self._inputs, self._ops, stages = _optimized(symbol, traced, self.keep_pipeline,
                                                                        passes)
            if passes is None and USE_PREDICT_PASSES:
                self._predict, predict_stages = _predict_graph(self._outputs, self._inputs, self.keep_pipeline)
                stages = stages + predict_stages if stages is not None else None
        else:
            self._outputs, self._inputs, stages = list(symbol._outputs), [n for n in traced if n.is_variable], []
            self._ops = [n for n in traced if not n.is_variable]
        # the graph after each pass: kept now when asked, else built on the first read (see pipeline)
        self._pipeline = self._backend_stages + stages if stages is not None else None
        self._traced_outputs = list(symbol._outputs)
        by_name = {n.name: n for n in traced if n.is_variable}
        self._traced_inputs = [by_name[n.name] for n in self._inputs]
        self.input_names = [n.name for n in self._inputs]
        # arguments are bound by name (hybridize, export, bind): one variable per name
        if len(set(self.input_names)) != len(self.input_names):
            twice = sorted({n for n in self.input_names if self.input_names.count(n) > 1})
            raise MXNetError(f"CachedOp: the graph has several different variables named {twice}; expected one "
                             f"variable per name (reuse the same mx.sym.var for every use)")
        self._n_inputs = len(self._inputs)
        self._single = len(self._outputs) == 1
        self._programs = {}      # signature key -> Program, in compile order
        self._fns = {}           # signature key -> Program.fn (what the entry looks up)
        self._latest = None
        self._plans = {}         # (signature key, gradient mask) -> BackwardPlan
        self._probes = {}        # signature key -> the probe Program (see probe)
        self._latest_plan = None
        self.layout_stage = None     # ("layout", Symbol) of the latest predict program with a layout plan
        self.fallbacks = {}      # (signature key, gradient mask) -> why the op-by-op recorded path runs
        self._tape_op = TapeOp(f"CachedOp({symbol!r})", self._tape_grad, self)
        self._entry = make_entry(self._n_inputs, _state, self._fns.get, self._miss) if self._inputs else None

    # ---- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if "out" in kwargs:
            return self._call_out(kwargs.pop("out"), args, kwargs)
        if self._partition is not None:
            return self._call_partitioned(args)
        default_device = _default_device(kwargs) if kwargs else None
        if _state.recording and needs_record(args):
            return self._call_train(args, default_device)
        if len(args) != self._n_inputs:
            raise self._count_error(args)
        if not args:
            return self._call_no_inputs(default_device)
        try:
            res = self._entry(*args)   # key lookup + program call (generated: see codegen.make_entry)
        except Exception as err:
            for x in args:
                if x.__class__ is not NDArray and not isinstance(x, NDArray):
                    raise self._type_error(args) from None
            raise program_error(err) from err.__cause__
        x0 = args[0]
        if self._single:
            return NDArray._wrap(res, x0._device, x0._np)
        return [NDArray._wrap(r, x0._device, x0._np) for r in res]

    def _call_out(self, out, args, kwargs):
        """MXNet's ``op(*args, out=arrays)``: the results written into ``out`` (an NDArray, or one per
        output), which is returned."""
        res = self(*args, **kwargs)
        if out is None:
            return res
        targets = [out] if isinstance(out, NDArray) else list(out)
        results = [res] if self._single else res
        if len(targets) != len(results):
            raise MXNetError(f"CachedOp: out expected {len(results)} arrays (one per output), got {len(targets)}")
        for t, r in zip(targets, results):
            r.copyto(t)
        return out

    def _call_partitioned(self, args):
        if len(args) != self._n_inputs:
            raise self._count_error(args)
        outs = self._partition(dict(zip(self.input_names, args)))
        return outs[0] if self._single else list(outs)

    def program_fn(self, args):
        """The compiled function for NDArrays ``args`` (taking their raw arrays, returning raw
        results), or ``None`` when that signature is not compiled: lets a caller that already knows
        the signature is unchanged skip the lookup (HybridBlock's fast path)."""
        return self._fns.get(_key(args)) if args and self._partition is None else None

    def train_plan(self, args):
        """The ``BackwardPlan`` a recorded call with the NDArrays ``args`` runs (for their signature
        and the inputs among them that need gradients), if one was built; else ``None``."""
        return self._plans.get((_key(args), autograd_state.gradient_mask(args)))

    def program_for(self, args):
        """The plain Program for the NDArrays ``args`` (inputs in ``input_names`` order), compiled
        now if that signature is new (see :meth:`program` for compiled signatures)."""
        key = _key(args)
        prog = self._programs.get(key)
        return prog if prog is not None else self._compile(key, args, None)

    def probe(self, args, monitor):
        """Run the optimized program for the NDArrays ``args`` with ``monitor.enter(k, inputs)`` /
        ``monitor.exit(k, outputs)`` (raw arrays, ``k`` indexing ``monitor.nodes``, the optimized
        graph's op nodes) around every statement: the very statements the plain program runs
        (inlined expressions, fused kernels, static_alloc's planned buffers, which the next statement
        may overwrite: copy what you keep), unlike op hooks, which see the graph as traced. Returns
        what ``self(*args)`` would. The debugging tools compare per-node values with it
        (``gluon.consistency``); a graph split around dynamic-shape ops has no single program."""
        prog = self.probe_program(args)
        x0 = args[0]
        monitor.start(prog.nodes, x0._device)
        try:
            with monitor_state.quiet():
                res = prog.fn(*[x._data for x in args], monitor)
        except Exception as err:
            raise program_error(err) from err.__cause__
        if self._single:
            return NDArray._wrap(res, x0._device, x0._np)
        return [NDArray._wrap(r, x0._device, x0._np) for r in res]

    def probe_program(self, args):
        """The Program ``probe`` runs for the NDArrays ``args`` (compiled on first use, then kept):
        the plain program's graph, signature and memory plan, instrumented with its inline rules
        kept. ``print(op.probe_program(args))`` shows its source."""
        if self._partition is not None:
            raise MXNetError("CachedOp.probe: the graph is split around dynamic-shape ops "
                             f"({', '.join(s.kind for s in self._partition.segments)} segments); expected a graph "
                             f"compiled as one program")
        key = self._checked_key(args, None)
        prog = self._probes.get(key)
        if prog is None:
            plain = self._programs[key]
            plan = self.memory_plans.get(key)
            memory = (plan, self._pools[plain.signature.device]) if plan is not None else None
            outputs, inputs, ops = self._graph(key[0])
            prog = self._probes[key] = compile_program(
                outputs, inputs, plain.signature, plain.shapes, plain.dtypes, title=repr(self.symbol),
                instrument=True, inline=True, memory=memory, nodes=ops)
        return prog

    def _miss(self, *args):
        """No program found by the entry's fast lookup: look again with device equality (inputs on
        equal but distinct Device objects), else check the inputs and compile."""
        key = _key(args)
        fn = self._fns.get(key)
        if fn is None or any(x._device != args[0]._device for x in args):
            fn = self._compile(key, args, None).fn
        return fn(*[x._data for x in args])

    def call_monitored(self, args, monitor, label="", per_node=False):
        """Call on the NDArrays ``args`` with ``monitor`` (a ``compiler.instrument`` monitor: op
        hooks, the profiler, or a chain of both) around every op; returns what ``self(*args)``
        would. Outside ``autograd.record()`` the instrumented variant of the program runs. Recording
        with inputs that need gradients, the instrumented train forward runs and its ONE tape node's
        backward is timed under ``label`` when the profiler runs; with ``per_node`` the graph runs op
        by op instead, so that every value (and its gradient) is an NDArray a hook may keep.
        ``gluon.monitoring`` calls this for blocks with an op hook or while the profiler runs.

        Example::

            >>> import hybridlab as mx
            >>> from hybridlab.compiler.instrument import HookMonitor
            >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix="fc_")
            >>> net.initialize(); net.hybridize()
            >>> x = mx.nd.ones((1, 3)); _ = net(x)
            >>> params = {p.name: p.data() for p in net.collect_params().values()}
            >>> args = [params.get(name, x) for name in net.cached_op.input_names]
            >>> seen = []
            >>> _ = net.cached_op.call_monitored(args, HookMonitor(lambda name, op, arr: seen.append(name)))
            >>> seen
            ['fc_fwd_output']
        """
        if _state.recording and needs_record(args):
            if per_node:
                return run_nodes(self, args, monitor)
            if self._partition is not None or not args:
                return self(*args)
            return self._call_train(args, None, monitor=monitor, label=label)
        return run_program(self, args, monitor)

    def _call_no_inputs(self, default_device):
        device = default_device or current_device()
        key = (_state.training, device)
        prog = self._programs.get(key) or self._compile(key, (), device)
        res = prog.fn()
        if self._single:
            return NDArray._wrap(res, device)
        return [NDArray._wrap(r, device) for r in res]

    def _checked_key(self, args, default_device):
        """The signature key of ``args`` after checking them (types, count; compiling the signature
        checks shapes, dtypes and devices once and names the input on error)."""
        for x in args:
            if not isinstance(x, NDArray):
                raise self._type_error(args)
        if len(args) != self._n_inputs:
            raise self._count_error(args)
        key = _key(args)
        if key not in self._programs:
            self._compile(key, args, default_device)
        return key

    # ---- compiling --------------------------------------------------------------------------
    def _compile(self, key, args, default_device):
        start = time.perf_counter()
        prog = self._compile_signature(key, args, default_device)
        prog.compile_seconds = time.perf_counter() - start     # inference + codegen, for build records
        return prog

    def _compile_signature(self, key, args, default_device):
        self.compile_count += 1
        if args:
            device = args[0]._device
            for name, x in zip(self.input_names, args):
                if x._device != device:
                    raise MXNetError(f"CachedOp: all inputs must be on one device: expected {device} (input "
                                     f"'{self.input_names[0]}'), got {x._device} for input '{name}'")
        else:
            device = default_device or current_device()
        sig = Signature(self.input_names, [x.shape for x in args], [x.dtype for x in args], device, key[0])
        shapes, dtypes = sig.infer(self._outputs, self._inputs, self._ops)   # once per signature
        outputs, inputs, ops = self._graph(key[0])
        if ops is not self._ops:     # the predict graph; the tables keep the training graph's entries too,
            more = sig.infer(outputs, inputs, ops)    # for a backward under record(train_mode=False)
            shapes, dtypes = {**shapes, **more[0]}, {**dtypes, **more[1]}
        block = layout_applies(ops, device) if self._plan_layouts and not key[0] else 0
        planned = plan_layouts(outputs, shapes, dtypes, block) if block else None
        if planned is not None:      # values kept in oneDNN's blocked layout (passes/layout.py)
            outputs = planned[0]
            order = topo_order(outputs)
            by_name = {n.name: n for n in order if n.is_variable}
            inputs, ops = [by_name.get(n.name, n) for n in inputs], [n for n in order if not n.is_variable]
            more = sig.infer(outputs, inputs, ops)
            shapes, dtypes = {**shapes, **more[0]}, {**dtypes, **more[1]}
            self.layout_stage = ("layout", Symbol(outputs))
        memory = None
        if self.flags.get("static_alloc") and not key[0]:   # predict programs reuse planned buffers
            plan = plan_graph(outputs, shapes, dtypes, nodes=ops)
            memory = (plan, self._pools.setdefault(device, ArenaPool()))
            self.memory_plans[key] = plan
        prog = compile_program(outputs, inputs, sig, shapes, dtypes, title=repr(self.symbol),
                               memory=memory, nodes=ops)
        # op hooks and the profiler run the instrumented variant of the graph as traced (every op
        # visible under its own name), not the pipeline's rewrite (fused nodes)
        prog._gen = (self._traced_outputs, self._traced_inputs, {"signature": sig, "title": repr(self.symbol)})
        reason = self._reason(sig)
        if len(self._programs) >= MAX_PROGRAMS:
            old_key = next(iter(self._programs))
            self._programs.pop(old_key)
            self._fns.pop(old_key, None)
            self._probes.pop(old_key, None)
            for k in [k for k in self._plans if k[0] == old_key]:
                del self._plans[k]
        self._programs[key] = prog
        self._fns[key] = prog.fn
        self._latest = prog
        if self.on_compile is not None:
            self.on_compile(prog, reason)
        return prog

    def _graph(self, training):
        """``(outputs, inputs, op nodes)`` of the graph the programs of mode ``training`` run: the
        pipeline's result, or for predict programs the graph after the predict passes."""
        if training or self._predict is None:
            return self._outputs, self._inputs, self._ops
        return self._predict

    def _reason(self, sig):
        if self._latest is None:
            return "first call"
        old = self._latest.signature
        changes = [f"{n} {s0} {d0} -> {s1} {d1}" for n, s0, d0, s1, d1 in
                   zip(sig.names, old.shapes, old.dtypes, sig.shapes, sig.dtypes) if (s0, d0) != (s1, d1)]
        if old.device != sig.device:
            changes.append(f"device {old.device} -> {sig.device}")
        if old.training != sig.training:
            changes.append("training mode" if sig.training else "prediction mode")
        return "new input signature: " + ("; ".join(changes) or "seen before, dropped from the cache")

    def _count_error(self, args):
        return MXNetError(f"CachedOp expects {self._n_inputs} inputs ({', '.join(self.input_names) or 'none'}), "
                          f"got {len(args)}")

    def _type_error(self, args):
        for name, x in zip(self.input_names, args):
            if not isinstance(x, NDArray):
                return MXNetError(f"CachedOp: input '{name}' expected an NDArray, got {type(x).__name__}")
        return MXNetError(f"CachedOp expects {self._n_inputs} NDArray inputs "
                          f"({', '.join(self.input_names) or 'none'}), got {len(args)}")

    # ---- inspection -------------------------------------------------------------------------
    @property
    def pipeline(self):
        """The graph after each pass, ``[(pass name, Symbol)]`` (a backend's stages first, see
        ``optimize_for``), for the graph view. Copying the graph after every pass costs more than
        the passes, so a build keeps these snapshots only when asked (``keep_pipeline=True``:
        ``hybridize(keep_pipeline=True)``, or a ``cache_built`` listener such as a ``GraphView``);
        otherwise the first read runs the passes again, with snapshots, on the traced graph (the
        passes are deterministic: same graphs) and keeps the result. The layout plan of the latest
        predict signature that has one comes last (``"layout"``, ``passes/layout.py``).

        >>> import hybridlab as mx
        >>> from hybridlab.compiler import CachedOp
        >>> y = mx.sym.relu(mx.sym.exp(mx.sym.var('x')), name='act')
        >>> op = CachedOp(y)
        >>> op._pipeline is None                     # nobody asked: no copies were made
        True
        >>> [name for name, _ in op.pipeline]        # asked now: computed and kept
        ['dce', 'cse', 'constant_folding', 'pool_first', 'fusion', 'inplace']
        >>> [name for name, _ in CachedOp(y, keep_pipeline=True)._pipeline][-1]
        'inplace'
        """
        if self._pipeline is None:
            stages = []
            if self._partition is None:
                outputs, inputs, _, stages = _optimized(self.symbol, topo_order(self.symbol._outputs), True,
                                                        self.passes)
                if self._predict is not None:
                    stages = stages + _predict_graph(outputs, inputs, True)[1]
            self._pipeline = self._backend_stages + stages
        # the layout plan depends on the input shapes: the latest planned signature's graph comes last
        return self._pipeline + [self.layout_stage] if self.layout_stage is not None else self._pipeline

    @pipeline.setter
    def pipeline(self, stages):
        self._pipeline = list(stages)

    @property
    def signatures(self):
        """The compiled input signatures, oldest first."""
        return [p.signature for p in self._programs.values()]

    def program(self, signature=None):
        """The compiled ``Program`` of ``signature`` (a ``Signature`` or an index into
        ``signatures``; default: the latest compiled one)."""
        if signature is None:
            if self._latest is None:
                raise MXNetError("CachedOp has not compiled anything yet: call it once with its inputs "
                                 f"({', '.join(self.input_names) or 'none'})")
            return self._latest
        progs = list(self._programs.values())
        if isinstance(signature, int):
            return progs[signature]
        for p in progs:
            if p.signature == signature:
                return p
        raise MXNetError(f"CachedOp: no program for {signature}; compiled: {self.signatures}")

    def source(self, signature=None, kind="forward"):
        """The generated Python source of ``signature``'s program (default: the latest one).
        ``kind``: ``"forward"`` (the inference/plain program), ``"train_forward"`` (the forward that
        also returns what the backward reads) or ``"backward"`` (both exist once the op ran under
        ``autograd.record()`` with inputs that need gradients)."""
        if kind == "forward":
            return self.program(signature).source
        if kind not in ("backward", "train_forward"):
            raise MXNetError(f"CachedOp.source: kind expected 'forward', 'train_forward' or 'backward', "
                             f"got {kind!r}")
        plan = self.backward_plan(signature)
        return (plan.backward if kind == "backward" else plan.forward).source

    def backward_plan(self, signature=None):
        """The ``BackwardPlan`` of ``signature`` (default: the latest one built)."""
        plans = list(self._plans.values())
        if signature is None and self._latest_plan is not None:
            return self._latest_plan
        if signature is not None:
            sig = self.program(signature).signature
            for plan in reversed(plans):
                if plan.forward.signature == sig:
                    return plan
        where_ = f" for {signature}" if signature is not None else ""
        why = f"; op-by-op fallbacks: {list(self.fallbacks.values())}" if self.fallbacks else ""
        raise MXNetError(f"CachedOp has no compiled backward{where_}: expected a call under autograd.record() "
                         f"with inputs that need gradients (attach_grad) first, got none{why}")

    def backward_symbol(self, signature=None):
        """The backward graph (a ``Symbol`` whose outputs are the input gradients; its variables are
        the saved forward values and ``<output>_head_grad``) of ``signature`` (default: latest)."""
        return self.backward_plan(signature).symbol

    def __str__(self):
        if self._latest is None:
            return f"{self!r}\n(nothing compiled yet: the program is generated on the first call)"
        return self._latest.source

    def __repr__(self):
        return f"<CachedOp {self.symbol!r}: {len(self._programs)} compiled signature(s)>"


def _optimized(symbol, traced, snapshots, passes=None):
    """The graph the programs are generated from: ``symbol`` (whose nodes in order are ``traced``)
    after the pass pipeline (DCE, CSE, constant folding, elementwise fusion, in-place marks):
    ``(outputs, inputs in symbol's input order, op nodes in order, stages)``; ``stages`` are the
    graph after each pass when ``snapshots``, else ``None`` (not kept). Passes keep every
    variable (each one is read by an output of the traced graph), so the inputs match by name."""
    original = [n.name for n in traced if n.is_variable]
    optimized, stages = run_pipeline(symbol, passes=passes, snapshots=snapshots)
    outputs = list(optimized._outputs)
    order = topo_order(outputs)
    by_name = {n.name: n for n in order if n.is_variable}
    return outputs, [by_name[n] for n in original], [n for n in order if not n.is_variable], \
        stages if snapshots else None


def _predict_graph(outputs, inputs, snapshots):
    """The graph predict programs run: the pipeline's result (``outputs``, ``inputs``) after the
    predict passes (``passes.PREDICT_PASSES``: BatchNorm folding, conv + relu, 1x1 convolutions as
    matrix products), as ``((outputs, inputs, op nodes), stages)``; ``(None, [])`` when they change
    nothing (most graphs have no op with an ``Epilogue``, such as a convolution), so predict and
    training programs share one graph."""
    order = topo_order(outputs)
    if not any(not n.is_variable and n.op.epilogue is not None for n in order):
        return None, []
    optimized, stages = run_pipeline(Symbol(outputs), passes=PREDICT_PASSES, snapshots=snapshots)
    if not any("epilogue" in n.meta for n in optimized._nodes() if not n.is_variable):
        return None, []
    new_outputs = list(optimized._outputs)
    new_order = topo_order(new_outputs)
    by_name = {n.name: n for n in new_order if n.is_variable}
    # an input the predict graph no longer reads (fix_gamma's gamma) stays an argument of its programs
    return (new_outputs, [by_name.get(n.name, n) for n in inputs], [n for n in new_order if not n.is_variable]), \
        stages


def _key(args):
    """The signature key the generated entry computes: (training, device, shape0, dtype0, ...)."""
    key = [_state.training, args[0]._device]
    for x in args:
        key += (x._data.shape, x._data.dtype)
    return tuple(key)


def _default_device(kwargs):
    kwargs = dict(kwargs)
    device = kwargs.pop("default_device", None) or kwargs.pop("default_ctx", None)
    if kwargs:
        raise MXNetError(f"CachedOp got unexpected keyword arguments {sorted(kwargs)}; expected "
                         f"default_device (or default_ctx)")
    return device


def _run_subgraph(ctx, symbol, arrays):
    """The output arrays of ``symbol`` run on the raw input ``arrays`` (in ``list_inputs`` order):
    the computation of a directly called ``_CachedOp`` (``ops/cached_op.py``), not recorded."""
    from .interpreter import Interpreter
    graph = expand(symbol)
    names = symbol.list_inputs()
    feed = {n: NDArray._wrap(x, ctx.device) for n, x in zip(names, arrays)}
    with autograd_state.Scope(False, ctx.is_train):
        outs = Interpreter(graph).run(feed)
    return [o._data for o in outs]


_cached_op_def.hooks["run"] = _run_subgraph
