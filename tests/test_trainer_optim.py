"""mx.optimizer, mx.lr_scheduler and gluon.Trainer: each optimizer's update against a NumPy
transcription of MXNet's formula (several steps, with wd, clip_gradient, rescale_grad, lr_mult and
wd_mult), schedulers against closed forms, Trainer steps, devices, save/load_states."""
import math

import numpy as np
import pytest

import hybridlab as mx

RNG = np.random.RandomState(1)


def _pre(g, rescale, clip):
    g = g * rescale
    return np.clip(g, -clip, clip) if clip is not None else g


def ref_sgd(w, g, s, lr, wd, t, momentum=0.0):
    g = g + wd * w
    if momentum == 0.0:
        return w - lr * g, s
    s = momentum * s - lr * g
    return w + s, s


def ref_nag(w, g, s, lr, wd, t, momentum=0.9):
    # MXNet 1.9.1's nag_mom_update writes the weight first, then decays the state with the new weight
    s = momentum * s
    w_new = w - s + (momentum + 1) * (s - lr * (g + wd * w))
    return w_new, s - lr * (g + wd * w_new)


def ref_adam(w, g, s, lr, wd, t, beta1=0.9, beta2=0.999, epsilon=1e-8):
    m, v = s
    g = g + wd * w
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    return w - lr_t * m / (np.sqrt(v) + epsilon), (m, v)


def ref_adamw(w, g, s, lr, wd, t, beta1=0.9, beta2=0.999, epsilon=1e-6):
    m, v = s
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    return w - lr_t * (m / (np.sqrt(v) + epsilon) + wd * w), (m, v)


def ref_lamb(w, g, s, lr, wd, t, beta1=0.9, beta2=0.999, epsilon=1e-6):
    m, v = s
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    step = (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + epsilon) + wd * w
    r1, r2 = np.linalg.norm(w), np.linalg.norm(step)
    ratio = r1 / r2 if r1 > 0 and r2 > 0 else 1.0
    return w - lr * ratio * step, (m, v)


def ref_rmsprop(w, g, s, lr, wd, t, rho=0.9, epsilon=1e-8):
    g = g + wd * w
    s = rho * s + (1 - rho) * g * g
    return w - lr * g / np.sqrt(s + epsilon), s


def ref_rmsprop_centered(w, g, s, lr, wd, t, rho=0.9, momentum=0.9, epsilon=1e-8):
    mean, var, mom = s
    g = g + wd * w
    mean = rho * mean + (1 - rho) * g
    var = rho * var + (1 - rho) * g * g
    mom = momentum * mom - lr * g / np.sqrt(var - mean * mean + epsilon)
    return w + mom, (mean, var, mom)


def ref_adagrad(w, g, s, lr, wd, t, epsilon=1e-7):
    s = s + g * g
    return w - lr * (g / np.sqrt(s + epsilon) + wd * w), s


def ref_adadelta(w, g, s, lr, wd, t, rho=0.9, epsilon=1e-5):
    acc_g, acc_d = s                       # MXNet 1.9.1 ignores the learning rate here
    acc_g = rho * acc_g + (1 - rho) * g * g
    delta = np.sqrt(acc_d + epsilon) / np.sqrt(acc_g + epsilon) * g
    acc_d = rho * acc_d + (1 - rho) * delta * delta
    return w - (delta + wd * w), (acc_g, acc_d)


Z = np.zeros
WD_BEFORE_CLIP = {"adam", "rmsprop"}
OPTIMIZERS = {   # name: (create kwargs, reference, initial reference state for shape)
    "sgd": ({}, ref_sgd, lambda s: None),
    "sgd_momentum": ({"momentum": 0.9}, lambda *a: ref_sgd(*a, momentum=0.9), Z),
    "nag": ({"momentum": 0.9}, ref_nag, Z),
    "adam": ({}, ref_adam, lambda s: (Z(s), Z(s))),
    "adamw": ({}, ref_adamw, lambda s: (Z(s), Z(s))),
    "lamb": ({}, ref_lamb, lambda s: (Z(s), Z(s))),
    "rmsprop": ({}, ref_rmsprop, Z),
    "rmsprop_centered": ({"centered": True}, ref_rmsprop_centered, lambda s: (Z(s), Z(s), Z(s))),
    "adagrad": ({}, ref_adagrad, Z),
    "adadelta": ({}, ref_adadelta, lambda s: (Z(s), Z(s))),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_update_matches_numpy_formula(name):
    kwargs, ref, state0 = OPTIMIZERS[name]
    opt_name = name.split("_")[0]
    lr, wd, rescale, clip = 0.05, 0.01, 0.5, 0.8
    opt = mx.optimizer.create(opt_name, learning_rate=lr, wd=wd, rescale_grad=rescale, clip_gradient=clip,
                              **kwargs)
    opt.set_lr_mult({1: 0.5})
    opt.set_wd_mult({1: 2.0})
    shapes = [(3, 4), (5,)]
    ws = [RNG.randn(*s) for s in shapes]
    weights = [mx.nd.array(w) for w in ws]
    states = [opt.create_state(i, w) for i, w in enumerate(weights)]
    ref_states = [state0(s) for s in shapes]
    for t in range(1, 5):
        grads = [RNG.randn(*s) * 2 for s in shapes]
        opt.update([0, 1], weights, [mx.nd.array(g) for g in grads], states)
        for i in range(2):
            lr_i, wd_i = lr * (0.5 if i else 1.0), wd * (2.0 if i else 1.0)
            if opt_name in WD_BEFORE_CLIP:     # MXNet 1.x: clip(grad * rescale_grad + wd * weight)
                g_i, wd_i = np.clip(grads[i] * rescale + wd_i * ws[i], -clip, clip), 0.0
            else:
                g_i = _pre(grads[i], rescale, clip)
            ws[i], ref_states[i] = ref(ws[i], g_i, ref_states[i], lr_i, wd_i, t)
            np.testing.assert_allclose(weights[i].asnumpy(), ws[i], rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name}: weight {i} after step {t}")
    assert opt.num_update == 4


@pytest.mark.parametrize("name, kwargs", [("sgd", {}), ("sgd", {"wd": 0.01}), ("sgd", {"momentum": 0.9}),
                                          ("sgd", {"momentum": 0.9, "wd": 0.01}), ("adam", {})])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unclipped_updates_match_numpy_formula_on_each_path(name, kwargs, dtype, update_kernels):
    """Without clipping, SGD and Adam update from the raw gradient (``_step_raw``): with NumPy's ufuncs,
    or BLAS's scal/axpy for large contiguous arrays; either way MXNet's formula, step after step."""
    path, blas_calls = update_kernels
    momentum, lr, wd, rescale = kwargs.get("momentum", 0.0), 0.05, kwargs.get("wd", 0.0), 0.5
    opt = mx.optimizer.create(name, learning_rate=lr, rescale_grad=rescale, **kwargs)
    w0 = RNG.randn(40, 50).astype(dtype)
    weight = mx.nd.array(w0, dtype=dtype)
    state = opt.create_state(0, weight)
    ref = ref_adam if name == "adam" else lambda *a: ref_sgd(*a, momentum=momentum)
    want, ref_state = w0.astype(np.float64), (Z(w0.shape), Z(w0.shape)) if name == "adam" else Z(w0.shape)
    for t in range(1, 6):
        g = (RNG.randn(40, 50) * 2).astype(dtype)
        opt.update(0, weight, mx.nd.array(g, dtype=dtype), state)
        want, ref_state = ref(want, g.astype(np.float64) * rescale, ref_state, lr, wd, t)
        tolerance = 2e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(weight.asnumpy(), want, rtol=tolerance, atol=tolerance, err_msg=f"step {t}")
    assert (blas_calls[0] > 0) == (path == "blas")


def test_optimizer_registry_and_errors():
    assert isinstance(mx.optimizer.create("SGD"), mx.optimizer.SGD)
    assert mx.optimizer.create("sgd").learning_rate == 0.01      # MXNet 1.9.1: the base default
    with pytest.raises(ValueError, match="Cannot find optimizer 'nope'"):
        mx.optimizer.create("nope")
    with pytest.raises(TypeError, match="unexpected argument"):
        mx.optimizer.create("adam", momentum=0.9)
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(learning_rate=None, lr_scheduler=sched)
    with pytest.raises(UserWarning, match="LRScheduler"):
        opt.set_learning_rate(0.1)


def test_multi_precision_keeps_float32_master():
    opt = mx.optimizer.create("sgd", learning_rate=1e-4, multi_precision=True)
    w = mx.nd.ones((4,), dtype="float16")
    state = opt.create_state_multi_precision(0, w)
    momentum, master = state              # MXNet's SGD order: (state, master copy)
    assert momentum is None and master.dtype == np.float32
    for _ in range(10):
        opt.update_multi_precision([0], [w], [mx.nd.ones((4,), dtype="float16")], [state])
    np.testing.assert_allclose(master.asnumpy(), 1 - 1e-3, rtol=1e-6)   # float16 alone cannot move
    adam_master, adam_state = mx.optimizer.Adam(multi_precision=True).create_state_multi_precision(0, w)
    assert adam_master.dtype == np.float32 and len(adam_state) == 2    # the others: (master copy, state)
    assert w.dtype == np.float16 and abs(float(w[0].asscalar()) - (1 - 1e-3)) < 1e-3


# ---- lr schedulers ---------------------------------------------------------------------------
def test_schedulers_closed_forms():
    f = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=1.0, stop_factor_lr=0.2)
    assert [f(n) for n in range(1, 11)] == [1, 1, 1, .5, .5, .5, .25, .25, .25, .2]
    m = mx.lr_scheduler.MultiFactorScheduler(step=[2, 5], factor=0.1, base_lr=1.0)
    np.testing.assert_allclose([m(n) for n in range(1, 8)], [1, 1, .1, .1, .1, .01, .01])
    p = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.1, warmup_steps=2,
                                      warmup_begin_lr=0.5)
    assert [p(0), p(1)] == [0.5, 0.75]
    np.testing.assert_allclose([p(n) for n in (2, 6, 10, 12)],
                               [1.0, 0.1 + 0.9 * 0.25, 0.1, 0.1])
    c = mx.lr_scheduler.CosineScheduler(max_update=5, base_lr=2.0, final_lr=0.0, warmup_steps=1,
                                        warmup_mode="constant", warmup_begin_lr=0.3)
    assert c(0) == 0.3
    np.testing.assert_allclose([c(n) for n in (1, 3, 5)], [2.0, 1.0, 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="warmup_begin_lr"):
        mx.lr_scheduler.CosineScheduler(10, base_lr=0.1, warmup_begin_lr=0.5)


def test_scheduler_drives_the_optimizer_by_num_update():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(learning_rate=None, lr_scheduler=sched)
    w = mx.nd.zeros((1,))
    for _ in range(3):
        opt.update(0, w, mx.nd.ones((1,)), None)
    # lr at updates 1, 2, 3 = 1, 0.5, 0.25
    np.testing.assert_allclose(w.asnumpy(), [-1.75])
    assert opt.learning_rate == 0.25


# ---- Trainer ---------------------------------------------------------------------------------
def _net(seed=0):
    mx.random.seed(seed)
    # (named in a scope of its own: every such net's parameters sort alike for the Trainer, whatever
    # blocks were made before, so saved states fit the same indices)
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, activation="relu", in_units=5), mx.gluon.nn.Dense(3, in_units=8))
    net.initialize(mx.init.Xavier())
    return net


def _train(net, trainer, steps, hybridize=False, x=None, y=None):
    if hybridize:
        net.hybridize()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(float(loss.mean().asscalar()))
    return losses


X = mx.nd.array(RNG.randn(16, 5))
Y = mx.nd.array(RNG.randint(0, 3, 16))


def test_trainer_step_equals_manual_sgd_with_batch_rescale():
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.Normal(1.0))
    w0 = net.weight.data().asnumpy()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "wd": 0.1})
    x = mx.nd.array(RNG.randn(4, 3))
    with mx.autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    g = net.weight.grad().asnumpy()
    trainer.step(4)
    np.testing.assert_allclose(net.weight.data().asnumpy(), w0 - 0.5 * (g / 4 + 0.1 * w0), rtol=1e-5)
    assert trainer.learning_rate == 0.5
    trainer.set_learning_rate(0.1)
    assert trainer.learning_rate == 0.1 and trainer.optimizer.lr == 0.1


def test_trainer_hybridized_training_equals_imperative():
    net_i, net_h = _net(3), _net(3)
    li = _train(net_i, mx.gluon.Trainer(net_i.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9}),
                8, False, X, Y)
    lh = _train(net_h, mx.gluon.Trainer(net_h.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9}),
                8, True, X, Y)
    np.testing.assert_allclose(lh, li, rtol=1e-5, atol=1e-6)
    assert lh[-1] < lh[0]


def test_lr_mult_and_null_grad_req_respected():
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.One())
    net.bias.grad_req = "null"
    net.weight.lr_mult = 0.0
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    with mx.autograd.record():
        out = net(mx.nd.ones((1, 3))).sum()
    out.backward()
    trainer.step(1)
    np.testing.assert_allclose(net.weight.data().asnumpy(), 1.0)
    np.testing.assert_allclose(net.bias.data().asnumpy(), 0.0)


def test_allreduce_and_update_on_two_devices():
    net = mx.gluon.nn.Dense(1, in_units=2, use_bias=False)
    devices = [mx.cpu(0), mx.cpu(1)]
    net.initialize(mx.init.One(), ctx=devices)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        losses = [net(mx.nd.array([[1.0, 2.0]], ctx=devices[0])).sum(),
                  net(mx.nd.array([[3.0, 4.0]], ctx=devices[1])).sum()]
    mx.autograd.backward(losses)
    trainer.step(2)
    for d in devices:   # summed gradient [4, 6] / batch 2, on each device's copy
        np.testing.assert_allclose(net.weight.data(d).asnumpy(), [[1 - 0.2, 1 - 0.3]], rtol=1e-6)
    assert trainer.optimizer.num_update == 1


def test_allreduce_then_update_lets_gradients_be_modified():
    net = mx.gluon.nn.Dense(1, in_units=2, use_bias=False)
    net.initialize(mx.init.One())
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    with mx.autograd.record():
        out = net(mx.nd.array([[1.0, 2.0]])).sum()
    out.backward()
    trainer.allreduce_grads()
    net.weight.grad()[:] = 0.5
    trainer.update(1)
    np.testing.assert_allclose(net.weight.data().asnumpy(), [[0.5, 0.5]])


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_save_and_load_states_resume_exactly(tmp_path, optimizer):
    params = {"learning_rate": 0.05} if optimizer == "adam" else {"learning_rate": 0.2, "momentum": 0.9}
    net_a = _net(7)
    ta = mx.gluon.Trainer(net_a.collect_params(), optimizer, params)
    full = _train(net_a, ta, 6, False, X, Y)

    net_b = _net(7)
    tb = mx.gluon.Trainer(net_b.collect_params(), optimizer, params)
    first = _train(net_b, tb, 3, False, X, Y)
    tb.save_states(str(tmp_path / "t.states"))
    net_b.save_parameters(str(tmp_path / "n.params"))
    saved = mx.nd.load(str(tmp_path / "t.states"))   # a plain NDArray dict file
    assert "__hybridlab_optimizer__" in saved

    net_c = _net(99)
    net_c.load_parameters(str(tmp_path / "n.params"))
    tc = mx.gluon.Trainer(net_c.collect_params(), optimizer, {"learning_rate": 123.0})
    tc.load_states(str(tmp_path / "t.states"))
    assert tc.learning_rate == params["learning_rate"] and tc.optimizer.num_update == 3
    rest = _train(net_c, tc, 3, False, X, Y)
    np.testing.assert_allclose(first + rest, full, rtol=1e-5, atol=1e-6)


def test_trainer_errors():
    with pytest.raises(ValueError, match="list or dict of Parameters"):
        mx.gluon.Trainer(3, "sgd")
    net = mx.gluon.nn.Dense(2)
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd")
    with pytest.raises(mx.MXNetError, match="deferred"):
        trainer.step(1)
    with pytest.raises(AssertionError, match="optimizer_params must be None"):
        mx.gluon.Trainer(net.collect_params(), mx.optimizer.SGD(), {"learning_rate": 1})


def test_stale_gradients_raise_or_are_skipped():
    from hybridlab import gluon
    from hybridlab.gluon import nn
    used, unused = nn.Dense(2, in_units=3), nn.Dense(2, in_units=3)
    used.initialize()
    unused.initialize()
    params = {**{f"u.{k}": v for k, v in used.collect_params().items()},
              **{f"n.{k}": v for k, v in unused.collect_params().items()}}
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    before = unused.weight.data().asnumpy().copy()
    with mx.autograd.record():
        loss = used(mx.nd.ones((1, 3))).sum()
    loss.backward()
    with pytest.raises(UserWarning, match="has not been updated by backward since last `step`"):
        trainer.step(1)
    with mx.autograd.record():
        loss = used(mx.nd.ones((1, 3))).sum()
    loss.backward()
    w_used = used.weight.data().asnumpy().copy()
    trainer.step(1, ignore_stale_grad=True)
    assert (unused.weight.data().asnumpy() == before).all()          # skipped
    assert not (used.weight.data().asnumpy() == w_used).all()         # updated
    with pytest.raises(UserWarning):                                   # nothing fresh since that step
        trainer.step(1)


# ---- Trainer and kvstore (values recorded from real MXNet 1.9.1) --------------------------------
def _two_device_run(kv, update_on_kvstore=None, momentum=0.5):
    x = mx.gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = mx.gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": momentum}, kvstore=kv,
                               update_on_kvstore=update_on_kvstore)
    for _ in range(2):
        with mx.autograd.record():
            for i, w in enumerate(x.list_data()):
                ((i + 1) * w).backward()          # gradient 1 on cpu(0), 2 on cpu(1)
        trainer.step(1)
    return trainer, [d.asnumpy().tolist() for d in x.list_data()]


@pytest.mark.parametrize("kv, update_on_kvstore, kv_type, resolved, values", [
    (None, None, None, None, [[-2.5, -2.5], [-5.0, -5.0]]),      # no store: each device on its own gradient
    ("device", None, "device", True, [[-7.5, -7.5]] * 2),
    ("device", False, "device", False, [[-7.5, -7.5]] * 2),
    ("local", True, "local", True, [[-7.5, -7.5]] * 2),
    ("teststore", None, "teststore", False, [[-7.5, -7.5]] * 2),  # TestStore cannot run the optimizer
])
def test_trainer_kvstore_resolution_matches_mxnet(kv, update_on_kvstore, kv_type, resolved, values):
    store = mx.kv.create(kv) if kv == "teststore" else kv
    trainer, got = _two_device_run(store, update_on_kvstore)
    assert (trainer._kvstore.type if trainer._kvstore else None) == kv_type
    assert trainer._update_on_kvstore is resolved and trainer._kv_initialized
    assert got == values
    assert isinstance(trainer._updaters, list) and len(trainer._updaters) == 2


def test_trainer_env_update_on_kvstore_and_single_device(monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
    trainer, got = _two_device_run("device", momentum=0.0)
    assert trainer._update_on_kvstore is False and got == [[-6.0, -6.0]] * 2
    monkeypatch.delenv("MXNET_UPDATE_ON_KVSTORE")
    x = mx.gluon.Parameter("x", shape=(2,))
    x.initialize()
    trainer = mx.gluon.Trainer([x], "sgd", kvstore="device")
    trainer._init_kvstore()
    assert trainer._kvstore is None and trainer._update_on_kvstore is None
    x2 = mx.gluon.Parameter("x2", shape=(2,))
    x2.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    invalid = mx.gluon.Trainer([x2], "sgd", kvstore=mx.kv.create("teststore"), update_on_kvstore=True)
    with pytest.raises(ValueError, match="Please set update_on_kvstore=False"):
        invalid._init_kvstore()
    with pytest.raises(TypeError, match="kvstore must be KVStore, str or None"):
        mx.gluon.Trainer([x2], "sgd", kvstore=3)._init_kvstore()


def test_trainer_update_on_kvstore_states_and_reset_on_load(tmp_path):
    trainer, _ = _two_device_run("device")
    with pytest.raises(AssertionError, match="update\\(\\) when parameters are updated on kvstore"):
        trainer.update(1)
    with pytest.raises(AssertionError, match="allreduce_grads\\(\\) when parameters are updated on kvstore"):
        trainer.allreduce_grads()
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    mom = trainer._kvstore._updater.states[0].asnumpy().copy()
    trainer.load_states(path)
    np.testing.assert_array_equal(trainer._kvstore._updater.states[0].asnumpy(), mom)
    assert trainer._optimizer is trainer._kvstore._updater.optimizer
    params = mx.gluon.ParameterDict()
    x = params.get("x", shape=(10,), lr_mult=1.0)
    params.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = mx.gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore="local")
    params.save(str(tmp_path / "p.params"))
    for step in range(2):
        with mx.autograd.record():
            for w in x.list_data():
                (w + 1).backward()
        trainer.step(1)
        if step == 0:
            assert trainer._kvstore.type == "local" and trainer._update_on_kvstore
            params.load(str(tmp_path / "p.params"))       # the store's copy is stale: dropped
            assert trainer._kvstore is None and trainer._kv_initialized is False
    assert (x.data(mx.cpu(0)).asnumpy() == np.float32(-0.2)).all()


def test_row_sparse_parameter_rules():
    y = mx.gluon.Parameter("y", shape=(3, 2), stype="row_sparse", init=mx.init.One())
    y.initialize(ctx=[mx.cpu(0)])
    with pytest.raises(RuntimeError, match="via data\\(\\) because its storage type is row_sparse"):
        y.data()
    with pytest.raises(RuntimeError, match="when no Trainer is created with it"):
        y.row_sparse_data(mx.nd.array([0]))
    with pytest.raises(TypeError, match="Cannot create 'None' KVStore with row_sparse parameters"):
        mx.gluon.Trainer([y], "sgd", kvstore=None)._init_kvstore()
    y._set_trainer(None)
    with pytest.raises(ValueError, match="Cannot set update_on_kvstore=False when sparse weights are present"):
        mx.gluon.Trainer([y], "sgd", update_on_kvstore=False)._init_kvstore()
    y._set_trainer(None)
    trainer = mx.gluon.Trainer([y], "sgd", {"learning_rate": 0.1})
    with pytest.raises(RuntimeError, match="More than one trainers for a row_sparse Parameter"):
        mx.gluon.Trainer([y], "sgd")
    rows = y.row_sparse_data(mx.nd.array([0, 2]))
    assert rows.stype == "row_sparse" and rows.asnumpy().tolist() == [[1, 1], [0, 0], [1, 1]]
    assert trainer._update_on_kvstore is True and trainer._kvstore.type == "device"
    with pytest.raises(RuntimeError, match="via row_sparse_data\\(\\) because its storage type is default"):
        mx.gluon.Parameter("d", shape=(2,)).row_sparse_data(mx.nd.array([0]))


def test_trainer_asks_the_scheduler_once_per_update_count_and_applies_lr_mult():
    """Every parameter of a step is updated with the scheduler's rate at that step's count (asked
    once per count, as MXNet's ``_get_lrs``), times its ``lr_mult``; packed or not, same weights."""
    asked = []

    class Halving(mx.lr_scheduler.LRScheduler):
        def __call__(self, num_update):
            asked.append(num_update)
            return 1.0 / 2 ** (num_update - 1)

    for lr_mult in (1.0, 3.0):           # 3.0: the rates differ, so the parameters update one by one
        asked.clear()
        a, b = mx.gluon.Parameter("a", shape=(2,)), mx.gluon.Parameter("b", shape=(3,))
        for p in (a, b):
            p.initialize(mx.init.Zero())
        b.lr_mult = lr_mult
        trainer = mx.gluon.Trainer([a, b], "sgd", {"lr_scheduler": Halving()})
        for _ in range(3):
            with mx.autograd.record():
                loss = a.data().sum() + b.data().sum()
            loss.backward()
            trainer.step(1)
        assert asked == [1, 2, 3]
        np.testing.assert_allclose(a.data().asnumpy(), [-1.75] * 2)           # 1 + 0.5 + 0.25
        np.testing.assert_allclose(b.data().asnumpy(), [-1.75 * lr_mult] * 3)


def test_one_update_counts_every_index_before_asking_the_rates():
    """MXNet's ``_update_impl``: ``_update_count(indices)`` then ``_get_lrs(indices)``. With uneven
    counts (index 1 updated alone twice before), the joint update's rates all come from the
    scheduler at the count reached after every index was counted (3), for both indices."""
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(learning_rate=None, lr_scheduler=sched)
    w0, w1 = mx.nd.zeros((1,)), mx.nd.zeros((1,))
    for _ in range(2):
        opt.update(1, w1, mx.nd.ones((1,)), None)       # rates at counts 1, 2: 1.0, 0.5
    opt.update([0, 1], [w0, w1], [mx.nd.ones((1,))] * 2, [None, None])
    assert opt.num_update == 3 and opt._index_update_count == {0: 1, 1: 3}
    rate = sched(3)                                       # 0.25, for both
    np.testing.assert_allclose(w0.asnumpy(), [-rate])
    np.testing.assert_allclose(w1.asnumpy(), [-1.5 - rate])


def test_update_count_counts_each_index_as_often_as_given():
    """One count per index given, in turn: an index given twice in one update is counted twice."""
    opt = mx.optimizer.SGD(begin_num_update=5)
    opt._update_count([0, 1])
    assert opt._index_update_count == {0: 6, 1: 6} and opt.num_update == 6
    opt._update_count([1, 2, 1])
    assert opt._index_update_count == {0: 6, 1: 8, 2: 6} and opt.num_update == 8
    opt._update_count(0)
    opt._update_count([])
    assert opt._index_update_count == {0: 7, 1: 8, 2: 6} and opt.num_update == 8


def test_trainer_without_kvstore_updates_each_device_with_its_own_gradient_and_counts_once():
    """kvstore=None on two devices: each device's parameters (packed per device after the first step)
    follow their own gradients exactly as a one-device Trainer would, and Adam's count advances once
    per step (not per device)."""
    devices = [mx.cpu(0), mx.cpu(1)]

    def params(ctx):
        a, b = mx.gluon.Parameter("a", shape=(2, 3)), mx.gluon.Parameter("b", shape=(3,))
        a.initialize(mx.init.Constant(0.5), ctx=ctx)
        b.initialize(mx.init.Constant(-0.25), ctx=ctx)
        return a, b

    def backward(a, b, scales):
        with mx.autograd.record():
            losses = [s * ((a.data(d) * a.data(d)).sum() + (b.data(d) * 3).sum())
                      for s, d in zip(scales, a.list_device())]
        mx.autograd.backward(losses)

    a, b = params(devices)
    trainer = mx.gluon.Trainer([a, b], "adam", {"learning_rate": 0.1}, kvstore=None)
    refs = [params([mx.cpu(0)]) for _ in devices]
    ref_trainers = [mx.gluon.Trainer(list(r), "adam", {"learning_rate": 0.1}) for r in refs]
    for step in range(4):
        backward(a, b, [1.0, 2.0])
        trainer.step(1)
        for scale, r, t in zip([1.0, 2.0], refs, ref_trainers):
            backward(*r, [scale])
            t.step(1)
        assert trainer.optimizer.num_update == step + 1
    for j, (d, r) in enumerate(zip(devices, refs)):
        for p, q in zip((a, b), r):
            np.testing.assert_array_equal(p.data(d).asnumpy(), q.data().asnumpy(), err_msg=f"device {j}")
    assert all(u.packed_last for u in trainer._updaters)
