"""The symbolic Module API (``mx.mod``, ``mx.io``, ``mx.model``, ``mx.callback``) against real
MXNet 1.9.1 runs: a ``Module.fit`` from the same initial parameters reproduces MXNet's logged
accuracies and epoch checkpoints, a checkpoint loads and predicts MXNet's output, plus batching,
variable shapes, frozen parameters and the errors."""
import json
import logging
import os

import numpy as np
import pytest

import hybridlab as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
MODULE = os.path.join(DATA, "module")


def fit_data(batch_size=50):
    X, y = np.load(os.path.join(MODULE, "train_X.npy")), np.load(os.path.join(MODULE, "train_y.npy"))
    VX, vy = np.load(os.path.join(MODULE, "val_X.npy")), np.load(os.path.join(MODULE, "val_y.npy"))
    return mx.io.NDArrayIter(X, y, batch_size=batch_size), mx.io.NDArrayIter(VX, vy, batch_size=batch_size)


def test_fit_reproduces_mxnet_accuracies_and_checkpoints(tmp_path, caplog):
    summary = json.load(open(os.path.join(MODULE, "fit_summary.json")))
    settings = summary["settings"]
    sym, arg_params, aux_params = mx.model.load_checkpoint(os.path.join(DATA, "mlp_fit"), 0)
    train, val = fit_data(settings["batch_size"])
    mod = mx.mod.Module(sym)
    prefix = str(tmp_path / "fit")
    with caplog.at_level(logging.INFO):
        mod.fit(train, eval_data=val, eval_metric=settings["eval_metric"], optimizer=settings["optimizer"],
                optimizer_params=settings["optimizer_params"], arg_params=arg_params, aux_params=aux_params,
                num_epoch=settings["num_epoch"], epoch_end_callback=mx.callback.do_checkpoint(prefix))
    logged = [r.getMessage() for r in caplog.records]
    for epoch, (train_acc, val_acc) in enumerate(zip(summary["train_accuracy_per_epoch"],
                                                     summary["validation_accuracy_per_epoch"])):
        assert f"Epoch[{epoch}] Train-accuracy={train_acc:f}" in logged
        assert f"Epoch[{epoch}] Validation-accuracy={val_acc:f}" in logged
        assert any(m.startswith(f"Epoch[{epoch}] Time cost=") for m in logged)
    for epoch in (1, 2):
        got = mx.nd.load(f"{prefix}-{epoch:04d}.params")
        want = mx.nd.load(os.path.join(DATA, f"mlp_fit-{epoch:04d}.params"))
        assert sorted(got) == sorted(want)
        for key in want:
            np.testing.assert_allclose(got[key].asnumpy(), want[key].asnumpy(), rtol=1e-5, atol=1e-5, err_msg=key)
    assert mod.score(val, "acc") == [("accuracy", summary["final_score_val"]["accuracy"])]
    assert mx.sym.load(f"{prefix}-symbol.json").tojson() == sym.tojson()


def test_loaded_checkpoint_predicts_mxnet_output():
    mod = mx.mod.Module.load(os.path.join(DATA, "mlp_module"), 0)
    x = np.load(os.path.join(MODULE, "mlp_module-input.npy"))
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]))
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.load(os.path.join(MODULE, "mlp_module-output.npy")),
                               rtol=1e-5, atol=1e-6)
    assert mod.output_shapes == [("softmax_output", (1, 2))]


def small_net():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def test_predict_removes_padding_and_handles_variable_batch_sizes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 4)).astype(np.float32)
    mod = mx.mod.Module(small_net())
    mod.bind(data_shapes=[("data", (3, 4))], label_shapes=[("softmax_label", (3,))], for_training=False)
    mod.init_params(mx.init.Xavier())
    merged = mod.predict(mx.io.NDArrayIter(X, batch_size=3))          # last batch: 2 padded samples
    assert merged.shape == (7, 3)
    one_by_one = np.concatenate([mod.predict(X[i:i + 1]).asnumpy() for i in range(7)])   # batch 1: reshaped
    np.testing.assert_allclose(merged.asnumpy(), one_by_one, rtol=1e-5)
    weights = mod.get_params()[0]["fc_weight"].asnumpy()
    np.testing.assert_allclose(one_by_one, _softmax(X @ weights.T), rtol=1e-5)


def _softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_mutable_module_reuses_programs_for_shapes_seen_before():
    mod = mx.mod.MutableModule(small_net(), max_data_shapes=[("data", (8, 4))])
    mod.bind([("data", (2, 4))], [("softmax_label", (2,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    for n in (2, 5, 2, 5, 8, 2):
        mod.forward_backward(mx.io.DataBatch([mx.nd.ones((n, 4))], [mx.nd.zeros(n)]))
        mod.update()
        assert mod.get_outputs()[0].shape == (n, 3)
    assert mod.compiled_signatures == 3                       # (2, 4), (5, 4), (8, 4): compiled once each


def test_fixed_parameters_stay_and_input_gradients():
    mod = mx.mod.Module(small_net(), fixed_param_names=["fc_bias"])
    mod.bind([("data", (2, 4))], [("softmax_label", (2,))], inputs_need_grad=True)
    mod.init_params(mx.init.Constant(0.5))       # as in MXNet, names ending in 'bias' start at 0
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((2, 4))], [mx.nd.array([0, 1])]))
    mod.update()
    args, _ = mod.get_params()
    assert args["fc_bias"].asnumpy().tolist() == [0, 0, 0]
    assert not np.allclose(args["fc_weight"].asnumpy(), 0.5)
    assert mod.get_input_grads()[0].shape == (2, 4)


def test_checkpoint_round_trip_with_optimizer_states(tmp_path):
    train, _ = fit_data(batch_size=100)
    sym, arg_params, aux_params = mx.model.load_checkpoint(os.path.join(DATA, "mlp_fit"), 0)
    mod = mx.mod.Module(sym)
    mod.fit(train, arg_params=arg_params, aux_params=aux_params, num_epoch=1,
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    prefix = str(tmp_path / "ck")
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    again = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    again.bind(train.provide_data, train.provide_label)
    again.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for m in (mod, again):            # one more step from the same weights and momenta
        train.reset()
        m.forward_backward(next(train))
        m.update()
    for key, value in mod.get_params()[0].items():
        np.testing.assert_allclose(again.get_params()[0][key].asnumpy(), value.asnumpy(), rtol=1e-6, err_msg=key)


def test_errors_name_what_is_wrong():
    mod = mx.mod.Module(small_net())
    with pytest.raises(mx.MXNetError, match="forward: expected a bound module"):
        mod.forward(mx.io.DataBatch([mx.nd.ones((2, 4))]))
    with pytest.raises(mx.MXNetError, match=r"data_shapes expected the data names \['data'\], got \['x'\]"):
        mod.bind([("x", (2, 4))])
    mod.bind([("data", (2, 4))], [("softmax_label", (2,))])
    with pytest.raises(mx.MXNetError, match="'fc_bias' is not in the given parameters"):
        mod.init_params(arg_params={"fc_weight": mx.nd.ones((3, 4))})
    with pytest.raises(mx.MXNetError, match=r"data names \['image'\] are not arguments"):
        mx.mod.Module(small_net(), data_names=["image"])


@pytest.mark.parametrize("handle, batches", [
    ("pad", [([0, 1], 0), ([2, 3], 0), ([4, 0], 1)]),
    ("discard", [([0, 1], 0), ([2, 3], 0)]),
    ("roll_over", [([0, 1], 0), ([2, 3], 0)]),
])
def test_ndarray_iter_last_batch(handle, batches):
    it = mx.io.NDArrayIter(np.arange(5), np.arange(5) * 10, batch_size=2, last_batch_handle=handle)
    epoch = list(it)
    assert [(b.data[0].asnumpy().tolist(), b.pad) for b in epoch] == batches
    assert all((b.label[0].asnumpy() == 10 * b.data[0].asnumpy()).all() for b in epoch)
    if handle == "roll_over":          # MXNet: the carried sample opens the next epoch (reported as pad)
        it.reset()
        assert [(b.data[0].asnumpy().tolist(), b.pad) for b in it] == [([4, 0], 1), ([1, 2], 0), ([3, 4], 0)]


def test_ndarray_iter_names_and_shuffle():
    it = mx.io.NDArrayIter({"a": np.ones((4, 3)), "b": np.zeros((4, 1))}, batch_size=2)
    assert [(d.name, d.shape) for d in it.provide_data] == [("a", (2, 3)), ("b", (2, 1))] and it.provide_label == []
    it = mx.io.NDArrayIter([np.ones((4, 3)), np.zeros((4, 1))], batch_size=2)
    assert [d.name for d in it.provide_data] == ["_0_data", "_1_data"]
    np.random.seed(0)
    it = mx.io.NDArrayIter(np.arange(6), np.arange(6) * 2, batch_size=3, shuffle=True)
    seen = [(b.data[0].asnumpy(), b.label[0].asnumpy()) for b in it]
    assert sorted(np.concatenate([d for d, _ in seen]).tolist()) == list(range(6))
    assert all((lab == 2 * d).all() for d, lab in seen)
    longer = mx.io.NDArrayIter(np.zeros(4), np.arange(6.0), batch_size=4)    # MXNet reads the first 4
    assert longer.num_data == 4 and next(iter(longer)).label[0].asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert mx.io.NDArrayIter(np.zeros(4), [], batch_size=2).provide_label == []      # label=[]: none
    with pytest.raises(mx.MXNetError, match=r"at least 4 samples .*'softmax_label': 3"):
        mx.io.NDArrayIter(np.zeros(4), np.zeros(3))


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)")
def test_fit_on_gpu_reproduces_the_mxnet_checkpoints(tmp_path):
    sym, arg_params, aux_params = mx.model.load_checkpoint(os.path.join(DATA, "mlp_fit"), 0)
    train, val = fit_data()
    mod = mx.mod.Module(sym, context=mx.gpu(0))
    prefix = str(tmp_path / "gpu")
    mod.fit(train, eval_data=val, optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, arg_params=arg_params,
            aux_params=aux_params, num_epoch=2, epoch_end_callback=mx.callback.do_checkpoint(prefix))
    assert mod.get_outputs()[0].context == mx.gpu(0)
    got, want = mx.nd.load(f"{prefix}-0002.params"), mx.nd.load(os.path.join(DATA, "mlp_fit-0002.params"))
    for key in want:
        np.testing.assert_allclose(got[key].asnumpy(), want[key].asnumpy(), rtol=1e-4, atol=1e-4, err_msg=key)
    assert mod.score(val, "acc") == [("accuracy", 0.55)]


def test_save_params_and_load_params_round_trip(tmp_path):
    mod = mx.mod.Module(small_net())
    mod.bind([("data", (2, 4))], [("softmax_label", (2,))])
    mod.init_params(mx.init.Xavier())
    fname = str(tmp_path / "m.params")
    mod.save_params(fname)
    assert sorted(mx.nd.load(fname)) == ["arg:fc_bias", "arg:fc_weight"]
    other = mx.mod.Module(small_net())
    other.bind([("data", (2, 4))], [("softmax_label", (2,))])
    other.init_params(mx.init.Zero())
    other.load_params(fname)
    np.testing.assert_array_equal(other.get_params()[0]["fc_weight"].asnumpy(),
                                  mod.get_params()[0]["fc_weight"].asnumpy())


def test_lr_and_wd_multipliers_given_to_ops_and_variables_reach_the_module_optimizer():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, bias=mx.sym.var("fc1_bias", lr_mult=1.0), name="fc1", num_hidden=4, lr_mult=0)
    fc2 = mx.sym.FullyConnected(fc1, name="fc2", num_hidden=3, wd_mult=0.5)
    assert fc2.attr_dict()["fc1_weight"]["__lr_mult__"] == "0"     # the op's hidden keys reach its weight
    mod = mx.mod.Module(fc2, label_names=None)
    mod.bind(data_shapes=[("data", (5, 6))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    mod.forward(mx.io.DataBatch(data=[mx.nd.random.uniform(-1, 1, shape=(5, 6))], label=None), is_train=True)
    mod.backward(mod.get_outputs())
    mod.update()
    after = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    assert mod._optimizer.lr_mult == {"fc1_bias": 1.0, "fc1_weight": 0.0}
    assert mod._optimizer.wd_mult == {"fc2_bias": 0.5, "fc2_weight": 0.5, "fc1_bias": 0.0}
    assert np.array_equal(before["fc1_weight"], after["fc1_weight"])
    assert not np.allclose(before["fc2_weight"], after["fc2_weight"])
    with pytest.raises(mx.MXNetError, match=r"weight_lr_mult is not supported.*Variable\(\.\.\., lr_mult=2\)"):
        mx.sym.FullyConnected(data, num_hidden=2, weight_lr_mult=2)


def test_ops_give_their_variables_mxnets_initializers():
    # MXNet's FSetInputVarAttrOnCompose: BatchNorm's moving statistics, PReLU's slope (0.25)
    bn = mx.sym.BatchNorm(mx.sym.var("x"), name="bn")
    assert {k: v.get("__init__") for k, v in bn.attr_dict().items()} == {"bn_moving_mean": '["zero", {}]',
                                                                          "bn_moving_var": '["one", {}]'}
    own = mx.sym.var("g", init=mx.init.One())
    assert "value" not in mx.sym.LeakyReLU(mx.sym.var("x"), gamma=own, act_type="prelu").attr_dict()["g"]["__init__"]
    mod = mx.mod.Module(mx.sym.LeakyReLU(mx.sym.var("data"), act_type="prelu"), label_names=None)
    mod.bind(data_shapes=[("data", (10, 10))])
    mod.init_params()
    assert (list(mod.get_params()[0].values())[0].asnumpy() == 0.25).all()
