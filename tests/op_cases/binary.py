"""Op-checker cases for the binary family (ops/binary*.py, where.py, add_n.py): broadcast_*,
elemwise_*, _*_scalar, the NumPy-semantics _npi_* variants, where, add_n, smooth_l1."""
import math

import numpy as np

from op_checker import Case

S = (2, 3)


def away_from_zero(shape=S, lo=0.3, hi=2.0):
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


def positive(shape=S, lo=0.3, hi=2.5):
    return lambda rng: rng.uniform(lo, hi, shape)


def int_valued(shape=S, lo=-1, hi=2):
    """Integer values in floats: comparisons see ties, logical ops see zeros."""
    return lambda rng: rng.integers(lo, hi, shape).astype(np.float64)


def py_mod(a, b):
    """MXNet's mod: Python's sign convention, 0 where the divisor is 0."""
    a, b = np.broadcast_arrays(a, b)
    out = [0.0 if y == 0 else math.fmod(x, y) + (y if math.fmod(x, y) != 0 and (x < 0) != (y < 0) else 0.0)
           for x, y in zip(a.ravel().tolist(), b.ravel().tolist())]
    return np.array(out).reshape(a.shape)


def as_input_dtype(fn):
    """Legacy comparison/logical reference: 1/0 in the input dtype."""
    return lambda l, r: fn(l, r).astype(np.result_type(l, r))


def smooth_l1(x, scalar):
    s2 = scalar * scalar
    return np.array([0.5 * s2 * v * v if abs(v) < 1 / s2 else abs(v) - 0.5 / s2 for v in x.ravel()]).reshape(x.shape)


# fixed inputs for mod: lhs / rhs far from integers (kinks of mod)
MOD_L = np.array([[2.3, -1.7, 0.4], [3.9, -2.2, 1.1]])
MOD_R = np.array([[0.7, 1.3, -0.9]])
LOGIC = {
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "lesser": np.less, "lesser_equal": np.less_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}
NP_NAME = {"lesser": "less", "lesser_equal": "less_equal"}

CASES = [
    # ---- broadcast arithmetic ----------------------------------------------------------------
    Case("broadcast_add", [(2, 3), (1, 3)], ref=np.add),
    Case("broadcast_add", [np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int32), (2, 1)], name="int_plus_float",
         ref=np.add),
    Case("broadcast_sub", [(2, 1, 3), (4, 1)], ref=np.subtract),
    Case("broadcast_mul", [(2, 1, 3), (4, 1)], ref=np.multiply),
    Case("broadcast_div", [(2, 3), away_from_zero((3,))], ref=np.divide),
    Case("_npi_true_divide", [(3, 1), away_from_zero((1, 2))], ref=np.true_divide),
    Case("broadcast_mod", [MOD_L, MOD_R], ref=py_mod),
    Case("broadcast_mod", [MOD_R.T, MOD_L[:1]], name="transposed", ref=py_mod),
    Case("broadcast_power", [positive((2, 3)), (3,)], ref=np.power),
    Case("broadcast_maximum", [(2, 3), (1, 3)], ref=np.maximum),
    Case("broadcast_minimum", [(2, 3), (2, 1)], ref=np.minimum),
    Case("broadcast_hypot", [(2, 3), away_from_zero((1, 3))], ref=lambda l, r: np.sqrt(l * l + r * r)),
    # ---- equal-shape arithmetic --------------------------------------------------------------
    Case("elemwise_add", [(2, 3), (2, 3)], ref=np.add),
    Case("elemwise_sub", [(2, 3), (2, 3)], ref=np.subtract),
    Case("elemwise_mul", [(2, 3), (2, 3)], ref=np.multiply),
    # relu's gradient from its output (rhs >= 0 in use; a negative rhs masks as well)
    Case("_backward_relu", [(2, 3), away_from_zero()], ref=lambda og, y: og * (y > 0)),
    Case("elemwise_div", [(2, 3), away_from_zero()], ref=np.divide),
    Case("_mod", [MOD_L, np.tile(MOD_R, (2, 1))], ref=py_mod),
    Case("_power", [positive(), (2, 3)], ref=np.power),
    Case("_maximum", [(2, 3), (2, 3)], ref=np.maximum),
    Case("_minimum", [(2, 3), (2, 3)], ref=np.minimum),
    Case("_hypot", [(2, 3), away_from_zero()], ref=lambda l, r: np.sqrt(l * l + r * r)),
    # ---- scalar arithmetic -------------------------------------------------------------------
    Case("_plus_scalar", [S], attrs={"scalar": 2.5}, ref=lambda x, scalar: x + scalar),
    Case("_minus_scalar", [S], attrs={"scalar": 2.5}, ref=lambda x, scalar: x - scalar),
    Case("_rminus_scalar", [S], attrs={"scalar": 2.5}, ref=lambda x, scalar: scalar - x),
    Case("_mul_scalar", [S], attrs={"scalar": 0.5}, ref=lambda x, scalar: x * scalar),
    Case("_div_scalar", [S], attrs={"scalar": 4.0}, ref=lambda x, scalar: x / scalar),
    Case("_rdiv_scalar", [away_from_zero()], attrs={"scalar": 1.5}, ref=lambda x, scalar: scalar / x),
    Case("_mod_scalar", [MOD_L], attrs={"scalar": 0.7}, ref=lambda x, scalar: py_mod(x, np.array(scalar))),
    Case("_mod_scalar", [MOD_L], attrs={"scalar": -0.9}, name="negative_divisor",
         ref=lambda x, scalar: py_mod(x, np.array(scalar))),
    Case("_rmod_scalar", [MOD_R.repeat(2, 0)], attrs={"scalar": 2.5},
         ref=lambda x, scalar: py_mod(np.array(scalar), x)),
    Case("_power_scalar", [positive()], attrs={"scalar": 2.5}, ref=lambda x, scalar: x ** scalar),
    Case("_power_scalar", [S], attrs={"scalar": 3.0}, name="integer_exponent", ref=lambda x, scalar: x ** 3),
    Case("_rpower_scalar", [S], attrs={"scalar": 2.0}, ref=lambda x, scalar: scalar ** x),
    Case("_maximum_scalar", [S], attrs={"scalar": 0.1}, ref=lambda x, scalar: np.maximum(x, scalar)),
    Case("_minimum_scalar", [S], attrs={"scalar": 0.1}, ref=lambda x, scalar: np.minimum(x, scalar)),
    Case("_hypot_scalar", [S], attrs={"scalar": 0.5}, ref=lambda x, scalar: np.sqrt(x * x + scalar * scalar)),
    Case("smooth_l1", [lambda rng: rng.choice([-2.5, -0.6, -0.2, 0.3, 0.9, 1.7], S)], attrs={"scalar": 1.0},
         ref=smooth_l1),
    Case("smooth_l1", [lambda rng: rng.choice([-1.5, -0.4, -0.1, 0.2, 0.6, 1.1], S)], attrs={"scalar": 2.0},
         name="sigma2", ref=smooth_l1),
    # ---- where, add_n, _reduce_sum_like ------------------------------------------------------
    Case("where", [np.array([[1, 0, 1], [0, 0, 1]], dtype=np.int32), S, S], grad=(1, 2),
         ref=lambda c, x, y: np.where(c != 0, x, y)),
    Case("where", [np.array([0, 1], dtype=np.int32), S, S], grad=(1, 2), name="rows",
         ref=lambda c, x, y: np.where(c[:, None] != 0, x, y)),
    Case("_npi_where", [np.array([[True], [False]]), (1, 3), (2, 1)], grad=(1, 2),
         ref=lambda c, x, y: np.where(c, x, y)),
    Case("add_n", [S, S, S], attrs={"num_args": 3}, ref=lambda a, b, c, num_args: a + b + c),
    Case("_reduce_sum_like", [(2, 3, 4), (3, 1)], ref=lambda g, like: g.sum(axis=(0, 2)).reshape(3, 1)),
]

# ---- comparisons and logical ops: four variants each -------------------------------------------
for _fn, _ref in LOGIC.items():
    _np_name = NP_NAME.get(_fn, _fn)
    CASES += [
        Case(f"broadcast_{_fn}", [int_valued((2, 3)), int_valued((1, 3))], grad=(), ref=as_input_dtype(_ref)),
        Case(f"_npi_{_np_name}", [int_valued((2, 1)), int_valued((1, 3))], grad=(), ref=_ref),
        Case(f"_{_fn}", [int_valued(), int_valued()], grad=(), ref=as_input_dtype(_ref)),
        Case(f"_{_fn}_scalar", [int_valued()], attrs={"scalar": 0.0}, grad=(),
             ref=lambda x, scalar, _r=_ref: _r(x, scalar).astype(x.dtype)),
        Case(f"_{_fn}_scalar", [int_valued()], attrs={"scalar": 1.0}, grad=(), name="one",
             ref=lambda x, scalar, _r=_ref: _r(x, scalar).astype(x.dtype)),
    ]
