"""oneDNN keeps a predict program's convolution weights in its own layout between calls
(``ops/dnnl/weight_cache.py``) and reorders them again only after they were written: every way
an NDArray is written in place is seen (``write_versions``), checked here by predicting after each
one and comparing with the NumPy path, which reads the weights as they are."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd, write_versions
from hybridlab.ops import conv_path, dnnl
from hybridlab.ops.dnnl import plan as dnnl_plan, weight_cache

pytestmark = pytest.mark.skipif("onednn" not in conv_path.available_paths(),
                                reason=f"the weight cache is oneDNN's: {dnnl.load_error()}")


def _net():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(16, 3, padding=1, in_channels=8), mx.gluon.nn.BatchNorm(in_channels=16),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.Conv2D(16, 3, padding=1, in_channels=16),
            mx.gluon.nn.GlobalAvgPool2D(), mx.gluon.nn.Dense(3, in_units=16))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    return net


@pytest.fixture
def setup():
    net = _net()
    x = mx.nd.array(np.random.RandomState(0).rand(2, 8, 6, 6).astype("float32"))
    with conv_path.use("onednn"):
        net(x)
    weight = net[0].weight
    assert weight_cache.held(weight.data()._data) == 1        # kept after the first call
    return net, x, weight


def _check(net, x, what):
    with conv_path.use("onednn"):
        got = net(x).asnumpy()
    with conv_path.use("numpy"):
        want = net(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"stale weights after {what}")


def test_later_calls_reuse_the_reordered_weights(setup, monkeypatch):
    net, x, _ = setup
    calls = []
    original = dnnl_plan.Plan.reorder_in
    monkeypatch.setattr(dnnl_plan.Plan, "reorder_in", lambda self, *a: calls.append(1) or original(self, *a))
    with conv_path.use("onednn"):
        net(x)
    assert not calls
    net[0].weight.data()[0, 0, 0, 0] = 1.5
    with conv_path.use("onednn"):
        net(x)
    assert len(calls) == 1          # only the written weight


def _write(net, x, weight, how):
    w = weight.data()
    rng = np.random.RandomState(len(how))
    new = mx.nd.array(rng.rand(*w.shape).astype("float32"))
    if how == "trainer step":
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(1)
    elif how == "set_data":
        weight.set_data(new)
    elif how == "assign all":
        w[:] = new
    elif how == "assign part":
        w[1] = new[1]
    elif how == "write through a view":
        view = w[2:4]
        view[:] = 0.25
    elif how == "in-place add":
        w += 1.0
    elif how == "out=":
        mx.nd.elemwise_add(new, new, out=w)
    elif how == "copyto":
        new.copyto(w)
    elif how == "kvstore pull":
        kv = mx.kv.create("local")
        kv.init(7, new)
        kv.pull(7, out=w)
    elif how == "reset_arrays":
        mx.nd.reset_arrays(w, num_arrays=1)
    elif how == "optimizer update":
        opt = mx.optimizer.create("sgd", learning_rate=1.0, momentum=0.9)
        opt.update_multi_precision(0, w, new, opt.create_state_multi_precision(0, w))
    elif how.startswith("optimizer.update "):       # MXNet's direct entry point, each rule's fast path
        opt = mx.optimizer.create(how.split()[1], learning_rate=1.0, momentum=0.9) if "sgd" in how else \
            mx.optimizer.create(how.split()[1], learning_rate=1.0)
        opt.update(0, w, new, opt.create_state(0, w))
    elif how == "user update_multi_precision":     # an optimizer of the user's own, writing the raw arrays
        class RawWrites(mx.optimizer.SGD):            # (as code holding a DLPack view of them would)
            def update_multi_precision(self, indices, weights, grads, states):
                for weight_, grad_ in zip(weights, grads):
                    weight_._data -= 0.5 * grad_._data
        trainer = mx.gluon.Trainer(net.collect_params(), RawWrites(learning_rate=0.5))
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(1)
    elif how == "load_parameters":
        other = _net()
        other(x)
        path = str(__import__("tempfile").mkdtemp()) + "/w.params"
        other.save_parameters(path)
        net.load_parameters(path)
    else:
        raise AssertionError(how)


WRITES = ["trainer step", "set_data", "assign all", "assign part", "write through a view", "in-place add", "out=",
          "copyto", "kvstore pull", "reset_arrays", "optimizer update", "optimizer.update sgd", "optimizer.update adam",
          "user update_multi_precision", "load_parameters"]


@pytest.mark.parametrize("how", WRITES)
def test_predictions_see_every_write_of_the_weights(setup, how):
    net, x, weight = setup
    _check(net, x, "nothing")
    _write(net, x, weight, how)
    _check(net, x, how)
    _write(net, x, weight, how)      # twice: the refreshed copy is refreshed again
    _check(net, x, how + " (again)")


def test_memory_shared_through_dlpack_is_never_cached(setup):
    net, x, weight = setup
    capsule = weight.data().to_dlpack_for_write()
    shared = mx.nd.from_dlpack(capsule)
    shared[:] = 0.5          # through the alias (foreign code would write without telling anyone)
    _check(net, x, "a DLPack write")
    assert write_versions.is_exported(weight.data()._data)


def test_an_entry_goes_with_its_weight():
    net = _net()
    x = mx.nd.ones((1, 8, 6, 6))
    with conv_path.use("onednn"):
        net(x)
    before = len(weight_cache._entries)
    del net
    import gc
    gc.collect()
    assert len(weight_cache._entries) <= before - 2       # both convolutions' copies dropped
