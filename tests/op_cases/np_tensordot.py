"""Op-checker cases for ops/np_tensordot.py: tensordot (pair and int axes), roll, tensorinv, eig and
eigvals, against NumPy in float64 (gradients by the checker's finite differences)."""
import numpy as np

from op_checker import Case

f64 = np.float64
G = dict(grad_rtol=1e-4, grad_atol=1e-5)


def well_conditioned(shape):
    def gen(rng):
        return rng.standard_normal(shape) + 3 * np.eye(shape[-1])
    return gen


def upper_triangular(n):
    def gen(rng):
        return np.triu(rng.standard_normal((n, n))) + np.diag(np.arange(1.0, n + 1))
    return gen


CASES = [
    Case("_npi_tensordot", [(2, 3, 4), (4, 3, 2)], attrs={"a_axes_summed": (1, 2), "b_axes_summed": (1, 0)},
         ref=lambda a, b, a_axes_summed, b_axes_summed: np.tensordot(a, b, (a_axes_summed, b_axes_summed)), **G),
    Case("_npi_tensordot", [(3, 2), (2, 3)], attrs={"a_axes_summed": (-1,), "b_axes_summed": (0,)},
         ref=lambda a, b, a_axes_summed, b_axes_summed: np.tensordot(a, b, (a_axes_summed, b_axes_summed)),
         name="negative-axis", **G),
    Case("_npi_tensordot_int_axes", [(2, 3), (3, 4)], attrs={"axes": 1},
         ref=lambda a, b, axes: np.tensordot(a, b, axes), **G),
    Case("_npi_tensordot_int_axes", [(2,), (3,)], attrs={"axes": 0},
         ref=lambda a, b, axes: np.tensordot(a, b, axes), name="outer", **G),
    Case("_np_roll", [(2, 3)], attrs={"shift": (1, -2), "axis": (0, 1)},
         ref=lambda x, shift, axis: np.roll(x, shift, axis), **G),
    Case("_np_roll", [(2, 3)], attrs={"shift": (4,)},
         ref=lambda x, shift, axis=None: np.roll(x, shift[0]), name="flat", **G),
    Case("_npi_tensorinv", [well_conditioned((4, 2, 2))], attrs={"ind": 1},
         ref=lambda a, ind: np.linalg.tensorinv(a.astype(f64), ind=ind), rtol=1e-4, **G),
    Case("_npi_eigvals", [upper_triangular(3)], ref=lambda a: np.linalg.eigvals(a.astype(f64)).real,
         rtol=1e-4, grad=()),
    Case("_npi_eig", [upper_triangular(3)], ref=lambda a: tuple(x.real for x in np.linalg.eig(a.astype(f64))),
         rtol=1e-4, grad=()),
]
