"""How a HybridBlock becomes a graph: ``trace`` builds (input variables, output Symbol, formats) from a
block's forward (MXNet 1.x style: ``hybrid_forward`` with ``F = mx.sym``; 2.0 style: ``forward``
traced with deferred compute, where a dynamic-shape op such as boolean_mask runs on the real input
and parameter values to learn its output shape), and ``infer_attrs`` fills parameter shapes/dtypes
from the graph's inference. Used by ``HybridBlock`` (``hybrid_block.py``)."""
import warnings

from .. import autograd, symbol
from .. import deferred as _dc
from ..ndarray.ndarray import NDArray
from .utils import flatten, regroup

__all__ = ["trace", "infer_attrs"]


def trace(block, *args):
    """Build the graph: (input variables, output Symbol, input format, output format; the formats
    as ``gluon.utils.flatten`` gives them). 1.x style calls ``hybrid_forward`` with Symbols; 2.0
    style traces ``forward`` with value-less arrays (deferred compute)."""
    flat_args, in_format = flatten(args, "input")
    real = [a for a in flat_args if a is not None]
    if not real:
        raise ValueError(f"All args are None and we do not support such a case. Received args={args}")
    names = ["data"] if len(real) == 1 else [f"data{i}" for i in range(len(real))]
    inputs = [symbol.var(n) for n in names]
    it = iter(inputs)
    if block._builds_symbolically():
        grouped = regroup([next(it) if a is not None else None for a in flat_args], in_format)
        out = block._symbolic_forward(*grouped)
        flat_out, out_format = flatten(out, "output")
        out_sym = symbol.Group(flat_out)
    else:
        placeholders = []
        for a in real:
            if not isinstance(a, NDArray):
                raise ValueError(f"When hybridized, the input of HybridBlock {block.name} must be (nested) list "
                                 f"of NDArray, but got {a!r} of type {type(a)}")
            ph = _dc.placeholder(a.shape, a.dtype, a.device)
            ph._np = a._np
            placeholders.append(ph)
        _dc.set_variable(placeholders, inputs)
        ph_it = iter(placeholders)
        grouped = regroup([next(ph_it) if a is not None else None for a in flat_args], in_format)
        with autograd.pause(), _dc.context(values=_variable_values(block, inputs, real)):
            if block._is_legacy():
                out = block._traced_forward(*grouped)
            else:
                with block._graph_scope():
                    out = block.forward(*grouped)
        flat_out, out_format = flatten(out, "output")
        out_sym = _dc.get_symbol(flat_out)
        _dc.clear(flat_out)
        for p in block.collect_params().values():
            p._take_traced_shape()
    return inputs, out_sym, in_format, out_format


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
    inputs, out = block._get_graph(*args)
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
