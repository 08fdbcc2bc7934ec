"""Operator behaviours where hybridlab once differed from Apache MXNet 1.9.1 (found by a differential
probe). Every expected value here was produced by real MXNet 1.9.1 on the CPU and is hard-coded, so
these tests need no MXNet."""
import math

import numpy as np
import pytest

import hybridlab as mx


# ---- slice: out-of-range begin/end are clamped, empty ranges give empty axes -------------------------
@pytest.mark.parametrize("begin,end,step,expected", [
    ((0,), (100,), None, [0, 1, 2, 3, 4]),
    ((7,), (9,), None, []),
    ((0,), (-10,), None, []),
    ((4,), (-100,), (-1,), [4, 3, 2, 1, 0]),
    ((3,), (1,), None, []),
    ((1,), (3,), (-1,), []),
    ((2,), (2,), None, []),
    ((-100,), (3,), None, [0, 1, 2]),
    ((-6,), (None,), None, [0, 1, 2, 3, 4]),
    ((None,), (-100,), None, []),
    ((100,), (None,), (-1,), [4, 3, 2, 1, 0]),
    ((100,), (0,), (-1,), [4, 3, 2, 1]),
    ((-7,), (None,), (-1,), []),
    ((0,), (-6,), (-1,), [0]),
    ((4,), (-6,), (-2,), [4, 2, 0]),
    ((10,), (2,), (-2,), [4]),
    ((None,), (10,), (-1,), []),
    ((3,), (10,), (2,), [3]),
])
def test_slice_clamps_like_mxnet(begin, end, step, expected):
    kw = {"begin": begin, "end": end} if step is None else {"begin": begin, "end": end, "step": step}
    y = mx.nd.slice(mx.nd.arange(5), **kw)
    assert y.shape == (len(expected),) and y.asnumpy().tolist() == expected


def test_slice_clamps_2d_and_keeps_step_zero_an_error():
    x = mx.nd.arange(12).reshape((3, 4))
    y = mx.nd.slice(x, begin=(None, 5), end=(None, -10), step=(None, -1))
    assert y.asnumpy().tolist() == [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]
    assert mx.nd.slice(x, begin=(1,), end=(100,)).shape == (2, 4)
    assert mx.nd.slice(x, begin=(-10, 1), end=(10, 3)).asnumpy().tolist() == [[1, 2], [5, 6], [9, 10]]
    with pytest.raises(mx.base.MXNetError, match="nonzero step"):
        mx.nd.slice(x, begin=(0,), end=(3,), step=(0,))


def test_slice_gradient_of_clamped_reverse_range():
    x = mx.nd.arange(5, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.slice(x, begin=(4,), end=(-100,), step=(-2,))
    y.backward(mx.nd.array([1.0, 2.0, 3.0], dtype="float64"))
    assert x.grad.asnumpy().tolist() == [3.0, 0.0, 2.0, 0.0, 1.0]


def test_basic_indexing_clamps_like_mxnet():
    x = mx.nd.arange(5)
    assert x[0:100].asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert x[-100:3].asnumpy().tolist() == [0, 1, 2]
    assert x[4:-100:-1].asnumpy().tolist() == [4, 3, 2, 1, 0]
    assert x[7:9].shape == (0,) and x[3:1].shape == (0,)


# ---- BatchNorm: the third output is the inverse std ---------------------------------------------------
BN_X = [[[1.0, 2.0], [0.0, 4.0], [3.0, 3.0]], [[-1.0, 0.0], [2.0, 2.0], [5.0, 1.0]]]


def _bn_inputs():
    return (mx.nd.array(BN_X), mx.nd.array([1.5, 0.5, 2.0]), mx.nd.array([0.1, 0.2, 0.3]),
            mx.nd.array([0.5, -0.5, 1.0]), mx.nd.array([2.0, 0.5, 1.5]))


def test_batchnorm_output_mean_var_predict_is_moving_mean_and_inverse_std():
    out, mean, inv_std = mx.nd.BatchNorm(*_bn_inputs(), eps=1e-3, fix_gamma=False, output_mean_var=True)
    np.testing.assert_allclose(mean.asnumpy(), [0.5, -0.5, 1.0])
    np.testing.assert_allclose(inv_std.asnumpy(), [0.70693, 1.412802, 0.816225], atol=1e-6)


def test_batchnorm_output_mean_var_train_and_moving_update():
    x, gamma, beta, mm, mv = _bn_inputs()
    x.attach_grad()
    with mx.autograd.record():
        out, mean, inv_std = mx.nd.BatchNorm(x, gamma, beta, mm, mv, eps=1e-3, momentum=0.9, fix_gamma=False,
                                             output_mean_var=True)
    np.testing.assert_allclose(out.asnumpy(), [[[0.770552, 2.111656], [-0.50693, 0.90693], [0.3, 0.3]],
                                               [[-1.911656, -0.570552], [0.2, 0.2], [3.12772, -2.52772]]],
                               atol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [0.5, 2.0, 3.0])
    np.testing.assert_allclose(inv_std.asnumpy(), [0.89407, 0.70693, 0.70693], atol=1e-5)
    out.backward(mx.nd.array(np.arange(12).reshape(2, 3, 2) / 10.0))
    np.testing.assert_allclose(x.grad.asnumpy(), [[[-0.321983, 0.106935], [-0.106048, -0.106031],
                                                   [-0.494851, -0.353465]],
                                                  [[-0.106935, 0.321983], [0.088366, 0.123713],
                                                   [0.424123, 0.424193]]], atol=1e-5)
    np.testing.assert_allclose(mm.asnumpy(), [0.5, -0.25, 1.2], atol=1e-6)
    np.testing.assert_allclose(mv.asnumpy(), [1.925, 0.65, 1.55], atol=1e-6)


# ---- SoftmaxOutput on data of > 2 dims ----------------------------------------------------------------
def test_softmax_output_3d_takes_labels_of_data_shape_without_last_axis():
    d = mx.nd.array(np.arange(24).reshape(2, 3, 4) % 5 / 2.0)
    d.attach_grad()
    label = mx.nd.array([[1, 3, -1], [-1, 3, 0]])
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(d, label, use_ignore=True, normalization="valid")
    y.backward()
    np.testing.assert_allclose(y.asnumpy().reshape(2, -1).sum(1), [1.0, 1.0], rtol=1e-6)  # over (N, -1)
    np.testing.assert_allclose(y.asnumpy()[0, 0], [0.026937, 0.044411, 0.073221, 0.120721], atol=1e-6)
    # row i uses label.flat[i]; 'valid' counts the 4 labels that are not ignore_label
    np.testing.assert_allclose(d.grad.asnumpy(), [
        [[0.006734, -0.238897, 0.018305, 0.03018], [0.049759, 0.006734, 0.011103, 0.018305],
         [0.03018, 0.049759, 0.006734, 0.011103]],
        [[0.016306, 0.026884, 0.044325, -0.244001], [0.00989, 0.016306, 0.026884, 0.044325],
         [0.005999, 0.00989, 0.016306, 0.026884]]], atol=1e-6)


def test_softmax_output_3d_rejects_one_label_per_instance():
    with pytest.raises(mx.base.MXNetError, match=r"expected shape \(2, 3\), got \(2,\)"):
        mx.nd.SoftmaxOutput(mx.nd.ones((2, 3, 4)), mx.nd.zeros((2,)))
    sym = mx.sym.SoftmaxOutput(mx.sym.var("d"), mx.sym.var("label"))
    assert sym.infer_shape(d=(2, 3, 2, 2))[0] == [(2, 3, 2, 2), (2, 3, 2)]


# ---- LeakyReLU rrelu: two visible outputs -------------------------------------------------------------
def test_rrelu_has_output_and_mask():
    out, mask = mx.nd.LeakyReLU(mx.nd.array([[-2.0, 1.0, -0.5]]), act_type="rrelu", lower_bound=0.1,
                                upper_bound=0.3)
    np.testing.assert_allclose(out.asnumpy(), [[-0.4, 1.0, -0.1]], rtol=1e-6)
    assert mask.asnumpy().tolist() == [[0.0, 0.0, 0.0]]   # MXNet leaves it unwritten outside training
    assert mx.sym.LeakyReLU(mx.sym.var("x"), act_type="rrelu").list_outputs()[-1].endswith("_mask")
    assert len(mx.sym.LeakyReLU(mx.sym.var("x"), act_type="leaky").list_outputs()) == 1


def test_rrelu_training_mask_is_the_slope():
    x = mx.nd.array([[-2.0, 1.0, -0.5, -1.0]])
    x.attach_grad()
    with mx.autograd.record():
        out, mask = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
    out.backward()
    m = mask.asnumpy()
    assert np.all((m >= 0.1) & (m < 0.3))
    np.testing.assert_allclose(out.asnumpy(), np.where(x.asnumpy() > 0, x.asnumpy(), m * x.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), np.where(x.asnumpy() > 0, 1.0, m), rtol=1e-6)


# ---- SoftmaxActivation(instance) is over the last axis ----------------------------------------------
def test_softmax_activation_instance_is_over_last_axis():
    x = mx.nd.array(np.arange(16).reshape(2, 2, 2, 2) % 3 - 1.0)
    y = mx.nd.SoftmaxActivation(x, mode="instance")
    a, b, c, d = 0.268941, 0.731059, 0.880797, 0.119203
    np.testing.assert_allclose(y.asnumpy(), [[[[a, b], [c, d]], [[a, b], [a, b]]],
                                             [[[c, d], [a, b]], [[a, b], [c, d]]]], atol=1e-6)


# ---- gamma / gammaln -----------------------------------------------------------------------------------
def test_gamma_special_values():
    x = mx.nd.array([np.inf, -np.inf, np.nan, 0.0, -0.0, -1.0, -2.5, 0.5, 172.0], dtype="float64")
    got = mx.nd.gamma(x).asnumpy()
    want = [np.inf, np.nan, np.nan, np.inf, -np.inf, np.nan, -0.9453087204829419, 1.772453850905516, np.inf]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert np.signbit(got[4])
    lg = mx.nd.gammaln(x).asnumpy()
    want = [np.inf, np.inf, np.nan, np.inf, np.inf, np.inf, -0.05624371649767407, 0.5723649429247001,
            711.71472580229]
    np.testing.assert_allclose(lg, want, rtol=1e-14)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_gamma_exact_at_positive_integers_and_keeps_dtype(dtype):
    x = mx.nd.array([1, 2, 3, 5, 10], dtype=dtype)
    g, lg = mx.nd.gamma(x), mx.nd.gammaln(x)
    assert g.dtype == np.dtype(dtype) and lg.dtype == np.dtype(dtype)   # as MXNet: no promotion to float
    assert g.asnumpy().tolist() == [1, 1, 2, 24, 362880]
    if dtype.startswith("int"):
        assert lg.asnumpy().tolist() == [0, 0, 0, 3, 12]   # truncated, as MXNet


def test_gamma_as_accurate_as_math_gamma():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-30.0, 171.0, 2000), np.arange(1.0, 172.0), -np.arange(0.5, 170.0)])
    got = mx.nd.gamma(mx.nd.array(xs, dtype="float64")).asnumpy()
    np.testing.assert_allclose(got, [math.gamma(v) for v in xs], rtol=4e-15)
    got = mx.nd.gammaln(mx.nd.array(xs, dtype="float64")).asnumpy()
    np.testing.assert_allclose(got, [math.lgamma(v) for v in xs], rtol=4e-15, atol=4e-15)


# ---- GroupNorm: gamma/beta per group, shape (num_groups,) --------------------------------------------
def test_group_norm_per_group_parameters_values_and_gradients():
    x = mx.nd.array(np.arange(24).reshape(2, 4, 3) % 7 - 3.0)
    gamma, beta = mx.nd.array([2.0, 0.5]), mx.nd.array([1.0, -1.0])
    for t in (x, gamma, beta):
        t.attach_grad()
    with mx.autograd.record():
        y = mx.nd.GroupNorm(x, gamma, beta, num_groups=2)
    y.backward(mx.nd.array(np.arange(24).reshape(2, 4, 3) / 10.0))
    np.testing.assert_allclose(y.asnumpy()[1], [[3.049085, 3.994816, -1.679572], [-0.733841, 0.211891, 1.157622],
                                                [-0.768545, -0.53709, -0.305636],
                                                [-1.694364, -1.46291, -1.231455]], atol=1e-5)
    np.testing.assert_allclose(gamma.grad.asnumpy(), [0.528184, -0.648073], atol=1e-5)
    np.testing.assert_allclose(beta.grad.asnumpy(), [10.2, 17.4], atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy()[1, 0], [-0.156251, -0.024672, -0.152139], atol=1e-5)


def test_group_norm_layer_parameters_have_num_groups_shape(tmp_path):
    net = mx.gluon.nn.GroupNorm(num_groups=2)
    assert net.gamma.shape == (2,) and net.beta.shape == (2,)   # known before the first forward
    assert repr(net) == "GroupNorm(eps=1e-05, num_groups=2, center=True, scale=True)"
    net.initialize()
    assert net(mx.nd.ones((2, 4, 3, 3))).shape == (2, 4, 3, 3)
    # a 1.9 .params file holds (num_groups,) arrays named gamma / beta
    mx.nd.save(str(tmp_path / "gn.params"), {"gamma": mx.nd.array([2.0, 0.5]), "beta": mx.nd.array([1.0, -1.0])})
    net2 = mx.gluon.nn.GroupNorm(num_groups=2)
    net2.load_parameters(str(tmp_path / "gn.params"))
    assert net2.gamma.data().asnumpy().tolist() == [2.0, 0.5]
