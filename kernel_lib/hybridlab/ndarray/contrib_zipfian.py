"""``mx.nd.contrib.rand_zipfian`` (and, through ``zipfian_with``, ``mx.sym.contrib.rand_zipfian``):
MXNet 1.x's Python function, composed of registered ops, that samples ``num_sampled`` classes *with
replacement* from the approximately log-uniform (Zipfian) distribution over [0, range_max),
``P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)``, and returns the expected
number of times each true class and each sampled class occurs in ``num_sampled`` draws.

A draw is ``int(exp(u) - 1) % range_max`` with u uniform on [0, log(range_max + 1)) (one
``_random_uniform`` in float64). Outputs: the sampled classes (int64, shape ``(num_sampled,)``),
the expected counts of ``true_classes`` (float64, their shape) and of the samples (float64).

Example::

    >>> import hybridlab as mx
    >>> s, count_true, count_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3]), 4, 5)
    >>> s.shape, s.dtype, count_sampled.dtype
    ((4,), dtype('int64'), dtype('float64'))
    >>> [round(v, 6) for v in count_true.asnumpy().tolist()]    # 4 * log(5 / 4) / log(6)
    [0.498155]
"""
import math

from ..device import current_device

__all__ = ["rand_zipfian", "zipfian_with"]


def _expected_count(F, classes, log_range, num_sampled):
    c = F.Cast(classes, dtype="float64")
    prob = F._div_scalar(F.log(F.elemwise_div(F._plus_scalar(c, scalar=2.0), F._plus_scalar(c, scalar=1.0))),
                         scalar=log_range)
    return F._mul_scalar(prob, scalar=num_sampled)


def zipfian_with(F, true_classes, num_sampled, range_max, ctx=None):
    """``rand_zipfian`` written over the op namespace ``F`` (``mx.nd`` or ``mx.sym``); ``ctx``
    places the samples (``mx.nd`` only)."""
    log_range = math.log(range_max + 1)
    extra = {} if ctx is None else {"ctx": ctx}
    u = F._random_uniform(low=0, high=log_range, shape=(num_sampled,), dtype="float64", **extra)
    sampled = F._mod_scalar(F.Cast(F._minus_scalar(F.exp(u), scalar=1), dtype="int64"), scalar=range_max)
    if ctx is not None:
        true_classes = true_classes.as_in_context(ctx)
    return (sampled, _expected_count(F, true_classes, log_range, num_sampled),
            _expected_count(F, sampled, log_range, num_sampled))


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Draw random samples from an approximately log-uniform or Zipfian distribution (with
    replacement), with the expected counts of the true classes and of the sampled classes.

    Parameters: ``true_classes`` (a 1-D NDArray of the target classes), ``num_sampled`` (how many
    classes to sample), ``range_max`` (the number of possible classes), ``ctx`` (the device of the
    outputs; default: the current device). Returns ``(samples, expected_count_true,
    expected_count_sampled)``: int64, float64, float64.

    >>> import hybridlab as mx
    >>> s, _, _ = mx.nd.contrib.rand_zipfian(mx.nd.array([0, 1]), 50, 3)
    >>> v = s.asnumpy(); bool(((v >= 0) & (v < 3)).all())
    True
    """
    from .. import ndarray as nd
    return zipfian_with(nd, true_classes, num_sampled, range_max, ctx or current_device())
