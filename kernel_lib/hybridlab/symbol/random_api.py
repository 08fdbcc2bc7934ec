"""``mx.sym.random``'s sampling functions (MXNet 1.x ``mxnet.symbol.random``): numbers as the
distribution parameters compose a ``_random_*`` node (parameters as attributes), Symbols compose a
``_sample_*`` node (parameters as inputs: one block of ``shape`` samples per element), as the
``mx.nd.random`` functions do (``ndarray/random_api.py``). ``install(namespace)`` puts them into the
``mx.sym.random`` namespace next to the functions generated from the registry (``multinomial``,
``shuffle``, ``randint``, the ``*_like`` ops).

Example::

    >>> import hybridlab as mx
    >>> mu, sigma = mx.sym.var('mu'), mx.sym.var('sigma')
    >>> s = mx.sym.random.normal(mu, sigma, shape=(3,))
    >>> s.list_arguments(), s.infer_shape(mu=(2,), sigma=(2,))[1]
    (['mu', 'sigma'], [(2, 3)])
    >>> mx.sym.random.uniform(-1, 1, shape=(2, 2)).infer_shape()[1]
    [(2, 2)]
"""
import numbers

from ..base import MXNetError
from .symbol import Symbol

__all__ = ["install"]


def _helper(F, dist, params, shape, dtype, kwargs):
    """Compose ``_sample_<dist>`` (Symbol parameters) or ``_random_<dist>`` (numbers)."""
    values = list(params.values())
    attrs = dict(kwargs)
    if shape is not None:
        attrs["shape"] = shape
    if dtype is not None:
        attrs["dtype"] = dtype
    if isinstance(values[0], Symbol):
        if not all(isinstance(v, Symbol) for v in values):
            raise MXNetError(f"random.{dist}: distribution parameters must all have the same type: "
                             f"expected Symbols, got {[type(v).__name__ for v in values]}")
        return getattr(F, f"_sample_{dist}")(*values, **attrs)
    if isinstance(values[0], numbers.Number):
        if not all(isinstance(v, numbers.Number) for v in values):
            raise MXNetError(f"random.{dist}: distribution parameters must all have the same type: "
                             f"expected numbers, got {[type(v).__name__ for v in values]}")
        attrs.update(params)
        # MXNet composes an op without inputs ignoring Symbol keywords (randn(..., data=x) in its tests)
        attrs = {k: v for k, v in attrs.items() if not isinstance(v, Symbol)}
        return getattr(F, f"_random_{dist}")(**attrs)
    raise MXNetError(f"random.{dist}: distribution parameters must be Symbols or numbers, got "
                     f"{type(values[0]).__name__}")


def _functions(F):
    def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
        """Samples from the uniform distribution on [low, high)."""
        return _helper(F, "uniform", {"low": low, "high": high}, shape, dtype, kwargs)

    def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
        """Samples from the normal distribution with mean ``loc`` and standard deviation ``scale``."""
        return _helper(F, "normal", {"loc": loc, "scale": scale}, shape, dtype, kwargs)

    def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
        """Normal samples with the shape given positionally: ``randn(2, 3, loc=mu, scale=sigma)``."""
        return _helper(F, "normal", {"loc": loc, "scale": scale}, shape or None, dtype, kwargs)

    def exponential(scale=1, shape=None, dtype=None, **kwargs):
        """Samples from the exponential distribution with ``scale`` = 1/rate."""
        lam = 1.0 / scale if isinstance(scale, numbers.Number) else F._rdiv_scalar(scale, scalar=1.0)
        return _helper(F, "exponential", {"lam": lam}, shape, dtype, kwargs)

    def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
        """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
        return _helper(F, "gamma", {"alpha": alpha, "beta": beta}, shape, dtype, kwargs)

    def poisson(lam=1, shape=None, dtype=None, **kwargs):
        """Samples from the Poisson distribution with rate ``lam``."""
        return _helper(F, "poisson", {"lam": lam}, shape, dtype, kwargs)

    def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
        """Samples from the negative binomial distribution (``k`` failures, probability ``p``)."""
        return _helper(F, "negative_binomial", {"k": k, "p": p}, shape, dtype, kwargs)

    def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
        """Samples from the generalized negative binomial distribution (mean ``mu``, dispersion
        ``alpha``)."""
        return _helper(F, "generalized_negative_binomial", {"mu": mu, "alpha": alpha}, shape, dtype, kwargs)

    return {f.__name__: f for f in (uniform, normal, randn, exponential, gamma, poisson, negative_binomial,
                                    generalized_negative_binomial)}


def install(namespace, F):
    """Add the sampling functions, composing ops of the namespace ``F`` (``mx.sym``), to ``namespace``."""
    for name, fn in _functions(F).items():
        setattr(namespace, name, fn)
