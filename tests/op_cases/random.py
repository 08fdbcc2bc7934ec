"""Op-checker cases for the random ops. On the CPU the references re-create the generator
``mx.random.seed`` makes (``Generator(PCG64(seed))``) and draw the same way; on a GPU (CuPy's
stream differs) ``gpu_check`` tests shapes, dtypes and sample statistics instead."""
import numpy as np

from op_checker import Case

SEED = 42


def gen(seed=SEED):
    return np.random.Generator(np.random.PCG64(seed))


def _dt(a, default="float32"):
    return np.dtype(a.get("dtype") or default)


def _shape(a):
    shape = a.get("shape", ())
    return (shape,) if isinstance(shape, int) else tuple(shape)


# ---- scalar-parameter references ----
def ref_uniform(low=0.0, high=1.0, **a):
    return (low + (high - low) * gen().random(_shape(a))).astype(_dt(a))


def ref_normal(loc=0.0, scale=1.0, **a):
    return (loc + scale * gen().standard_normal(_shape(a))).astype(_dt(a))


def ref_exponential(lam=1.0, **a):
    return (gen().standard_exponential(_shape(a)) / lam).astype(_dt(a))


def ref_gamma(alpha=1.0, beta=1.0, **a):
    return (gen().standard_gamma(alpha, _shape(a)) * beta).astype(_dt(a))


def ref_poisson(lam=1.0, **a):
    return gen().poisson(lam, _shape(a)).astype(_dt(a))


def ref_negative_binomial(k=1, p=1.0, **a):
    g = gen()
    return g.poisson(g.standard_gamma(k, _shape(a)) * ((1.0 - p) / p)).astype(_dt(a))


def gnb(g, mu, alpha, size):
    zero = alpha == 0
    safe = alpha + zero
    lam = g.standard_gamma(1.0 / safe, size) * (safe * mu)
    return g.poisson(lam * (1 - zero) + mu * zero)


def ref_gen_negative_binomial(mu=1.0, alpha=1.0, **a):
    return gnb(gen(), mu, alpha, _shape(a)).astype(_dt(a))


def ref_randint(low, high, **a):
    return gen().integers(low, high, size=_shape(a), dtype=np.int64).astype(_dt(a, "int32"))


# ---- array-parameter references: one block of `shape` samples per parameter element ----
def _blocks(params, a):
    shape = _shape(a)
    return [p.astype(np.float64).reshape(p.shape + (1,) * len(shape)) for p in params], params[0].shape + shape


def ref_sample(draw):
    def ref(*params, **a):
        ps, size = _blocks(params, a)
        return draw(gen(), ps, size).astype(_dt(a))
    return ref


SAMPLE_DRAWS = {
    "uniform": lambda g, p, size: p[0] + (p[1] - p[0]) * g.random(size),
    "normal": lambda g, p, size: p[0] + p[1] * g.standard_normal(size),
    "exponential": lambda g, p, size: g.standard_exponential(size) / p[0],
    "gamma": lambda g, p, size: g.standard_gamma(p[0], size) * p[1],
    "poisson": lambda g, p, size: g.poisson(p[0], size),
    "negative_binomial": lambda g, p, size: g.poisson(g.standard_gamma(p[0], size) * ((1.0 - p[1]) / p[1])),
    "generalized_negative_binomial": lambda g, p, size: gnb(g, p[0], p[1], size),
}


# ---- GPU statistics: mean (and bounds) per parameter element ----
def stats_check(mean_fn, lo=None, hi=None, dtype="float32", tol=6.0, var_fn=None):
    """gpu_check: output dtype, bounds, and the sample mean within ``tol`` standard errors."""
    def check(got, *inputs):
        out = got[0]
        assert out.dtype == np.dtype(dtype), out.dtype
        x = out.astype(np.float64)
        if lo is not None:
            assert (x >= lo(*inputs)).all()
        if hi is not None:
            assert (x < hi(*inputs)).all()
        mean = np.asarray(mean_fn(*inputs), dtype=np.float64)
        flat = x.reshape(mean.shape + (-1,)) if mean.shape else x.reshape(-1)
        var = np.asarray(var_fn(*inputs), dtype=np.float64) if var_fn else flat.var(axis=-1)
        n = flat.shape[-1]
        err = np.abs(flat.mean(axis=-1) - mean)
        assert (err <= tol * np.sqrt(var / n) + 1e-6).all(), (flat.mean(axis=-1), mean)
    return check


N = (600,)
pos = lambda lo, hi, shape=(2,): (lambda rng: rng.uniform(lo, hi, shape))  # noqa: E731

CASES = [
    Case("_random_uniform", [], attrs={"low": -1.0, "high": 3.0, "shape": N}, ref=ref_uniform, seed=SEED,
         gpu_check=stats_check(lambda: 1.0, lambda: -1.0, lambda: 3.0)),
    Case("_random_uniform", [], attrs={"shape": (2, 3), "dtype": "float64"}, ref=ref_uniform, seed=SEED,
         name="default-params-float64", gpu_check=stats_check(lambda: 0.5, dtype="float64", tol=20)),
    Case("_random_normal", [], attrs={"loc": 2.0, "scale": 0.5, "shape": N}, ref=ref_normal, seed=SEED,
         gpu_check=stats_check(lambda: 2.0)),
    Case("_random_normal", [], attrs={"shape": (3, 2), "dtype": "float16"}, ref=ref_normal, seed=SEED,
         name="float16", rtol=1e-3, atol=1e-3, gpu_check=stats_check(lambda: 0.0, dtype="float16", tol=20)),
    Case("_random_exponential", [], attrs={"lam": 4.0, "shape": N}, ref=ref_exponential, seed=SEED,
         gpu_check=stats_check(lambda: 0.25, lambda: 0.0)),
    Case("_random_gamma", [], attrs={"alpha": 2.5, "beta": 2.0, "shape": N}, ref=ref_gamma, seed=SEED,
         gpu_check=stats_check(lambda: 5.0, lambda: 0.0)),
    Case("_random_poisson", [], attrs={"lam": 3.0, "shape": N}, ref=ref_poisson, seed=SEED,
         gpu_check=stats_check(lambda: 3.0, lambda: 0.0)),
    Case("_random_negative_binomial", [], attrs={"k": 3, "p": 0.4, "shape": N}, ref=ref_negative_binomial,
         seed=SEED, gpu_check=stats_check(lambda: 4.5, lambda: 0.0)),
    Case("_random_generalized_negative_binomial", [], attrs={"mu": 2.0, "alpha": 0.5, "shape": N},
         ref=ref_gen_negative_binomial, seed=SEED, gpu_check=stats_check(lambda: 2.0, lambda: 0.0)),
    Case("_random_generalized_negative_binomial", [], attrs={"mu": 2.0, "alpha": 0.0, "shape": N},
         ref=ref_gen_negative_binomial, seed=SEED, name="alpha0-poisson",
         gpu_check=stats_check(lambda: 2.0, lambda: 0.0)),
    Case("_random_randint", [], attrs={"low": -3, "high": 7, "shape": N}, ref=ref_randint, seed=SEED,
         gpu_check=stats_check(lambda: 1.5, lambda: -3, lambda: 7, dtype="int32")),
    Case("_random_randint", [], attrs={"low": 0, "high": 2 ** 40, "shape": (4,), "dtype": "int64"},
         ref=ref_randint, seed=SEED, name="int64",
         gpu_check=stats_check(lambda: 2.0 ** 39, lambda: 0, lambda: 2 ** 40, dtype="int64", tol=50)),
    Case("_sample_uniform", [pos(-2, 0), pos(1, 3)], attrs={"shape": N}, ref=ref_sample(SAMPLE_DRAWS["uniform"]),
         seed=SEED, grad=(), gpu_check=stats_check(lambda l, h: (l + h) / 2, lambda l, h: l[:, None],
                                                   lambda l, h: h[:, None])),
    Case("_sample_uniform", [pos(0, 1, (2, 2)), pos(2, 3, (2, 2))], attrs={}, ref=ref_sample(SAMPLE_DRAWS["uniform"]),
         seed=SEED, grad=(), name="no-shape",
         gpu_check=lambda got, l, h: np.testing.assert_array_less(l, got[0] + 1e-6)),
    Case("_sample_normal", [pos(-1, 1), pos(0.5, 2)], attrs={"shape": N}, ref=ref_sample(SAMPLE_DRAWS["normal"]),
         seed=SEED, grad=(), gpu_check=stats_check(lambda m, s: m)),
    Case("_sample_exponential", [pos(0.5, 2)], attrs={"shape": N}, seed=SEED, grad=(),
         ref=ref_sample(SAMPLE_DRAWS["exponential"]), gpu_check=stats_check(lambda lam: 1 / lam)),
    Case("_sample_gamma", [pos(1, 3), pos(0.5, 2)], attrs={"shape": N, "dtype": "float64"}, seed=SEED, grad=(),
         ref=ref_sample(SAMPLE_DRAWS["gamma"]), gpu_check=stats_check(lambda a, b: a * b, dtype="float64")),
    Case("_sample_poisson", [pos(1, 4)], attrs={"shape": N}, seed=SEED, grad=(),
         ref=ref_sample(SAMPLE_DRAWS["poisson"]), gpu_check=stats_check(lambda lam: lam)),
    Case("_sample_negative_binomial", [pos(1, 4), pos(0.3, 0.7)], attrs={"shape": N}, seed=SEED, grad=(),
         ref=ref_sample(SAMPLE_DRAWS["negative_binomial"]), gpu_check=stats_check(lambda k, p: k * (1 - p) / p)),
    Case("_sample_generalized_negative_binomial", [pos(1, 4), lambda rng: np.array([0.0, 0.5])],
         attrs={"shape": N}, seed=SEED, grad=(), ref=ref_sample(SAMPLE_DRAWS["generalized_negative_binomial"]),
         gpu_check=stats_check(lambda mu, al: mu)),
    Case("_shuffle", [(5, 3)], ref=lambda x: x[gen().permutation(5)], seed=SEED, grad=(),
         gpu_check=lambda got, x: np.testing.assert_array_equal(
             np.sort(got[0], axis=0), np.sort(x, axis=0))),
    Case("_shuffle", [(4,)], ref=lambda x: x[gen().permutation(4)], seed=SEED, grad=(), name="1d",
         gpu_check=lambda got, x: np.testing.assert_array_equal(np.sort(got[0]), np.sort(x))),
    Case("_shuffle", [np.arange(6, dtype=np.int32).reshape(3, 2)], ref=lambda x: x[gen().permutation(3)],
         seed=SEED, grad=(), name="int32",
         gpu_check=lambda got, x: np.testing.assert_array_equal(np.sort(got[0], axis=0), x)),
]
