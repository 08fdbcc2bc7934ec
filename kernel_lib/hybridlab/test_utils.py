"""``mx.test_utils``: the checks MXNet 1.x's tests and tutorials use: ``assert_almost_equal`` /
``almost_equal`` / ``same`` with MXNet's per-dtype tolerances, random shapes and arrays, and the
symbolic checks ``check_symbolic_forward``, ``check_symbolic_backward`` and
``check_numeric_gradient`` (finite differences against the executor's backward), and
``check_gluon_hybridize_consistency`` (a HybridBlock computes the same hybridized or not).

Example::

    >>> import numpy as np
    >>> import hybridlab as mx
    >>> from hybridlab.test_utils import assert_almost_equal, check_numeric_gradient
    >>> assert_almost_equal(mx.nd.array([1, 2]), np.array([1, 2.00001]))
    >>> x = mx.sym.var('x')
    >>> check_numeric_gradient(mx.sym.tanh(x) * x, {'x': np.array([0.5, -1.0])})
"""
import contextlib
import functools
import importlib.util
import numbers
import os
import sys
import warnings

import numpy as np

from .base import MXNetError, normalize_dtype
from .device import cpu, current_device
from .io import DataIter as _DataIter
from .test_data import (download, get_bz2_data, get_cifar10, get_mnist, get_mnist_iterator, get_mnist_pkl,  # noqa: F401
                        get_mnist_ubyte, get_zip_data)

_SCIPY_STATS = ("ss",) if importlib.util.find_spec("scipy") is not None else ()   # MXNet's is optional too
_STAR_MODULES = {"time", "gzip", "struct", "traceback", "numbers", "sys", "os", "platform", "errno", "logging",
                 "bz2", "zipfile", "json"}

__all__ = ["default_context", "set_default_context", "default_dtype", "default_rtols", "default_atols",
           "default_numeric_eps", "get_tols", "same", "almost_equal", "assert_almost_equal", "assert_allclose", "assert_almost_equal_ignore_nan",
           "assert_exception", "rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "rand_ndarray", "rand_sparse_ndarray", "random_arrays",
           "random_uniform_arrays",
           "simple_forward", "check_symbolic_forward", "check_symbolic_backward", "check_numeric_gradient",
           "same_array", "environment", "list_gpus", "check_gluon_hybridize_consistency", "use_np", "np_reduce",
           "random_sample", "effective_dtype", "discard_stderr", "retry", "is_op_runnable", "collapse_sum_like",
           "gen_buckets_probs_with_ppf", "chi_square_check", "verify_generator", "check_consistency",
           "compare_optimizer", "compare_ndarray_tuple", "same_symbol_structure", "assert_almost_equal_with_err",
           "download_model", "get_rtol", "get_atol", "get_etol", "has_tvm_ops", "new_matrix_with_real_eigvals_nd", "new_sym_matrix_with_real_eigvals_nd", "is_aarch64_run", "DummyIter", "mx", "np",
           "download", "get_mnist", "get_mnist_ubyte", "get_cifar10", "get_mnist_iterator", "get_mnist_pkl", "get_zip_data",
           "get_bz2_data",
           # what MXNet's module has at its top level, which ``from mxnet.test_utils import *`` hands on
           *sorted(_STAR_MODULES), "npt", "rnd", *_SCIPY_STATS, "OrderedDict", "contextmanager", "Context",
           "current_context", "array", "Symbol", "getenv", "setenv", "Features"]

_default_ctx = [None]


def is_aarch64_run():
    """Whether this runs on an aarch64 machine (MXNet's test helper)."""
    import platform
    return "aarch64" in platform.machine()


def default_context():
    """The device tests run on (``set_default_context``, else the current device)."""
    return _default_ctx[0] or current_device()


def set_default_context(ctx):
    """Make ``ctx`` the device ``default_context`` returns."""
    _default_ctx[0] = ctx


def default_dtype():
    return np.float32


def default_rtols():
    """MXNet's relative tolerance per dtype."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}


def default_atols():
    """MXNet's absolute tolerance per dtype."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}


def default_numeric_eps():
    """MXNet's finite-difference step per dtype."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def _tolerance(x, tol, defaults):
    if isinstance(tol, numbers.Number):
        return tol
    dtype = np.dtype(getattr(x, "dtype", np.float64))
    return (tol or {}).get(dtype, defaults.get(dtype, 0))


def get_tols(x, y, rtol, atol):
    """``(rtol, atol)`` for comparing ``x`` and ``y``: given numbers, or the looser dtype default."""
    x, y = np.asarray(x) if isinstance(x, numbers.Number) else x, np.asarray(y) if isinstance(y, numbers.Number) else y
    return (max(_tolerance(x, rtol, default_rtols()), _tolerance(y, rtol, default_rtols())),
            max(_tolerance(x, atol, default_atols()), _tolerance(y, atol, default_atols())))


def _numpy(a):
    return a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)


def same(a, b):
    """Whether ``a`` and ``b`` are exactly equal (NDArrays or NumPy arrays)."""
    return np.array_equal(_numpy(a), _numpy(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether ``|a - b| <= atol + rtol * |b|`` everywhere (MXNet's default tolerances by dtype)."""
    rtol, atol = get_tols(a, b, rtol, atol)
    return bool(np.allclose(_numpy(a), _numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError naming the largest violation unless ``almost_equal(a, b)``."""
    rtol, atol = get_tols(a, b, rtol, atol)
    x, y = _numpy(a), _numpy(b)
    if not use_broadcast and x.shape != y.shape:
        raise AssertionError(f"shapes differ: {names[0]} {x.shape}, {names[1]} {y.shape}")
    if x.shape != y.shape:           # MXNet's use_broadcast: (1, 3, 2) against (3, 2) compares values
        try:
            x, y = np.broadcast_arrays(x, y)
        except ValueError:
            raise AssertionError(f"shapes differ and do not broadcast: {names[0]} {x.shape}, {names[1]} "
                                 f"{y.shape}") from None
    if x.dtype == np.bool_ and y.dtype == np.bool_:
        np.testing.assert_equal(x, y)
        return
    np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan,
                               err_msg=f"{names[0]} and {names[1]} differ (rtol={rtol}, atol={atol})")


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """NumPy's ``assert_allclose`` on NDArrays or NumPy arrays."""
    np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """``assert_almost_equal`` after setting both arrays to 0 wherever either holds NaN.

    >>> import numpy as np
    >>> assert_almost_equal_ignore_nan(np.array([1.0, np.nan]), np.array([1.0, 5.0]))
    """
    a, b = np.copy(_numpy(a)), np.copy(_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Raise AssertionError unless ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} expected to raise {exception_type.__name__}, it did not")


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, d + 1) for d in (dim0, dim1, dim2))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim).tolist())


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None, shuffle_csr_indices=False,
                 distribution=None, ctx=None):
    """A uniform(0, 1) NDArray of ``shape``. ``stype`` 'csr' (2-d) or 'row_sparse' gives that sparse
    array (``mx.nd.sparse``, made by ``rand_sparse_ndarray``) with about ``density`` of its values
    (csr) or rows (row_sparse) nonzero (``density`` None: a random density, as MXNet)."""
    from .ndarray.ndarray import array
    if stype not in ("default", "csr", "row_sparse"):
        raise MXNetError(f"rand_ndarray: storage type expected 'default', 'csr' or 'row_sparse', got {stype!r}")
    if stype != "default":
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                                   modifier_func=modifier_func, ctx=ctx)[0]
    values = np.random.uniform(size=shape)
    if modifier_func is not None:
        values = np.vectorize(modifier_func)(values)
    return array(values, ctx=ctx or default_context(), dtype=dtype or default_dtype())


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts, as MXNet's: ``(RowSparseNDArray, (values, row indices))``
    for 'row_sparse' (each row kept with probability ``density``, or the rows ``rsp_indices``), and
    ``(CSRNDArray, (indptr, indices, data))`` for 'csr' (``distribution`` 'uniform': each value kept
    with probability ``density``; 'powerlaw': rows of doubling nonzero counts up to ``density``).
    Values are uniform in [0, 1) (all ``data_init`` when given, passed through ``modifier_func``).

    Example::

        >>> import numpy as np
        >>> from hybridlab.test_utils import rand_sparse_ndarray
        >>> arr, (values, rows) = rand_sparse_ndarray((5, 2), 'row_sparse', rsp_indices=np.array([1, 3]))
        >>> arr.stype, rows.tolist(), values.shape
        ('row_sparse', [1, 3], (2, 2))
    """
    from .ndarray import sparse
    ctx, dtype = ctx or default_context(), normalize_dtype(dtype or default_dtype())
    density = np.random.rand() if density is None else density
    distribution = distribution or "uniform"
    if distribution not in ("uniform", "powerlaw") or (stype == "row_sparse" and distribution != "uniform"):
        raise MXNetError(f"rand_sparse_ndarray: distribution expected 'uniform' (or 'powerlaw' for csr), got "
                         f"{distribution!r} for {stype!r}")

    def fill(values):
        if data_init is not None:
            values.fill(data_init)
        return values if modifier_func is None else np.vectorize(modifier_func)(values).astype(dtype)

    if stype == "row_sparse":
        rows = (np.asarray(rsp_indices) if rsp_indices is not None
                else np.argwhere(np.random.rand(shape[0]) < density).flatten())
        values = fill(np.random.rand(len(rows), *shape[1:]).astype(dtype))
        return sparse.row_sparse_array((values, rows), shape=shape, dtype=dtype, ctx=ctx), (values, rows)
    if stype != "csr":
        raise MXNetError(f"rand_sparse_ndarray: storage type expected 'csr' or 'row_sparse', got {stype!r}")
    if len(shape) != 2:
        raise MXNetError(f"rand_sparse_ndarray: stype 'csr' expected a 2-d shape, got {tuple(shape)}")
    dense = np.zeros(shape, dtype)
    if distribution == "uniform":
        mask = np.random.rand(*shape) < density
        dense[mask] = fill(np.random.rand(int(mask.sum())).astype(dtype))
    else:                          # powerlaw: row i holds 2**i nonzeros (capped by the columns) until used up
        left = int(density * shape[0] * shape[1])
        for row in range(shape[0]):
            n = min(2 ** row, shape[1], left)
            dense[row, :n] = fill(np.random.rand(n).astype(dtype))
            left -= n
        if left > 0:
            raise MXNetError(f"rand_sparse_ndarray: density {density} cannot be reached by a powerlaw over shape "
                             f"{tuple(shape)}")
    arr = sparse.csr_matrix(dense, ctx=ctx, dtype=dtype)
    return arr, (arr.indptr, arr.indices, arr.data)


def random_arrays(*shapes):
    """Standard-normal float32 NumPy arrays of ``shapes`` (a scalar for ``()``)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0 else
              np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def same_array(array1, array2):
    """Whether two NDArrays share their memory (any CPU device: their NumPy buffers overlap)."""
    if array1 is array2:
        return True
    data1, data2 = getattr(array1, "_data", None), getattr(array2, "_data", None)
    if isinstance(data1, np.ndarray) and isinstance(data2, np.ndarray):
        return bool(np.shares_memory(data1, data2))
    return np.shares_memory(_numpy(array1), _numpy(array2)) if array1.context == cpu() else False


def _location(sym, location, ctx, dtype):
    """``{argument name: NDArray}`` from a dict or a list in ``list_arguments`` order."""
    from .ndarray.ndarray import array
    names = sym.list_arguments()
    if isinstance(location, dict):
        unknown = sorted(set(location) - set(names))
        if unknown:
            raise MXNetError(f"location has {unknown}, which are not arguments of the symbol ({names})")
    else:
        location = dict(zip(names, location))
    return {k: array(v, ctx=ctx, dtype=_dtype_for(v, dtype)) for k, v in location.items()}


def _dtype_for(value, dtype):
    # MXNet's ``dtype="asnumpy"``: keep each array's own dtype; None: that too (float32 for lists)
    if dtype is None or (isinstance(dtype, str) and dtype == "asnumpy"):
        return getattr(value, "dtype", None) or default_dtype()
    return dtype


def _aux(sym, aux_states, ctx, dtype):
    from .ndarray.ndarray import array
    if aux_states is None:
        return None
    if not isinstance(aux_states, dict):
        aux_states = dict(zip(sym.list_auxiliary_states(), aux_states))
    return {k: array(v, ctx=ctx, dtype=default_dtype() if dtype is None else _dtype_for(v, dtype))
            for k, v in aux_states.items()}


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """The outputs (NumPy arrays; one array for one output) of ``sym`` on ``inputs``."""
    ctx = ctx or default_context()
    ex = sym.bind(ctx, _location(sym, inputs, ctx, None), grad_req="null")
    outs = [o.asnumpy() for o in ex.forward(is_train=is_train)]
    return outs[0] if len(outs) == 1 else outs


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=None):
    """Assert the outputs of ``sym`` at ``location`` equal ``expected`` (a list, or a dict by output
    name); returns the outputs."""
    ctx = ctx or default_context()
    ex = sym.bind(ctx, _location(sym, location, ctx, dtype), grad_req="null",
                  aux_states=_aux(sym, aux_states, ctx, dtype))
    outputs = ex.forward(is_train=False)
    if isinstance(expected, dict):
        expected = [expected[name] for name in sym.list_outputs()]
    for name, want, got in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(want, got, rtol, atol, ("EXPECTED_" + name, "FORWARD_" + name), equal_nan)
    return [o.asnumpy() for o in outputs]


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=None):
    """Assert the argument gradients of ``sym`` at ``location`` with head gradients ``out_grads``
    equal ``expected`` (a list in argument order, or a dict by name); returns them."""
    from .ndarray.ndarray import array
    ctx = ctx or default_context()
    args = _location(sym, location, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    reqs = {n: (grad_req if isinstance(grad_req, str) else grad_req.get(n, "null")) if n in expected else "null"
            for n in sym.list_arguments()}
    initial = {n: np.random.normal(size=args[n].shape) for n in expected}
    asnumpy = isinstance(dtype, str) and dtype == "asnumpy"
    grads = {n: array(v, ctx=ctx, dtype=getattr(expected[n], "dtype", args[n].dtype) if asnumpy else args[n].dtype)
             for n, v in initial.items()}
    ex = sym.bind(ctx, args, args_grad=grads, grad_req=reqs, aux_states=_aux(sym, aux_states, ctx, dtype))
    ex.forward(is_train=True)
    if out_grads is not None:
        if isinstance(out_grads, dict):
            out_grads = [out_grads[name] for name in sym.list_outputs()]
        out_grads = [array(g, ctx=ctx, dtype=o.dtype) for g, o in zip(out_grads, ex.outputs)]
    ex.backward(out_grads)
    for name, want in expected.items():
        got = grads[name].asnumpy()     # the arrays bound as gradients (MXNet's test reads those)
        if reqs[name] == "add":
            got = got - initial[name]
        elif reqs[name] == "null":       # the buffer must be left as it was
            want = initial[name]
        assert_almost_equal(want, got, rtol, atol, ("EXPECTED_" + name, "BACKWARD_" + name), equal_nan)
    return {n: grads[n].asnumpy() for n in expected}


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None, grad_nodes=None,
                           use_forward_train=True, ctx=None, grad_stype_dict=None, dtype=np.float64):
    """Assert the executor's gradients of ``sum(sym * P)`` (P a fixed random projection) equal central
    finite differences at ``location``, for the arguments in ``grad_nodes`` (default: all)."""
    from .ndarray.ndarray import array
    ctx = ctx or default_context()
    args = _location(sym, location, ctx, dtype)
    # a dict gives each node's grad_req ("write", "add", "null"), as MXNet's
    reqs = dict(grad_nodes) if isinstance(grad_nodes, dict) else {
        n: "write" for n in (grad_nodes if grad_nodes is not None else sym.list_arguments())}
    grad_nodes = list(reqs)
    out_shapes = sym.infer_shape(**{k: v.shape for k, v in args.items()})[1]
    if out_shapes is None or len(out_shapes) != 1:
        raise MXNetError(f"check_numeric_gradient: expected a symbol with one output of known shape, got "
                         f"{sym.list_outputs()}")
    projection = array(np.random.normal(size=out_shapes[0]), ctx=ctx, dtype=dtype)
    aux = _aux(sym, aux_states, ctx, dtype)
    initial = {n: np.random.normal(0, 0.01, size=args[n].shape) for n in grad_nodes}
    buffers = {n: array(v, ctx=ctx, dtype=args[n].dtype) for n, v in initial.items()}
    ex = sym.bind(ctx, args, args_grad=buffers, grad_req={n: reqs.get(n, "null") for n in sym.list_arguments()},
                  aux_states=aux)

    def objective():
        # the projected output, elementwise (MXNet subtracts the two sides elementwise before summing,
        # so the elements the shift leaves alone cancel exactly, even in float16)
        if aux is not None:
            for k, v in aux.items():
                ex.aux_dict[k][:] = v
        return ex.forward(is_train=use_forward_train)[0].asnumpy() * projection.asnumpy()

    objective()
    ex.backward([projection])
    eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[np.dtype(dtype)]
    for name in grad_nodes:
        symbolic = buffers[name].asnumpy().copy()
        if reqs[name] == "null":        # the buffer must be left as it was
            assert_almost_equal(initial[name], symbolic, rtol, atol, ("NUMERICAL_" + name, "BACKWARD_" + name))
            continue
        if reqs[name] == "add":
            symbolic = symbolic - initial[name]
        value = np.ascontiguousarray(args[name].asnumpy())
        numeric = np.zeros(value.shape, dtype=np.float64)
        for i in range(value.size):
            sides = []
            for sign in (1, -1):
                shifted = value.copy()
                shifted.ravel()[i] += sign * eps / 2
                ex.arg_dict[name][:] = shifted
                sides.append(objective())
            numeric.ravel()[i] = (sides[0] - sides[1]).sum() / eps
        ex.arg_dict[name][:] = value
        assert_almost_equal(numeric, symbolic, rtol if rtol is not None else 1e-2, atol,
                            ("NUMERICAL_" + name, "BACKWARD_" + name))


@contextlib.contextmanager
def environment(*args):
    """Set environment variables for a ``with`` block (``environment('NAME', 'value')`` or a dict;
    ``None`` unsets); the previous values come back after it."""
    pairs = args[0] if len(args) == 1 and isinstance(args[0], dict) else {args[0]: args[1]}
    saved = {k: os.environ.get(k) for k in pairs}
    try:
        for k, v in pairs.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def list_gpus():
    """The ids of the CUDA devices (empty without CuPy and a GPU)."""
    from .device import num_gpus
    return list(range(num_gpus()))


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4, atol=1e-4):
    """MXNet's check that a HybridBlock computes the same hybridized or not: ``net_builder()`` makes
    a block, run on copies of ``data_l`` imperatively and hybridized (with and without
    ``autograd.record()`` + ``backward`` when ``test_grad``), all with the parameters of the first
    run; the outputs of the runs in one mode (recording trains: BatchNorm uses the batch's
    statistics), and the inputs' gradients, must agree, and the outputs match ``numpy_func(*data as
    NumPy)`` when given. Each run starts from ``mx.random.seed(0)``, so random ops such as Dropout
    draw the same numbers in both. On a mismatch the error also names the first node whose
    hybridized value differs (``gluon.consistency.compare``).

    >>> import hybridlab as mx
    >>> check_gluon_hybridize_consistency(lambda: mx.gluon.nn.Dense(3), [mx.np.ones((2, 4))])
    """
    from . import autograd, random
    from .gluon.consistency import compare
    saved_out, saved_grads, params, first = {}, None, None, None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder()
            with warnings.catch_warnings():        # a builder may have initialised some already
                warnings.filterwarnings("ignore", message=".*is already initialized")
                net.initialize()
            ins = [x.copy() for x in data_l]
            if use_autograd:
                for x in ins:
                    x.attach_grad()
            if params is not None:          # same structure: the first run's parameters, in order
                net(*[x.copy() for x in data_l])          # finish deferred initialisation first
                for p, value in zip(net.collect_params().values(), params):
                    p.set_data(value)
            if hybridize:
                net.hybridize()
            random.seed(0)
            if use_autograd:
                with autograd.record():
                    out = net(*ins)
                out.backward(out)
            else:
                out = net(*ins)
            if params is None:
                params = [p.data().copy() for p in net.collect_params().values()]
                first = net
            out_np = _numpy(out)
            try:
                if use_autograd not in saved_out:
                    saved_out[use_autograd] = out_np
                else:
                    assert_almost_equal(out_np, saved_out[use_autograd], rtol=rtol, atol=atol,
                                        names=("hybridized" if hybridize else "imperative", "imperative"))
                if use_autograd:
                    grads = [_numpy(x.grad) for x in ins]
                    if saved_grads is None:
                        saved_grads = grads
                    else:
                        for k, (g, g0) in enumerate(zip(grads, saved_grads)):
                            assert_almost_equal(g, g0, rtol=rtol, atol=atol, names=(f"input {k} gradient", "imperative"))
            except AssertionError as err:
                if hybridize:
                    report = compare(first, *[x.copy() for x in data_l], backward=use_autograd, rtol=rtol, atol=atol)
                    where = report.first_divergence
                    hint = (f"the first node that differs when hybridized: '{where.name}' ({where.op}, max abs err "
                            f"{where.max_abs:.3g}{_created_at(where.source)})" if where is not None else
                            "no single node differs: see gluon.consistency.compare")
                    raise AssertionError(f"{err}\n{hint}\n{report}") from None
                raise
            if numpy_func is not None:
                assert_almost_equal(out_np, numpy_func(*[_numpy(x) for x in data_l]), rtol=rtol, atol=atol,
                                    names=("block", "numpy_func"))


def _created_at(source):
    return f", created at {source['file']}:{source['line']}: {source['code']}" if source else ""


# ---- the smaller helpers MXNet's unit tests import by name -------------------------------------

def __getattr__(name):
    # ``from mxnet.test_utils import *`` gives the tests ``mx``, ``np`` and the modules and names
    # MXNet's module imports at its top level (the tests use ``sys``, ``ss``, ``OrderedDict``...)
    if name == "mx":
        return sys.modules[__name__.rsplit(".", 1)[0]]
    if name in _STAR_MODULES:
        return importlib.import_module(name)
    modules = {"npt": "numpy.testing", "rnd": "numpy.random", "ss": "scipy.stats"}
    if name in modules:
        return importlib.import_module(modules[name])
    where = {"OrderedDict": "collections", "contextmanager": "contextlib", "Context": ".context",
             "current_context": ".context", "array": ".ndarray", "Symbol": ".symbol", "getenv": ".util",
             "setenv": ".util", "Features": ".runtime"}
    if name in where:
        return getattr(importlib.import_module(where[name], __name__.rsplit(".", 1)[0]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def use_np(func):
    """MXNet's ``test_utils.use_np``: the test runs in NumPy mode (``mx.util.use_np``)."""
    from .util import use_np as _use_np
    return _use_np(func)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (an int, a tuple, or None: all axes) one axis at a time with
    ``numpy_reduce_func``, as MXNet's reference for its reduce ops.

    >>> np_reduce(np.arange(6.0).reshape(2, 3), (0, 1), True, np.sum)
    array([[15.]])
    """
    axes = [axis] if isinstance(axis, int) else list(range(dat.ndim)) if axis is None else list(axis)
    out = dat
    for i in sorted(axes, reverse=True):
        out = numpy_reduce_func(out, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axes:
            shape[i] = 1
        out = np.asarray(out).reshape(shape)
    return out


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """A list of NumPy arrays of ``shapes`` drawn uniformly from ``[low, high)`` (NumPy's global
    generator), of ``dtype`` (default: ``default_dtype()``).

    >>> [a.shape for a in random_uniform_arrays((2,), (1, 3), low=-1.0)]
    [(2,), (1, 3)]
    """
    dtype = default_dtype() if dtype is None else dtype
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` distinct items of ``population`` in random order (NumPy's global generator)."""
    pool = list(population)
    np.random.shuffle(pool)
    return pool[:k]


def effective_dtype(dat):
    """The dtype whose tolerances apply to ``dat``: its own (MXNet lowers float32 to float16 for
    TF32 GPU math, which hybridlab's kernels do not use)."""
    return np.dtype(dat.dtype)


def is_op_runnable():
    """Whether the test's ops can run on ``default_context()``: always, here (MXNet skips some
    kernels on old GPUs)."""
    return True


@contextlib.contextmanager
def discard_stderr():
    """Send what is written to the process's standard error (file descriptor 2) to /dev/null."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(null)
        os.close(saved)


def retry(n):
    """Run the decorated test up to ``n`` times while it fails with an AssertionError (a random
    test that may fail by chance), raising the last failure."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"retry: n expected an int >= 1, got {n!r}")

    def decorate(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return test(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


def collapse_sum_like(a, shape):
    """Sum ``a`` down to ``shape`` (the gradient of a broadcast to ``a.shape``).

    >>> collapse_sum_like(np.ones((2, 3, 4)), (3, 1)).tolist()
    [[8.0], [8.0], [8.0]]
    """
    if len(a.shape) < len(shape):
        raise ValueError(f"collapse_sum_like: expected a shape of at most {a.ndim} dims, got {tuple(shape)}")
    if a.size == 0 or int(np.prod(shape)) == 0:
        return np.zeros(shape, dtype=a.dtype)
    lead = a.ndim - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s != a.shape[lead + i]:
            if s != 1:
                raise ValueError(f"collapse_sum_like: {tuple(shape)} does not broadcast to {a.shape}")
            axes.append(lead + i)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equally likely buckets ``(low, high)`` of a distribution given by its percent
    point function ``ppf``, and their probabilities (for ``verify_generator``)."""
    if nbuckets < 1:
        raise ValueError(f"gen_buckets_probs_with_ppf: nbuckets expected >= 1, got {nbuckets}")
    probs = [1.0 / nbuckets] * nbuckets
    buckets = [(ppf(i / nbuckets), ppf((i + 1) / nbuckets)) for i in range(nbuckets)]
    return buckets, probs


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of ``generator(nsamples)`` against ``buckets`` (``(low, high)``
    ranges, or the discrete values) with probabilities ``probs``: ``(p value, observed counts,
    expected counts)``. Needs SciPy for the p value."""
    from scipy import stats
    samples = np.asarray(generator(nsamples)).ravel()
    if len(samples) != nsamples:
        raise ValueError(f"chi_square_check: the generator gave {len(samples)} samples, expected {nsamples}")
    if isinstance(buckets[0], (list, tuple)):
        observed = [int(np.sum((samples >= lo) & (samples < hi))) for lo, hi in buckets]
    else:
        observed = [int(np.sum(samples == b)) for b in buckets]
    expected = (np.asarray(probs, dtype=np.float64) * nsamples).tolist()
    total = sum(observed)
    p = stats.chisquare(observed, np.asarray(expected) * (total / sum(expected))).pvalue if total else 0.0
    return float(p), observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Run ``chi_square_check`` ``nrepeat`` times; AssertionError when fewer than
    ``success_rate`` of the runs keep the p value above ``alpha``. Returns the p values."""
    ps = [chi_square_check(generator, buckets, probs, nsamples)[0] for _ in range(nrepeat)]
    passed = sum(p > alpha for p in ps)
    if passed < nrepeat * success_rate:
        raise AssertionError(f"verify_generator: {passed} of {nrepeat} chi-square tests kept p > {alpha} "
                             f"(expected at least {nrepeat * success_rate:g}); p values {ps}")
    return ps


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or MXNet's default relative tolerance for ``dtype``."""
    return default_rtols().get(np.dtype(dtype), 1e-5) if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or MXNet's default absolute tolerance for ``dtype``."""
    return default_atols().get(np.dtype(dtype), 1e-20) if atol is None else atol


def get_etol(etol=None):
    """The fraction of elements allowed to differ (MXNet's default: none)."""
    return 0 if etol is None else etol


def has_tvm_ops():
    """Whether operators compiled with TVM are available: never here (MXNet builds them optionally)."""
    return False


def _well_conditioned(n, rng=np.random):
    """An ``n x n`` matrix with condition number below 3: a Householder reflection times a random
    diagonal with entries in (-1, 1) away from zero."""
    while True:
        v = rng.uniform(-1.0, 1.0, (n, 1))
        v /= np.linalg.norm(v)
        reflection = np.eye(n) - 2 * (v @ v.T)
        q = reflection @ np.diag(rng.uniform(-1.0, 1.0, n))
        if np.linalg.cond(q, 2) < 3:
            return q


def new_matrix_with_real_eigvals_nd(shape):
    """Matrices of ``shape`` (..., n, n) with real eigenvalues in (-10, 10), each ``Q^-1 D Q`` for a
    well-conditioned ``Q`` (MXNet's helper for eig/inverse tests).

    >>> import numpy as np
    >>> from hybridlab.test_utils import new_matrix_with_real_eigvals_nd
    >>> m = new_matrix_with_real_eigvals_nd((2, 3, 3))
    >>> m.shape, bool(np.all(np.isreal(np.linalg.eigvals(m))))
    ((2, 3, 3), True)
    """
    n = shape[-1]
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    out = []
    for _ in range(count):
        q = _well_conditioned(n)
        out.append(np.linalg.inv(q) @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q)
    return np.array(out).reshape(shape)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """Symmetric matrices of ``shape`` (..., n, n) with eigenvalues in (-10, 10): ``Q^T D Q`` for
    an orthonormal ``Q``.

    >>> from hybridlab.test_utils import new_sym_matrix_with_real_eigvals_nd
    >>> m = new_sym_matrix_with_real_eigvals_nd((3, 3))
    >>> bool(np.allclose(m, m.T))
    True
    """
    n = shape[-1]
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    out = []
    for _ in range(count):
        x = np.random.randn(n, n)
        q = np.linalg.qr(x.T @ x)[0]
        out.append(q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q)
    return np.array(out).reshape(shape)


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, rtol=None,
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Assert that ``sym`` (one symbol, or one per entry) gives the same outputs and gradients on
    every entry of ``ctx_list`` (dicts of ``ctx``, input shapes and ``type_dict``, as for
    ``simple_bind``), compared with the most precise entry (or ``ground_truth``), in the precision
    of the less precise one. Returns the ground truth (outputs and gradients by name).

    >>> import numpy as np, hybridlab as mx
    >>> from hybridlab.test_utils import check_consistency
    >>> s = mx.sym.tanh(mx.sym.var("x"), name="y")
    >>> gt = check_consistency(s, [{"ctx": mx.cpu(), "x": (2, 3), "type_dict": {"x": np.float64}},
    ...                            {"ctx": mx.cpu(), "x": (2, 3), "type_dict": {"x": np.float32}}])
    >>> sorted(gt)
    ['x', 'y_output']
    """
    from .ndarray import array as nd_array
    from .symbol import Symbol as _Symbol
    if len(ctx_list) < 2:
        raise MXNetError(f"check_consistency: expected at least 2 entries in ctx_list, got {len(ctx_list)}")
    syms = [sym] * len(ctx_list) if isinstance(sym, _Symbol) else list(sym)
    if len(syms) != len(ctx_list):
        raise MXNetError(f"check_consistency: expected one symbol per ctx_list entry ({len(ctx_list)}), "
                         f"got {len(syms)}")
    output_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    executors = []
    for s, spec in zip(syms, ctx_list):
        if s.list_arguments() != arg_names or s.list_outputs() != output_names:
            raise MXNetError("check_consistency: expected symbols with the same arguments and outputs")
        executors.append(s.simple_bind(grad_req=grad_req, **spec))
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, arr in sorted(executors[0].arg_dict.items()):     # a fixed order: reproducible
        if name not in arg_params:
            if use_uniform:
                value = np.random.uniform(-0.92 * scale, 0.92 * scale, arr.shape)
            else:
                value = np.random.normal(size=arr.shape, scale=scale)
            arg_params[name] = value.astype(rand_type)
    for name in executors[0].aux_dict:
        aux_params.setdefault(name, 0)
    for ex in executors:
        for name, arr in ex.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in ex.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in ex.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    dtypes = [np.dtype(ex.outputs[0].dtype) if ex.outputs else np.dtype(np.float32) for ex in executors]
    for ex in executors:
        ex.forward(is_train=False)
    gt_index = int(np.argmax([d.itemsize for d in dtypes]))

    def compare(got, want, name, i):
        dtype = min(np.dtype(got.dtype), np.dtype(want.dtype), key=lambda d: d.itemsize)
        try:
            assert_almost_equal(got.asnumpy().astype(dtype), np.asarray(want).astype(dtype), rtol, atol,
                                (f"ctx {i}: {name}", f"ground truth: {name}"), equal_nan)
        except AssertionError:
            if raise_on_err:
                raise
            print(f"check_consistency: ctx {i} differs at {name}")

    truth = dict(ground_truth) if ground_truth is not None else {
        n: o.asnumpy() for n, o in zip(output_names, executors[gt_index].outputs)}
    for i, ex in enumerate(executors):
        if i != gt_index or ground_truth is not None:
            for name, out in zip(output_names, ex.outputs):
                compare(out, truth[name], name, i)
    if grad_req != "null":
        for ex in executors:
            ex.forward(is_train=True)
        head = [o.asnumpy() for o in executors[0].outputs]
        for ex in executors:
            ex.backward([nd_array(h, ctx=o.context, dtype=o.dtype) for h, o in zip(head, ex.outputs)])
        if ground_truth is None:
            truth.update({n: o.asnumpy() for n, o in zip(output_names, executors[gt_index].outputs)})
            truth.update({n: g.asnumpy() for n, g in executors[gt_index].grad_dict.items() if g is not None})
        for i, ex in enumerate(executors):
            if i == gt_index and ground_truth is None:
                continue
            for name, grad in ex.grad_dict.items():
                if grad is not None and name in truth:
                    compare(grad, truth[name], name, i)
    return truth


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Assert two optimizer states (an array, or nested tuples of arrays; ``None`` skips) are equal."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Assert that optimizers ``opt1`` and ``opt2`` make the same states and the same update of a
    random weight of ``shape`` from a random gradient (MXNet's check of an optimizer against its
    reference). ``w_stype``/``g_stype`` 'row_sparse' or 'csr' give ``opt2`` sparse arrays and ``opt1``
    their dense copies. With a list of shapes, ``opt2`` updates ``ntensors`` weights in one multi-tensor
    call and ``opt1`` one at a time.

    >>> import hybridlab as mx
    >>> from hybridlab.test_utils import compare_optimizer
    >>> compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
    ...                   mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), (3, 4), "float32")
    """
    import copy
    from . import random as _random
    ctx = default_context()

    def pair(stype, density):      # (dense copy for opt1, array of storage stype for opt2)
        if stype == "default":
            second = _random.uniform(shape=shape, ctx=ctx, dtype=dtype)
            return second.copyto(ctx), second
        second = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return second.copyto(ctx).tostype("default"), second

    if not isinstance(shape, list):
        if ntensors != 1:
            raise MXNetError(f"compare_optimizer: one shape expected ntensors=1, got {ntensors}")
        (w1, w2), (g1, g2) = pair(w_stype, 1), pair(g_stype, None)
        state1, state2 = opt1.create_state_multi_precision(0, w1), opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2, g2 = copy.deepcopy(w1), copy.deepcopy(g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def same_symbol_structure(sym1, sym2):
    """Whether two symbols have the same op at every node position (their graphs' structure).

    >>> import hybridlab as mx
    >>> from hybridlab.test_utils import same_symbol_structure
    >>> a, b = mx.sym.relu(mx.sym.var("x")), mx.sym.relu(mx.sym.var("y"))
    >>> same_symbol_structure(a, b), same_symbol_structure(a, mx.sym.tanh(mx.sym.var("x")))
    (True, False)
    """
    import json as _json
    nodes1 = _json.loads(sym1.tojson())["nodes"]
    nodes2 = _json.loads(sym2.tojson())["nodes"]
    return all(n1["op"] == n2["op"] for n1, n2 in zip(nodes1, nodes2))


class DummyIter(_DataIter):
    """An iterator that yields the first batch of ``real_iter`` forever (MXNet's speed-test helper).

    >>> import hybridlab as mx
    >>> from hybridlab.test_utils import DummyIter
    >>> it = DummyIter(mx.io.NDArrayIter(mx.nd.arange(6).reshape((3, 2)), batch_size=2))
    >>> [next(it).data[0].asnumpy().tolist() for _ in range(2)]
    [[[0.0, 1.0], [2.0, 3.0]], [[0.0, 1.0], [2.0, 3.0]]]
    """

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The first batch of the real iterator, again (never StopIteration)."""
        return self.the_batch


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """``assert_almost_equal``, except that a fraction ``etol`` (default ``get_etol()``) of the
    elements may differ (MXNet's check for low-precision results).

    >>> import numpy as np
    >>> assert_almost_equal_with_err(np.array([1.0, 2.0, 3.0, 9.0]), np.array([1.0, 2.0, 3.0, 4.0]), etol=0.3)
    >>> try:
    ...     assert_almost_equal_with_err(np.array([1.0, 9.0]), np.array([1.0, 4.0]), etol=0.3)
    ... except AssertionError as err:
    ...     print(str(err).splitlines()[0])
    1 of 2 elements (50.00%) of a and b differ, more than the allowed 30.00% (rtol=1e-05, atol=1e-20)
    """
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    x, y = _numpy(a), _numpy(b)
    close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    bad = close.size - np.count_nonzero(close)
    if close.size and bad / close.size > etol:
        raise AssertionError(f"{bad} of {close.size} elements ({bad / close.size:.2%}) of {names[0]} and {names[1]} "
                             f"differ, more than the allowed {etol:.2%} (rtol={rtol}, atol={atol})")


def download_model(model_name, dst_dir="./", meta_info=None):
    """Download ``model_name``'s ``-symbol.json`` and ``-%04d.params`` into ``dst_dir`` (MXNet's
    helper; ``meta_info``: ``{name: {'symbol': url, 'params': url}}``, default: MXNet's ImageNet
    models such as ``'imagenet1k-resnet-18'``). Returns ``(prefix, epoch)``."""
    from .test_data import download
    base = "http://data.mxnet.io/models/imagenet/"
    models = {f"imagenet1k-resnet-{n}": f"resnet/{n}-layers/resnet-{n}" for n in (18, 34, 50, 101, 152)}
    known = {name: {"symbol": f"{base}{path}-symbol.json", "params": f"{base}{path}-0000.params"}
             for name, path in models.items()}
    known["imagenet1k-inception-bn"] = {"symbol": f"{base}inception-bn/Inception-BN-symbol.json",
                                        "params": f"{base}inception-bn/Inception-BN-0126.params"}
    meta_info = meta_info if meta_info is not None else known
    if model_name not in meta_info:
        raise MXNetError(f"download_model: unknown model {model_name!r}: expected one of {sorted(meta_info)}")
    meta = meta_info[model_name]
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], fname=prefix + "-symbol.json")
    epoch = int(meta["params"][-11:-7])
    download(meta["params"], fname=f"{prefix}-{epoch:04d}.params")
    return prefix, epoch
