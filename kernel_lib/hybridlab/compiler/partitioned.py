"""``Partition``: a graph with dynamic-shape ops run as segments (``partition_if_dynamic``).

``partition_dynamic(symbol, inline_limit)`` splits ``symbol`` around its dynamic-shape ops
(``passes.dynamic.split_dynamic``) into a callable ``Partition``. Called with ``{input name:
NDArray}``, it runs the segments in order: a static segment with more than ``inline_limit`` ops runs
as a ``CachedOp`` (compiled on first use, kept in ``cached_ops``; MXNet's meaning of
``inline_limit``: smaller subgraphs run inline), the other segments and every dynamic op run node by
node through the imperative dispatcher (``compiler.interpreter``). It returns the graph's outputs as
a list.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.compiler.partitioned import partition_dynamic
    >>> x, m = mx.sym.var('x'), mx.sym.var('m')
    >>> y = mx.sym.sum(mx.sym.exp(mx.sym.boolean_mask(mx.sym.relu(x, name='r'), m, name='mask'), name='e'), name='s')
    >>> part = partition_dynamic(y)
    >>> print(part)
    Partition: 3 segments
      static  [r] reads x -> r_output
      dynamic mask (boolean_mask) reads r_output, m -> mask_output
      static  [e, s] reads mask_output -> s_output
    >>> out = part({'x': mx.nd.array([-1.0, 0.0, 2.0]), 'm': mx.nd.array([1, 0, 1])})
    >>> round(float(out[0].asscalar()), 4)
    8.3891
"""
from ..base import MXNetError
from .interpreter import Interpreter
from .passes.dynamic import split_dynamic

__all__ = ["Partition", "partition_dynamic"]


def partition_dynamic(symbol, inline_limit=2):
    """``symbol`` split around its dynamic-shape ops, as a callable ``Partition``."""
    segments, outputs = split_dynamic(symbol)
    return Partition(segments, outputs, inline_limit)


class Partition:
    """``segments`` in execution order, the value keys of the graph's ``outputs``, and
    ``cached_ops`` (the ``CachedOp`` of each static segment compiled so far, else ``None``). Call
    with ``{input name: NDArray}``; returns the list of outputs."""

    def __init__(self, segments, outputs, inline_limit=2):
        self.segments, self.outputs, self.inline_limit = segments, outputs, inline_limit
        self.cached_ops = [None] * len(segments)

    def __call__(self, feed):
        values = dict(feed)
        for k, seg in enumerate(self.segments):
            args = _read(values, seg.inputs, f"segment {seg!r}")
            values.update(zip(seg.outputs, self._run(k, seg, args)))
        return _read(values, self.outputs, "the graph outputs")

    def _run(self, k, seg, args):
        if seg.kind == "static" and len(seg.op_names) > self.inline_limit:
            if self.cached_ops[k] is None:
                from .cached_op import CachedOp     # the cached op partitions its graph with this module
                self.cached_ops[k] = CachedOp(seg.symbol)
            outs = self.cached_ops[k](*args)
            return outs if isinstance(outs, list) else [outs]
        return Interpreter(seg.symbol).run(dict(zip(seg.inputs, args)))

    def __repr__(self):
        return "\n".join([f"Partition: {len(self.segments)} segments"] + [f"  {s!r}" for s in self.segments])


def _read(values, keys, where):
    missing = [k for k in keys if k not in values]
    if missing:
        raise MXNetError(f"partition_if_dynamic: {where} expected values for {missing}, got only "
                         f"{sorted(values)} (feed every graph input by name)")
    return [values[k] for k in keys]
