"""Parity with Apache MXNet 1.9.1 where a differential probe found hybridlab differing. Every expected
value here was produced by real MXNet 1.9.1 (``pip install mxnet==1.9.1``) and is hard-coded, so the
tests need no MXNet."""
import math

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon, nd
from hybridlab.gluon import nn

# ---- optimizers: defaults and three update steps ------------------------------------------------
W0 = np.array([[0.5, -1.2, 0.3], [2.0, 0.0, -0.7]], dtype=np.float32)
GRADS = [np.array([[0.1, -0.4, 0.9], [-1.5, 0.2, 0.05]], dtype=np.float32),
         np.array([[0.3, 0.1, -0.6], [0.5, -0.2, 0.0]], dtype=np.float32),
         np.array([[-0.2, 0.7, 0.4], [0.1, 0.3, -0.9]], dtype=np.float32)]

OPT_CASES = {   # case: create() arguments (name defaults to the case)
 'sgd': {}, 'sgd_m': dict(name='sgd', momentum=0.9, wd=0.1, rescale_grad=0.5),
 'sgd_clip': dict(name='sgd', momentum=0.9, wd=0.1, clip_gradient=0.3, learning_rate=0.1),
 'nag': {}, 'nag_m': dict(name='nag', momentum=0.9, wd=0.1, rescale_grad=0.5, learning_rate=0.1),
 'adam': {}, 'adam_wd': dict(name='adam', wd=0.1, rescale_grad=0.5, clip_gradient=0.2, learning_rate=0.1),
 'rmsprop': {}, 'rmsprop_wd': dict(name='rmsprop', wd=0.1, rescale_grad=0.5, learning_rate=0.1),
 'rmsprop_c': dict(name='rmsprop', centered=True, wd=0.1, learning_rate=0.1),
 'adagrad': {}, 'adagrad_wd': dict(name='adagrad', wd=0.1, rescale_grad=0.5, learning_rate=0.1),
 'adadelta': {}, 'adadelta_wd': dict(name='adadelta', wd=0.1, rescale_grad=0.5, learning_rate=0.5),
 'lamb': {}, 'lamb_wd': dict(name='lamb', wd=0.1, rescale_grad=0.5, learning_rate=0.1, lower_bound=0.1, upper_bound=1.0),
 'adamax': {}, 'adamax_wd': dict(name='adamax', wd=0.1, rescale_grad=0.5, clip_gradient=0.2),
 'nadam': {}, 'nadam_wd': dict(name='nadam', wd=0.1, rescale_grad=0.5, learning_rate=0.1),
 'ftrl': {}, 'ftrl_wd': dict(name='ftrl', wd=0.1, rescale_grad=0.5, lamda1=0.05, beta=0.5, learning_rate=0.3),
 'signum': {}, 'signum_wd': dict(name='signum', wd=0.1, wd_lh=0.05, rescale_grad=0.5),
 'signum_nomom': dict(name='signum', momentum=0.0, wd=0.1),
 'ftml': {}, 'ftml_wd': dict(name='ftml', wd=0.1, rescale_grad=0.5, learning_rate=0.1, clip_gradient=0.3),
 'dcasgd': {}, 'dcasgd_wd': dict(name='dcasgd', wd=0.1, rescale_grad=0.5, learning_rate=0.1, lamda=0.5),
 'lars': {}, 'lars_m': dict(name='lars', momentum=0.9, wd=0.1, rescale_grad=0.5, learning_rate=0.1, eta=0.01),
}

# MXNet 1.9.1: the optimizer attributes after create(), and the weight after each of the 3 steps
MXNET_OPT = {
    'sgd': ({'lr': 0.01, 'momentum': 0.0},
        [[[0.499, -1.196, 0.291], [2.015, -0.002, -0.7005]], [[0.496, -1.197, 0.297], [2.01, 0.0, -0.7005]], [[0.498, -1.204, 0.293], [2.009, -0.003, -0.6915]]]),
    'sgd_m': ({'lr': 0.01, 'momentum': 0.9},
        [[[0.499, -1.1968, 0.2952], [2.0055, -0.001, -0.69955]], [[0.496101, -1.19322, 0.293585], [2.00594, -0.000899, -0.698445]], [[0.493996, -1.19231, 0.289838], [2.00384, -0.002307, -0.692253]]]),
    'sgd_clip': ({'lr': 0.1, 'momentum': 0.9},
        [[[0.485, -1.158, 0.267], [2.01, -0.02, -0.698]], [[0.43665, -1.11862, 0.26463], [1.9689, -0.0178, -0.68922]], [[0.408768, -1.10199, 0.229851], [1.90222, -0.045642, -0.644426]]]),
    'nag': ({'lr': 0.01, 'momentum': 0.0},
        [[[0.499, -1.196, 0.291], [2.015, -0.002, -0.7005]], [[0.496, -1.197, 0.297], [2.01, 0.0, -0.7005]], [[0.498, -1.204, 0.293], [2.009, -0.003, -0.6915]]]),
    'nag_m': ({'lr': 0.1, 'momentum': 0.9},
        [[[0.481, -1.1392, 0.2088], [2.1045, -0.019, -0.69145]], [[0.435415, -1.10163, 0.223692], [2.06072, -0.007585, -0.674737]], [[0.423314, -1.11944, 0.169602], [2.01446, -0.034931, -0.567733]]]),
    'adam': ({'lr': 0.001, 'epsilon': 1e-08, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.499, -1.199, 0.299], [2.001, -0.001, -0.701]], [[0.498082, -1.19853, 0.298855], [2.0014, -0.000947, -0.70167]], [[0.497824, -1.1989, 0.298529], [2.00167, -0.001384, -0.701061]]]),
    'adam_wd': ({'lr': 0.1, 'epsilon': 1e-08, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.4, -1.1, 0.2], [2.1, -0.1, -0.6]], [[0.302946, -1.01443, 0.205263], [2.09474, -0.089987, -0.500268]], [[0.251331, -1.01089, 0.171683], [2.05452, -0.128351, -0.413395]]]),
    'rmsprop': ({'lr': 0.001, 'epsilon': 1e-08, 'gamma1': 0.9, 'gamma2': 0.9},
        [[[0.496838, -1.19684, 0.296838], [2.00316, -0.003162, -0.703162]], [[0.493823, -1.19764, 0.298656], [2.00211, -0.000868, -0.703162]], [[0.495583, -1.20044, 0.297471], [2.00189, -0.003252, -0.700004]]]),
    'rmsprop_wd': ({'lr': 0.1, 'epsilon': 1e-08, 'gamma1': 0.9, 'gamma2': 0.9},
        [[[0.183774, -0.883772, -0.016228], [2.31623, -0.316226, -0.38378]], [[-0.091733, -0.844112, 0.158399], [2.10174, -0.059689, -0.172371]], [[0.070054, -1.05757, 0.036804], [1.98781, -0.275754, 0.14173]]]),
    'rmsprop_c': ({'lr': 0.1, 'epsilon': 1e-08, 'gamma1': 0.9, 'gamma2': 0.9},
        [[[0.166668, -0.866667, -0.033333], [2.33333, -0.333333, -0.366713]], [[-0.449796, -0.575598, -0.154403], [2.47096, -0.387596, 0.242514]], [[-0.814405, -0.57031, -0.377228], [2.51668, -0.653307, 1.12593]]]),
    'adagrad': ({'lr': 0.01, 'float_stable_eps': 1e-07},
        [[[0.49, -1.19, 0.29], [2.01, -0.01, -0.71]], [[0.480513, -1.19243, 0.295547], [2.00684, -0.002929, -0.71]], [[0.485858, -1.20104, 0.292079], [2.00621, -0.010205, -0.700015]]]),
    'adagrad_wd': ({'lr': 0.1, 'float_stable_eps': 1e-07},
        [[[0.395002, -1.088, 0.197], [2.08, -0.1, -0.792992]], [[0.296184, -1.10137, 0.2505], [2.02758, -0.028289, -0.785062]], [[0.346674, -1.17652, 0.213311], [2.00099, -0.100767, -0.677365]]]),
    'adadelta': ({'lr': 0.01, 'epsilon': 1e-05, 'rho': 0.9},
        [[[0.49005, -1.19, 0.290001], [2.01, -0.009988, -0.709806]], [[0.476606, -1.1936, 0.298131], [2.00531, 0.000259, -0.709806]], [[0.487306, -1.20618, 0.292136], [2.0043, -0.012678, -0.696166]]]),
    'adadelta_wd': ({'lr': 0.5, 'epsilon': 1e-05, 'rho': 0.9},
        [[[0.440194, -1.07001, 0.260002], [1.81, -0.00995, -0.639285]], [[0.382848, -0.966608, 0.242131], [1.62431, 0.001252, -0.575356]], [[0.355169, -0.882514, 0.211925], [1.46087, -0.011766, -0.504514]]]),
    'lamb': ({'lr': 0.001, 'epsilon': 1e-06, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.498978, -1.19898, 0.298978], [2.00102, -0.001022, -0.701022]], [[0.497213, -1.19808, 0.2987], [2.00179, -0.000921, -0.702311]], [[0.496547, -1.19902, 0.297857], [2.00248, -0.002049, -0.700739]]]),
    'lamb_wd': ({'lr': 0.1, 'epsilon': 1e-06, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.456855, -1.15398, 0.257676], [2.03287, -0.041091, -0.738213]], [[0.382891, -1.10908, 0.244604], [2.04799, -0.036735, -0.783983]], [[0.352354, -1.13543, 0.20842], [2.05455, -0.081417, -0.7131]]]),
    'adamax': ({'lr': 0.002, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.498, -1.198, 0.298], [2.002, -0.002, -0.702]], [[0.496632, -1.19731, 0.297754], [2.0026, -0.001895, -0.702948]], [[0.49626, -1.19781, 0.29727], [2.00292, -0.002588, -0.702243]]]),
    'adamax_wd': ({'lr': 0.002, 'beta1': 0.9, 'beta2': 0.999},
        [[[0.498, -1.198, 0.298], [2.002, -0.002, -0.698]], [[0.496473, -1.19668, 0.298105], [2.00189, -0.001893, -0.696337]], [[0.495695, -1.19659, 0.297434], [2.00109, -0.002586, -0.695232]]]),
    'nadam': ({'lr': 0.001, 'epsilon': 1e-08, 'beta1': 0.9, 'beta2': 0.999, 'schedule_decay': 0.004},
        [[[0.498944, -1.19894, 0.298944], [2.00106, -0.001056, -0.701056]], [[0.497932, -1.19914, 0.299471], [2.00079, -0.000362, -0.70112]], [[0.498459, -1.20009, 0.299066], [2.00075, -0.00118, -0.699996]]]),
    'nadam_wd': ({'lr': 0.1, 'epsilon': 1e-08, 'beta1': 0.9, 'beta2': 0.999, 'schedule_decay': 0.004},
        [[[0.394355, -1.09435, 0.194355], [2.10564, -0.105645, -0.594355]], [[0.298989, -1.06906, 0.241663], [2.04337, -0.032356, -0.507221]], [[0.325034, -1.13038, 0.197579], [2.00596, -0.110843, -0.394146]]]),
    'ftrl': ({'lr': 0.1, 'lamda1': 0.01, 'beta': 1},
        [[[0.035455, -0.313571, 0.094211], [1.2596, -0.015833, -0.037143]], [[0.012662, -0.320652, 0.123034], [1.24023, -0.000243, -0.037143]], [[0.027216, -0.359275, 0.104457], [1.23636, -0.021485, 0.009139]]]),
    'ftrl_wd': ({'lr': 0.3, 'lamda1': 0.05, 'beta': 0.5},
        [[[-0.0, -0.226027, 0.0], [1.33594, -0.02381, -0.018018]], [[-0.029065, -0.246404, 0.070039], [1.27914, 0.0, -0.018018]], [[0.0, -0.358559, 0.01582], [1.2678, -0.042092, 0.089049]]]),
    'signum': ({'lr': 0.01, 'momentum': 0.9, 'wd_lh': 0.0},
        [[[0.49, -1.19, 0.29], [2.01, -0.01, -0.71]], [[0.48, -1.18, 0.28], [2.02, 0.0, -0.72]], [[0.47, -1.19, 0.27], [2.03, -0.01, -0.71]]]),
    'signum_wd': ({'lr': 0.01, 'momentum': 0.9, 'wd_lh': 0.05},
        [[[0.48975, -1.1894, 0.28985], [2.009, -0.01, -0.68965]], [[0.479505, -1.1788, 0.279705], [2.018, 5e-06, -0.679305]], [[0.469265, -1.16822, 0.269565], [2.00699, -0.009995, -0.668966]]]),
    'signum_nomom': ({'lr': 0.01, 'momentum': 0.0, 'wd_lh': 0.0},
        [[[0.4895, -1.1888, 0.2897], [2.008, -0.01, -0.7093]], [[0.479011, -1.19761, 0.29941], [1.99599, 1e-05, -0.708591]], [[0.488532, -1.20641, 0.289111], [1.984, -0.00999, -0.697882]]]),
    'ftml': ({'lr': 0.01, 'epsilon': 1e-08, 'beta1': 0.6, 'beta2': 0.999},
        [[[0.49, -1.19, 0.29], [2.01, -0.01, -0.71]], [[0.481616, -1.19214, 0.294903], [2.0072, -0.00375, -0.71]], [[0.48634, -1.19976, 0.291838], [2.00665, -0.010179, -0.701181]]]),
    'ftml_wd': ({'lr': 0.1, 'epsilon': 1e-08, 'beta1': 0.6, 'beta2': 0.999},
        [[[0.4, -1.1, 0.2], [2.1, -0.1, -0.6]], [[0.321795, -1.08266, 0.26031], [2.0375, -0.0346, -0.529294]], [[0.348414, -1.13745, 0.217671], [1.99214, -0.096628, -0.443602]]]),
    'dcasgd': ({'lr': 0.01, 'momentum': 0.0, 'lamda': 0.04},
        [[[0.499, -1.196, 0.291], [2.015, -0.002, -0.7005]], [[0.496, -1.197, 0.297001], [2.01, 0.0, -0.7005]], [[0.498, -1.204, 0.293001], [2.009, -0.003, -0.6915]]]),
    'dcasgd_wd': ({'lr': 0.1, 'momentum': 0.0, 'lamda': 0.5},
        [[[0.49, -1.168, 0.252], [2.055, -0.01, -0.6955]], [[0.470111, -1.16132, 0.279696], [2.00928, 0.000105, -0.688545]], [[0.47542, -1.18475, 0.256844], [1.98419, -0.014907, -0.63673]]]),
    'lars': ({'lr': 0.01, 'momentum': 0.0, 'eta': 0.001, 'eps': 0},
        [[[0.499999, -1.2, 0.299988], [2.00002, -3e-06, -0.700001]], [[0.49999, -1.2, 0.300005], [2.00001, 3e-06, -0.700001]], [[0.499994, -1.20001, 0.299997], [2.0, -3e-06, -0.699983]]]),
    'lars_m': ({'lr': 0.1, 'momentum': 0.9, 'eta': 0.01, 'eps': 0},
        [[[0.499783, -1.19931, 0.298959], [2.00119, -0.000217, -0.699902]], [[0.498855, -1.19843, 0.299012], [2.00062, -4.5e-05, -0.699558]], [[0.498162, -1.19829, 0.298408], [1.99939, -0.000317, -0.697774]]]),
}


@pytest.mark.parametrize("case", sorted(OPT_CASES))
def test_optimizer_defaults_and_steps_match_mxnet(case):
    kwargs = dict(OPT_CASES[case])
    opt = mx.optimizer.create(kwargs.pop("name", case), **kwargs)
    attrs, steps = MXNET_OPT[case]
    for attr, value in attrs.items():
        assert getattr(opt, attr) == pytest.approx(value), f"{case}: {attr}"
    w = nd.array(W0)
    state = opt.create_state_multi_precision(0, w)
    for t, (g, expected) in enumerate(zip(GRADS, steps), 1):
        opt.update_multi_precision(0, w, nd.array(g), state)
        np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5, atol=3e-6, err_msg=f"{case} step {t}")


def test_trainer_default_learning_rate_is_mxnet_s():
    d = nn.Dense(1, in_units=1)
    d.initialize()
    assert gluon.Trainer(d.collect_params(), "sgd").learning_rate == 0.01
    assert mx.optimizer.create("nag").momentum == 0.0
    assert mx.optimizer.create("adadelta").epsilon == 1e-5
    assert mx.optimizer.create("adagrad").float_stable_eps == 1e-7


def test_sgld_noise_has_the_langevin_scale():
    mx.random.seed(3)
    lr = 0.04
    opt = mx.optimizer.create("sgld", learning_rate=lr)
    w = nd.zeros((20000,))
    opt.update(0, w, nd.ones((20000,)), opt.create_state(0, w))
    moved = w.asnumpy()
    assert abs(moved.mean() - (-lr / 2)) < 0.01           # the deterministic half step
    assert abs(moved.std() - math.sqrt(lr)) < 0.01         # noise ~ N(0, sqrt(lr))


def test_new_optimizers_train_through_trainer():
    for name in ["adamax", "nadam", "ftrl", "signum", "ftml", "sgld", "dcasgd", "lars"]:
        net = nn.Dense(1, in_units=2)
        net.initialize(mx.init.One())
        trainer = gluon.Trainer(net.collect_params(), name)
        with mx.autograd.record():
            loss = (net(nd.ones((4, 2))) ** 2).sum()
        loss.backward()
        trainer.step(4)
        assert not np.allclose(net.weight.data().asnumpy(), 1.0), name


# ---- shared parameters ----------------------------------------------------------------------------
def _train_once(net, x):
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    trainer.step(1)
    return trainer


def test_shared_params_1x_style_collect_once_and_train():
    d1 = nn.Dense(2, in_units=2, prefix="s_")
    d2 = nn.Dense(2, in_units=2, params=d1.params)
    assert d2.weight is d1.weight
    net = nn.HybridSequential()
    net.add(d1, d2)
    net.initialize()
    params = net.collect_params()
    assert len(params) == 2                           # MXNet 1.9.1: ['s_weight', 's_bias']
    assert [p.name for p in params.values()] == ["s_weight", "s_bias"]
    trainer = _train_once(net, nd.ones((1, 2)))
    assert len(trainer._params) == 2


def test_shared_params_2x_style_share_parameters():
    a, b = nn.Dense(2, in_units=2), nn.Dense(2, in_units=2)
    b.share_parameters(a.collect_params())
    net = nn.HybridSequential()
    net.add(a, b)
    net.initialize()
    assert list(net.collect_params()) == [a.weight.name, a.bias.name]
    net.hybridize()
    before = a.weight.data().asnumpy().copy()
    _train_once(net, nd.ones((1, 2)))
    assert not np.allclose(a.weight.data().asnumpy(), before)


# ---- npx.set_np(): parameters, blocks and losses give mx.np arrays ---------------------------------
@pytest.fixture
def np_mode():
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


def test_set_np_parameters_and_outputs_are_np_style(np_mode):
    d = nn.Dense(2, in_units=2)
    d.initialize()
    x = mx.np.ones((3, 2))
    assert d.weight.data().sum().shape == ()          # MXNet 1.9.1 after set_np: mx.np.ndarray
    assert d(x).sum().shape == ()
    assert (d(x) > 0).dtype == np.bool_
    loss = gluon.loss.L2Loss()(d(x), mx.np.zeros((3, 2)))
    assert loss.shape == (3,) and loss.sum().shape == ()
    with mx.autograd.record():
        loss = gluon.loss.L2Loss()(d(x), mx.np.zeros((3, 2)))
    loss.backward()
    assert d.weight.grad().sum().shape == ()
    gluon.Trainer(d.collect_params(), "sgd").step(3)
    seq = nn.Sequential()
    seq.add(nn.Dense(3), nn.Activation("relu"))
    seq.initialize()
    assert seq(x).sum().shape == ()
    lstm = gluon.rnn.LSTM(4)
    lstm.initialize()
    assert lstm(mx.np.ones((2, 1, 3))).sum().shape == ()


def test_without_set_np_gluon_stays_nd_style():
    assert not mx.npx.is_np_array()
    d = nn.Dense(2, in_units=2)
    d.initialize()
    assert d.weight.data().sum().shape == (1,)
    assert d(nd.ones((1, 2))).sum().shape == (1,)


# ---- losses ---------------------------------------------------------------------------------------
def test_kldiv_sums_over_classes():
    loss = gluon.loss.KLDivLoss()(nd.log(nd.array([[0.2, 0.3, 0.5]])), nd.array([[0.5, 0.25, 0.25]]))
    np.testing.assert_allclose(loss.asnumpy(), [0.23927819728851318], rtol=1e-5)     # MXNet 1.9.1
    rs = np.random.RandomState(0)
    pred, label = rs.randn(2, 3, 4).astype("f"), np.abs(rs.randn(2, 3, 4)).astype("f")
    out = gluon.loss.KLDivLoss()(nd.array(pred), nd.array(label)).asnumpy()
    expected = (label * (np.log(label + 1e-12) - pred)).reshape(2, -1).sum(axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


# ---- split_data -----------------------------------------------------------------------------------
@pytest.mark.parametrize("rows, parts, sizes", [(4, 3, [2, 1, 1]), (5, 3, [2, 2, 1]), (7, 4, [2, 2, 2, 1]),
                                                (2, 3, [1, 1, 0]), (3, 3, [1, 1, 1])])
def test_split_data_uneven_sizes_match_mxnet(rows, parts, sizes):
    data = nd.arange(rows * 2).reshape((rows, 2))
    slices = gluon.utils.split_data(data, parts, even_split=False)
    assert [s.shape[0] for s in slices] == sizes
    np.testing.assert_array_equal(np.concatenate([s.asnumpy() for s in slices]), data.asnumpy())


def test_split_data_other_axis_and_split_and_load():
    parts = gluon.utils.split_data(nd.arange(10).reshape((2, 5)), 3, batch_axis=1, even_split=False)
    assert [p.asnumpy().tolist() for p in parts] == [[[0.0, 1.0], [5.0, 6.0]], [[2.0, 3.0], [7.0, 8.0]],
                                                     [[4.0], [9.0]]]
    loaded = gluon.utils.split_and_load(nd.ones((5, 2)), [mx.cpu(0), mx.cpu(1), mx.cpu(2)], even_split=False)
    assert [p.shape for p in loaded] == [(2, 2), (2, 2), (1, 2)]


# ---- gluon.Constant -------------------------------------------------------------------------------
def test_constant_1x_and_2x_signatures():
    c = gluon.Constant("c", [1, 2])                   # MXNet 1.x: Constant(name, value)
    assert c.name == "c" and c.shape == (2,)
    c.initialize()
    assert c.data().asnumpy().tolist() == [1.0, 2.0]
    c2 = gluon.Constant(nd.array([3.0]))              # MXNet 2.0: Constant(value)
    assert c2.shape == (1,) and c2.grad_req == "null"
    with pytest.raises(TypeError):
        gluon.Constant("just-a-name")


# ---- reprs ----------------------------------------------------------------------------------------
def test_rnn_reprs_after_forward_match_mxnet():
    rnn = gluon.rnn
    for cls in (rnn.LSTM, rnn.GRU, rnn.RNN):
        layer = cls(4)
        assert repr(layer) == f"{cls.__name__}(None -> 4, TNC)"
        layer.initialize()
        layer(nd.ones((2, 1, 3)))
        assert repr(layer) == f"{cls.__name__}(3 -> 4, TNC)"
    cell = rnn.RNNCell(4)
    assert repr(cell) == "RNNCell(None -> 4, tanh)"
    seq = rnn.SequentialRNNCell()
    seq.add(rnn.LSTMCell(4))
    seq.add(rnn.DropoutCell(0.5))
    seq.add(rnn.ResidualCell(rnn.GRUCell(4, input_size=4)))
    seq.initialize()
    seq.unroll(2, nd.ones((1, 2, 3)), merge_outputs=True)
    assert repr(seq) == ("SequentialRNNCell(\n(0): LSTMCell(3 -> 16)\n(1): DropoutCell(rate=0.5, axes=())\n"
                         "(2): ResidualCell(GRUCell(4 -> 12))\n)")
    bi = rnn.BidirectionalCell(rnn.LSTMCell(4), rnn.LSTMCell(4))
    assert repr(bi) == "BidirectionalCell(forward=LSTMCell(None -> 16), backward=LSTMCell(None -> 16))"


# ---- hybridize flags ------------------------------------------------------------------------------
def test_hybridize_ignores_unknown_flags():
    d = nn.Dense(2)
    d.initialize()
    d.hybridize(static_alloc=True, unknown_flag=1)    # MXNet 1.9.1 accepts backend options silently
    assert d(nd.ones((1, 2))).shape == (1, 2)
    seq = nn.HybridSequential()
    seq.add(nn.Dense(2))
    seq.hybridize(unknown_flag=1)


# ---- initializers ---------------------------------------------------------------------------------
def test_bilinear_initializer_matches_mxnet():
    w = nd.zeros((1, 2, 3, 5))
    mx.init.Bilinear()(mx.init.InitDesc("up_weight"), w)
    row = [0.111111, 0.222222, 0.333333, 0.222222, 0.111111]     # MXNet 1.9.1
    expected = [row, [2 * v for v in row], [3 * v for v in row]]
    np.testing.assert_allclose(w.asnumpy(), np.broadcast_to(expected, (1, 2, 3, 5)), rtol=1e-5)
    up = nn.Conv2DTranspose(1, 4, in_channels=1, weight_initializer=mx.init.Bilinear(), use_bias=False)
    up.initialize()
    assert up.weight.data().asnumpy()[0, 0, 1].tolist() == [0.1875, 0.5625, 0.5625, 0.1875]
    assert mx.init.Bilinear().dumps() == '["bilinear", {}]'


def test_lstm_bias_initializer_sets_the_forget_gate():
    cell = gluon.rnn.LSTMCell(2, i2h_bias_initializer=mx.init.LSTMBias(0.7))
    cell.initialize()
    cell(nd.ones((1, 3)), cell.begin_state(1))
    np.testing.assert_allclose(cell.i2h_bias.data().asnumpy(), [0, 0, 0.7, 0.7, 0, 0, 0, 0], rtol=1e-6)
    assert cell.h2h_bias.data().asnumpy().tolist() == [0.0] * 8
    assert mx.init.LSTMBias(2.0).dumps() == '["lstmbias", {"forget_bias": 2.0}]'
