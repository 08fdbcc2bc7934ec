"""Code generation: a graph compiled for one input signature becomes ONE readable Python function.

The function takes the raw input arrays (NumPy or CuPy) in ``list_inputs()`` order and runs the
graph as straight-line code, one statement per node::

    # fc1 = FullyConnected -> (1, 8) float32    net.py:12  x = F.FullyConnected(x, ...)
    fc1 = FullyConnected(ctx, attrs0, data, fc1_weight, fc1_bias)

Each op's ``compute`` function, its parsed attributes and the ``OpContext`` of the signature's
device and training mode are bound once as globals of the generated module (named after the op,
``attrs<i>`` and ``ctx``); a value is released with ``del`` right after its last use; multi-output
nodes are unpacked (``_`` for outputs nobody reads); only the symbol's outputs are returned. Two
helpers appear where needed: ``asarray(...)`` around CPU results that may be 0-d (NumPy returns
scalars there; the program returns arrays, as the dispatcher does) and ``single(...)`` around ops
whose output count is an attribute (they may return a 1-tuple). The source is registered with
``linecache`` under a fake file name, so tracebacks and
``inspect.getsource`` show the generated lines (the torch.fx ``_exec_with_source`` idea).

Generated code is a security boundary (graphs come from untrusted model files): every identifier,
comment and literal goes through ``compiler.source_text`` -- identifiers are derived from node names
but only ever ``[A-Za-z0-9_]`` and unique, comments are one line with no line breaks or control
characters, numbers are validated literals (``float('nan')`` for NaN). Text is never spliced into
the source afterwards: ``kind`` picks the header and function name, ``effects`` adds the statements
of side effects (BatchNorm's moving statistics in a backward program).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler.codegen import compile_program
    >>> from hybridlab.compiler.signature import Signature
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.relu(mx.sym.exp(x, name='e') * 2, name='act')
    >>> sig = Signature(['x'], [(2,)], [np.dtype('float32')], mx.cpu(), False)
    >>> shapes, dtypes = sig.infer(y._outputs, [x._outputs[0][0]])
    >>> prog = compile_program(y._outputs, [x._outputs[0][0]], sig, shapes, dtypes, title=repr(y))
    >>> prog.fn(np.array([-1.0, 0.0], dtype=np.float32)).tolist()
    [0.7357588410377502, 2.0]
    >>> print(prog.source)      # doctest: +ELLIPSIS
    # hybridlab cached op program: <Symbol act>
    # signature: x=(2,) float32, device=cpu(0), predict
    # bound once: the kernels exp, _mul_scalar (each op's compute); inlined as NumPy calls: maximum; ctx = OpContext(cpu(0), is_train=False)
    #   attrs0 = {}
    #   attrs1 = {'scalar': 2.0, 'is_int': True}
    #   attrs2 = {}
    def forward(x):
        # e = exp -> (2,) float32    <doctest ...>:1  y = mx.sym.relu(mx.sym.exp(x, name='e') * 2, name='act')
        e = exp(ctx, attrs0, x)
        # ... = _mul_scalar -> (2,) float32 ...
        ... = _mul_scalar(ctx, attrs1, e)
        del e
        # act = relu -> (2,) float32 ...
        act = maximum(..., 0)
        del ...
        return act
    <BLANKLINE>
"""
import itertools
import linecache
import os
import re
import weakref

import numpy as np
from numpy import asarray

from ..base import MXNetError
from ..ops.context import op_context
from ..ops.registry import all_ops, registered_count
from ..ops.relu_cpu import zero_row
from ..symbol.graph import topo_order
from .memory import out_kernel
from .signature import dtype_name
from .source_text import Namer, check_identifier, comment, literal

__all__ = ["Program", "compile_program", "generate", "make_entry", "program_named"]

_counter = itertools.count()
# kind -> (function name, header words, linecache file name prefix)
_KINDS = {"forward": ("forward", "program", "<hybridlab-cached-op>"),
          "backward": ("backward", "backward program", "<hybridlab-cached-op-backward>")}


def _fmt_shape(shape, dtype):
    return f"{'?' if shape is None else tuple(shape)} {dtype_name(dtype)}"


def _source_note(node):
    src = node.meta.get("source") if node.meta else None
    if not src:
        return ""
    return f"    {os.path.basename(str(src['file']))}:{src['line']}  {src['code']}"


def _single(result):
    """The one output of an op whose output count depends on its attributes (it may return a 1-tuple)."""
    return result[0] if type(result) is tuple else result


class _Source:
    """Implements the loader protocol linecache uses to (re)read a module's source lazily."""

    def __init__(self, source):
        self._source = source

    def get_source(self, name):
        return self._source


def generate(outputs, inputs, signature, shapes=None, dtypes=None, kind="forward", title="",
             instrument=False, memory=None, effects=(), nodes=None, inline=None, into=()):
    """Python source of the program for ``outputs`` ((node, index) entries) with variable nodes
    ``inputs`` as parameters, plus the globals it needs and ``{line number: node}``.

    ``shapes``/``dtypes`` (``{id(node): [per output]}``, from ``Signature.infer``) only feed the
    comments and the 0-d rewrap on the CPU (NumPy returns scalars for 0-d results).

    ``instrument=True`` generates the INSTRUMENTED variant (op hooks, the profiler): the function
    takes one more parameter, ``mon``, and around the statement of node number ``k`` (``k`` indexes
    ``Program.nodes``) calls ``mon.enter(k, (input values...))`` and ``mon.exit(k, (visible output
    values...))``. Visible outputs nobody reads are kept until ``mon.exit`` has seen them. The plain
    variant (the default) has none of this: a block without hooks pays nothing. Ops with an
    inline rule are written as NumPy expressions on the CPU (``inline``: ``None`` = unless
    instrumented, where hooks see every op's kernel; ``True`` also when instrumented: a probe of the
    very statements the plain program runs, see ``CachedOp.probe``).

    ``memory`` (``(MemoryPlan, ArenaPool)``, for ``static_alloc``): nodes the plan puts in a buffer
    call their ``out=`` kernel with the buffer's view, bound once as a global (``compiler.memory``).

    ``kind`` is ``"forward"`` (``def forward(...)``) or ``"backward"`` (``def backward(...)``, the
    header says "backward program"). ``effects``: side-effect statements run after every node,
    before the return, as ``(note, fn, attrs, input nodes)``: the program calls ``fn(attrs, *values
    of those inputs)`` under a comment made of ``note`` (a backward's BatchNorm statistics update).
    ``nodes``: the op nodes of ``outputs`` in topological order, when the caller has them.

    ``into`` (positions in ``outputs``; CPU programs): the function takes one more parameter per
    position, after the inputs, an array of that output's shape and dtype that the program writes
    the output into (a backward writing gradients into their buffers) and returns. The node computing
    it writes it directly where its inline rule or ``out=`` kernel can; otherwise its result is
    copied in."""
    if kind not in _KINDS:
        raise MXNetError(f"codegen: expected kind 'forward' or 'backward', got {kind!r}")
    fn_name, heading, _ = _KINDS[kind]
    shapes, dtypes = shapes or {}, dtypes or {}
    if nodes is None:
        nodes = [n for n in topo_order(outputs) if not n.is_variable]
    plan = memory[0] if memory is not None else None
    inline_here = not instrument if inline is None else bool(inline)
    inline_fns = _inline_functions(nodes)
    namer = Namer({"ctx", "asarray", "single", "mon", fn_name} | set(inline_fns)
                  | set(plan.global_names() if plan else ()) | ({"copyto"} if into else set()))
    env = {"ctx": op_context(signature.device, signature.training), "asarray": asarray, "single": _single,
           **inline_fns}
    if into:
        if signature.device.is_gpu:
            raise MXNetError("codegen: into= (outputs written into given arrays) is for CPU programs")
        env["copyto"] = np.copyto
    kernels, attr_names, ctx_names = {}, {}, {}
    header = []
    for node in nodes:
        op = node.op
        if op.name not in kernels:
            kernels[op.name] = k = namer(op.name)
            # the op's own compute, never a wrapper the imperative monitor (op_monitor) may have put in place
            env[k] = getattr(op.compute, "_hl_plain", op.compute)
        a = node.parsed_attrs()
        if id(a) not in attr_names:
            attr_names[id(a)] = k = namer(f"attrs{len(attr_names)}")
            env[k] = a
            header.append(f"#   {k} = {comment(repr(a))}")
        dev = a.get(op.device_attr) if op.device_attr else None
        if dev is not None and dev != signature.device and dev not in ctx_names:
            ctx_names[dev] = k = namer(f"ctx_{dev.device_type}{dev.device_id}")
            env[k] = op_context(dev, signature.training)

    # values: (id(node), index) -> identifier; inputs are parameters
    names = {}
    params = []
    for node in inputs:
        names[(id(node), 0)] = p = namer(node.name)
        params.append(p)
    dest = {pos: namer(f"into{pos}") for pos in into}     # the arrays the outputs at ``into`` go in
    params += dest.values()
    # an op's single output wanted once in an ``into`` array is computed there (else copied in at the end)
    entries = [(id(n), i) for n, i in outputs]
    write_into = {entries[pos]: name for pos, name in dest.items()
                  if not outputs[pos][0].is_variable and outputs[pos][1] == 0 and entries.count(entries[pos]) == 1
                  and outputs[pos][0].num_outputs() == 1}
    written = set()
    last_use, reads = {}, {}
    for step, node in enumerate(nodes):
        for src, i in node.inputs:
            last_use[(id(src), i)] = step
            reads[(id(src), i)] = reads.get((id(src), i), 0) + 1
    # values an inline expression computed (the program's own arrays: see InlineRule); in a plain CPU
    # program, an elementwise rule may write its result over one that dies at its call (_dying_input)
    owned = set()
    reuse_here = plan is None and not instrument and inline_here and not signature.device.is_gpu
    keep = {(id(n), i) for n, i in outputs} | {(id(n), 0) for n in inputs}
    wrap0d = not signature.device.is_gpu
    predict = kind == "forward" and not signature.training      # (graph inputs: steady between calls)

    body, line_nodes, rows, out_kernels, called, inlined = [], {}, {}, {}, set(), {}
    held_rows = {}     # value -> the bound row view of the planned buffer holding it (a (1, n) value)

    def zero_rows(dtype, n):
        if (dtype, n) not in rows:
            rows[(dtype, n)] = name = namer(f"zeros_{dtype}_{n}")
            env[name] = zero_row(dtype, n)
        return rows[(dtype, n)]

    for step, node in enumerate(nodes):
        a = node.parsed_attrs()
        n_out = node.num_outputs()
        used = [(id(node), i) in last_use or (id(node), i) in keep for i in range(n_out)]
        n_vis = node.op.n_visible(a) if instrument else 0
        shown = [i < n_vis for i in range(n_out)]      # outputs the monitor sees (instrumented only)
        unread = [i for i in range(n_out) if shown[i] and not used[i]]
        used = [u or s for u, s in zip(used, shown)]
        out_names = node.op.output_names(a)
        targets = []
        for i in range(n_out):
            if not used[i]:
                targets.append("_")
                continue
            suffix = "" if i == 0 else "_" + (out_names[i] if i < len(out_names) else f"output{i}")
            names[(id(node), i)] = t = namer(node.name + suffix)
            targets.append(t)
        node_shapes = shapes.get(id(node)) or [None] * n_out
        node_dtypes = dtypes.get(id(node)) or [None] * n_out
        args = [names[(id(src), i)] for src, i in node.inputs]
        dev = a.get(node.op.device_attr) if node.op.device_attr else None
        ctx = ctx_names.get(dev, "ctx") if dev is not None else "ctx"
        planned = plan.out_call(node) if plan is not None else None
        into_name = write_into.get((id(node), 0)) if n_out == 1 and not instrument else None
        if into_name is not None:
            kinds = [(dtypes.get(id(s)) or [None] * (i + 1))[i] for s, i in node.inputs]
            planned = (out_kernel(node, kinds + [node_dtypes[0]]), into_name)
        over = None
        if reuse_here and planned is None and n_out == 1 and node.op.inline is not None and node.op.inline.inplace:
            over = _dying_input(node, step, args, node_shapes[0], node_dtypes[0], shapes, dtypes,
                                owned, keep, last_use, reads)
        # a (1, n) value in its planned buffer: the rule may compute through the buffer's bound row
        in_plan = plan is not None and planned is not None and planned[1] == plan.view_name(node)
        out_row = plan.row_name(node) if in_plan else None
        arg_rows = [held_rows.get((id(src), i)) for src, i in node.inputs]
        expression = (None if signature.device.is_gpu or not inline_here
                      else _inline(node, a, args, shapes, dtypes, planned or over, zero_rows,
                                   targets[0] if n_out == 1 and targets[0] != "_" else None, predict,
                                   arg_rows, out_row))
        if out_row is not None and (expression is None or _writes_into(expression, planned[1], out_row)):
            held_rows[(id(node), 0)] = out_row
        if into_name is not None:
            honored = expression is not None and _writes_into(expression, into_name)
            if expression is not None and not honored and planned[0] is not None:
                expression = None            # (a rule that ignores out=: the out= kernel writes it instead)
            if honored or (expression is None and planned[0] is not None):
                written.add((id(node), 0))
            elif expression is None:
                planned = None
        if expression is not None:    # a NumPy expression instead of a kernel call (no call overhead)
            call = expression
            if planned is None:
                owned.update((id(node), i) for i in range(n_out))
            rule = node.op.inline
            inlined.update((f.__name__, None) for f in rule.functions if _call_pattern(f.__name__).search(call))
            inlined.update(("." + m, None) for m in rule.methods if f".{m}(" in call)
        elif planned is not None:   # static_alloc: write into the planned buffer
            if node.op.name not in out_kernels:
                out_kernels[node.op.name] = namer(f"{kernels[node.op.name]}_out")
            kname = out_kernels[node.op.name]
            env[kname] = planned[0]
            call = f"{kname}({', '.join([ctx, attr_names[id(a)], check_identifier(planned[1])] + args)})"
        else:
            called.add(node.op.name)
            call = f"{kernels[node.op.name]}({', '.join([ctx, attr_names[id(a)]] + args)})"
        outs = ", ".join(_fmt_shape(s, d) for s, d in zip(node_shapes, node_dtypes))
        body.append("    # " + comment(f"{node.name} = {node.op.name} -> {outs}{_source_note(node)}", 320))
        if instrument:
            body.append(f"    mon.enter({literal(step)}, ({''.join(x + ', ' for x in args)}))")
            line_nodes[len(body)] = node
        rewrap = [i for i in range(n_out) if used[i] and wrap0d and node_shapes[i] in ((), None)]
        if n_out == 1:
            if callable(node.op.num_outputs):   # output count set by attributes: may come as a 1-tuple
                call = f"single({call})"
            if rewrap:
                call = f"asarray({call})"
            body.append(f"    {targets[0]} = {call}")
            line_nodes[len(body)] = node
        else:
            body.append(f"    {', '.join(targets)} = {call}")
            line_nodes[len(body)] = node
            for i in rewrap:
                body.append(f"    {targets[i]} = asarray({targets[i]})")
                line_nodes[len(body)] = node
        if instrument:
            seen = "".join(targets[i] + ", " for i in range(n_out) if shown[i])
            body.append(f"    mon.exit({literal(step)}, ({seen}))")
            line_nodes[len(body)] = node
        dead = [names[(id(src), i)] for src, i in dict.fromkeys(node.inputs)
                if last_use.get((id(src), i)) == step and (id(src), i) not in keep]
        dead += [targets[i] for i in unread]
        if "_" in targets:
            dead.append("_")
        if dead:
            body.append(f"    del {', '.join(dict.fromkeys(dead))}")
    for k, (note, fn, fn_attrs, reads) in enumerate(effects):
        fname, aname = namer(f"update{k}"), namer(f"update_attrs{k}")
        env[fname], env[aname] = fn, fn_attrs
        body.append("    # " + comment(note, 320))
        body.append(f"    {fname}({', '.join([aname] + [names[(id(v), 0)] for v in reads])})")
    results = [names[(id(n), i)] for n, i in outputs]
    for pos, name in dest.items():
        if entries[pos] not in written:
            body.append(f"    copyto({name}, {results[pos]})")
        results[pos] = name
    body.append(f"    return {', '.join(results)}")

    if plan is not None:
        memory[1].bind(plan, signature.device.xp, target=env)
    kernels = {op: n for op, n in kernels.items() if op in called}   # inlined ops need no kernel
    bound = ", ".join(n if n == op else f"{n} = {op}" for op, n in kernels.items())
    kernel_note = f"the kernels {bound} (each op's compute)" if kernels else "no kernels (every op inlined)"
    if inlined:
        kernel_note += f"; inlined as NumPy calls: {'/'.join(inlined)}"
    ctxs = [f"ctx = OpContext({signature.device}, is_train={signature.training})"]
    ctxs += [f"{n} = OpContext({d}, is_train={signature.training})" for d, n in ctx_names.items()]
    top = [f"# hybridlab cached op {heading}: {comment(title)}",
           f"# signature: {comment(signature.describe(), 10000)}",
           "# bound once: " + comment(f"{kernel_note}; {'; '.join(ctxs)}", 10000)]
    top += header
    if plan is not None:
        top.append(f"# static_alloc: {comment(str(plan).splitlines()[1].strip(), 10000)}")
    if dest:
        top.append(f"# into: outputs {', '.join(literal(p) for p in dest)} are written into the arrays passed as "
                   f"{', '.join(dest.values())} (the gradient buffers) and returned")
    if instrument:
        top.append("# instrumented variant: mon.enter/mon.exit around every node (op hooks, profiler)")
    top.append(f"def {fn_name}({', '.join(params + (['mon'] if instrument else []))}):")
    offset = len(top)
    source = "\n".join(top + body) + "\n"
    line_nodes = {offset + k: v for k, v in line_nodes.items()}
    return source, env, line_nodes


_CALL_PATTERNS = {}      # function name -> the pattern of a call of it in an expression


def _writes_into(expression, *names):
    """Whether ``expression`` passes one of the identifiers ``names`` as a call's ``out=``."""
    return any(re.search(rf"\bout={re.escape(n)}\b", expression) for n in names)


def _call_pattern(name):
    pattern = _CALL_PATTERNS.get(name)
    if pattern is None:
        pattern = _CALL_PATTERNS[name] = re.compile(rf"\b{re.escape(name)}\(")
    return pattern


class _InlineSite:
    """One call as an op's ``InlineRule`` sees it (``ops.registry.InlineRule`` documents each field):
    generated identifiers, shapes, the one dtype, the planned buffer, and the literal writer."""

    __slots__ = ("args", "shapes", "dtype", "out", "target", "steady", "arg_rows", "out_row", "_zero_rows")
    literal = staticmethod(literal)

    def __init__(self, args, shapes, dtype, out, zero_rows, target, steady, arg_rows, out_row):
        self.args, self.shapes, self.dtype, self.out, self._zero_rows = args, shapes, dtype, out, zero_rows
        self.target, self.steady, self.arg_rows, self.out_row = target, steady, arg_rows, out_row

    @property
    def out_arg(self):
        return "" if self.out is None else f", out={self.out}"

    def zero_row(self, n):
        return self._zero_rows(self.dtype, n)


def _inline_functions(nodes):
    """``{name: function}`` of the NumPy functions the inline rules of registered ops (and of the ops
    of ``nodes``) call: bound in every program and reserved in its namer, so a node's identifier does
    not depend on which ops its graph has."""
    if _REGISTERED_INLINE[0] != registered_count():     # computed again only when ops were registered
        registered = all_ops()
        _REGISTERED_INLINE[:] = [len(registered), _collect_inline_functions({}, registered)]
    return _collect_inline_functions(dict(_REGISTERED_INLINE[1]), dict.fromkeys(n.op for n in nodes))


_REGISTERED_INLINE = [None, {}]      # [how many ops were registered, the functions of their inline rules]


def _collect_inline_functions(fns, ops):
    for op in ops:
        for f in op.inline.functions if op.inline is not None else ():
            if fns.setdefault(f.__name__, f) is not f:
                raise MXNetError(f"{op.name}: inline rule function {f.__name__!r} differs from another op's")
    return fns


def _dying_input(node, step, args, out_shape, out_dtype, shapes, dtypes, owned, keep, last_use, reads):
    """``(None, identifier)`` of an input of ``node`` (the program's ``step``-th) that its result may
    be written over, or ``None``: a value an inline expression of this program computed (so no one
    else's array, nor a view of one), that no later node, output or view reads (every read of it is
    this node's), of the output's shape and dtype."""
    if out_shape is None or out_dtype is None:
        return None
    for arg, (src, i) in zip(args, node.inputs):
        key = (id(src), i)
        if key not in owned or key in keep or last_use[key] != step:
            continue
        shape = (shapes.get(id(src)) or [None] * (i + 1))[i]
        if (shape is not None and tuple(shape) == tuple(out_shape)
                and (dtypes.get(id(src)) or [None] * (i + 1))[i] == out_dtype
                and reads[key] == sum(s is src and j == i for s, j in node.inputs)):
            return None, arg
    return None


def _inline(node, a, args, shapes, dtypes, planned, zero_rows, target=None, predict=False, arg_rows=None,
            out_row=None):
    """The op's ``InlineRule`` expression for ``node`` (``None``: the program calls the kernel).
    Rules are asked only when every input has one floating dtype; ``planned`` (static_alloc) gives
    the buffer the result is written into; ``zero_rows(dtype, n)`` binds a row of ``n`` zeros as a
    global of the program and returns its name; ``target``: the identifier the statement assigns;
    ``predict``: a predict program, whose graph inputs are ``steady``; ``arg_rows`` / ``out_row``:
    the bound rows of the planned buffers holding the inputs / the result (see ``InlineRule``)."""
    rule = node.op.inline
    if rule is None:
        return None
    kinds = [(dtypes.get(id(s)) or [None] * (i + 1))[i] for s, i in node.inputs]
    if not kinds or kinds[0] is None:
        return None
    first = np.dtype(kinds[0])
    if first.kind != "f" or any(k is None or np.dtype(k) != first for k in kinds[1:]):
        return None
    srcs = [(shapes.get(id(s)) or [None] * (i + 1))[i] for s, i in node.inputs]
    out = check_identifier(planned[1]) if planned is not None else None
    steady = [predict and s.is_variable for s, _ in node.inputs]
    arg_rows = [None if r is None else check_identifier(r) for r in (arg_rows or [None] * len(args))]
    out_row = None if out_row is None or out is None else check_identifier(out_row)
    expr = rule.expression(a, _InlineSite(args, srcs, np.dtype(kinds[0]), out, zero_rows, target, steady,
                                          arg_rows, out_row))
    if expr is not None and not (type(expr) is str and expr.isprintable()):
        raise MXNetError(f"{node.op.name}: inline rule expected one line of source text or None, got {expr!r}")
    return expr


class Program:
    """One compiled signature: the generated function ``fn`` over raw arrays, its ``source``, the
    fake ``filename`` it is registered under in ``linecache``, the ``signature``, and the inferred
    per-node ``shapes``/``dtypes``. ``node_at(lineno)`` maps a generated line back to its node."""

    def __init__(self, fn, source, filename, signature, line_nodes, shapes, dtypes, n_outputs):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.signature = signature
        self.line_nodes = line_nodes
        self.shapes = shapes
        self.dtypes = dtypes
        self.n_outputs = n_outputs
        self.compile_seconds = 0.0     # the cached op's time to infer and generate it (set by CachedOp)
        self.nodes = []            # the op nodes in program order (``mon.enter(k, ...)``: ``nodes[k]``)
        self.instrumented_of = None    # the plain Program this one instruments (instrumented variants)
        self._gen = None           # (outputs, inputs, generate keyword arguments): to build variants
        self._instrumented = None

    def instrumented(self):
        """The instrumented variant of this program (built on first use, then kept): the same graph
        and signature, generated with ``instrument=True``; its ``fn`` takes the raw inputs plus a
        monitor ``mon`` with ``enter(k, inputs)`` / ``exit(k, outputs)`` (``k`` indexes ``nodes``).
        The plain ``fn`` is untouched. Used by op hooks and the profiler (``compiler.instrument``)."""
        if self._instrumented is None:
            if self._gen is None:
                raise ValueError(f"{self!r}: built without its graph; cannot generate an instrumented variant")
            outputs, inputs, kwargs = self._gen
            prog = compile_program(outputs, inputs, **dict(kwargs, instrument=True))
            prog.instrumented_of = self
            self._instrumented = prog
        return self._instrumented

    def node_at(self, lineno):
        """The graph node whose statement is at ``lineno`` of the generated file (or ``None``)."""
        return self.line_nodes.get(lineno)

    def __repr__(self):
        return f"<Program {self.filename} for {self.signature.describe()}>"

    def __str__(self):
        return self.source


def compile_program(outputs, inputs, signature, shapes=None, dtypes=None, title="", instrument=False,
                    memory=None, kind="forward", effects=(), nodes=None, inline=None, into=()):
    """Generate, compile and register the program of ``outputs`` for ``signature`` (see ``generate``;
    ``instrument=True``: the instrumented variant, see ``Program.instrumented``; ``memory``: the
    static_alloc plan and buffer pool; instrumented variants never reuse buffers, so hooks may keep
    the arrays they are given; ``kind`` and ``effects``: a backward program, see ``generate``;
    ``nodes``: the op nodes of ``outputs`` in topological order, when the caller has them;
    ``inline`` and ``into``: see ``generate``)."""
    if nodes is None:
        nodes = [n for n in topo_order(outputs) if not n.is_variable]
    source, env, line_nodes = generate(outputs, inputs, signature, shapes, dtypes, kind=kind, title=title,
                                       instrument=instrument, memory=memory, effects=effects, nodes=nodes,
                                       inline=inline, into=into)
    fn_name, _, prefix = _KINDS[kind]
    filename = f"{prefix}.{next(_counter)}"   # not "<...>": linecache.lazycache accepts it
    env["__name__"] = filename
    env["__loader__"] = _Source(source)   # linecache.lazycache re-reads from here if the cache is cleared
    code = compile(source, filename, "exec")
    # our own generated source: every name, comment and number in it went through compiler.source_text
    exec(code, env)   # noqa: S102
    _register_source(filename, source)
    prog = Program(env[fn_name], source, filename, signature, line_nodes, shapes, dtypes, len(outputs))
    prog.nodes = nodes
    prog._gen = (outputs, inputs, {"signature": signature, "shapes": shapes, "dtypes": dtypes, "title": title,
                                   "kind": kind, "effects": tuple(effects), "into": tuple(into)})
    weakref.finalize(prog, _collected.append, filename)
    _live[filename] = prog
    return prog


# file name -> the live Program compiled under it (weak: an entry goes with its program, so the table
# holds no more than the programs alive); a frame running generated code names its program this way
_live = weakref.WeakValueDictionary()


def program_named(filename):
    """The live ``Program`` whose generated code has ``filename`` (a frame's ``co_filename``), or
    ``None``: what ``compiler.warning_origin`` uses to name the node whose line is running."""
    return _live.get(filename)


# file names of programs that were garbage collected: dropped from linecache at the next compile, not
# in the finalizer, which may run in the middle of linecache.checkcache's loop over the cache
_collected = []


def _register_source(filename, source):
    """Put ``source`` in ``linecache`` under ``filename`` (tracebacks, ``inspect.getsource``)."""
    while _collected:
        linecache.cache.pop(_collected.pop(), None)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


_entry_code = {}


def make_entry(n_inputs, state, lookup, miss):
    """The per-call entry of a cached op with ``n_inputs`` NDArray inputs, as one generated function:
    read each input's data, look the signature key up with ``lookup`` (a dict's ``get``; the key is
    ``(training, device, shape0, dtype0, shape1, ...)``) and call the program found, or
    ``miss(*inputs)`` when there is none or the inputs' devices are not one and the same object.
    Generated so a call costs no loops or argument packing (from the input count only: no names)."""
    if type(n_inputs) is not int or n_inputs < 1:
        raise MXNetError(f"make_entry: expected an input count (int >= 1), got {n_inputs!r}")
    cached = _entry_code.get(n_inputs)
    if cached is None:
        xs = [f"x{i}" for i in range(n_inputs)]
        ds = [f"d{i}" for i in range(n_inputs)]
        key = ", ".join(f"{d}.shape, {d}.dtype" for d in ds)
        lines = [f"def entry({', '.join(xs)}):"]
        lines += [f"    {d} = {x}._data" for x, d in zip(xs, ds)]
        lines.append("    device = x0._device")
        if n_inputs > 1:    # identity checks here; equal-but-distinct devices go the slow way
            lines += [f"    if {' or '.join(f'{x}._device is not device' for x in xs[1:])}:",
                      f"        return miss({', '.join(xs)})"]
        lines += [f"    fn = lookup((state.training, device, {key}))",
                  "    if fn is None:",
                  f"        return miss({', '.join(xs)})",
                  f"    return fn({', '.join(ds)})"]
        source = "\n".join(lines) + "\n"
        filename = f"<hybridlab-cached-op-entry>.{n_inputs}"
        cached = _entry_code[n_inputs] = (compile(source, filename, "exec"), source)
        _register_source(filename, source)
    code, source = cached
    env = {"state": state, "lookup": lookup, "miss": miss, "__name__": "hybridlab.compiler.entry",
           "__loader__": _Source(source)}
    exec(code, env)   # noqa: S102 - generated above from the validated input count only
    return env["entry"]
