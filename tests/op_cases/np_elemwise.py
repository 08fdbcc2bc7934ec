"""Op-checker cases for ops/np_elemwise.py (arctan2, copysign, ldexp, integer and bitwise functions,
i0, frexp) against NumPy's ufuncs."""
import numpy as np

from op_checker import Case

I = np.array([[12, 18, 7], [9, 4, 15]], dtype=np.int64)
J = np.array([[8, 27, 3], [6, 10, 5]], dtype=np.int64)
POS = lambda rng: rng.uniform(0.5, 2.0, (2, 3))  # noqa: E731
AWAY = lambda rng: rng.choice([-1.0, 1.0], (2, 3)) * rng.uniform(0.5, 2.0, (2, 3))  # noqa: E731

CASES = [
    Case("_npi_arctan2", [(2, 3), AWAY], ref=lambda y, x: np.arctan2(y, x)),
    Case("_npi_arctan2", [(2, 3), lambda rng: rng.uniform(0.5, 2.0, (3,))], ref=lambda y, x: np.arctan2(y, x),
         name="broadcast"),
    Case("_npi_copysign", [AWAY, (2, 1)], ref=lambda x, y: np.copysign(x, y), grad=(0,)),
    Case("_npi_ldexp", [(2, 3), lambda rng: rng.uniform(-2, 2, (3,))], ref=lambda x, e: x * 2.0 ** e),
    Case("_npi_lcm", [I, J], ref=np.lcm, grad=()),
    Case("_npi_gcd", [I, J], ref=np.gcd, grad=()),
    Case("_npi_bitwise_and", [I, J], ref=np.bitwise_and, grad=()),
    Case("_npi_bitwise_or", [I, J[:1]], ref=np.bitwise_or, grad=(), name="broadcast"),
    Case("_npi_bitwise_xor", [I, J], ref=np.bitwise_xor, grad=()),
    Case("_npi_bitwise_not", [I], ref=np.invert, grad=()),
    Case("_npi_bitwise_not", [np.array([True, False])], ref=np.invert, grad=(), name="bool"),
    Case("_npi_i0", [(2, 3)], ref=lambda x: np.i0(x.astype(np.float64)), rtol=1e-5, grad=()),
    Case("_npi_frexp", [(2, 3)], ref=lambda x: np.frexp(x), grad=()),
]
