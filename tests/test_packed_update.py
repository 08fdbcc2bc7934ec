"""A Trainer packs its parameters (``optimizer.packed``): after the first step every weight, gradient
and optimizer state of a device is a view of one flat buffer per kind and the elementwise rules
(SGD, Adam) update them in one call. Users must not be able to tell, except by speed: the values
equal the per-parameter updates, the NDArrays they hold keep seeing the parameters, hybridized
blocks read the new arrays, and whatever replaces a parameter's arrays is still updated."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.optimizer.packed import Pack


def _net(seed=0):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(5, activation="relu", in_units=4), mx.gluon.nn.Dense(3, in_units=5))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    rng = np.random.default_rng(seed)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.standard_normal(p.shape).astype(np.float32)))
    net.hybridize()
    return net


def _batch(k):
    rng = np.random.default_rng(100 + k)
    return mx.nd.array(rng.standard_normal((6, 4)).astype(np.float32)), mx.nd.array(rng.integers(0, 3, 6))


def _train(net, trainer, steps):
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    for k in range(steps):
        x, y = _batch(k)
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(6)


class _PerParameter:
    """The same training with the per-parameter update (an Updater that is never asked to pack)."""

    def __init__(self, net, optimizer, params):
        self.net, self.params = net, list(net.collect_params().values())
        opt = mx.optimizer.create(optimizer, rescale_grad=1 / 6, param_dict=dict(enumerate(self.params)), **params)
        self.updater = mx.optimizer.get_updater(opt)

    def train(self, steps):
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        for k in range(steps):
            x, y = _batch(k)
            with mx.autograd.record():
                loss = loss_fn(self.net(x), y)
            loss.backward()
            self.updater(list(range(len(self.params))), [p.grad() for p in self.params],
                         [p.data() for p in self.params])
        return self.net


def _assert_same(net, want):
    for (name, p), q in zip(net.collect_params().items(), want.collect_params().values()):
        np.testing.assert_array_equal(p.data().asnumpy(), q.data().asnumpy(), err_msg=name)


@pytest.mark.parametrize("optimizer, params", [("sgd", {"learning_rate": 0.1, "momentum": 0.9}),
                                               ("sgd", {"learning_rate": 0.1, "wd": 0.01}),
                                               ("adam", {"learning_rate": 0.01})])
def test_packed_steps_equal_per_parameter_updates(optimizer, params, update_kernels):
    net = _net()
    held = net[0].weight.data()              # an NDArray taken before the parameters are packed
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, dict(params))
    _train(net, trainer, 4)
    pack = trainer._updaters[0].packs[tuple(range(4))]
    assert isinstance(pack, Pack) and trainer._updaters[0].packed_last    # the later steps ran packed
    assert net[0].weight.data()._data.base is pack.weight and net[1].bias.grad()._data.base is pack.grad
    _assert_same(net, _PerParameter(_net(), optimizer, params).train(4))
    path, blas_calls = update_kernels
    assert (blas_calls[0] > 0) == (path == "blas")
    np.testing.assert_array_equal(held.asnumpy(), net[0].weight.data().asnumpy())
    x, _ = _batch(9)                                      # the hybridized block reads the packed arrays
    got = net(x).asnumpy()
    net.hybridize(active=False)
    np.testing.assert_allclose(got, net(x).asnumpy(), rtol=1e-6, atol=1e-6)


def test_unequal_learning_rates_and_replaced_arrays_are_still_updated():
    net, ref = _net(), _net()
    for n in (net, ref):
        n[1].weight.lr_mult = 0.5         # another learning rate: the per-parameter steps on the packed views
    params = {"learning_rate": 0.1, "momentum": 0.9}
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", dict(params))
    reference = _PerParameter(ref, "sgd", params)
    _train(net, trainer, 2)
    reference.train(2)
    _assert_same(net, ref)
    updater = trainer._updaters[0]
    pack = updater.packs[tuple(range(4))]
    net[0].weight.set_data(mx.nd.ones((5, 4)))                   # written in place: the pack holds
    ref[0].weight.set_data(mx.nd.ones((5, 4)))
    assert pack.intact([p.data() for p in trainer._params], [p.grad() for p in trainer._params],
                       [updater.states[i] for i in range(4)])    # (the trainer's order of parameters)
    for n in (net, ref):                 # new arrays: the pack is broken (and made again after the step)
        n[0].weight.reset_device(mx.cpu())
    assert not pack.intact([p.data() for p in trainer._params], [p.grad() for p in trainer._params],
                           [updater.states[i] for i in range(4)])
    _train(net, trainer, 2)
    reference.train(2)
    _assert_same(net, ref)
    assert updater.packs[tuple(range(4))] is not pack
    assert net[0].weight.data()._data.base is updater.packs[tuple(range(4))].weight


def test_stale_gradients_and_loaded_states_keep_training_right(tmp_path):
    net = _net()
    params = {"learning_rate": 0.01}
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", dict(params))
    _train(net, trainer, 2)
    fname = str(tmp_path / "adam.states")
    trainer.save_states(fname)
    ref = _net()
    ref_trainer = mx.gluon.Trainer(ref.collect_params(), "adam", dict(params))
    _train(ref, ref_trainer, 2)
    trainer.load_states(fname)           # new state arrays: the update runs on them (and packs again)
    _train(net, trainer, 2)
    _train(ref, ref_trainer, 2)
    for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
        np.testing.assert_allclose(p.data().asnumpy(), q.data().asnumpy(), rtol=1e-6, atol=1e-7)
    # one parameter without a fresh gradient: the others update through the per-parameter path
    x, y = _batch(0)
    with mx.autograd.record():
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    mx.autograd.state.take_fresh(net[1].bias.grad())
    before = net[1].bias.data().asnumpy()
    trainer.step(6, ignore_stale_grad=True)
    np.testing.assert_array_equal(net[1].bias.data().asnumpy(), before)
    assert isinstance(trainer._updaters[0].packs[tuple(range(4))], Pack)


def test_pack_refuses_what_it_cannot_hold():
    a, b = mx.nd.ones((2,)), mx.nd.ones((3,), dtype="float64")
    assert Pack.build([a, b], [mx.nd.ones((2,)), mx.nd.ones((3,), dtype="float64")], [None, None]) is None
    assert Pack.build([a], [mx.nd.ones((2,))], [None]) is None                       # one weight: nothing to gain
    c = mx.nd.ones((3,))
    assert Pack.build([a, c], [mx.nd.ones((2,)), mx.nd.ones((4,))], [None, None]) is None    # a gradient's shape
    assert Pack.build([a, c], [mx.nd.ones((2,)), mx.nd.ones((3,))], [None, mx.nd.ones((3,))]) is None
    assert Pack.build([a, a], [mx.nd.ones((2,)), mx.nd.ones((2,))], [None, None]) is None  # one array twice
    assert a._data.base is None          # nothing was rebound


def test_intact_wants_each_array_in_its_own_list_and_place():
    ws, gs = [mx.nd.ones((2,)), mx.nd.ones((3,))], [mx.nd.ones((2,)), mx.nd.ones((3,))]
    pack = Pack.build(ws, gs, [None, None])
    assert pack.intact(ws, gs, [None, None]) and pack.intact(tuple(ws), list(gs), (None, None))
    assert not pack.intact(ws[:1], gs, [None, None])
    assert not pack.intact(ws + gs[:1], gs[1:], [None, None])      # the same arrays in turn, split otherwise
    assert not pack.intact(gs, ws, [None, None])
    assert not pack.intact(ws[::-1], gs, [None, None])


def test_settings_the_one_call_does_not_cover_leave_the_parameters_unpacked():
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "clip_gradient": 0.5})
    _train(net, trainer, 2)
    assert tuple(range(4)) not in trainer._updaters[0].packs          # clipping: per parameter, not packed
    assert net[0].weight.data()._data.base is None


# ---- what the steady (packed) steps must still notice: everything is read afresh at every step ----------
def _sgd_reference(net, lr, momentum, wd, rescale):
    """A NumPy transcription of MXNet's ``sgd_mom_update`` applied to ``net``'s current gradients, for
    the parameters with a gradient, each with its ``lr_mult`` and ``wd_mult`` at this moment."""
    want = {}
    for name, p in net.collect_params().items():
        if p.grad_req == "null":
            want[name] = p.data().asnumpy()
            continue
        w, g = p.data().asnumpy().astype(np.float64), p.grad().asnumpy().astype(np.float64)
        mom = _sgd_reference.mom.setdefault(name, np.zeros_like(w))
        plr, pwd = lr * p.lr_mult, wd * p.wd_mult
        mom[...] = momentum * mom - plr * pwd * w - plr * rescale * g
        want[name] = w + mom
    return want


def _backward(net, k):
    x, y = _batch(k)
    with mx.autograd.record():
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()


def test_steady_steps_read_lr_mult_wd_mult_grad_req_and_rates_afresh():
    """After the parameters are packed, each step still uses every parameter's ``lr_mult`` and
    ``wd_mult`` of that moment, the optimizer's ``wd`` and learning rate of that moment, and skips a
    parameter whose ``grad_req`` became 'null' (and updates it again once it has a gradient)."""
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    _sgd_reference.mom = {}
    params = dict(net.collect_params().items())
    names = list(params)
    changes = [lambda: None, lambda: None,                              # the steps that pack, then steady ones
               lambda: setattr(params[names[1]], "lr_mult", 0.5),
               lambda: setattr(params[names[0]], "wd_mult", 3.0),
               lambda: trainer.set_learning_rate(0.05),
               lambda: setattr(trainer.optimizer, "wd", 0.02),
               lambda: setattr(params[names[2]], "lr_mult", 0.0),
               lambda: None]
    for k, change in enumerate(changes):
        change()
        _backward(net, k)
        opt = trainer.optimizer
        want = _sgd_reference(net, opt.learning_rate, 0.9, opt.wd, 1 / 6)
        trainer.step(6)
        for name, p in params.items():
            np.testing.assert_allclose(p.data().asnumpy(), want[name], rtol=1e-5, atol=1e-6, err_msg=f"{k} {name}")
    frozen = params[names[3]]
    frozen.grad_req = "null"
    before = frozen.data().asnumpy()
    _backward(net, 20)
    trainer.step(6)                                           # skipped, the others updated
    np.testing.assert_array_equal(frozen.data().asnumpy(), before)
    frozen.grad_req = "write"
    _backward(net, 21)
    trainer.step(6)
    assert not (frozen.data().asnumpy() == before).all()


def test_steady_steps_raise_on_a_stale_gradient_before_updating_anything():
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    _train(net, trainer, 3)
    assert trainer._updaters[0].packed_last
    params = list(net.collect_params().values())
    weights = [p.data().asnumpy() for p in params]
    with pytest.raises(UserWarning, match="has not been updated by backward since last `step`"):
        trainer.step(6)                                       # no backward since the last step
    _backward(net, 5)
    mx.autograd.state.take_fresh(params[2].grad())            # one stale gradient among fresh ones
    with pytest.raises(UserWarning, match=f"Parameter `{params[2].name}`"):
        trainer.step(6)
    for p, w in zip(params, weights):                         # nothing updated, nothing taken
        np.testing.assert_array_equal(p.data().asnumpy(), w)
    assert trainer.optimizer.num_update == 3
    trainer.step(6, ignore_stale_grad=True)                   # the fresh ones update, the stale one not
    for k, (p, w) in enumerate(zip(params, weights)):
        assert (p.data().asnumpy() == w).all() == (k == 2), k
    with pytest.raises(UserWarning):
        trainer.step(6)


def test_steady_steps_call_rate_methods_overridden_on_the_class_or_the_instance():
    """``_get_lr``/``_get_wd`` (and what they call) overridden by a subclass or on the optimizer are
    called at every step, packed or not; the packed steps compute the rates at once only for the
    base class's methods."""
    class HalfLr(mx.optimizer.SGD):
        def _get_lr(self, index):
            return super()._get_lr(index) / 2

    def run(make, patch=None):
        net = _net()
        opt = make()
        trainer = mx.gluon.Trainer(net.collect_params(), opt)
        _train(net, trainer, 2)
        if patch:
            patch(opt)
        _train(net, trainer, 2)
        return net

    half = run(lambda: HalfLr(learning_rate=0.1, momentum=0.9))
    _assert_same(half, run(lambda: mx.optimizer.SGD(learning_rate=0.05, momentum=0.9)))
    calls = []

    def patch(opt):
        base = opt._get_wd
        opt._get_wd = lambda index: calls.append(index) or base(index) + 0.5
    patched = run(lambda: mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), patch)
    assert calls == [0, 1, 2, 3] * 2
    ref = run(lambda: mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
              lambda opt: setattr(opt, "wd", 0.5))
    _assert_same(patched, ref)


def test_a_packed_step_counts_as_a_write_of_every_weight():
    """Kept values derived from a weight (``write_versions``: a dense layer's kept transpose) see
    every packed update."""
    from hybridlab import write_versions
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    _train(net, trainer, 2)
    tokens = [write_versions.watch(p.data()._data) for p in net.collect_params().values()]
    try:
        before = [write_versions.version(p.data()._data) for p in net.collect_params().values()]
        _train(net, trainer, 1)
        assert trainer._updaters[0].packed_last
        after = [write_versions.version(p.data()._data) for p in net.collect_params().values()]
        assert all(a != b for a, b in zip(after, before))
    finally:
        for token in tokens:
            write_versions.unwatch(token)
