"""Random operators: ``_random_*`` (distribution parameters as attributes), ``_sample_*``
(parameters as arrays: one block of ``shape`` samples per parameter element) and ``_shuffle``.

Every draw comes from the device's generator (``ctx.rng``: a NumPy ``Generator(PCG64)`` on the CPU,
a CuPy ``RandomState`` on a GPU), so ``mx.random.seed(s)`` makes runs reproducible. Samples are
drawn in float64 and cast to the output dtype (float32 unless ``dtype`` says otherwise; int32 for
randint). The draws use only the primitives both generators share, in this order:

* uniform: ``low + (high - low) * random(size)``
* normal: ``loc + scale * standard_normal(size)``
* exponential: ``standard_exponential(size) / lam``
* gamma: ``standard_gamma(alpha, size) * beta``
* poisson: ``poisson(lam, size)``
* negative binomial (MXNet's sampler): ``poisson(standard_gamma(k, size) * (1 - p) / p)``
* generalized negative binomial: ``poisson(standard_gamma(1/alpha, size) * alpha * mu)``
  (``poisson(mu)`` where alpha == 0)
* randint: ``integers(low, high, size)`` (``randint`` on CuPy); shuffle: ``permutation(n)``

Example::

    >>> import hybridlab as mx
    >>> mx.random.seed(7); a = mx.nd._random_uniform(low=-1, high=1, shape=(2, 3))
    >>> mx.random.seed(7); b = mx.nd.random_uniform(low=-1, high=1, shape=(2, 3))
    >>> bool((a == b).asnumpy().all()), a.dtype
    (True, dtype('float32'))
"""
import numpy as onp

from ..base import MXNetError
from .attrs import Attr
from .context import np_mode
from .infer import merge_shape
from .registry import NsName, OpDef, register

__all__ = ["random01", "randint"]

_NO_GRAD = "random sampling: the output is not a differentiable function of the inputs"
_FLOATS = ("float32", "float64", "float16")
_NP_RENAME = {"size": "shape", "device": "ctx"}


# ---- draws shared by the NumPy Generator and the CuPy RandomState ---------------------------------
def random01(rng, size):
    """Uniform [0, 1) float64 draws (``Generator.random`` / ``RandomState.random_sample``)."""
    return rng.random(size) if hasattr(rng, "integers") else rng.random_sample(size)


def randint(rng, low, high, size):
    """Integers in [low, high) (``Generator.integers`` / ``RandomState.randint``), int64."""
    if hasattr(rng, "integers"):
        return rng.integers(low, high, size=size, dtype=onp.int64)
    return rng.randint(low, high, size=size, dtype=onp.int64)


def _neg_binomial(rng, k, p, size):
    """MXNet's sampler: a Poisson draw whose rate is Gamma(k, (1 - p) / p)."""
    return rng.poisson(rng.standard_gamma(k, size) * ((1.0 - p) / p))


def _gen_neg_binomial(rng, mu, alpha, size):
    """Poisson(Gamma(1/alpha, alpha*mu)); Poisson(mu) where alpha == 0 (written without xp.where so
    scalars, NumPy and CuPy arrays all work)."""
    zero = alpha == 0
    safe = alpha + zero
    lam = rng.standard_gamma(1.0 / safe, size) * (safe * mu)
    return rng.poisson(lam * (1 - zero) + mu * zero)


# distribution name -> (parameter names with MXNet defaults for _random_*, input names of _sample_*,
#                        sampler(rng, params, size) -> float64/int64 array)
_DISTS = {
    "uniform": ((("low", 0.0, "Lower bound."), ("high", 1.0, "Upper bound (excluded).")), ("low", "high"),
                lambda rng, p, size: p[0] + (p[1] - p[0]) * random01(rng, size)),
    "normal": ((("loc", 0.0, "Mean."), ("scale", 1.0, "Standard deviation.")), ("mu", "sigma"),
               lambda rng, p, size: p[0] + p[1] * rng.standard_normal(size)),
    "exponential": ((("lam", 1.0, "Rate (1/scale)."),), ("lam",),
                    lambda rng, p, size: rng.standard_exponential(size) / p[0]),
    "gamma": ((("alpha", 1.0, "Shape."), ("beta", 1.0, "Scale.")), ("alpha", "beta"),
              lambda rng, p, size: rng.standard_gamma(p[0], size) * p[1]),
    "poisson": ((("lam", 1.0, "Rate."),), ("lam",),
                lambda rng, p, size: rng.poisson(p[0], size)),
    "negative_binomial": ((("k", 1, "Limit of unsuccessful experiments."),
                           ("p", 1.0, "Failure probability in each experiment.")), ("k", "p"),
                          lambda rng, p, size: _neg_binomial(rng, p[0], p[1], size)),
    "generalized_negative_binomial": ((("mu", 1.0, "Mean."), ("alpha", 1.0, "Dispersion (1/k).")),
                                      ("mu", "alpha"),
                                      lambda rng, p, size: _gen_neg_binomial(rng, p[0], p[1], size)),
}


# MXNet's checks on the distribution parameters, in the form both mx.nd and mx.np accept (nd refuses
# scale == 0 and low > high, which NumPy allows): (test, what the message says is expected)
_VALID = {
    "normal": (lambda p: p["scale"] >= 0, "scale >= 0"),
    "exponential": (lambda p: p["lam"] > 0, "lam > 0"),
    "gamma": (lambda p: p["alpha"] > 0 and p["beta"] > 0, "alpha > 0 and beta > 0"),
    "poisson": (lambda p: p["lam"] >= 0, "lam >= 0"),
}


def _dtype_attr(choices, default_name):
    return Attr("dtype?", None, choices=choices,
                doc=f"Output dtype (None: {default_name}).")


def _random_type(default):
    return lambda a, in_dtypes: [a["dtype"] or onp.dtype(default)]


def _shape_of(a):
    shape = a["shape"] or ()
    if any(d < 0 for d in shape):
        raise MXNetError(f"random op: attribute 'shape' expected non-negative dimensions, got {shape}")
    return tuple(shape)


def _random_infer(a, in_shapes):
    """The ``shape`` attribute; outside NumPy shape semantics an empty one is unknown, as in MXNet 1.x's
    legacy inference: a graph fills it from the node's readers (``symbol.unknown_dims``)."""
    if not a["shape"] and not np_mode["shape"]:
        return [None]
    return [_shape_of(a)]


# ---- _random_*: parameters as attributes ----------------------------------------------------------
def random_op(dist, *, aliases=(), random=(), np_random=(), doc=""):
    params, _, sampler = _DISTS[dist]
    names = tuple(p[0] for p in params)
    attrs = {n: Attr("int" if isinstance(d, int) else "float", d, doc=h) for n, d, h in params}
    attrs.update(shape=Attr("shape?", (), doc="Shape of the output."),
                 ctx=Attr("device?", None, doc="Device of the output (default: the current device)."),
                 dtype=_dtype_attr(_FLOATS, "float32"))

    def compute(ctx, a):
        valid, expected = _VALID.get(dist, (None, None))
        if valid is not None and not valid(a):
            raise MXNetError(f"_random_{dist}: expected {expected}, got "
                             f"{', '.join(f'{n}={a[n]}' for n in names)}")
        try:
            out = sampler(ctx.rng, [a[n] for n in names], _shape_of(a))
        except ValueError as err:
            raise MXNetError(f"_random_{dist}: invalid distribution parameters "
                             f"{ {n: a[n] for n in names} }: {err}") from None
        return out.astype(a["dtype"] or onp.float32)

    return register(OpDef(f"_random_{dist}", inputs=(), compute=compute, attrs=attrs,
                          infer_shape=_random_infer, infer_type=_random_type("float32"),
                          aliases=aliases, random=random, np_random=np_random, family="random",
                          needs_rng=True, device_attr="ctx", no_grad_reason=_NO_GRAD,
                          doc=doc + " Parameters are attributes; see ops/random.py for the draw."))


def _nd_random(name, params):
    return NsName(name, args=params + ("shape", "dtype", "ctx"))


random_op("uniform", aliases=("uniform", "random_uniform"), random=_nd_random("uniform", ("low", "high")),
          np_random=NsName("uniform", rename=_NP_RENAME, args=("low", "high", "shape", "dtype", "ctx")),
          doc="Samples from the uniform distribution on [low, high).")
random_op("normal", aliases=("normal", "random_normal"), random=_nd_random("normal", ("loc", "scale")),
          np_random=NsName("normal", rename=_NP_RENAME, args=("loc", "scale", "shape", "dtype", "ctx")),
          doc="Samples from the normal distribution N(loc, scale**2).")
random_op("exponential", aliases=("random_exponential",),
          doc="Samples from the exponential distribution with rate lam "
              "(mx.nd.random.exponential takes scale = 1/lam).")
random_op("gamma", aliases=("random_gamma",), random=_nd_random("gamma", ("alpha", "beta")),
          np_random=NsName("gamma", rename={"shape": "alpha", "scale": "beta", **_NP_RENAME},
                           args=("alpha", "beta", "shape", "dtype", "ctx")),
          doc="Samples from the gamma distribution with shape alpha and scale beta.")
random_op("poisson", aliases=("random_poisson",), random=_nd_random("poisson", ("lam",)),
          np_random=NsName("poisson", rename=_NP_RENAME, args=("lam", "shape", "dtype", "ctx")),
          doc="Samples from the Poisson distribution (as floats).")
random_op("negative_binomial", aliases=("random_negative_binomial",),
          random=_nd_random("negative_binomial", ("k", "p")),
          np_random=NsName("negative_binomial", rename={"n": "k", **_NP_RENAME},
                           args=("k", "p", "shape", "dtype", "ctx")),
          doc="Samples from the negative binomial distribution: failures before k successes "
              "(as floats).")
random_op("generalized_negative_binomial", aliases=("random_generalized_negative_binomial",),
          random=_nd_random("generalized_negative_binomial", ("mu", "alpha")),
          doc="Samples from the generalized negative binomial distribution (mean mu, dispersion alpha).")


# ---- _random_randint --------------------------------------------------------------------------------
def _randint_compute(ctx, a):
    low, high = a["low"], a["high"]
    if high is None:           # NumPy form randint(high): [0, low)
        low, high = 0, low
    if not low < high:
        raise MXNetError(f"_random_randint: attribute 'high' expected a value > low ({low}), got {high}")
    return randint(ctx.rng, low, high, _shape_of(a)).astype(a["dtype"] or onp.int32)


register(OpDef("_random_randint", inputs=(), compute=_randint_compute,
               attrs={"low": Attr("int", doc="Lower bound (included)."),
                      "high": Attr("int?", None, doc="Upper bound (excluded). None (hybridlab, for "
                                                    "np.random.randint(n)): [0, low)."),
                      "shape": Attr("shape?", (), doc="Shape of the output."),
                      "ctx": Attr("device?", None, doc="Device of the output."),
                      "dtype": _dtype_attr(("int32", "int64"), "int32")},
               infer_shape=_random_infer, infer_type=_random_type("int32"),
               aliases=("random_randint",), random=_nd_random("randint", ("low", "high")),
               np_random=NsName("randint", rename=_NP_RENAME, defaults={"dtype": "int64"},
                                args=("low", "high", "shape", "dtype", "ctx")),
               family="random", needs_rng=True, device_attr="ctx", no_grad_reason=_NO_GRAD,
               doc="Uniformly distributed integers in [low, high)."))


# ---- _sample_*: parameters as arrays ---------------------------------------------------------------
def _sample_shape(a, in_shapes):
    ref = next((s for s in in_shapes if s is not None), None)
    if ref is None:
        return [None]
    for i in range(len(in_shapes)):
        merge_shape(in_shapes, i, ref, "all distribution parameters must have the same shape")
    return [tuple(in_shapes[0]) + _shape_of(a)]


def _sample_type(a, in_dtypes):
    known = next((d for d in in_dtypes if d is not None), None)
    for i, d in enumerate(in_dtypes):
        if d is None:
            in_dtypes[i] = known
        elif d != known:
            raise MXNetError(f"sample op: all parameter arrays must share one dtype: expected {known}, "
                             f"got {d} for input {i}")
    return [a["dtype"] or onp.dtype(onp.float32)]


def sample_op(dist, doc=""):
    _, inputs, sampler = _DISTS[dist]

    def compute(ctx, a, *params):
        if params[0].size == 0:
            raise MXNetError(f"_sample_{dist}: expected non-empty parameter arrays, got shape {params[0].shape}")
        shape = _shape_of(a)
        tail = (1,) * len(shape)
        ps = [p.astype(onp.float64).reshape(p.shape + tail) for p in params]
        try:
            out = sampler(ctx.rng, ps, params[0].shape + shape)
        except ValueError as err:
            raise MXNetError(f"_sample_{dist}: invalid distribution parameters: {err}") from None
        return out.astype(a["dtype"] or onp.float32)

    return register(OpDef(f"_sample_{dist}", inputs=inputs, compute=compute,
                          attrs={"shape": Attr("shape?", (), doc="Samples drawn per parameter element."),
                                 "dtype": _dtype_attr(_FLOATS, "float32")},
                          infer_shape=_sample_shape, infer_type=_sample_type, aliases=(f"sample_{dist}",),
                          family="random", needs_rng=True, no_grad_reason=_NO_GRAD, zero_grad=True,
                          doc=f"Samples from the {dist.replace('_', ' ')} distribution with array "
                              f"parameters ({', '.join(inputs)}): output shape is the parameters' "
                              f"shape + ``shape``. {doc}"))


for _dist in _DISTS:
    sample_op(_dist)


# ---- _shuffle -------------------------------------------------------------------------------------
def _shuffle_compute(ctx, a, x):
    if x.ndim == 0 or x.shape[0] <= 1:
        return x.copy()
    return x[ctx.rng.permutation(x.shape[0])]


register(OpDef("_shuffle", inputs=("data",), compute=_shuffle_compute, infer_shape=lambda a, s: [s[0]],
               aliases=("shuffle",), random=NsName("shuffle"), np_random=NsName("shuffle"),
               family="random", needs_rng=True, no_grad_reason=_NO_GRAD,
               doc="A copy of data with its first axis randomly permuted (``permutation(n)``)."))
