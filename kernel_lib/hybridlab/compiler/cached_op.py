"""CachedOp: a Symbol run as generated Python code, compiled once per input signature.

``CachedOp(symbol, flags)`` is called with one NDArray per ``symbol.list_inputs()`` name, in that
order. The first call with a new signature (input shapes, dtypes, device, training mode) checks the
inputs by running every node's shape/type inference, then generates and compiles one straight-line
Python function for the graph (see ``codegen``). Later calls with that signature cost one dict
lookup and one function call: no per-node dispatch, attribute parsing or shape checks.

Under ``autograd.record()`` with an input that needs a gradient, the graph runs node by node through
the imperative dispatcher instead, so autograd records every op and ``backward`` works.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp
    >>> x = mx.sym.var('data')
    >>> y = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=2, name='fc'), act_type='relu', name='act')
    >>> op = CachedOp(y, flags={'static_alloc': True})
    >>> op.input_names
    ['data', 'fc_weight', 'fc_bias']
    >>> out = op(mx.nd.ones((1, 3)), mx.nd.ones((2, 3)), mx.nd.array([-5.0, 1.0]))
    >>> out.asnumpy().tolist()
    [[0.0, 4.0]]
    >>> op.signatures
    [Signature(data=(1, 3) float32, fc_weight=(2, 3) float32, fc_bias=(2,) float32, device=cpu(0), predict)]
    >>> print(op)      # doctest: +ELLIPSIS
    # hybridlab cached op program: <Symbol act>
    ...
    def forward(data, fc_weight, fc_bias):
        # fc = FullyConnected -> (1, 2) float32 ...
        fc = FullyConnected(ctx, attrs0, data, fc_weight, fc_bias)
        # act = Activation -> (1, 2) float32 ...
        act = Activation(ctx, attrs1, fc)
        del fc
        return act
"""
from .. import autograd
from ..base import MXNetError
from ..device import current_device
from ..ndarray.ndarray import NDArray
from ..symbol.graph import topo_order
from .codegen import compile_program, make_entry
from .signature import Signature, infer_graph, where

__all__ = ["CachedOp", "FLAG_DEFAULTS"]

_state = autograd._state

# MXNet's CachedOpConfig fields and defaults (src/imperative/cached_op.h). Accepted and kept;
# memory planning (static_alloc/static_shape) and bulking are not implemented by this compiler yet.
FLAG_DEFAULTS = {"static_alloc": False, "static_shape": False, "is_dynamic": False, "inline_limit": 2,
                 "forward_bulk_size": 15, "backward_bulk_size": 15, "data_indices": (),
                 "param_indices": (), "subgraph": ""}
MAX_PROGRAMS = 128     # oldest signatures are dropped beyond this (each program is small, but unbounded
                       # growth with ever-changing shapes would leak)


def _flag_value(key, value):
    default = FLAG_DEFAULTS[key]
    if isinstance(default, bool):
        if isinstance(value, str):
            if value.strip().lower() not in ("true", "false", "1", "0"):
                raise MXNetError(f"CachedOp flag '{key}' expected a boolean, got {value!r}")
            return value.strip().lower() in ("true", "1")
        return bool(value)
    if isinstance(default, int):
        return int(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            return tuple(int(v) for v in value.strip("()[] ").split(",") if v.strip())
        return tuple(int(v) for v in (value or ()))
    return str(value)


def parse_flags(flags):
    """MXNet's hybridize flags (a dict or a list of (key, value) pairs) with defaults filled in."""
    items = flags.items() if isinstance(flags, dict) else (flags or ())
    out = dict(FLAG_DEFAULTS)
    for key, value in items:
        if key not in FLAG_DEFAULTS:
            raise MXNetError(f"Cannot find argument '{key}', Possible Arguments: "
                             f"{', '.join(FLAG_DEFAULTS)} (CachedOp flags)")
        out[key] = _flag_value(key, value)
    if out["static_shape"] and not out["static_alloc"]:
        raise MXNetError("static_alloc must be True when static_shape is True")
    return out


class CachedOp:
    """Run ``symbol`` as a compiled program per input signature.

    ``flags``: MXNet's hybridize flags (``static_alloc``, ``static_shape``, ``inline_limit``,
    ``forward_bulk_size``, ``backward_bulk_size``, ``data_indices``, ``param_indices``), kept in
    ``self.flags``. ``on_compile(program, reason)``, if given, is called after each new program is
    built (``reason`` says which signature change caused it).

    Call with one NDArray per ``input_names`` entry; returns an NDArray for a single-output symbol,
    else a list. ``source()`` / ``print(op)`` show the generated code of the latest signature,
    ``signatures`` lists the compiled ones, ``program(sig)`` gives the compiled ``Program``.
    """

    def __init__(self, symbol, flags=None, on_compile=None):
        self.symbol = symbol
        self.flags = parse_flags(flags)
        self.on_compile = on_compile
        self._outputs = list(symbol._outputs)
        nodes = topo_order(self._outputs)
        self._inputs = [n for n in nodes if n.is_variable]
        self._ops = [n for n in nodes if not n.is_variable]
        self.input_names = [n.name for n in self._inputs]
        self._n_inputs = len(self._inputs)
        self._single = len(self._outputs) == 1
        self._programs = {}      # signature key -> Program, in compile order
        self._fns = {}           # signature key -> Program.fn (what the entry looks up)
        self._by_file = {}       # generated file name -> Program (to name a failing node)
        self._latest = None
        self._entry = make_entry(self._n_inputs, _state, self._fns.get, self._miss) if self._inputs else None

    # ---- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        default_device = _default_device(kwargs) if kwargs else None
        if _state.recording and _needs_record(args):
            return self._call_recorded(args, default_device)
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
            _add_node_note(err, self._by_file)
            raise
        x0 = args[0]
        if self._single:
            return NDArray._wrap(res, x0._device, x0._np)
        return [NDArray._wrap(r, x0._device, x0._np) for r in res]

    def _miss(self, *args):
        """No program found by the entry's fast lookup: look again with device equality (inputs on
        equal but distinct Device objects), else check the inputs and compile."""
        key = _key(args)
        fn = self._fns.get(key)
        if fn is None or any(x._device != args[0]._device for x in args):
            fn = self._compile(key, args, None).fn
        return fn(*[x._data for x in args])

    def _call_no_inputs(self, default_device):
        device = default_device or current_device()
        key = (_state.training, device)
        prog = self._programs.get(key) or self._compile(key, (), device)
        res = prog.fn()
        if self._single:
            return NDArray._wrap(res, device)
        return [NDArray._wrap(r, device) for r in res]

    def _call_recorded(self, args, default_device):
        """Node by node through the imperative dispatcher, so autograd records every op."""
        from ..ndarray.dispatch import invoke
        for x in args:
            if not isinstance(x, NDArray):
                raise self._type_error(args)
        if len(args) != self._n_inputs:
            raise self._count_error(args)
        key = _key(args)
        if key not in self._programs:
            self._compile(key, args, default_device)   # checks the inputs once, names them on error
        values = {(id(n), 0): x for n, x in zip(self._inputs, args)}
        for node in self._ops:
            ins = []
            for src, i in node.inputs:
                v = values.get((id(src), i))
                if v is None:
                    raise MXNetError(f"CachedOp: node '{node.name}' reads hidden output {i} of node "
                                     f"'{src.name}', which the recorded (autograd) path cannot provide")
                ins.append(v)
            try:
                out = invoke(node.op, ins, node.attrs)
            except MXNetError as err:
                raise MXNetError(f"{err} [in node '{node.name}'{where(node)}]") from None
            if isinstance(out, list):
                for i, o in enumerate(out):
                    values[(id(node), i)] = o
            else:
                values[(id(node), 0)] = out
        outs = [values[(id(n), i)] for n, i in self._outputs]
        return outs[0] if self._single else outs

    # ---- compiling --------------------------------------------------------------------------
    def _compile(self, key, args, default_device):
        if args:
            device = args[0]._device
            for name, x in zip(self.input_names, args):
                if x._device != device:
                    raise MXNetError(f"CachedOp: all inputs must be on one device: expected {device} (input "
                                     f"'{self.input_names[0]}'), got {x._device} for input '{name}'")
        else:
            device = default_device or current_device()
        sig = Signature(self.input_names, [x.shape for x in args], [x.dtype for x in args], device, key[0])
        shapes, dtypes = infer_graph(self._outputs, self._inputs, sig)
        prog = compile_program(self._outputs, self._inputs, sig, shapes, dtypes, title=repr(self.symbol))
        reason = self._reason(sig)
        if len(self._programs) >= MAX_PROGRAMS:
            old_key = next(iter(self._programs))
            self._by_file.pop(self._programs.pop(old_key).filename, None)
            self._fns.pop(old_key, None)
        self._programs[key] = prog
        self._fns[key] = prog.fn
        self._by_file[prog.filename] = prog
        self._latest = prog
        if self.on_compile is not None:
            self.on_compile(prog, reason)
        return prog

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

    def source(self, signature=None):
        """The generated Python source of ``signature``'s program (default: the latest one)."""
        return self.program(signature).source

    def __str__(self):
        if self._latest is None:
            return f"{self!r}\n(nothing compiled yet: the program is generated on the first call)"
        return self._latest.source

    def __repr__(self):
        return f"<CachedOp {self.symbol!r}: {len(self._programs)} compiled signature(s)>"


def _key(args):
    """The signature key the generated entry computes: (training, device, shape0, dtype0, ...)."""
    key = [_state.training, args[0]._device]
    for x in args:
        key += (x._data.shape, x._data.dtype)
    return tuple(key)


def _needs_record(args):
    for x in args:
        if getattr(x, "_node", None) is not None or getattr(x, "_grad_req", "null") != "null":
            return True
    return False


def _default_device(kwargs):
    kwargs = dict(kwargs)
    device = kwargs.pop("default_device", None) or kwargs.pop("default_ctx", None)
    if kwargs:
        raise MXNetError(f"CachedOp got unexpected keyword arguments {sorted(kwargs)}; expected "
                         f"default_device (or default_ctx)")
    return device


def _add_node_note(err, by_file):
    """Name the graph node (and the user line that created it) whose generated line raised."""
    tb, prog, line = err.__traceback__, None, None
    while tb is not None:
        found = by_file.get(tb.tb_frame.f_code.co_filename)
        if found is not None:
            prog, line = found, tb.tb_lineno
        tb = tb.tb_next
    node = prog.node_at(line) if prog is not None else None
    if node is not None and hasattr(err, "add_note"):
        err.add_note(f"While running node '{node.name}' ({node.op.name}) of the cached op program "
                     f"{prog.filename}, line {line} (print the CachedOp to see its source){where(node)}")
