"""Compiler-made operators: ``_fused_elemwise`` (a chain of elementwise ops run as one kernel) and
``_constant`` (a value computed at compile time by constant folding).

``_fused_elemwise`` takes ``num_args`` inputs and a ``program`` attribute: JSON text (data, never
executed) listing the steps in order, each ``[op name, {attribute: MXNet string}, [refs]]``. A ref
below ``num_args`` is that input; ``num_args + j`` is the output of step ``j``; the last step is the
result. An intermediate may be read by several steps. How a call runs:

* on the CPU, when all inputs share one floating dtype, each step is one NumPy ufunc call writing
  into a buffer of the output's (broadcast) shape with ``out=`` -- a step reuses the buffer of an
  intermediate it is the last reader of, so a chain allocates one array;
* on a GPU the chain becomes one ``cupy.ElementwiseKernel`` (untested here: no CUDA device);
* otherwise (mixed or integer dtypes) each step runs its op's own ``compute``.

Both generated sources (the CPU function, the kernel's C expression) are built only from the steps'
``Lowering`` (an ``OpDef`` field, defined with each op), generated names (``x0``, ``b1``) and scalars
written by ``compiler.source_text`` (NaN and the infinities spelled safely): nothing of the attribute
text reaches them.
``compiler.source_text`` is a layer above ``ops``, so it registers its literal writers here when it
loads (``use_source_text``); until then no source is generated and chains run step by step.

Only elementwise ops with a ``lowering`` are fused. The gradient re-expands the chain with registered
ops and runs each step's own gradient.

Example::

    >>> import json
    >>> import hybridlab as mx
    >>> prog = json.dumps([["exp", {}, [0]], ["broadcast_add", {}, [2, 1]], ["relu", {}, [3]]])
    >>> y = mx.nd._fused_elemwise(mx.nd.array([[0.0, -3.0]]), mx.nd.array([1.0, -2.0]),
    ...                           num_args=2, program=prog)
    >>> y.asnumpy().tolist()       # relu(exp(x) + b)
    [[2.0, 0.0]]

``_constant`` reads its value from a per-process table by ``key`` (``add_constant(value)`` puts one
there; the table holds values weakly, the graph node holding the ``ConstantValue`` in
``node.meta["constant"]`` keeps it alive) and returns a fresh copy on the call's device.
"""
import itertools
import weakref

import numpy as _np

from ..base import MXNetError
from ..fileio import parse_json
from .attrs import Attr
from .registry import OpDef, get_op, register

__all__ = ["lowerable", "gpu_source", "use_source_text", "ConstantValue", "add_constant",
           "get_constant"]

_literals = []    # [(literal, c_literal)] from compiler.source_text, once it has loaded


def use_source_text(literal, c_literal):
    """Register the literal writers generated sources use (``compiler.source_text`` calls this)."""
    _literals[:] = [(literal, c_literal)]


def lowerable(op):
    """Whether ``op`` (an OpDef) can be a step of ``_fused_elemwise``."""
    return op is not None and op.lowering is not None and op.family in ("elemwise", "broadcast")


# ---- the fused program ------------------------------------------------------------------------------
class _Step:
    __slots__ = ("op", "a", "attrs", "refs", "lowering", "reuse")

    def __init__(self, op, attrs, refs):
        self.op, self.attrs, self.refs = op, attrs, refs
        self.reuse = None   # the intermediate whose buffer this step overwrites (read last here)
        self.a = op.parse_attrs(attrs)
        self.lowering = op.lowering


_plans = {}


def plan(a):
    """The parsed steps of a ``_fused_elemwise`` node's attributes (cached by program text)."""
    key = (a["num_args"], a["program"])
    steps = _plans.get(key)
    if steps is None:
        steps = _plans[key] = _parse_program(*key)
    return steps


def _parse_program(n_in, text):
    where = "_fused_elemwise: attribute 'program'"
    raw = parse_json(text, where, 4, needs="3")
    if not isinstance(raw, list) or not raw:
        raise MXNetError(f"{where} expected a non-empty list of [op, attrs, refs] steps, got {text[:80]!r}")
    steps = []
    for j, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and isinstance(item[1], dict) and isinstance(item[2], list)):
            raise MXNetError(f"{where}: step {j} expected [op name, {{attrs}}, [refs]], got {item!r}")
        for r in item[2]:
            if not isinstance(r, int) or not 0 <= r < n_in + j:
                raise MXNetError(f"{where}: step {j} ref expected an int in [0, {n_in + j}), got {r!r}")
        steps.append(_Step(get_op(item[0]), {str(k): str(v) for k, v in item[1].items()}, list(item[2])))
    last = {}
    for j, s in enumerate(steps):
        for r in s.refs:
            last[r] = j
    for j, s in enumerate(steps):
        s.reuse = next((r for r in s.refs if r >= n_in and last[r] == j), None)
    return steps


def _fused_compute(ctx, a, *xs):
    key = (a["num_args"], a["program"])
    if not ctx.device.is_gpu:
        fn = _cpu_programs.get(key)
        if fn is None:
            fn = _cpu_programs[key] = _cpu_program(plan(a), len(xs))
        if fn is not False:
            out = fn(*xs)
            if out is not None:
                return out
    else:
        out = _gpu_kernel(a, plan(a), len(xs), ctx.xp, xs)
        if out is not None:
            return out
    vals = list(xs)
    for s in plan(a):
        vals.append(s.op.compute(ctx, s.a, *[vals[r] for r in s.refs]))
    return vals[-1]


_cpu_programs = {}


def _cpu_program(steps, n_in):
    """One generated straight-line function: NumPy ufuncs with ``out=`` buffers (``False`` when a
    step cannot be lowered). It returns ``None`` when the inputs are not all of one float dtype."""
    if n_in == 0 or any(s.lowering is None for s in steps) or not _literals:
        return False
    literal = _literals[0][0]
    xs = [f"x{k}" for k in range(n_in)]
    lines = [f"def fused({', '.join(xs)}):", "    dt = x0.dtype"]
    if n_in > 1:
        lines.append(f"    if dt.kind != 'f' or {' or '.join(f'{x}.dtype != dt' for x in xs[1:])}:")
        lines += ["        return None", "    shape = x0.shape"]
        lines.append(f"    if {' or '.join(f'{x}.shape != shape' for x in xs[1:])}:")
        lines.append(f"        shape = broadcast_shapes({', '.join(f'{x}.shape' for x in xs)})")
    else:
        lines += ["    if dt.kind != 'f':", "        return None", "    shape = x0.shape"]
    names, n_bufs = list(xs), 0
    for s in steps:
        ufunc, pattern = s.lowering.ufunc, s.lowering.pattern
        args = [names[r] for r in s.refs]
        scalar = literal(s.a["scalar"]) if "s" in pattern else None
        call = {"x": args[:1], "xy": args[:2], "xs": [args[0], scalar], "sx": [scalar, args[0]],
                "x0": [args[0], "0"]}[pattern]
        if s.reuse is not None:
            out = names[s.reuse]
        else:
            out = f"b{n_bufs}"
            n_bufs += 1
            lines.append(f"    {out} = empty(shape, dt)")
        lines.append(f"    {ufunc}({', '.join(call)}, out={out})")
        names.append(out)
    lines.append(f"    return {names[-1]}")
    env = {s.lowering.ufunc: getattr(_np, s.lowering.ufunc) for s in steps}
    env.update(empty=_np.empty, broadcast_shapes=_np.broadcast_shapes)
    # generated from the validated plan: table ufuncs, generated names, source_text literals
    exec(compile("\n".join(lines) + "\n", "<hybridlab-fused-elemwise>", "exec"), env)  # noqa: S102
    return env["fused"]


_kernels = {}


def _gpu_kernel(a, steps, n_in, xp, xs):
    """One CuPy ElementwiseKernel for the whole chain (None if it cannot be built or the inputs are
    not all of one float dtype). Untested here: no CUDA device."""
    dt = xs[0].dtype
    if (dt.kind != "f" or any(x.dtype != dt for x in xs) or any(s.lowering is None for s in steps)
            or not _literals):
        return None
    key = (a["num_args"], a["program"])
    kernel = _kernels.get(key)
    if kernel is None:
        params, body = gpu_source(steps, n_in)
        try:
            kernel = xp.ElementwiseKernel(params, "T out", body, "hybridlab_fused")
        except Exception:  # noqa: BLE001 -- fall back to the step-by-step path
            kernel = False
        _kernels[key] = kernel
    if kernel is False:
        return None
    try:
        return kernel(*xs)
    except Exception:  # noqa: BLE001 -- compile errors surface at the first call
        _kernels[key] = False
        return None


def gpu_source(steps, n_in):
    """(input parameter list, body) of the ``cupy.ElementwiseKernel`` for ``steps``: C expressions
    from the steps' lowerings over generated names ``i0``, ``i1``..., scalars from
    ``source_text.c_literal`` cast to ``T``.

    Example::

        >>> import json
        >>> from hybridlab.ops.fused import gpu_source, plan
        >>> prog = json.dumps([["exp", {}, [0]], ["_mul_scalar", {"scalar": "nan"}, [1]]])
        >>> gpu_source(plan({"num_args": 1, "program": prog}), 1)
        ('T i0', 'out = (((exp(i0)) * ((T)__longlong_as_double(0x7ff8000000000000LL))));')
    """
    c_literal = _literals[0][1]
    exprs = [f"i{k}" for k in range(n_in)]
    for s in steps:
        scalar = f"((T){c_literal(s.a['scalar'])})" if "s" in s.lowering.pattern else ""
        exprs.append("(" + s.lowering.c_expr.format(*[exprs[r] for r in s.refs], s=scalar) + ")")
    return ", ".join(f"T i{k}" for k in range(n_in)), f"out = {exprs[-1]};"


def _fused_infer(field):
    def infer(a, ins):
        vals = list(ins)
        for s in plan(a):
            args = [vals[r] for r in s.refs]
            if any(v is None for v in args):
                vals.append(None)
                continue
            fn = s.op.infer_shape if field == "shape" else s.op.infer_type
            vals.append(fn(s.a, list(args))[0])
        return [vals[-1]]
    return infer


def _fused_grad(F, a, inputs, outputs, ograds, training):
    """Re-expand the chain with registered ops, then run each step's gradient in reverse (in the
    forward's mode ``training``)."""
    steps = plan(a)
    n_in = len(inputs)
    vals = list(inputs)
    for j, s in enumerate(steps):
        if j == len(steps) - 1:
            vals.append(outputs[0])
        else:
            vals.append(getattr(F, s.op.name)(*[vals[r] for r in s.refs], **s.attrs))
    grads = [None] * len(vals)
    grads[-1] = ograds[0]
    for j in range(len(steps) - 1, -1, -1):
        s, g = steps[j], grads[n_in + j]
        if g is None:
            continue
        step_grads = s.op.gradient(F, s.a, [vals[r] for r in s.refs], [vals[n_in + j]], [g], training)
        for r, gr in zip(s.refs, step_grads):
            if gr is not None:
                grads[r] = gr if grads[r] is None else F.elemwise_add(grads[r], gr)
    return grads[:n_in]


register(OpDef("_fused_elemwise", variadic=True, family="elemwise", hidden=True,
               attrs={"program": Attr("str", doc="JSON list of [op, attrs, refs] steps")},
               compute=_fused_compute, infer_shape=_fused_infer("shape"), infer_type=_fused_infer("dtype"),
               grad=_fused_grad, grad_mode=True,
               doc="A chain of elementwise ops run as one kernel (made by the fusion pass)."))


# ---- constants --------------------------------------------------------------------------------------
class ConstantValue:
    """A compile-time value (a NumPy array) and its copies per device. Copies of a graph share it."""

    __slots__ = ("value", "_on", "__weakref__")

    def __init__(self, value):
        self.value = _np.ascontiguousarray(value)
        self._on = {}

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def on(self, ctx):
        if not ctx.device.is_gpu:
            return self.value
        arr = self._on.get(ctx.device)
        if arr is None:
            with ctx.xp.cuda.Device(ctx.device.device_id):
                arr = self._on[ctx.device] = ctx.xp.asarray(self.value)
        return arr


_CONSTANTS = weakref.WeakValueDictionary()
_keys = itertools.count()


def add_constant(value):
    """Put ``value`` in the constant table: ``(key, holder)``; keep ``holder`` alive while it is used."""
    holder = ConstantValue(value)
    key = f"const{next(_keys)}"
    _CONSTANTS[key] = holder
    return key, holder


def get_constant(key):
    holder = _CONSTANTS.get(key)
    if holder is None:
        raise MXNetError(f"_constant: expected a value for key {key!r} in this process's constant table, got "
                         f"none (folded constants live as long as the optimized graph holding them; a graph "
                         f"with _constant nodes cannot be reloaded elsewhere: export the unoptimized one)")
    return holder


def _constant_compute(ctx, a):
    return get_constant(a["key"]).on(ctx).copy()


register(OpDef("_constant", inputs=(), family="creation", hidden=True,
               attrs={"key": Attr("str", doc="key in the constant table"),
                      "shape": Attr("shape", (), doc="shape of the value"),
                      "dtype": Attr("dtype", _np.dtype("float32"), doc="dtype of the value")},
               compute=_constant_compute, infer_shape=lambda a, s: [tuple(a["shape"])],
               infer_type=lambda a, d: [a["dtype"]],
               no_grad_reason="compile-time constant: no inputs",
               doc="A value computed at compile time (constant folding), returned as a fresh copy."))
