"""``mx.np.random``: NumPy-style sampling functions generated from the random ops, plus MXNet's other
``np.random`` samplers composed of them (every draw comes from the device generator, so
``mx.np.random.seed`` makes them reproducible). ``uniform`` and ``normal`` accept array parameters
(broadcast against ``size``); ``shuffle`` shuffles in place and returns None.

Example::

    >>> import hybridlab as mx
    >>> mx.np.random.seed(0)
    >>> mx.np.random.uniform(mx.np.zeros(3), mx.np.array([1.0, 2.0, 3.0])).shape
    (3,)
    >>> mx.np.random.beta(2.0, 3.0, size=(2, 2)).shape
    (2, 2)
"""
import numpy as _onp

from ..base import MXNetValueError
from ..ndarray.namespace import populate as _populate
from ..ndarray.ndarray import NDArray as _NDArray
from ..ops.context import seed as _seed
from ._call import call as _call

_populate(globals(), "np.random", np_style=True)
_gen_uniform, _gen_normal, _gen_gamma, _gen_shuffle = uniform, normal, gamma, shuffle  # noqa: F821


def seed(seed_state):
    """Seed every device's generator."""
    _seed(seed_state)


def _size(size, *params):
    size = () if size is None else ((size,) if hasattr(size, "__index__") else tuple(size))
    shapes = [p.shape for p in params if isinstance(p, _NDArray)]
    return _onp.broadcast_shapes(size, *shapes) if shapes else size


def _dev(params, ctx, device):
    for p in params:
        if isinstance(p, _NDArray):
            return p.device
    return device if device is not None else ctx


def _std(kind, size, dtype, ctx, device, *params):
    shape = _size(size, *params)
    dtype = dtype or _onp.float32
    fn = _gen_uniform if kind == "uniform" else _gen_normal
    return fn(size=shape, dtype=dtype, device=_dev(params, ctx, device))


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from U[low, high); ``low``/``high`` may be arrays (broadcast with ``size``).

    >>> import hybridlab as mx
    >>> mx.np.random.uniform(0, 1, size=(2, 3)).shape
    (2, 3)
    """
    if not isinstance(low, _NDArray) and not isinstance(high, _NDArray):
        return _gen_uniform(low, high, size=() if size is None else size, dtype=dtype, device=device or ctx, out=out)
    u = _std("uniform", size, dtype, ctx, device, low, high)
    return u * (high - low) + low


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from N(loc, scale**2); ``loc``/``scale`` may be arrays (broadcast with ``size``).

    >>> import hybridlab as mx
    >>> mx.np.random.normal(mx.np.zeros(2), 1.0).shape
    (2,)
    """
    if not isinstance(loc, _NDArray) and not isinstance(scale, _NDArray):
        return _gen_normal(loc, scale, size=() if size is None else size, dtype=dtype, device=device or ctx, out=out)
    return _std("normal", size, dtype, ctx, device, loc, scale) * scale + loc


def _u(size, dtype=None, ctx=None, device=None, *params):
    """Uniform samples in (0, 1) (no exact zero, so logs stay finite)."""
    u = _std("uniform", size, dtype, ctx, device, *params)
    return u * (1 - 2 * _onp.finfo(_onp.float32).eps) + _onp.finfo(_onp.float32).eps


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Gamma(shape, scale) samples.

    >>> import hybridlab as mx
    >>> mx.np.random.gamma(2.0, size=3).shape
    (3,)
    """
    if isinstance(shape, _NDArray) or isinstance(scale, _NDArray):
        raise MXNetValueError("np.random.gamma: expected scalar shape and scale, got an array")
    return _gen_gamma(shape, scale, size=() if size is None else size, dtype=dtype, device=device or ctx, out=out)


def exponential(scale=1.0, size=None, ctx=None, out=None, device=None):
    """Exponential samples with mean ``scale``.

    >>> import hybridlab as mx
    >>> mx.np.random.exponential(2.0, size=(2,)).shape
    (2,)
    """
    return -_log(_u(size, None, ctx, device, scale)) * scale


def _log(x):
    return _call("log", x)


def beta(a, b, size=None, dtype=None, ctx=None, device=None):
    """Beta(a, b) samples, as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).

    >>> import hybridlab as mx
    >>> float(mx.np.random.beta(1.0, 1.0, size=100).max()) <= 1.0
    True
    """
    x = gamma(a, 1.0, size, dtype, ctx, device)
    y = gamma(b, 1.0, size, dtype, ctx, device)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None, device=None):
    """Chi-square samples with ``df`` degrees of freedom.

    >>> import hybridlab as mx
    >>> mx.np.random.chisquare(3.0, size=2).shape
    (2,)
    """
    return gamma(df / 2.0, 2.0, size, dtype, ctx, device)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None, device=None):
    """Gumbel samples: ``loc - scale * log(-log(U))``.

    >>> import hybridlab as mx
    >>> mx.np.random.gumbel(size=(2, 2)).shape
    (2, 2)
    """
    return loc - scale * _log(-_log(_u(size, None, ctx, device, loc, scale)))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None, device=None):
    """Logistic samples: ``loc + scale * log(U / (1 - U))``.

    >>> import hybridlab as mx
    >>> mx.np.random.logistic(size=3).shape
    (3,)
    """
    u = _u(size, None, ctx, device, loc, scale)
    return loc + scale * _log(u / (1 - u))


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None, device=None):
    """``exp`` of N(mean, sigma**2) samples.

    >>> import hybridlab as mx
    >>> float(mx.np.random.lognormal(size=10).min()) > 0
    True
    """
    return _call("exp", normal(mean, sigma, size, dtype, ctx, device))


def pareto(a, size=None, ctx=None, out=None, device=None):
    """Pareto II (Lomax) samples, as NumPy's: ``U ** (-1 / a) - 1``.

    >>> import hybridlab as mx
    >>> float(mx.np.random.pareto(3.0, size=10).min()) >= 0
    True
    """
    return _u(size, None, ctx, device, a) ** (-1.0 / a) - 1


def power(a, size=None, ctx=None, out=None, device=None):
    """Power-distribution samples in [0, 1]: ``U ** (1 / a)``.

    >>> import hybridlab as mx
    >>> float(mx.np.random.power(2.0, size=10).max()) <= 1
    True
    """
    return _u(size, None, ctx, device, a) ** (1.0 / a)


def rayleigh(scale=1.0, size=None, ctx=None, out=None, device=None):
    """Rayleigh samples: ``scale * sqrt(-2 log U)``.

    >>> import hybridlab as mx
    >>> mx.np.random.rayleigh(2.0, size=2).shape
    (2,)
    """
    return scale * _call("sqrt", -2 * _log(_u(size, None, ctx, device, scale)))


def weibull(a, size=None, ctx=None, out=None, device=None):
    """Weibull samples: ``(-log U) ** (1 / a)``.

    >>> import hybridlab as mx
    >>> mx.np.random.weibull(1.5, size=2).shape
    (2,)
    """
    return (-_log(_u(size, None, ctx, device, a))) ** (1.0 / a)


def rand(*size, **kwargs):
    """U[0, 1) samples of shape ``size``.

    >>> import hybridlab as mx
    >>> mx.np.random.rand(2, 3).shape
    (2, 3)
    """
    return uniform(size=size, **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``.

    >>> import hybridlab as mx
    >>> mx.np.random.randn(2, 3).shape
    (2, 3)
    """
    return normal(size=size, **kwargs)


def _categorical(p, size, ctx, device):
    """Indices drawn from probabilities ``p`` (1-d) by the inverse CDF; int64, shape ``size``."""
    from .. import numpy as _np
    cdf = _np.cumsum(p, axis=0)
    u = _std("uniform", size, p.dtype, ctx, device) * _np.reshape(_call("slice_axis", cdf, axis=0, begin=-1,
                                                                           end=None), ())
    return _np.sum((_np.expand_dims(u, -1) >= cdf).astype(_onp.int64), axis=-1)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None, device=None):
    """Random samples from ``a`` (an int n: ``arange(n)``), with or without replacement, with optional
    probabilities ``p``.

    >>> import hybridlab as mx
    >>> mx.np.random.choice(5, size=3, replace=False).shape
    (3,)
    """
    from .. import numpy as _np
    is_int = not isinstance(a, _NDArray) and hasattr(a, "__index__")
    n = a if is_int else len(a)
    shape = _size(size)
    count = int(_onp.prod(shape))
    dev = device or ctx or (a.device if isinstance(a, _NDArray) else None)  # noqa: F841
    if p is not None:
        p = p if isinstance(p, _NDArray) else _np.array(p, dtype=_onp.float64, device=dev)
    if replace:
        if p is None:
            idx = randint(0, n, size=shape, dtype=_onp.int64, device=dev)  # noqa: F821
        else:
            idx = _categorical(p, shape, ctx, dev)
    else:
        if count > n:
            raise MXNetValueError(f"np.random.choice: expected size <= {n} without replacement, got {count}")
        if p is None:
            keys = _std("uniform", (n,), None, None, dev)
        else:   # Gumbel top-k: keys log p + Gumbel noise, largest first
            keys = _log(p) - _log(-_log(_u((n,), p.dtype, None, dev)))
        order = _np.argsort(-keys)
        idx = _np.reshape(_call("slice_axis", order, axis=0, begin=0, end=count), shape)
    if is_int:
        return idx
    return _np.take(_np.asarray(a), idx, axis=0)


def multinomial(n, pvals, size=None, **kwargs):
    """Counts of ``n`` draws over the categories of ``pvals``: shape ``size + (len(pvals),)``, int64.

    >>> import hybridlab as mx
    >>> int(mx.np.random.multinomial(10, [0.2, 0.8]).sum())
    10
    >>> mx.np.random.multinomial(10, [], size=(2, 3)).shape
    (2, 3, 0)
    """
    from .. import numpy as _np
    dev = kwargs.get("device") or kwargs.get("ctx")
    p = pvals if isinstance(pvals, _NDArray) else _np.array(_onp.asarray(pvals, dtype=_onp.float64), device=dev)
    k = p.shape[0]
    if k == 0:          # no categories: an empty count array (as MXNet), nothing to draw from
        return _np.zeros(_size(size) + (0,), dtype=_onp.int64, device=p.device)
    draws = _categorical(p, _size(size) + (int(n),), None, dev)
    cats = _np.arange(k, dtype=_onp.int64, device=draws.device)
    return _np.sum((_np.expand_dims(draws, -1) == cats).astype(_onp.int64), axis=-2)


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of N(mean, cov): ``mean + z @ cholesky(cov).T``; shape ``size + mean.shape``.

    >>> import hybridlab as mx
    >>> mx.np.random.multivariate_normal(mx.np.zeros(2), mx.np.eye(2), size=4).shape
    (4, 2)
    """
    from .. import numpy as _np
    mean, cov = _np.asarray(mean), _np.asarray(cov)
    z = _std("normal", _size(size) + mean.shape, mean.dtype, None, mean.device)
    L = _np.linalg.cholesky(cov)
    return mean + _np.matmul(z, _np.swapaxes(L, -1, -2))


def shuffle(x):
    """Shuffle ``x`` in place along its first axis; returns None (as NumPy and MXNet).

    >>> import hybridlab as mx
    >>> x = mx.np.arange(4)
    >>> mx.np.random.shuffle(x) is None, sorted(x.tolist())
    (True, [0.0, 1.0, 2.0, 3.0])
    """
    x[:] = _gen_shuffle(x)
