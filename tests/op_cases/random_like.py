"""Op-checker cases for ops/random_like.py (``_random_*_like``): the draws of the ``_random_*``
references (tests/op_cases/random.py) with data's shape, in data's dtype; on a GPU ``gpu_check``
tests the shape, dtype and sample mean."""
import numpy as np

from op_checker import Case
from op_cases.random import SAMPLE_DRAWS, SEED, gen, stats_check

N = (3, 200)


def ref_like(dist, names):
    def ref(data, **a):
        params = [np.float64(a[n]) for n in names]
        return SAMPLE_DRAWS[dist](gen(), params, data.shape).astype(data.dtype)
    return ref


LIKE = [  # dist, attributes, their names in order, mean
    ("uniform", {"low": -1.0, "high": 3.0}, ("low", "high"), 1.0),
    ("normal", {"loc": 2.0, "scale": 0.5}, ("loc", "scale"), 2.0),
    ("exponential", {"lam": 4.0}, ("lam",), 0.25),
    ("gamma", {"alpha": 2.5, "beta": 2.0}, ("alpha", "beta"), 5.0),
    ("poisson", {"lam": 3.0}, ("lam",), 3.0),
    ("negative_binomial", {"k": 3, "p": 0.4}, ("k", "p"), 4.5),
    ("generalized_negative_binomial", {"mu": 2.0, "alpha": 0.5}, ("mu", "alpha"), 2.0),
]

CASES = [
    Case(f"_random_{dist}_like", [N], attrs=attrs, ref=ref_like(dist, names), seed=SEED, grad=(),
         gpu_check=stats_check(lambda x, m=mean: m, tol=20))
    for dist, attrs, names, mean in LIKE
] + [
    Case("_random_normal_like", [np.zeros((2, 3))], attrs={"loc": 1.0},
         ref=lambda data, loc: (loc + gen().standard_normal(data.shape)).astype(data.dtype),
         seed=SEED, grad=(), name="default-scale",
         gpu_check=lambda got, x: np.testing.assert_array_equal(got[0].shape, (2, 3))),
]
