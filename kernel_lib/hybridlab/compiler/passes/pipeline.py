"""The pass pipeline: the passes run in order on a copy of a Symbol's graph, and the graph after
each pass is kept (a snapshot) so the lab's graph view can step through them. Snapshots cost a
graph copy per pass: ``snapshots=False`` skips them (a CachedOp does unless someone asked for its
pipeline, see ``CachedOp.pipeline``).

``run_pipeline(symbol, flags=None, passes=None)`` returns ``(optimized_symbol, stages)``, ``stages``
a list of ``(pass name, Symbol snapshot)`` (the lab's ``stages_json`` turns them into the graph
JSON's ``"passes"`` field). The input symbol is never modified.

``PREDICT_PASSES`` (``fold_affine``: BatchNorm folded into the Convolution before it,
``fuse_activation``: conv + bias + relu as one call, ``as_matmul``: 1x1 convolutions as one matrix
product) rewrite graphs for inference only, asking the registry (``Epilogue``, ``ChannelAffine``,
``elementwise_activation``): a cached op runs them on the pipeline's result to make the graph its
predict programs run (training programs run the graph before them; see ``CachedOp``), and its
``pipeline`` shows their stages after the others when they changed something.

``passes`` names passes from ``PASSES`` (default ``DEFAULT_PASSES``) or gives ``(name, fn)`` pairs,
``fn(symbol) -> symbol`` free to rewrite the graph it is given. ``flags`` are the CachedOp flags;
no pass depends on them (every pass preserves results in every mode), they are accepted so the
cached op can hand its flags through.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import run_pipeline, count_ops
    >>> x = mx.sym.var('x')
    >>> y = mx.sym.relu(mx.sym.exp(x, name='a') + mx.sym.exp(x, name='b'), name='act')
    >>> opt, stages = run_pipeline(y)
    >>> [(name, count_ops(s)) for name, s in stages]
    [('dce', 4), ('cse', 3), ('constant_folding', 3), ('pool_first', 3), ('fusion', 1), ('inplace', 1)]
    >>> [n.op_name for n in opt._nodes()], count_ops(y)
    (['null', '_fused_elemwise'], 4)
"""
from ...base import MXNetError
from ._graph import clone
from .as_matmul import mark_matmuls
from .constant_folding import fold_constants
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold_affine import fold_affine_maps
from .fuse_activation import fuse_activations
from .fusion import fuse_elementwise
from .inplace import mark_inplace
from .pool_first import pool_before_activation

__all__ = ["PASSES", "DEFAULT_PASSES", "PREDICT_PASSES", "run_pipeline"]

PASSES = {
    "dce": lambda s: eliminate_dead_code(s, copy=False),
    "cse": lambda s: eliminate_common_subexpressions(s, copy=False),
    "constant_folding": lambda s: fold_constants(s, copy=False),
    "pool_first": lambda s: pool_before_activation(s, copy=False),
    "fusion": lambda s: fuse_elementwise(s, copy=False),
    "inplace": lambda s: mark_inplace(s, copy=False),
    "fold_affine": lambda s: fold_affine_maps(s, copy=False),
    "fuse_activation": lambda s: fuse_activations(s, copy=False),
    "as_matmul": lambda s: mark_matmuls(s, copy=False),
}
DEFAULT_PASSES = ("dce", "cse", "constant_folding", "pool_first", "fusion", "inplace")
PREDICT_PASSES = ("fold_affine", "fuse_activation", "as_matmul")     # inference only (see above)


def _resolve(passes):
    out = []
    for p in DEFAULT_PASSES if passes is None else passes:
        if isinstance(p, str):
            if p not in PASSES:
                raise MXNetError(f"run_pipeline: unknown pass {p!r}; expected one of {', '.join(PASSES)} "
                                 f"or a (name, function) pair")
            out.append((p, PASSES[p]))
        elif isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and callable(p[1]):
            out.append(p)
        else:
            raise MXNetError(f"run_pipeline: a pass is a name or a (name, function) pair, got {p!r}")
    return out


def run_pipeline(symbol, flags=None, passes=None, snapshots=True):
    """Run ``passes`` on a copy of ``symbol``: ``(optimized symbol, [(pass name, snapshot)])``.
    ``snapshots=False`` skips the per-pass copies (the stages list is then empty).

    >>> import hybridlab as mx
    >>> opt, stages = run_pipeline(mx.sym.exp(mx.sym.var('x')) + 1, snapshots=False)
    >>> stages, [n.op_name for n in opt._nodes()]
    ([], ['null', '_fused_elemwise'])
    """
    steps = _resolve(passes)
    sym = clone(symbol)
    stages = []
    for name, fn in steps:
        out = fn(sym)
        if out is None or not hasattr(out, "_outputs"):
            raise MXNetError(f"run_pipeline: pass {name!r} expected to return a Symbol, got {type(out).__name__}")
        sym = out
        if snapshots:
            stages.append((name, clone(sym)))
    return sym, stages
