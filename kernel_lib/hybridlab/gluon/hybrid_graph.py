"""How a HybridBlock's graph is built, and its cached op from it (the graph-building half of
``HybridBlock``, ``hybrid_block.py``; the block calls these, the results go to its
``HybridizationState``, ``gluon.hybridization``):

* ``trace`` builds (input variables, output Symbol, formats) from a block's forward (MXNet 1.x
  style: ``hybrid_forward`` with ``F = mx.sym``, ``symbolic_forward``; 2.0 style: ``forward``
  traced with deferred compute, where a dynamic-shape op such as boolean_mask runs on the real
  input and parameter values to learn its output shape); ``get_graph`` traces once per graph.
* ``graph_scope`` names the nodes built inside after the block (``<prefix>fwd``) and records its
  Block path (``symbol.provenance``); hybridized children are traced into their parent's graph.
* ``infer_attrs`` fills parameter shapes/dtypes from the graph's inference.
* ``build_cached_op`` checks the graph's inputs against the block's data and parameters, finishes
  deferred parameter initialisation and creates the ``CachedOp`` (``compiler.cached_op``), after
  an ``optimize_for`` backend partitioned the graph.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.Dense(2, in_units=3, prefix='fc_'); net.initialize()
    >>> inputs, out, in_format, out_format, shape_reads = trace(net, mx.nd.ones((1, 3)))
    >>> [v.name for v in inputs], out.list_arguments(), in_format, out_format, shape_reads
    (['data'], ['data', 'fc_weight', 'fc_bias'], [0], 0, [])
"""
import contextlib
import threading
import time
import warnings

from .. import autograd, ndarray, symbol
from .. import deferred as _dc
from ..ndarray.ndarray import NDArray
from ..symbol import provenance
from ..symbol.control_flow import LoopLengthUnknown
from .trace_names import NamingNamespace
from .utils import flatten, regroup, shape_is_known

__all__ = ["trace", "get_graph", "symbolic_forward", "traced_forward", "graph_scope", "infer_attrs",
           "build_cached_op"]

_TRACING_ND = NamingNamespace(ndarray)    # F while deferred compute traces a 1.x-style block
_local = threading.local()    # the blocks whose graph is being built, outermost first (scope names)


def trace(block, *args, symbolic=None, shape_reads=None):
    """Build the graph: (input variables, output Symbol, input format, output format, shape reads;
    the formats as ``gluon.utils.flatten`` gives them, the reads the ``deferred.shape_reads`` of
    user code, the block's shape guards). 1.x style calls ``hybrid_forward`` with Symbols (traced
    with deferred compute instead when it builds a loop whose length only the inputs' shapes give:
    ``F.contrib.foreach``); 2.0 style traces ``forward`` with value-less arrays (deferred
    compute); ``symbolic=False`` traces a
    1.x block with deferred compute too (``F`` is then ``mx.nd``: the pre-check does), which
    collects the shape reads into its own ``shape_reads`` list (kept if the trace fails)."""
    flat_args, in_format = flatten(args, "input")
    real = [a for a in flat_args if a is not None]
    if not real:
        raise ValueError(f"All args are None and we do not support such a case. Received args={args}")
    names = ["data"] if len(real) == 1 else [f"data{i}" for i in range(len(real))]
    inputs = [symbol.var(n) for n in names]
    it = iter(inputs)
    reads = [] if shape_reads is None else shape_reads
    if block._builds_symbolically() if symbolic is None else symbolic:
        grouped = regroup([next(it) if a is not None else None for a in flat_args], in_format)
        try:
            out = symbolic_forward(block, *grouped)
        except LoopLengthUnknown:
            if symbolic:
                raise
            # F.contrib.foreach unrolls, so needs the inputs' shapes: a deferred-compute trace has them
            return trace(block, *args, symbolic=False, shape_reads=shape_reads)
        flat_out, out_format = flatten(out, "output")
        out_sym = symbol.Group(flat_out)
    else:
        placeholders = []
        for a in real:
            if not isinstance(a, NDArray):
                raise ValueError(f"When hybridized, the input of HybridBlock {block.name} must be (nested) list "
                                 f"of NDArray, but got {a!r} of type {type(a)}")
            ph = _dc.placeholder(a.shape, a.dtype, a.device)
            ph._set_np_style(a._np)
            placeholders.append(ph)
        _dc.set_variable(placeholders, inputs)
        ph_it = iter(placeholders)
        grouped = regroup([next(ph_it) if a is not None else None for a in flat_args], in_format)
        with autograd.pause(), _dc.context(values=_variable_values(block, inputs, real), shape_reads=reads):
            if block._is_legacy():
                out = traced_forward(block, *grouped)
            else:
                with graph_scope(block):
                    out = block.forward(*grouped)
        flat_out, out_format = flatten(out, "output")
        _check_same_array_type(flat_out)
        out_sym = _dc.get_symbol(flat_out)
        _dc.clear(flat_out)
        for p in block.collect_params().values():
            p._take_traced_shape()
    return inputs, out_sym, in_format, out_format, reads


def _check_same_array_type(outputs):
    """The traced outputs are all ``mx.np`` or all ``mx.nd`` arrays, else ``TypeError`` (MXNet's
    ``_check_same_symbol_type``: one graph cannot group both kinds)."""
    kinds = {o._np for o in outputs if isinstance(o, NDArray)}
    if len(kinds) > 1:
        raise TypeError("Found both classic symbol (mx.sym.Symbol) and numpy symbol (mx.sym.np._Symbol) in "
                        "outputs: expected one kind. Convert them to the same kind: call `as_np_ndarray()` on "
                        "each classic output for numpy outputs, or `as_nd_ndarray()` on each numpy output for "
                        "classic outputs.")


def get_graph(block, *args):
    """(input variables, output Symbol) of ``block``: traced now for ``args`` unless already traced."""
    state = block.hybridization
    if state.graph is None:
        state.set_graph(*trace(block, *args))
    return state.inputs, state.graph


def symbolic_forward(block, x, *args):
    """MXNet 1.x style graph building: ``hybrid_forward(mx.sym, ...)`` on Symbols, the parameters as
    their variables."""
    params = {k: p.var() for k, p in block._reg_params.items()}
    with graph_scope(block):
        return block.hybrid_forward(symbol, x, *args, **params)


def traced_forward(block, x, *args):
    """A 1.x style block inside a deferred-compute trace: ``hybrid_forward`` with ``F`` = ``mx.nd``
    naming its nodes as MXNet does (``trace_names``), the parameters as traced placeholders."""
    params = {k: p.data() for k, p in block._reg_params.items()}
    with graph_scope(block):
        return block.hybrid_forward(_TRACING_ND, x, *args, **params)


@contextlib.contextmanager
def graph_scope(block):
    """Inside: graph nodes are named after ``block`` (``<prefix>fwd``) and record its scope."""
    stack = getattr(_local, "scopes", None)
    if stack is None:
        stack = _local.scopes = []
    stack.append(block)
    try:
        with block.name_scope(), provenance.scope(_scope_name(block, stack[-2] if len(stack) > 1 else None)):
            yield
    finally:
        stack.pop()


def _scope_name(block, parent):
    """The name of ``block``'s scope inside ``parent``'s: its prefix less the parent's
    (``stage1`` in ``resnetv20_``). A child made with ``prefix=''`` shares its parent's prefix (a
    model zoo ResNet's ``features`` and its residual units), so its key in the parent names it
    instead (``features``; ``bottleneckv2_0`` for an item of a Sequential): otherwise its scope
    would repeat the parent's, or merge siblings into one."""
    name = block._name
    if parent is None:
        return name or type(block).__name__.lower()
    if block._prefix != parent._prefix and name.startswith(parent._prefix) and len(name) > len(parent._prefix):
        return name[len(parent._prefix):]
    if block._prefix == parent._prefix:
        for key, child in parent._children.items():
            if child is block:
                return f"{type(block).__name__.lower()}_{key}" if key.isdigit() else key
        return type(block).__name__.lower()
    return name or type(block).__name__.lower()


def _variable_values(block, inputs, real):
    """The real value of a graph variable by name (the inputs, the parameters' data on the inputs'
    device), for dynamic-shape ops met while tracing (``deferred.context(values=...)``); asked only
    then. A parameter still waiting for deferred initialisation is initialised now, with the shape
    the trace inferred for it."""
    feed = {v.name: a for v, a in zip(inputs, real)}
    device = real[0].device
    params = {}

    def value(name):
        if name in feed:
            return feed[name]
        if not params:
            params.update((p.var().name, p) for p in block.collect_params().values())
        p = params.get(name)
        if p is None:
            return None
        if p._deferred_init:
            p._take_traced_shape()
            p._finish_deferred_init()
        return p.data(device)
    return value


def infer_attrs(block, infer_fn, attr, *args):
    """Set the parameters' ``attr`` ("shape" or "dtype") from the graph's ``infer_fn`` for inputs ``args``."""
    inputs, out = get_graph(block, *args)
    flat = [a for a in flatten(args, "input")[0] if a is not None]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        arg_attrs, _, aux_attrs = getattr(out, infer_fn)(
            **{i.name: getattr(j, attr) for i, j in zip(inputs, flat)})
    if arg_attrs is None:
        raise ValueError(str(w[0].message) if w else f"{infer_fn} failed for {block.name}")
    sdict = dict(zip(out.list_arguments(), arg_attrs))
    sdict.update(zip(out.list_auxiliary_states(), aux_attrs))
    for p in block.collect_params().values():
        value = sdict.get(p.var().name)
        if value is not None and getattr(p, attr) != value:
            setattr(p, attr, value)


def build_cached_op(block, *args):
    """Create ``block``'s cached op for the inputs ``args`` (``HybridBlock._build_cache``): the
    graph's inputs are the data and the block's parameters (unused ones are warned about), deferred
    parameters are initialised, and ``hybridization.op_args`` says how each input is fed."""
    start = time.perf_counter()
    data, out = get_graph(block, *args)
    data_names = {d.name: i for i, d in enumerate(data)}
    params = {p.var().name: p for p in block.collect_params().values()}
    input_names = out.list_inputs()
    expected = set(input_names)
    for name in expected:
        if name not in params and name not in data_names:
            raise AssertionError(f"Unknown input to HybridBlock: {name}")
    unused = [f"{i}-th" for name, i in data_names.items() if name not in expected]
    if unused:
        warnings.warn(f"The {', '.join(unused)} input to HybridBlock is not used by any computation. "
                      f"Is this intended?", stacklevel=provenance.user_stacklevel())
    unused_params = [name for name in params if name not in expected]
    if unused_params:
        warnings.warn(f"Parameter {', '.join(unused_params)} is not used by any computation. Is this intended?",
                      stacklevel=provenance.user_stacklevel())
    used = [params[n] for n in input_names if n in params]
    if any(p._deferred_init for p in used):
        if not all(shape_is_known(p.shape) for p in used):
            block._deferred_infer_shape(*args)
        for p in used:
            p._finish_deferred_init()
    state = block.hybridization
    state.op_args = [(True, name, data_names[name]) if name in data_names else (False, name, params[name])
                     for name in input_names]
    flags = [("data_indices", [i for i, a in enumerate(state.op_args) if a[0]]),
             ("param_indices", [i for i, a in enumerate(state.op_args) if not a[0]])] + state.flags
    from ..compiler import CachedOp
    stages = []
    if state.backend is not None:   # optimize_for: the backend partitions the graph first
        from ..compiler.backends import optimize_for
        real = [a for a in flatten(args, "input")[0] if a is not None]
        shapes = {name: real[i].shape for name, i in data_names.items() if i < len(real)}
        out = optimize_for(out, state.backend, args_shapes=shapes, stages=stages, **state.backend_options)
    # the graph after each pass is copied only when someone will look: hybridize(keep_pipeline=
    # True) or a cache_built listener (a GraphView shows the passes); otherwise
    # CachedOp.pipeline computes it if it is ever read
    from .. import events
    keep = state.keep_pipeline or events.has_subscribers("cache_built")
    cop = state.cached_op = CachedOp(out, flags, partition_if_dynamic=state.partition_if_dynamic,
                                     keep_pipeline=keep, backend_stages=stages, passes=state.passes)
    if cop.input_names != [a[1] for a in state.op_args]:   # a backend reordered inputs
        by_name = {a[1]: a for a in state.op_args}
        state.op_args = [by_name[n] for n in cop.input_names]
    state.build_seconds += time.perf_counter() - start      # the build record's time (rebuild_history)
