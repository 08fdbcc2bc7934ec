"""The helpers MXNet's own unit tests import from ``mxnet.test_utils`` (and what its star import gives)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import test_utils as tu


def test_star_import_gives_mx_and_np():
    scope = {}
    exec("from hybridlab.test_utils import *", scope)
    assert scope["mx"] is mx and scope["np"] is np
    assert callable(scope["assert_almost_equal"]) and callable(scope["use_np"])


def test_reductions_sampling_and_broadcast_sums():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(tu.np_reduce(a, 1, False, np.max), a.max(axis=1))
    assert np.array_equal(tu.np_reduce(a, None, True, np.sum), a.sum(keepdims=True))
    picked = tu.random_sample(range(10), 4)
    assert len(set(picked)) == 4 and set(picked) <= set(range(10))
    g = tu.collapse_sum_like(a, (1, 4))
    assert np.array_equal(g, a.sum(axis=(0, 1)).reshape(1, 4))
    with pytest.raises(ValueError, match=r"\(5,\) does not broadcast to \(2, 3, 4\)"):
        tu.collapse_sum_like(a, (5,))
    assert tu.effective_dtype(mx.nd.ones((2,), dtype="float16")) == np.float16 and tu.is_op_runnable()


def test_use_np_runs_the_test_in_numpy_mode():
    @tu.use_np
    def inside():
        return mx.util.is_np_array()
    assert inside() and not mx.util.is_np_array()


def test_retry_reruns_a_failing_test_then_raises():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2
        return "passed"
    assert flaky() == "passed" and len(calls) == 2

    @tu.retry(2)
    def broken():
        calls.append(1)
        raise AssertionError("always")
    with pytest.raises(AssertionError, match="always"):
        broken()
    assert len(calls) == 4


def test_discard_stderr_silences_file_descriptor_2():
    code = ("import os, sys; sys.path.insert(0, sys.argv[1]); from hybridlab.test_utils import discard_stderr\n"
            "with discard_stderr():\n    os.write(2, b'hidden')\nos.write(2, b'shown')")
    kernel_lib = os.path.join(os.path.dirname(__file__), "..", "kernel_lib")
    out = subprocess.run([sys.executable, "-c", code, kernel_lib], capture_output=True, check=True)
    assert out.stderr == b"shown"


def test_the_generator_checks_accept_the_right_distribution_and_reject_a_wrong_one():
    pytest.importorskip("scipy")
    from scipy import stats
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: stats.norm.ppf(q), 10)
    assert len(buckets) == 10 and sum(probs) == pytest.approx(1.0)
    normal = lambda n: mx.nd.random.normal(0, 1, shape=(n,)).asnumpy()      # noqa: E731
    assert len(tu.verify_generator(normal, buckets, probs, nsamples=20000, nrepeat=3)) == 3
    shifted = lambda n: mx.nd.random.normal(0.5, 1, shape=(n,)).asnumpy()    # noqa: E731
    with pytest.raises(AssertionError, match="chi-square tests kept p > 0.05"):
        tu.verify_generator(shifted, buckets, probs, nsamples=20000, nrepeat=3)
    p, observed, _ = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2], [1 / 3] * 3, 3000)
    assert sum(observed) == 3000 and 0 <= p <= 1


def test_star_import_gives_the_modules_and_names_of_mxnets_module():
    scope = {}
    exec("from hybridlab.test_utils import *", scope)
    assert scope["sys"] is sys and scope["os"] is os and scope["OrderedDict"].__name__ == "OrderedDict"
    assert scope["Context"] is mx.Context and scope["array"] is mx.nd.array and scope["npt"] is np.testing


def test_check_consistency_compares_precisions_and_catches_a_different_result():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(mx.sym.tanh(data), num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(), "data": (2, 4), "type_dict": {"data": dt}} for dt in (np.float64, np.float32)]
    truth = tu.check_consistency(net, ctx_list)
    assert set(truth) == {"fc_output", "data", "fc_weight", "fc_bias"}
    wrong = mx.sym.FullyConnected(mx.sym.sigmoid(data), num_hidden=3, name="fc")
    with pytest.raises(AssertionError):
        tu.check_consistency([net, wrong], ctx_list)


def test_matrices_with_real_eigenvalues_and_the_np_op_lookup():
    m = tu.new_matrix_with_real_eigvals_nd((2, 4, 4))
    assert m.shape == (2, 4, 4) and np.abs(np.linalg.eigvals(m).imag).max() < 1e-6
    s = tu.new_sym_matrix_with_real_eigvals_nd((3, 3))
    assert np.allclose(s, s.T) and not tu.has_tvm_ops()
    from hybridlab.numpy_op_signature import _get_builtin_op
    assert _get_builtin_op("_np_sum") is mx.np.sum and _get_builtin_op("_npx_relu") is mx.npx.relu
    assert _get_builtin_op("_np_random_uniform") is mx.np.random.uniform and _get_builtin_op("sum") is None
    from hybridlab.ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID, py_slice
    assert _STORAGE_TYPE_STR_TO_ID["row_sparse"] == 1 and py_slice is slice


def test_compare_optimizer_checks_an_mxnet_style_optimizer_against_ours():
    class PySGD(mx.optimizer.Optimizer):
        """An optimizer as MXNet 1.x users write them: update(index, weight, grad, state)."""

        def create_state(self, index, weight):
            return None

        def update(self, index, weight, grad, state):
            weight[:] = weight - self._get_lr(index) * (grad * self.rescale_grad + self._get_wd(index) * weight)

    for dtype, kwargs in ((np.float32, {"wd": 0.01}), (np.float16, {"multi_precision": True})):
        kwargs = dict(kwargs, learning_rate=0.5, rescale_grad=0.5)
        tu.compare_optimizer(PySGD(**kwargs), mx.optimizer.SGD(**kwargs), (3, 4), dtype, rtol=1e-3, atol=1e-3,
                             compare_states=dtype == np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(PySGD(learning_rate=0.5), mx.optimizer.SGD(learning_rate=0.1), (3, 4), np.float32)
    assert tu.same_symbol_structure(mx.sym.relu(mx.sym.var("a")), mx.sym.relu(mx.sym.var("b")))
