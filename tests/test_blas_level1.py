"""ops.blas_level1: axpy and scal through NumPy's own OpenBLAS compute what NumPy computes (within the last
bit: a fused multiply-add), in place, and decline (False, nothing written) every array they must not
touch, so that the caller's ufuncs run instead."""
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from hybridlab.ops import blas_level1

N = blas_level1.MIN_SIZE + 7        # (not a multiple of a vector width: the routine's tail runs too)


def _numpy_openblas():
    return any(lib.get("internal_api") == "openblas" and "numpy" in lib.get("filepath", "") for lib in threadpool_info())


needs_openblas = pytest.mark.skipif(not _numpy_openblas(), reason="NumPy is not built on OpenBLAS here: "
                                    "blas_level1 declines every call and the ufuncs run (checked below)")


@needs_openblas
def test_numpy_openblas_is_found_and_checked():
    assert blas_level1.available()


@needs_openblas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_axpy_and_scal_compute_in_place_as_numpy(dtype):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(N).astype(dtype), rng.standard_normal(N).astype(dtype)
    want = y + dtype(-0.3) * x
    assert blas_level1.axpy(-0.3, x, y)
    ulp = np.spacing(np.maximum(np.abs(want), np.abs(y))).max()
    np.testing.assert_allclose(y, want, rtol=0, atol=2 * ulp)
    z = rng.standard_normal((130, 131)).astype(dtype)         # any C-contiguous shape
    before = z.copy()
    assert blas_level1.scal(1.75, z)
    np.testing.assert_array_equal(z, before * dtype(1.75))     # (one product each: NumPy's bits)


@needs_openblas
def test_a_zero_factor_keeps_numpy_s_nan_and_inf():
    """BLAS skips axpy's pass and zero-fills for scal when the factor is 0; NumPy computes 0 * inf =
    nan: the functions give NumPy's values."""
    x = np.full(N, np.inf, np.float32)
    y = np.ones(N, np.float32)
    with np.errstate(invalid="ignore"):         # (NumPy's own warning, as the ufuncs would give it)
        assert blas_level1.axpy(0.0, x, y) and np.isnan(y).all()
    z = np.full(N, np.nan, np.float32)
    assert blas_level1.scal(0.0, z) and np.isnan(z).all()


@pytest.mark.parametrize("case", ["small", "strided", "float16", "int32", "same array", "overlap", "read-only",
                                  "sizes", "off", "not an array"])
def test_what_blas_must_not_touch_is_declined_untouched(case):
    x = np.arange(N, dtype=np.float32)
    y = np.ones(2 * N, np.float32)[:N]
    if case == "small":
        x, y = x[:8], y[:8]
    elif case == "strided":
        y = np.ones(2 * N, np.float32)[::2]
    elif case in ("float16", "int32"):
        x, y = x.astype(case), y.astype(case)
    elif case == "same array":
        x = y
    elif case == "overlap":
        base = np.ones(N + 4, np.float32)
        x, y = base[:N], base[4:]
    elif case == "read-only":
        y.flags.writeable = False
    elif case == "sizes":
        x = np.arange(N + 1, dtype=np.float32)
    elif case == "not an array":        # (a CuPy array, a list: not NumPy's)
        y = y.tolist()
    before = np.array(y, copy=True)
    if case == "off":
        with blas_level1.enabled(False):
            assert not blas_level1.axpy(2.0, x, y) and not blas_level1.scal(2.0, y)
    else:
        assert not blas_level1.axpy(2.0, x, y)
        assert not blas_level1.usable(x, y)
        if case in ("small", "strided", "float16", "int32", "read-only", "not an array"):
            assert not blas_level1.scal(2.0, y)
    np.testing.assert_array_equal(np.asarray(y), before)


def test_without_a_library_every_call_is_declined(monkeypatch):
    for key, value in (("lib", None), ("error", "no library (the test)"), ("routines", {})):   # (a failed load)
        monkeypatch.setitem(blas_level1._state, key, value)
    x, y = np.ones(N, np.float32), np.ones(N, np.float32)
    assert not blas_level1.available() and not blas_level1.axpy(1.0, x, y) and not blas_level1.scal(3.0, y)
    np.testing.assert_array_equal(y, 1.0)


def test_a_library_computing_otherwise_fails_its_check():
    """The check made at load: routines that write what NumPy does not (a wrong integer width would)
    are not used."""
    def wrong_axpy(n, alpha, x, incx, y, incy):
        np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(y))[:] = 0

    def wrong_axpy_64(n, alpha, x, incx, y, incy):
        np.ctypeslib.as_array((np.ctypeslib.ctypes.c_double * n).from_address(y))[:] = 0

    def scal(n, alpha, x, incx, kind=np.float32):
        ctype = np.ctypeslib.ctypes.c_float if kind == np.float32 else np.ctypeslib.ctypes.c_double
        np.ctypeslib.as_array((ctype * n).from_address(x))[:] *= alpha

    routines = {("s", "axpy"): wrong_axpy, ("d", "axpy"): wrong_axpy_64, ("s", "scal"): scal,
                ("d", "scal"): lambda *a: scal(*a, kind=np.float64)}
    assert not blas_level1._checked(routines)
