"""``_sample_unique_zipfian`` (``mx.nd._internal._sample_unique_zipfian``): classes drawn without
replacement from an approximately log-uniform (Zipfian) distribution over [0, range_max), with
``P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)``.

``shape`` is ``(batch_size, num_sampled)``; each row of the first output (int64) holds
``num_sampled`` distinct classes in the order they were first drawn, and the second output (int64,
shape ``(batch_size,)``) how many draws it took. Each draw takes a uniform u in [0, 1) (float64,
from the device generator, see ops/random.py) and gives ``round(exp(u * log(range_max))) - 1``, as
MXNet's sampler; draws are made in blocks, the block's first occurrences are kept in order, so the
result is that of drawing one at a time until ``num_sampled`` distinct classes are seen.
``mx.nd.contrib.rand_zipfian`` (sampling with replacement, with expected counts) is composed of
registered ops in ``ndarray/contrib_zipfian.py``.

Example::

    >>> import hybridlab as mx
    >>> classes, trials = mx.nd._internal._sample_unique_zipfian(10, shape=(2, 10))
    >>> sorted(classes[0].asnumpy().tolist()) == list(range(10)), classes.dtype, trials.shape
    (True, dtype('int64'), (2,))
    >>> bool((trials >= 10).asnumpy().all())
    True
"""
import math

import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .random import random01
from .registry import OpDef, register

__all__ = []


def _check(a):
    shape = tuple(a["shape"] or ())
    if len(shape) != 2:
        raise MXNetError(f"_sample_unique_zipfian: attribute 'shape' expected 2 dimensions "
                         f"(batch_size, num_sampled), got {shape}")
    if a["shape"][1] > a["range_max"]:
        raise MXNetError(f"_sample_unique_zipfian: number of samples ({shape[1]}) cannot exceed the number "
                         f"of possible classes (range_max={a['range_max']})")
    return shape


def _first_unique(xp, values, n):
    """Positions of the first ``n`` first occurrences in ``values`` (in order), or all of them
    when there are fewer."""
    _, first = xp.unique(values, return_index=True)
    return xp.sort(first)[:n]


def _row(ctx, log_range, n):
    """One batch row: the first ``n`` distinct classes of a stream of draws, and how many draws."""
    xp = ctx.xp
    draws = xp.zeros((0,), onp.int64)
    block = max(16, 2 * n)
    while True:
        u = random01(ctx.rng, (block,))
        values = (xp.floor(xp.exp(u * log_range) + 0.5) - 1).astype(onp.int64)
        draws = xp.concatenate([draws, values])
        first = _first_unique(xp, draws, n)
        if first.shape[0] == n:
            tries = int(first[-1]) + 1 if n else 0
            return draws[first], tries
        block = max(block, draws.shape[0])


def _compute(ctx, a):
    xp = ctx.xp
    batch, n = _check(a)
    log_range = math.log(a["range_max"]) if a["range_max"] > 0 else 0.0
    samples = xp.zeros((batch, n), onp.int64)
    trials = xp.zeros((batch,), onp.int64)
    for i in range(batch):
        samples[i], trials[i] = _row(ctx, log_range, n)
    return samples, trials


def _infer(a, s):
    batch, n = _check(a)
    return [(batch, n), (batch,)]


register(OpDef(
    "_sample_unique_zipfian", inputs=(), family="random", needs_rng=True, num_outputs=2,
    attrs={"range_max": Attr("int", doc="The number of possible classes."),
           "shape": Attr("shape?", (), doc="2-D shape of the output, where shape[0] is the batch size, and "
                                           "shape[1] is the number of candidates to sample for each batch.")},
    compute=_compute, infer_shape=_infer,
    infer_type=lambda a, d: [onp.dtype(onp.int64), onp.dtype(onp.int64)],
    no_grad_reason="random sampling: the output is not a differentiable function of the inputs",
    doc="Draws num_sampled distinct classes per batch row from an approximately log-uniform (Zipfian) "
        "distribution over [0, range_max), and the number of draws each row took."))
