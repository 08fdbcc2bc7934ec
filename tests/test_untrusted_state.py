"""Files that restore state are untrusted: ``Trainer.load_states`` restores only the optimizer's own
hyperparameters, type-checked, and checks every state against its weight; an ``__init__`` attribute
in a model file cannot make initialisation read a file unless the user opts in. Every refusal is an
MXNetError naming the file and saying what was expected."""
import json
import os
import re

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray.params_file import dumps, loads


# ---- Trainer.load_states --------------------------------------------------------------------------
def _net():
    mx.random.seed(0)
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.Xavier())
    return net


def _step(net, trainer):
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)


@pytest.fixture
def states(tmp_path):
    """(net, path of a states file after one Adam step, its arrays, its JSON meta)."""
    net = _net()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.1})
    _step(net, trainer)
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    arrays = loads(open(path, "rb").read())
    meta = json.loads(arrays["__hybridlab_optimizer__"].asnumpy().tobytes())
    return net, path, arrays, meta


def _rewrite(path, arrays, meta):
    arrays = dict(arrays)
    arrays["__hybridlab_optimizer__"] = mx.nd.NDArray(np.frombuffer(json.dumps(meta).encode(), np.uint8))
    with open(path, "wb") as f:
        f.write(dumps(arrays))


def _load_and_step(net, path):
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 5.0})
    trainer.load_states(path)
    _step(net, trainer)
    return trainer


def test_good_states_still_restore(states):
    net, path, _, _ = states
    trainer = _load_and_step(net, path)
    assert trainer.learning_rate == 0.1 and trainer.optimizer.num_update == 2


@pytest.mark.parametrize("key, value, pattern", [
    ("update_multi_precision", 5, "'update_multi_precision' is not a hyperparameter of Adam"),
    ("update", "os.system", "'update' is not a hyperparameter"),
    ("__class__", "SGD", "'__class__' is not a hyperparameter"),
    ("lr", "0.1", "'lr': expected a finite number, got '0.1' \\(str\\)"),
    ("lr", float("nan"), "'lr': expected a finite number"),
    ("wd", None, "'wd': expected a float, not None"),
    ("beta1", True, "'beta1': expected a finite number"),
    ("lazy_update", 1, "'lazy_update': expected a boolean"),
    ("num_update", -3, "'num_update': expected an integer >= 0"),
    ("num_update", 2.5, "'num_update': expected an integer >= 0"),
    ("lr_mult", [[0, "x"]], "'lr_mult': expected \\[int or str, number\\] pairs"),
    ("_index_update_count", {"0": 1}, "'_index_update_count': expected a list of"),
])
def test_config_keys_are_allow_listed_and_type_checked(states, key, value, pattern):
    net, path, arrays, meta = states
    meta["config"][key] = value
    _rewrite(path, arrays, meta)
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 5.0})
    with pytest.raises(mx.MXNetError, match=pattern) as info:
        trainer.load_states(path)
    assert path in str(info.value)
    assert trainer.learning_rate == 5.0     # nothing was applied
    _step(net, trainer)                     # and the trainer still works


def test_optional_hyperparameters_take_numbers_or_none(states):
    net, path, arrays, meta = states
    meta["config"]["clip_gradient"] = 1.0
    _rewrite(path, arrays, meta)
    assert _load_and_step(net, path).optimizer.clip_gradient == 1.0


@pytest.mark.parametrize("change, pattern", [
    (lambda m, a: m.update(optimizer="os.system"), "expected a registered optimizer name, got 'os.system'"),
    (lambda m, a: m.update(optimizer=["adam"]), "expected a registered optimizer name"),
    (lambda m, a: m.update(format="pickle"), "expected format 'hybridlab-optimizer-states/1'"),
    (lambda m, a: m.update(states=[]), "'states': expected an object"),
    (lambda m, a: m["states"].update({"0": ["int", ["0/0"] * 3]}), "expected a tuple of 2 states, got 3"),
    (lambda m, a: m["states"].update({"0": ["int", ["nope", "0/1"]]}), "'nope' named in the layout is missing"),
    (lambda m, a: m["states"].update({"0": ["int", [[[[[[[[[["0/0"]]]]]]]]]]]}), "at most 8 deep"),
    (lambda m, a: m["states"].update({"x": ["int", None]}), "state 'x': expected"),
    (lambda m, a: a.update({"0/0": mx.nd.ones((7,))}), r"expected an array \(2,\) float32, got \(7,\) float32"),
    (lambda m, a: a.update({"0/0": mx.nd.ones((2,), dtype="float64")}), "got \\(2,\\) float64"),
])
def test_bad_layouts_and_states_are_refused(states, change, pattern):
    net, path, arrays, meta = states
    arrays = dict(arrays)
    change(meta, arrays)
    _rewrite(path, arrays, meta)
    before = [p.data().asnumpy().copy() for p in net.collect_params().values()]
    with pytest.raises(mx.MXNetError, match=pattern) as info:
        _load_and_step(net, path)
    assert path in str(info.value)
    for b, p in zip(before, net.collect_params().values()):   # no weight was touched
        np.testing.assert_array_equal(b, p.data().asnumpy())


def test_unreadable_states_files(states, tmp_path):
    net, path, arrays, _ = states
    trainer = mx.gluon.Trainer(net.collect_params(), "adam")
    arrays = dict(arrays)
    arrays["__hybridlab_optimizer__"] = mx.nd.NDArray(np.frombuffer(b"[" * 100000, np.uint8))
    with open(path, "wb") as f:
        f.write(dumps(arrays))
    with pytest.raises(mx.MXNetError, match="expected JSON"):
        trainer.load_states(path)
    with pytest.raises(mx.MXNetError, match="optimizer states file .*missing.states.*: no such file") as info:
        trainer.load_states(str(tmp_path / "missing.states"))
    assert isinstance(info.value, FileNotFoundError)
    with open(path, "wb") as f:
        f.write(b"\x12\x01" + bytes(30))
    with pytest.raises(mx.MXNetError, match="t.states"):
        trainer.load_states(path)


def test_no_pickle_or_eval_in_the_state_loaders():
    import hybridlab.gluon.trainer as trainer_mod
    import hybridlab.optimizer.optimizer as opt_mod
    import hybridlab.optimizer.states_file as states_mod
    for mod in (trainer_mod, opt_mod, states_mod, mx.initializer):
        src = open(mod.__file__).read()
        assert not re.search(r"import pickle|pickle\.|\beval\(|\bexec\(|__import__", src), mod.__name__


# ---- initializers named by files ------------------------------------------------------------------
@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "w.params"
    mx.nd.save(str(path), {"arg:fc_weight": mx.nd.full((2, 3), 7.0)})
    return str(path)


def _symbol_with_load_init(path):
    """A symbol as read from a model file whose weight variable names a file in its __init__."""
    w = mx.sym.var("fc_weight", init=json.dumps(["load", {"param": path}]))
    out = mx.sym.FullyConnected(mx.sym.var("data"), w, num_hidden=2, no_bias=True, name="fc")
    return mx.sym.fromjson(out.tojson())


def test_init_attribute_cannot_read_files_without_opt_in(secret):
    mod = mx.mod.Module(_symbol_with_load_init(secret), label_names=None)
    mod.bind(data_shapes=[("data", (1, 3))])
    with pytest.raises(mx.MXNetError, match="allow_file_initializers") as info:
        mod.init_params(mx.init.Uniform())
    assert "reads a file" in str(info.value) and "7.0" not in str(info.value)
    with mx.init.allow_file_initializers():
        mod.init_params(mx.init.Uniform())
    assert mod.get_params()[0]["fc_weight"].asnumpy().tolist() == [[7.0] * 3] * 2
    with pytest.raises(mx.MXNetError, match="reads a file"):       # the opt-in ends with the block
        mod.init_params(mx.init.Uniform(), force_init=True)


def test_gluon_parameter_with_a_dumps_string_naming_a_file(secret):
    p = mx.gluon.Parameter("fc_weight", shape=(2, 3), init=json.dumps(["load", {"param": secret}]))
    with pytest.raises(mx.MXNetError, match="allow_file_initializers"):
        p.initialize()
    with mx.init.allow_file_initializers():
        p.initialize(force_reinit=True)
    assert p.data().asnumpy().sum() == 42


def test_code_may_still_construct_load(secret):
    init = mx.init.Load(secret, default_init=mx.init.Zero())
    w, b = mx.nd.zeros((2, 3)), mx.nd.ones((2,))
    init("fc_weight", w)
    init("fc_bias", b)
    assert w.asnumpy().sum() == 42 and b.asnumpy().sum() == 0
    assert mx.init.create("load", param=secret).param["fc_weight"].shape == (2, 3)


@pytest.mark.parametrize("text, pattern", [
    ('["load", {"param": "/etc/passwd"}]', "reads a file"),
    ('["load"]', "expected '\\[name, \\{kwargs\\}\\]'"),
    ('[3, {}]', "with a string name"),
    ('["xavier", {"bogus": 1}]', "Cannot create initializer"),
    ('["nope", {}]', "Cannot find initializer 'nope'"),
    ("[" * 100000, "Cannot parse initializer"),
    ("load", "Cannot create initializer 'load'"),
    ("constant", "Cannot create initializer 'constant'"),
])
def test_bad_initializer_strings(text, pattern):
    with pytest.raises(mx.MXNetError, match=pattern):
        mx.init.create(text)


def test_load_refuses_unnamed_or_empty_entries(tmp_path):
    p = str(tmp_path / "list.params")
    mx.nd.save(p, [mx.nd.ones((2,))])
    with pytest.raises(mx.MXNetError, match="a file of unnamed arrays"):
        mx.init.Load(p)
    init = mx.init.Load({"w": None})
    with pytest.raises(mx.MXNetError, match=r"empty \(none\) array"):
        init("w", mx.nd.zeros((2,)))
    assert os.path.exists(p)
