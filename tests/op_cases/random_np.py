"""Op-checker cases for ``_npi_gamma``: on the CPU the reference re-creates the generator
``mx.random.seed`` makes and draws ``standard_gamma(k, size) * theta`` (k broadcast to size); on a
GPU the sample means are checked."""
import numpy as np

from op_cases.random import SEED, gen, stats_check
from op_checker import Case


def ref_gamma(*arrays, shape=None, scale=None, size=None, dtype="float32", **a):
    it = iter(arrays)
    k = shape if shape is not None else next(it).astype(np.float64)
    theta = scale if scale is not None else next(it).astype(np.float64)
    out_shape = tuple(size) if size is not None else np.broadcast_shapes(*[x.shape for x in arrays])
    k = k if isinstance(k, float) else np.broadcast_to(k, out_shape)
    return (gen().standard_gamma(k, out_shape) * theta).astype(dtype)


def column_means(scale):
    """gpu_check: float64 samples whose column means are near ``scale * k``."""
    def check(got, k):
        assert got[0].dtype == np.float64, got[0].dtype
        np.testing.assert_allclose(got[0].mean(axis=0), scale * k, rtol=0.25)
    return check


pos = lambda shape: (lambda rng: rng.uniform(1.0, 3.0, shape))  # noqa: E731

CASES = [
    Case("_npi_gamma", [], attrs={"shape": 2.5, "scale": 2.0, "size": (600,)}, ref=ref_gamma, seed=SEED,
         grad=(), gpu_check=stats_check(lambda: 5.0, lambda: 0.0)),
    Case("_npi_gamma", [pos((3,))], attrs={"scale": 0.5, "size": (400, 3), "dtype": "float64"}, ref=ref_gamma,
         seed=SEED, grad=(), name="array-shape",
         gpu_check=column_means(0.5)),
    Case("_npi_gamma", [pos((2, 1)), pos((3,))], attrs={}, ref=ref_gamma, seed=SEED, grad=(),
         name="both-arrays", gpu_check=lambda got, k, t: np.testing.assert_array_less(0, got[0])),
]
