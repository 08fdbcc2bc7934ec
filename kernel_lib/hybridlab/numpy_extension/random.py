"""``mx.npx.random``: MXNet's sampling functions that NumPy lacks (``bernoulli``, ``uniform_n``,
``normal_n``) and ``seed``, composed of ``mx.np.random``'s samplers (so the same seed gives the same
draws).

Example::

    >>> import hybridlab as mx
    >>> mx.npx.random.bernoulli(prob=mx.np.array([0.0, 1.0])).tolist()
    [0.0, 1.0]
    >>> mx.npx.random.uniform_n(mx.np.zeros((2,)), mx.np.ones((2,)), batch_shape=(3,)).shape
    (3, 2)
"""
import numpy as _onp


__all__ = ["bernoulli", "uniform_n", "normal_n", "seed"]


def seed(seed, ctx="all"):
    """Seed the generators (``mx.npx.random.seed(0)`` as ``mx.np.random.seed(0)``)."""
    from ..numpy import random as _random
    _random.seed(seed)


def _shape(size):
    return () if size is None else (tuple(size) if isinstance(size, (tuple, list)) else (int(size),))


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Draws of 1 with probability ``prob`` (or ``sigmoid(logit)``), else 0; exactly one of
    ``prob`` and ``logit`` must be given, and ``prob`` must lie in [0, 1] (else ``ValueError``).

    >>> import hybridlab as mx
    >>> mx.npx.random.bernoulli(logit=-100.0, size=(2,)).tolist()
    [0.0, 0.0]
    """
    from .. import numpy as _np
    if (prob is None) == (logit is None):
        raise ValueError(f"bernoulli: expected exactly one of prob and logit, got prob={prob is not None}, "
                         f"logit={logit is not None}")
    p = prob if prob is not None else None
    if p is None:
        p = 1 / (1 + _np.exp(-logit)) if isinstance(logit, _np.ndarray) else 1 / (1 + _onp.exp(-float(logit)))
    values = p.asnumpy() if isinstance(p, _np.ndarray) else _onp.asarray(p)
    if values.size and ((values < 0).any() or (values > 1).any()):
        raise ValueError(f"bernoulli: prob expected in [0, 1], got values from {values.min()} to {values.max()}")
    shape = _shape(size) if size is not None else tuple(values.shape)
    u = _np.random.uniform(0.0, 1.0, size=shape, ctx=ctx)
    res = (u < p).astype(dtype or "float32")
    if out is not None:
        out[...] = res
        return out
    return res


def _sample_n(sampler, a, b, batch_shape, dtype, ctx):
    from .. import numpy as _np
    shapes = [x.shape if isinstance(x, _np.ndarray) else () for x in (a, b)]
    size = _shape(batch_shape) + tuple(_onp.broadcast_shapes(*shapes))
    kwargs = {"size": size, "ctx": ctx}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return sampler(a, b, **kwargs)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform draws of shape ``batch_shape + broadcast(low, high).shape``.

    >>> import hybridlab as mx
    >>> mx.npx.random.uniform_n(0.0, 1.0, batch_shape=2).shape
    (2,)
    """
    from .. import numpy as _np
    return _sample_n(_np.random.uniform, low, high, batch_shape, dtype, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal draws of shape ``batch_shape + broadcast(loc, scale).shape``.

    >>> import hybridlab as mx
    >>> mx.npx.random.normal_n(mx.np.zeros((2, 2)), 1.0, batch_shape=(3,)).shape
    (3, 2, 2)
    """
    from .. import numpy as _np
    return _sample_n(_np.random.normal, loc, scale, batch_shape, dtype, ctx)
