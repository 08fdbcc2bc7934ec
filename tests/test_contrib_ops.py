"""MXNet 1.9.1's contrib and legacy operators added together: linalg.syevd, contrib.index_copy /
index_array / quadratic, all_finite / multi_all_finite, contrib.quantize / quantize_v2 / dequantize,
BatchNorm_v1 and contrib.SyncBatchNorm. The expected values were produced by real MXNet 1.9.1 on the
CPU and are hard-coded (for quantization: where MXNet's MKL-DNN kernels agree with its reference
kernels, which hybridlab follows; the dequantized values are those of MXNet's own test)."""
import numpy as np
import pytest

import hybridlab as mx


def _r(x, d=5):
    return np.round(x.asnumpy().astype(np.float64), d).tolist()


# ---- linalg.syevd ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_syevd_reads_the_lower_triangle_and_fixes_signs_like_mxnet(dtype):
    a = mx.nd.array([[2., 5., 9.], [1., 3., 4.], [7., 8., 6.]], dtype=dtype)   # not symmetric: lower read
    u, l = mx.nd.linalg.syevd(a)
    assert u.dtype == l.dtype == np.dtype(dtype)
    np.testing.assert_allclose(u.asnumpy(), [[-0.51897, -0.53735, 0.66477], [0.74145, -0.66997, 0.03727],
                                             [0.42535, 0.51224, 0.74611]], atol=2e-5)
    np.testing.assert_allclose(l.asnumpy(), [-5.93125, 1.44827, 15.48298], atol=2e-5)


def test_syevd_batched_and_symbolic():
    a = mx.nd.array([[[1., 2.], [2., 4.]], [[1., 2.], [2., 5.]]])
    u, l = mx.nd.linalg.syevd(a)
    assert _r(u, 4) == [[[0.8944, -0.4472], [0.4472, 0.8944]], [[0.9239, -0.3827], [0.3827, 0.9239]]]
    assert _r(l, 4) == [[0.0, 5.0], [0.1716, 5.8284]]
    s = mx.sym.linalg.syevd(mx.sym.var("A"))
    assert len(s.list_outputs()) == 2
    _, out_shapes, _ = s.infer_shape(A=(3, 4, 4))
    assert out_shapes == [(3, 4, 4), (3, 4)]


def test_syevd_gradient_matches_mxnet():
    a = mx.nd.array([[2., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 4.]], dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        u, l = mx.nd.linalg.syevd(a)
    mx.autograd.backward([u, l], [mx.nd.array([[1., 0., 2.], [0.5, -1., 0.3], [0., 1., 1.]], dtype="float64"),
                                  mx.nd.array([1., 2., 3.], dtype="float64")])
    assert _r(a.grad, 6) == [[1.398163, 0.728643, -0.076842], [0.728643, 1.860691, 0.603838],
                             [-0.076842, 0.603838, 2.741145]]


def test_syevd_refuses_non_square_and_half_precision():
    with pytest.raises(mx.MXNetError, match="square"):
        mx.nd.linalg.syevd(mx.nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError, match="float16"):
        mx.nd.linalg.syevd(mx.nd.ones((2, 2), dtype="float16"))


# ---- contrib.index_copy / index_array / quadratic ---------------------------------------------------
def test_index_copy_repeated_index_last_row_wins_and_gradients_like_mxnet():
    x, t = mx.nd.zeros((4, 2)), mx.nd.array([[7, 8], [1, 2], [3, 4]])
    x.attach_grad()
    t.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.index_copy(x, mx.nd.array([3, 1, 3]), t)
    out.backward(mx.nd.array([[1, 2], [3, 4], [5, 6], [7, 8]]))
    assert out.asnumpy().tolist() == [[0, 0], [1, 2], [0, 0], [3, 4]]
    assert x.grad.asnumpy().tolist() == [[1, 2], [0, 0], [5, 6], [0, 0]]
    assert t.grad.asnumpy().tolist() == [[7, 8], [3, 4], [7, 8]]      # each row: the head's row idx[i]


def test_index_copy_refuses_mismatched_rows_and_out_of_range_indices():
    with pytest.raises(mx.MXNetError, match="one per index"):
        mx.nd.contrib.index_copy(mx.nd.zeros((4, 2)), mx.nd.array([3, 1]), mx.nd.ones((3, 2)))
    with pytest.raises(mx.MXNetError, match=r"index_vector expected values in \[0, 4\)"):
        mx.nd.contrib.index_copy(mx.nd.zeros((4, 2)), mx.nd.array([4]), mx.nd.ones((1, 2)))


def test_index_array_wraps_axes_modulo_ndim_like_mxnet():
    y = mx.nd.contrib.index_array(mx.nd.ones((2, 3)), axes=(5, -3))
    assert y.dtype == np.int64
    assert y.asnumpy().tolist() == [[[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 1], [2, 2]]]
    assert mx.sym.contrib.index_array(mx.sym.var("x"), axes=(1,)).infer_shape(x=(4, 5, 6))[1] == [(4, 5, 6, 1)]


def test_quadratic_integer_and_half_precision_like_mxnet():
    x = mx.nd.array([1, 2, -3], dtype="int32")
    assert mx.nd.contrib.quadratic(x, a=0.5, b=0.3, c=0.1).asnumpy().tolist() == [0, 2, 3]
    h = mx.nd.array([1.5, 2], dtype="float16")
    assert mx.nd.contrib.quadratic(h, a=0.5, b=0.3, c=0.1).asnumpy().tolist() == [1.673828125, 2.69921875]


# ---- all_finite / multi_all_finite -----------------------------------------------------------------
def test_all_finite_tests_in_float32_and_takes_floats_only():
    assert mx.nd.all_finite(mx.nd.array([1e300, 1.0], dtype="float64")).asnumpy().tolist() == [0.0]
    assert mx.nd.all_finite(mx.nd.array([1e30, 1.0], dtype="float64")).asnumpy().tolist() == [1.0]
    with pytest.raises(mx.MXNetError, match="int32"):
        mx.nd.all_finite(mx.nd.array([1, 2], dtype="int32"))
    s = mx.sym.multi_all_finite(mx.sym.var("a"), mx.sym.var("b"), num_arrays=2)
    assert s.list_arguments() == ["a", "b"]
    assert s.infer_shape(a=(2, 3), b=(4,))[1] == [(1,)]
    assert s.infer_type(a=np.float16, b=np.float64)[1] == [np.float32]


# ---- quantize / quantize_v2 / dequantize -------------------------------------------------------------
A = [[0.1392, 0.5928], [0.6027, 0.8579]]


@pytest.mark.parametrize("out_type, lo, hi, codes, out_range", [
    ("int8", 0.0, 1.0, [[18, 75], [77, 109]], [-1.0, 1.0]),
    ("int8", -0.5, 1.0, [[18, 75], [77, 109]], [-1.0, 1.0]),
    ("int8", 0.2, 0.7, [[25, 108], [109, 127]], [-0.7, 0.7]),
    ("uint8", 0.0, 1.0, [[35, 151], [154, 219]], [0.0, 1.0]),
])
def test_quantize_like_mxnet(out_type, lo, hi, codes, out_range):
    q, qlo, qhi = mx.nd.contrib.quantize(mx.nd.array(A), mx.nd.array([lo]), mx.nd.array([hi]), out_type=out_type)
    assert q.dtype == np.dtype(out_type) and q.asnumpy().tolist() == codes
    assert [round(float(qlo.asnumpy()[0]), 6), round(float(qhi.asnumpy()[0]), 6)] == out_range


def test_dequantize_inverts_int8_quantize_as_mxnets_test_expects():
    q, lo, hi = mx.nd.contrib.quantize(mx.nd.array(A), mx.nd.array([0.0]), mx.nd.array([1.0]), out_type="int8")
    back = mx.nd.contrib.dequantize(q, lo, hi)
    assert back.dtype == np.float32
    np.testing.assert_allclose(back.asnumpy(), [[0.14173228, 0.5905512], [0.6062992, 0.8582677]], rtol=1e-6)


@pytest.mark.parametrize("kwargs, codes, dtype, out_range", [
    ({}, [[-22, 44], [0, 127]], "int8", [-1.7, 1.7]),
    ({"out_type": "auto"}, [[-22, 44], [0, 127]], "int8", [-1.7, 1.7]),
    ({"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 2.0}, [[0, 76], [0, 217]], "uint8", [0.0, 2.0]),
    ({"out_type": "uint8", "min_calib_range": 0.0, "max_calib_range": 1.0}, [[0, 151], [0, 255]], "uint8", [0.0, 1.0]),
])
def test_quantize_v2_like_mxnet(kwargs, codes, dtype, out_range):
    q, lo, hi = mx.nd.contrib.quantize_v2(mx.nd.array([[-0.3, 0.5928], [0.0, 1.7]]), **kwargs)
    assert q.dtype == np.dtype(dtype) and q.asnumpy().tolist() == codes
    assert [round(float(lo.asnumpy()[0]), 6), round(float(hi.asnumpy()[0]), 6)] == out_range


def test_quantize_v2_passes_8bit_data_through_and_quantize_refuses_float64_ranges():
    q, lo, hi = mx.nd.contrib.quantize_v2(mx.nd.array([3, -100], dtype="int8"), min_calib_range=-1.0,
                                          max_calib_range=2.0)
    assert q.asnumpy().tolist() == [3, -100] and lo.asnumpy().tolist() == [-1.0] and hi.asnumpy().tolist() == [2.0]
    with pytest.raises(mx.MXNetError, match="float32"):
        mx.nd.contrib.quantize(mx.nd.array([1.0]), mx.nd.array([0.0], dtype="float64"), mx.nd.array([1.0]))
    with pytest.raises(mx.MXNetError, match="uint8 or int8"):
        mx.nd.contrib.dequantize(mx.nd.array([1.0]), mx.nd.array([0.0]), mx.nd.array([1.0]))


# ---- BatchNorm_v1 / contrib.SyncBatchNorm -----------------------------------------------------------
X = [[1., 2., 3.], [3., 5., 4.]]
GAMMA, BETA, MM, MV = [1.5, 2., 0.5], [0.1, 0.2, 0.3], [0.5, 1., 1.5], [2., 3., 4.]
HEAD = [[1., -2., 0.5], [0.3, 0.2, 1.]]


def _bind(op, fix_gamma):
    kw = {"key": "k"} if op == "contrib.SyncBatchNorm" else {}
    fn = mx.sym.contrib.SyncBatchNorm if op == "contrib.SyncBatchNorm" else mx.sym.BatchNorm_v1
    s = fn(mx.sym.var("data"), name="bn", fix_gamma=fix_gamma, output_mean_var=True, eps=1e-3, **kw)
    assert s.list_arguments() == ["data", "bn_gamma", "bn_beta"]
    assert s.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    args = {"data": mx.nd.array(X), "bn_gamma": mx.nd.array(GAMMA), "bn_beta": mx.nd.array(BETA)}
    grads = {k: mx.nd.zeros_like(v) for k, v in args.items()}
    aux = {"bn_moving_mean": mx.nd.array(MM), "bn_moving_var": mx.nd.array(MV)}
    return s.bind(mx.cpu(), args, args_grad=grads, aux_states=aux), grads, aux


@pytest.mark.parametrize("op", ["BatchNorm_v1", "contrib.SyncBatchNorm"])
def test_batchnorm_variants_train_like_mxnet(op):
    exe, grads, aux = _bind(op, fix_gamma=False)
    out, mean, var = exe.forward(is_train=True)
    assert _r(out) == [[-1.39925, -1.79956, -0.199], [1.59925, 2.19956, 0.799]]
    assert _r(mean) == [2.0, 3.5, 3.5] and _r(var) == [1.0, 2.25, 0.25]     # the variance, not 1/std
    exe.backward([mx.nd.array(HEAD), mx.nd.zeros((3,)), mx.nd.zeros((3,))])
    assert _r(grads["data"]) == [[0.00052, -0.00065, -0.00099], [-0.00052, 0.00065, 0.00099]]
    assert _r(grads["bn_gamma"]) == [-0.69965, 2.19951, 0.499]
    assert _r(grads["bn_beta"]) == [1.3, -1.8, 1.5]
    assert _r(aux["bn_moving_mean"]) == [0.65, 1.25, 1.7]
    assert _r(aux["bn_moving_var"]) == [1.9, 2.925, 3.625]


@pytest.mark.parametrize("op", ["BatchNorm_v1", "contrib.SyncBatchNorm"])
def test_batchnorm_variants_predict_and_fix_gamma_like_mxnet(op):
    exe, _, _ = _bind(op, fix_gamma=False)
    out, mean, var = exe.forward(is_train=False)
    assert _r(out) == [[0.6302, 1.35451, 0.67495], [2.75099, 4.81803, 0.92492]]
    assert _r(mean) == MM and _r(var) == MV   # the moving statistics (MXNet's SyncBatchNorm leaves them unset)
    exe, grads, _ = _bind(op, fix_gamma=True)
    out, _, _ = exe.forward(is_train=True)
    assert _r(out) == [[-0.8995, -0.79978, -0.69801], [1.0995, 1.19978, 1.29801]]
    exe.backward([mx.nd.array(HEAD), mx.nd.zeros((3,)), mx.nd.zeros((3,))])
    assert _r(grads["data"]) == [[0.00035, -0.00033, -0.00199], [-0.00035, 0.00033, 0.00199]]
    assert _r(grads["bn_gamma"]) == [0.0, 0.0, 0.0]


def test_sync_batchnorm_requires_its_key():
    with pytest.raises(mx.MXNetError, match="key"):
        mx.sym.contrib.SyncBatchNorm(mx.sym.var("d"), name="bn")
