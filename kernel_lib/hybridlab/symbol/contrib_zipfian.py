"""``mx.sym.contrib.rand_zipfian``: the graph form of ``mx.nd.contrib.rand_zipfian``
(``ndarray/contrib_zipfian.py``, which describes the sampler), the same registered ops composed
as Symbols: a tuple of three Symbols (sampled classes, expected counts of the true classes, of the
sampled classes).

Example::

    >>> import hybridlab as mx
    >>> outs = mx.sym.contrib.rand_zipfian(mx.sym.var('true_classes'), 4, 5)
    >>> g = mx.sym.Group(outs)
    >>> g.list_arguments(), g.infer_type(true_classes='int32')[1]
    (['true_classes'], [dtype('int64'), dtype('float64'), dtype('float64')])
    >>> s, c_true, c_sampled = g.eval(true_classes=mx.nd.array([3]))
    >>> s.shape, [round(v, 6) for v in c_true.asnumpy().tolist()]
    ((4,), [0.498155])
"""
from ..ndarray.contrib_zipfian import zipfian_with

__all__ = ["rand_zipfian"]


def rand_zipfian(true_classes, num_sampled, range_max):
    """Draw random samples from an approximately log-uniform or Zipfian distribution (with
    replacement): ``true_classes`` is a Symbol of the target classes in 1-D; returns the Symbols
    ``(samples, expected_count_true, expected_count_sampled)`` (int64, float64, float64)."""
    from .. import symbol as F
    return zipfian_with(F, true_classes, num_sampled, range_max)
