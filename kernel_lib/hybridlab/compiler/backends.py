"""``optimize_for``: graph backends (MXNet's subgraph/partitioner API) and the helpers to write one.

A backend is a partitioner ``fn(symbol, args_shapes, **opts) -> Symbol`` registered under a name.
``optimize_for(symbol, backend, args_shapes, **opts)`` hands it a copy of ``symbol`` (it may rewrite
that copy in place), with ``node.meta["shapes"]``/``["dtypes"]`` filled in when ``args_shapes``
(``{input name: shape}``, or shapes in ``list_inputs()`` order) is given, and returns its result.
The built-in ``"default"`` backend runs the pass pipeline (``passes.run_pipeline``; its ``passes=``
option picks passes). Give ``stages=[]`` to collect ``(name, snapshot)`` pairs: the pipeline's
stages, then the backend's result.

Writing a partitioner that replaces matched subgraphs with one op (the full, runnable walk-through
is docs/passes.md): define the op as an ``OpDef`` (it needs no global registration: a node holds its
``OpDef``), then ``replace_chains(symbol, pattern, op)``::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.compiler import CachedOp, backends
    >>> from hybridlab.ops import OpDef, get_op
    >>> exp = get_op("exp")
    >>> exp2 = OpDef("_demo_exp2", compute=lambda ctx, a, x: ctx.xp.exp(ctx.xp.exp(x)),
    ...              infer_shape=exp.infer_shape)
    >>> @backends.register_backend("demo_exp")
    ... def exp_exp(symbol, args_shapes, **opts):
    ...     return backends.replace_chains(symbol, ["exp", "exp"], exp2)
    >>> y = mx.sym.exp(mx.sym.exp(mx.sym.var('x'), name='e1'), name='e2')
    >>> opt = backends.optimize_for(y, "demo_exp")
    >>> [(n.name, n.op_name, n.meta.get("fused_from")) for n in opt._nodes()]
    [('x', 'null', None), ('e2', '_demo_exp2', ['e1', 'e2'])]
    >>> CachedOp(opt)(mx.nd.zeros((1,))).asnumpy().tolist() == CachedOp(y)(mx.nd.zeros((1,))).asnumpy().tolist()
    True
"""
import copy as _copy

from ..base import MXNetError
from ..symbol.graph import topo_order
from ..symbol.symbol import Symbol
from .passes import run_pipeline
from .passes._graph import clone, retarget

__all__ = ["register_backend", "get_backend", "list_backends", "optimize_for", "match_chains", "replace_chain",
           "replace_chains"]

_BACKENDS = {}


def register_backend(name, partitioner=None, replace=True):
    """Register ``partitioner(symbol, args_shapes, **opts) -> Symbol`` as backend ``name``
    (``replace=False``: an error if the name is taken); without ``partitioner``, a decorator."""
    if partitioner is None:
        return lambda fn: register_backend(name, fn, replace)
    if not isinstance(name, str) or not name:
        raise MXNetError(f"register_backend: expected a non-empty backend name, got {name!r}")
    if not callable(partitioner):
        raise MXNetError(f"register_backend: backend {name!r} expected a callable partitioner, got "
                         f"{type(partitioner).__name__}")
    if not replace and name in _BACKENDS:
        raise MXNetError(f"register_backend: backend {name!r} is already registered")
    _BACKENDS[name] = partitioner
    return partitioner


def get_backend(name):
    try:
        return _BACKENDS[name]
    except KeyError:
        raise MXNetError(f"optimize_for: unknown backend {name!r}; registered backends: "
                         f"{', '.join(sorted(_BACKENDS))}") from None


def list_backends():
    """The registered backend names, sorted."""
    return sorted(_BACKENDS)


def _shape_dict(symbol, args_shapes):
    if args_shapes is None or isinstance(args_shapes, dict):
        return dict(args_shapes or {})
    names = symbol.list_inputs()
    shapes = list(args_shapes)
    if len(shapes) > len(names):
        raise MXNetError(f"optimize_for: expected at most {len(names)} input shapes ({', '.join(names)}), "
                         f"got {len(shapes)}")
    return {n: tuple(s) for n, s in zip(names, shapes) if s is not None}


def optimize_for(symbol, backend="default", args_shapes=None, stages=None, **opts):
    """``symbol`` optimized by ``backend`` (see the module docstring); the input is not modified."""
    partitioner = get_backend(backend)
    sym = clone(symbol)
    shapes = _shape_dict(sym, args_shapes)
    if shapes:
        from ..symbol.infer import annotate
        arguments = set(sym.list_arguments())
        annotate(sym, shapes=shapes, dtypes={n: "float32" for n in shapes if n in arguments})
    if stages is not None:
        opts["stages"] = stages
    out = partitioner(sym, shapes, **opts)
    if not isinstance(out, Symbol):
        raise MXNetError(f"optimize_for: backend {backend!r} expected to return a Symbol, got {type(out).__name__}")
    if stages is not None and backend != "default":
        stages.append((f"optimize_for:{backend}", _copy.deepcopy(out)))
    return out


def _default_backend(symbol, args_shapes, passes=None, stages=None, flags=None, **opts):
    if opts:
        raise MXNetError(f"optimize_for: the default backend takes passes=, flags=, stages=; got {sorted(opts)}")
    out, got = run_pipeline(symbol, flags=flags, passes=passes, snapshots=stages is not None)
    if stages is not None:
        stages.extend(got)
    return out


register_backend("default", _default_backend)


# ---- helpers for partitioners ----------------------------------------------------------------
def _matches(pred, node):
    if node.is_variable:
        return False
    if isinstance(pred, str):
        return node.op.name == pred or pred in node.op.aliases
    return bool(pred(node))


def match_chains(symbol, pattern):
    """Chains ``[n0, n1, ...]`` matching ``pattern`` (one entry per node: an op name, or a predicate
    ``fn(node) -> bool``) where each node reads the previous one's output 0 as its first input and
    every node but the last has that single reader and is not a graph output. Chains don't overlap."""
    if not pattern:
        raise MXNetError("match_chains: expected a non-empty pattern")
    order = topo_order(symbol._outputs)
    readers = {}
    for n in order:
        for s, i in n.inputs:
            readers.setdefault((id(s), i), []).append(n)
    heads = {(id(n), i) for n, i in symbol._outputs}
    taken, chains = set(), []
    for start in order:
        if id(start) in taken or not _matches(pattern[0], start):
            continue
        chain = [start]
        for pred in pattern[1:]:
            last = chain[-1]
            nxt = readers.get((id(last), 0), [])
            if (len(nxt) != 1 or (id(last), 0) in heads or last.num_outputs() != 1 or id(nxt[0]) in taken
                    or not nxt[0].inputs or nxt[0].inputs[0] != (last, 0) or not _matches(pred, nxt[0])):
                chain = None
                break
            chain.append(nxt[0])
        if chain:
            taken.update(id(n) for n in chain)
            chains.append(chain)
    return chains


def replace_chain(chain, op, attrs=None, inputs=None):
    """Turn a matched chain into one node of ``op`` (an OpDef): the last node is rewritten in place
    (its name, meta and output names stay); by default ``attrs`` are the first node's and ``inputs``
    the first node's inputs followed by each later node's inputs other than the chain link.
    ``meta["fused_from"]`` lists the chain's names. Returns the node."""
    if inputs is None:
        inputs = list(chain[0].inputs) + [e for n in chain[1:] for e in n.inputs[1:]]
    node = chain[-1]
    retarget(node, op, dict(chain[0].attrs if attrs is None else attrs), inputs)
    node.meta["fused_from"] = [n.name for n in chain]
    return node


def replace_chains(symbol, pattern, op, attrs=None):
    """Every chain of ``symbol`` matching ``pattern`` replaced by one ``op`` node (in place: pass
    the copy ``optimize_for`` gives); ``attrs(chain) -> dict`` overrides the attributes. Returns
    the new Symbol (unused chain nodes are gone)."""
    for chain in match_chains(symbol, pattern):
        replace_chain(chain, op, attrs=None if attrs is None else attrs(chain))
    return Symbol(list(symbol._outputs))
