"""Graph passes on the Symbol IR, one per file, and the pipeline that runs them.

Every pass takes a Symbol and returns one with the same results (``copy=False`` lets it rewrite the
given graph's nodes in place, as the pipeline does on its own copy); passes keep node names and
``meta`` (scope, source) so the graph view can trace every node, and ask op families and flags
rather than op names.

* ``dce.eliminate_dead_code``: drop what no output needs (and non-output identity copies),
* ``cse.eliminate_common_subexpressions``: compute a pure expression once,
* ``constant_folding.fold_constants``: variable-free subgraphs become ``_constant`` nodes,
* ``pool_first.pool_before_activation``: max pooling moves before the relu that feeds it,
* ``fusion.fuse_elementwise``: elementwise trees become one ``_fused_elemwise`` node,
* ``inplace.mark_inplace``: ``meta["inplace"]`` for the memory planner,
* inference only (``PREDICT_PASSES``, run by the cached op for predict programs; they ask the ops'
  ``Epilogue`` / ``ChannelAffine`` / ``elementwise_activation``):
  ``fold_affine.fold_affine_maps`` (a BatchNorm folded into the Convolution it reads),
  ``fuse_activation.fuse_activations`` (a relu computed inside the convolution's call),
  ``as_matmul.mark_matmuls`` (1x1 convolutions as one matrix product),
* ``dynamic.split_dynamic``: split a graph around dynamic-shape ops into segments (``partition_if_dynamic``;
  ``compiler.partitioned`` runs them),
* ``pipeline.run_pipeline``: all of the above in order, with the graph after each pass.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.passes import run_pipeline
    >>> x = mx.sym.var('x')
    >>> opt, stages = run_pipeline(mx.sym.tanh(mx.sym.exp(x)))
    >>> [n.op_name for n in opt._nodes()]
    ['null', '_fused_elemwise']
"""
from . import constant_folding, cse, dce, dynamic, fusion, inplace, pipeline, pool_first  # noqa: F401
from . import as_matmul, fold_affine, fuse_activation  # noqa: F401
from .as_matmul import mark_matmuls  # noqa: F401
from ._graph import count_ops  # noqa: F401
from .constant_folding import fold_constants  # noqa: F401
from .cse import eliminate_common_subexpressions  # noqa: F401
from .dce import eliminate_dead_code  # noqa: F401
from .dynamic import split_dynamic  # noqa: F401
from .fold_affine import fold_affine_maps  # noqa: F401
from .fuse_activation import fuse_activations  # noqa: F401
from .fusion import fuse_elementwise  # noqa: F401
from .inplace import mark_inplace  # noqa: F401
from .pipeline import DEFAULT_PASSES, PASSES, PREDICT_PASSES, run_pipeline  # noqa: F401
from .pool_first import pool_before_activation  # noqa: F401

__all__ = ["run_pipeline", "PASSES", "DEFAULT_PASSES", "count_ops", "eliminate_dead_code",
           "eliminate_common_subexpressions", "fold_constants", "fuse_elementwise", "mark_inplace",
           "split_dynamic", "pool_before_activation", "PREDICT_PASSES", "fold_affine_maps", "fuse_activations",
           "mark_matmuls"]
