"""``mx.np.random``: NumPy-style sampling functions generated from the random ops, plus MXNet's other
``np.random`` samplers composed of them (every draw comes from the device generator, so
``mx.np.random.seed`` makes them reproducible). Distribution parameters may be numbers or arrays
(broadcast against ``size``); ``shuffle`` shuffles in place and returns None.

Parameters are checked as MXNet checks them (``scale >= 0``, ``a > 0``, gamma's ``shape > 0`` and
``scale > 0``): a number at the call, raising ``ValueError``; an array where the graph runs, through
``npx.constraint_check`` (so a hybridized block checks every call's values).

Example::

    >>> import hybridlab as mx
    >>> mx.np.random.seed(0)
    >>> mx.np.random.uniform(mx.np.zeros(3), mx.np.array([1.0, 2.0, 3.0])).shape
    (3,)
    >>> mx.np.random.beta(2.0, 3.0, size=(2, 2)).shape
    (2, 2)
    >>> try:
    ...     mx.np.random.exponential(-1.0)
    ... except ValueError as err:
    ...     print(err)
    np.random.exponential: expected scale >= 0, got -1.0
"""
import numpy as _onp

from ..base import MXNetValueError
from ..ndarray.namespace import populate as _populate
from ..ndarray.ndarray import NDArray as _NDArray
from ..ops.context import seed as _seed
from ._call import call as _call

_populate(globals(), "np.random", np_style=True)
_gen_uniform, _gen_normal, _gen_shuffle = uniform, normal, shuffle  # noqa: F821


def seed(seed_state):
    """Seed every device's generator."""
    _seed(seed_state)


def _size(size, *params):
    size = () if size is None else ((size,) if hasattr(size, "__index__") else tuple(size))
    shapes = [p.shape for p in params if isinstance(p, _NDArray)]
    return _onp.broadcast_shapes(size, *shapes) if shapes else size


def _checked(fn, name, value, strict):
    """``value`` checked against ``value > 0`` (``strict``) or ``value >= 0``: a number raises
    ``ValueError`` now, an array is multiplied by ``npx.constraint_check`` of the test (True), which
    raises where the graph runs."""
    expected = f"{name} {'>' if strict else '>='} 0"
    if isinstance(value, _NDArray):
        test = _call("_npi_greater" if strict else "_npi_greater_equal", value, 0.0)
        msg = f"np.random.{fn}: expected {expected} for every element of the array"
        return value * _call("_npx_constraint_check", test, msg=msg)
    if not (value > 0 if strict else value >= 0):
        raise MXNetValueError(f"np.random.{fn}: expected {expected}, got {value}")
    return value


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
    scale = _checked("normal", "scale", scale, strict=False)
    if not isinstance(loc, _NDArray) and not isinstance(scale, _NDArray):
        return _gen_normal(loc, scale, size=() if size is None else size, dtype=dtype, device=device or ctx, out=out)
    return _std("normal", size, dtype, ctx, device, loc, scale) * scale + loc


def _u(size, dtype=None, ctx=None, device=None, *params):
    """Uniform samples in (0, 1) (no exact zero, so logs stay finite)."""
    u = _std("uniform", size, dtype, ctx, device, *params)
    return u * (1 - 2 * _onp.finfo(_onp.float32).eps) + _onp.finfo(_onp.float32).eps


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Gamma(shape, scale) samples (the ``_npi_gamma`` op, which checks ``shape > 0`` and
    ``scale > 0``); ``shape`` and ``scale`` may be arrays, broadcast against ``size``.

    >>> import hybridlab as mx
    >>> mx.np.random.gamma(2.0, size=3).shape
    (3,)
    >>> mx.np.random.gamma(mx.np.ones((2, 1)), mx.np.ones(3)).shape
    (2, 3)
    """
    if out is not None:
        size = out.shape
    inputs = [p for p in (shape, scale) if isinstance(p, _NDArray)]
    attrs = {n: (None if isinstance(p, _NDArray) else float(p)) for n, p in (("shape", shape), ("scale", scale))}
    size = None if size is None or size == () else _size(size)
    return _call("_npi_gamma", *inputs, size=size, dtype=dtype or _onp.float32, ctx=_dev(inputs, ctx, device),
                 out=out, **attrs)


def exponential(scale=1.0, size=None, ctx=None, out=None, device=None):
    """Exponential samples with mean ``scale``.

    >>> import hybridlab as mx
    >>> mx.np.random.exponential(2.0, size=(2,)).shape
    (2,)
    """
    scale = _checked("exponential", "scale", scale, strict=False)
    return -_log(_u(size, None, ctx, device, scale)) * scale


def _log(x):
    return _call("log", x)


def beta(a, b, size=None, dtype=None, ctx=None, device=None):
    """Beta(a, b) samples, as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).

    >>> import hybridlab as mx
    >>> float(mx.np.random.beta(1.0, 1.0, size=100).max()) <= 1.0
    True
    """
    x = gamma(a, 1.0, size, _onp.float64, ctx, device)
    y = gamma(b, 1.0, size, _onp.float64, ctx, device)
    return (x / (x + y)).astype(dtype or _onp.float32)


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
    scale = _checked("gumbel", "scale", scale, strict=False)
    return loc - scale * _log(-_log(_u(size, None, ctx, device, loc, scale)))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None, device=None):
    """Logistic samples: ``loc + scale * log(U / (1 - U))``.

    >>> import hybridlab as mx
    >>> mx.np.random.logistic(size=3).shape
    (3,)
    """
    scale = _checked("logistic", "scale", scale, strict=False)
    u = _u(size, None, ctx, device, loc, scale)
    return loc + scale * _log(u / (1 - u))


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None, device=None):
    """``exp`` of N(mean, sigma**2) samples.

    >>> import hybridlab as mx
    >>> float(mx.np.random.lognormal(size=10).min()) > 0
    True
    """
    sigma = _checked("lognormal", "sigma", sigma, strict=False)
    return _call("exp", normal(mean, sigma, size, dtype, ctx, device))


def pareto(a, size=None, ctx=None, out=None, device=None):
    """Pareto II (Lomax) samples, as NumPy's: ``U ** (-1 / a) - 1``.

    >>> import hybridlab as mx
    >>> float(mx.np.random.pareto(3.0, size=10).min()) >= 0
    True
    """
    a = _checked("pareto", "a", a, strict=True)
    return _u(size, None, ctx, device, a) ** (-1.0 / a) - 1


def power(a, size=None, ctx=None, out=None, device=None):
    """Power-distribution samples in [0, 1]: ``U ** (1 / a)``.

    >>> import hybridlab as mx
    >>> float(mx.np.random.power(2.0, size=10).max()) <= 1
    True
    """
    a = _checked("power", "a", a, strict=True)
    return _u(size, None, ctx, device, a) ** (1.0 / a)


def rayleigh(scale=1.0, size=None, ctx=None, out=None, device=None):
    """Rayleigh samples: ``scale * sqrt(-2 log U)``.

    >>> import hybridlab as mx
    >>> mx.np.random.rayleigh(2.0, size=2).shape
    (2,)
    """
    scale = _checked("rayleigh", "scale", scale, strict=False)
    return scale * _call("sqrt", -2 * _log(_u(size, None, ctx, device, scale)))


def weibull(a, size=None, ctx=None, out=None, device=None):
    """Weibull samples: ``(-log U) ** (1 / a)``.

    >>> import hybridlab as mx
    >>> mx.np.random.weibull(1.5, size=2).shape
    (2,)
    """
    a = _checked("weibull", "a", a, strict=True)
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
    """Samples of N(mean, cov): ``mean + cholesky(cov) @ z`` with z standard normal. As MXNet's,
    ``mean`` (..., N) and ``cov`` (..., N, N) may carry batch dimensions that broadcast; the output
    shape is ``size + broadcast(mean.shape, cov.shape[:-1])``, in ``mean``'s dtype (a float16 ``cov``
    is factorized in float32). ``check_valid`` and ``tol`` are not supported (as MXNet).

    >>> import hybridlab as mx
    >>> mx.np.random.multivariate_normal(mx.np.zeros(2), mx.np.eye(2), size=4).shape
    (4, 2)
    >>> mx.np.random.multivariate_normal(mx.np.zeros((3, 2)), mx.np.eye(2), size=(5,)).shape
    (5, 3, 2)
    """
    from .. import numpy as _np
    from ..base import MXNetNotImplementedError
    for arg, value in (("check_valid", check_valid), ("tol", tol)):
        if value is not None:
            raise MXNetNotImplementedError(f"np.random.multivariate_normal: parameter {arg} is not supported, "
                                           f"got {value!r}")
    mean, cov = _np.asarray(mean), _np.asarray(cov)
    if mean.ndim < 1 or cov.ndim < 2 or cov.shape[-1] != cov.shape[-2] or cov.shape[-1] != mean.shape[-1]:
        raise MXNetValueError(f"np.random.multivariate_normal: expected mean (..., N) and cov (..., N, N), "
                              f"got shapes {mean.shape} and {cov.shape}")
    batch = _onp.broadcast_shapes(mean.shape, cov.shape[:-1])
    z = _std("normal", _size(size) + batch, mean.dtype, None, mean.device)
    low = cov.astype(_onp.float32) if cov.dtype == _onp.float16 else cov   # no float16 LAPACK
    L = _np.linalg.cholesky(low).astype(mean.dtype)
    return mean + _np.squeeze(_np.matmul(L, _np.expand_dims(z, -1)), -1)


def shuffle(x):
    """Shuffle ``x`` in place along its first axis; returns None (as NumPy and MXNet).

    >>> import hybridlab as mx
    >>> x = mx.np.arange(4)
    >>> mx.np.random.shuffle(x) is None, sorted(x.tolist())
    (True, [0.0, 1.0, 2.0, 3.0])
    """
    x[:] = _gen_shuffle(x)
