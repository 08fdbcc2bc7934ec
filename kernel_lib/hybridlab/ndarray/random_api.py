"""``mx.nd.random`` (also star-imported into ``mx.random``): MXNet 1.x sampling functions.

Scalar distribution parameters call the ``_random_*`` ops (output ``shape``, default ``(1,)``);
NDArray parameters call the ``_sample_*`` ops (one block of ``shape`` samples per element), as
MXNet's ``_random_helper`` does. ``mx.random.seed`` makes every draw reproducible.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.random.uniform(-1, 1, shape=(2, 3)).shape
    (2, 3)
    >>> mx.nd.random.normal(mx.nd.array([0.0, 10.0]), mx.nd.array([1.0, 1.0]), shape=4).shape
    (2, 4)
    >>> mx.nd.random.randint(0, 10, shape=(3,)).dtype
    dtype('int32')
"""
import numbers

from ..base import MXNetError
from ..ops.registry import get_op
from .dispatch import invoke
from .namespace import populate as _populate
from .ndarray import NDArray

_populate(globals(), "nd.random")

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "shuffle"]


def _random_helper(dist, params, shape, dtype, ctx, out, kwargs):
    """Dispatch to ``_sample_<dist>`` (NDArray parameters) or ``_random_<dist>`` (numbers)."""
    names = list(params)
    values = list(params.values())
    attrs = dict(kwargs)
    if dtype is not None:
        attrs["dtype"] = dtype
    if isinstance(values[0], NDArray):
        if not all(isinstance(v, NDArray) for v in values):
            raise MXNetError(f"random.{dist}: distribution parameters must all have the same type: "
                             f"expected NDArrays, got {[type(v).__name__ for v in values]}")
        if shape is not None:
            attrs["shape"] = shape
        return invoke(get_op(f"_sample_{dist}"), values, attrs, out)
    if isinstance(values[0], numbers.Number):
        if not all(isinstance(v, numbers.Number) for v in values):
            raise MXNetError(f"random.{dist}: distribution parameters must all have the same type: "
                             f"expected numbers, got {[type(v).__name__ for v in values]}")
        if shape is None and out is None:
            shape = 1
        if shape is None:
            shape = out.shape
        attrs.update(zip(names, values))
        attrs["shape"] = shape
        if ctx is not None:
            attrs["ctx"] = ctx
        return invoke(get_op(f"_random_{dist}"), [], attrs, out)
    raise MXNetError(f"random.{dist}: distribution parameters must be NDArrays or numbers, got "
                     f"{type(values[0]).__name__}")


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the uniform distribution on [low, high) (float32 unless ``dtype`` says otherwise).

    >>> import hybridlab as mx
    >>> x = mx.nd.random.uniform(2, 3, shape=(100,)).asnumpy()
    >>> bool((x >= 2).all() and (x < 3).all())
    True
    """
    return _random_helper("uniform", {"low": low, "high": high}, shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the normal distribution with mean ``loc`` and standard deviation ``scale``."""
    return _random_helper("normal", {"loc": loc, "scale": scale}, shape, dtype, ctx, out, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
    """Normal samples with the shape given positionally: ``randn(2, 3)``."""
    return _random_helper("normal", {"loc": loc, "scale": scale}, shape or None, dtype, ctx, out, kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Uniform integers in [low, high) (int32 unless ``dtype='int64'``)."""
    attrs = dict(kwargs, low=low, high=high, shape=shape if shape is not None else
                 (out.shape if out is not None else 1))
    if dtype is not None:
        attrs["dtype"] = dtype
    if ctx is not None:
        attrs["ctx"] = ctx
    return invoke(get_op("_random_randint"), [], attrs, out)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with ``scale`` = 1/rate (an NDArray or a number)."""
    lam = 1.0 / scale if isinstance(scale, numbers.Number) else invoke(
        get_op("_rdiv_scalar"), [scale], {"scalar": 1.0})
    return _random_helper("exponential", {"lam": lam}, shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _random_helper("gamma", {"alpha": alpha, "beta": beta}, shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution with rate ``lam`` (returned as floats)."""
    return _random_helper("poisson", {"lam": lam}, shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the negative binomial distribution (``k`` failures limit, failure probability
    ``p``), as floats."""
    return _random_helper("negative_binomial", {"k": k, "p": p}, shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the generalized negative binomial distribution (mean ``mu``, dispersion
    ``alpha``), as floats."""
    return _random_helper("generalized_negative_binomial", {"mu": mu, "alpha": alpha}, shape, dtype,
                          ctx, out, kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted.

    >>> import hybridlab as mx
    >>> sorted(mx.nd.random.shuffle(mx.nd.arange(4)).asnumpy().tolist())
    [0.0, 1.0, 2.0, 3.0]
    """
    out = kwargs.pop("out", None)
    return invoke(get_op("_shuffle"), [data], kwargs, out)
