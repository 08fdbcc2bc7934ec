"""Op-checker cases for ops/random_multinomial.py (_sample_multinomial). On the CPU the reference
re-creates the seeded generator and draws the same uniforms (first category whose cumulative
probability exceeds u); on a GPU ``gpu_check`` tests shapes, dtypes and category frequencies."""
import numpy as np

from op_checker import Case

SEED = 7


def probs(shape):
    def make(rng):
        p = rng.uniform(0.2, 1.0, shape)
        return p / p.sum(axis=-1, keepdims=True)
    return make


def ref_multinomial(p, shape=(), get_prob=False, dtype="int32"):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    u = np.random.Generator(np.random.PCG64(SEED)).random(p.shape[:-1] + shape)
    cdf = np.cumsum(p.astype(np.float64), axis=-1)
    out = np.empty(u.shape, np.int64)
    for idx in np.ndindex(u.shape):
        row = cdf[idx[:p.ndim - 1]]
        hits = np.nonzero(row > u[idx])[0]
        out[idx] = hits[0] if hits.size else p.shape[-1] - 1
    out_shape = out.shape or (1,)
    samples = out.reshape(out_shape).astype(dtype)
    if not get_prob:
        return samples
    logp = np.empty(out.shape)
    for idx in np.ndindex(out.shape):
        logp[idx] = np.log(p[idx[:p.ndim - 1] + (out[idx],)])
    return samples, logp.reshape(out_shape).astype(p.dtype)


def freq_check(shape_out, dtype="int32"):
    def check(got, p):
        s = got[0]
        assert s.shape == shape_out and s.dtype == np.dtype(dtype), (s.shape, s.dtype)
        k = p.shape[-1]
        assert ((s >= 0) & (s < k)).all()
        freq = np.stack([(s == c).mean(axis=-1) for c in range(k)], axis=-1)
        np.testing.assert_allclose(freq, p, atol=0.1)
    return check


CASES = [
    Case("_sample_multinomial", [probs((2, 3))], attrs={"shape": (400,)}, ref=ref_multinomial, seed=SEED,
         grad=(0,), gpu_check=freq_check((2, 400))),
    Case("_sample_multinomial", [probs((2, 4))], attrs={"shape": (300,), "get_prob": True},
         ref=ref_multinomial, seed=SEED, name="get_prob", rtol=1e-4,
         gpu_check=freq_check((2, 300))),
    Case("_sample_multinomial", [probs((3,))], attrs={"get_prob": True, "dtype": "float32"},
         ref=ref_multinomial, seed=SEED, name="one_distribution", rtol=1e-4,
         gpu_check=lambda got, p: np.testing.assert_array_equal(got[0].shape, (1,))),
    Case("_sample_multinomial", [probs((2, 2, 3))], attrs={"shape": (2, 3), "get_prob": True},
         ref=ref_multinomial, seed=SEED, name="batch_and_shape", rtol=1e-4,
         gpu_check=lambda got, p: np.testing.assert_array_equal(got[0].shape, (2, 2, 2, 3))),
]
