"""The Block API: registration, collect_params, parameter files, hooks, apply, sharing, casting,
MXNet 1.x naming (prefix, params, name_scope) and the repr."""
import contextlib
import io
import json
import os
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon
from hybridlab.gluon import nn


class Model(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense0 = nn.Dense(4)
        self.body = nn.HybridSequential()
        self.body.add(nn.Dense(3, activation="relu"), nn.Dense(2))
        self.scale = gluon.Parameter("scale", shape=(1,), init=mx.init.One())

    def forward(self, x):
        return self.body(mx.nd.relu(self.dense0(x))) * self.scale.data()


def _model():
    with mx.name.NameManager():
        net = Model()
    net.initialize()
    return net


def test_collect_params_full_names_structural_lookup_and_select():
    net = _model()
    # keys are MXNet 1.x's full names (MXNet 1.9.1 gives these for the same model, less the
    # attribute Parameter 'scale', which MXNet 2.0 and hybridlab include)
    assert list(net.collect_params()) == ["scale", "dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias",
                                          "dense2_weight", "dense2_bias"]
    assert sorted(net.collect_params(".*weight")) == ["dense0_weight", "dense1_weight", "dense2_weight"]
    # select matches structural names too (MXNet 2.0's): 'body' is the Sequential's two Dense
    assert list(net.collect_params("body")) == ["dense1_weight", "dense1_bias", "dense2_weight", "dense2_bias"]
    assert list(net.collect_params("dense0_weight")) == ["dense0_weight"]
    # MXNet 2.0 code indexes by structural name
    params = net.collect_params()
    assert params["body.1.weight"] is net.body[1].weight and params.get("dense0.bias") is net.dense0.bias
    assert net.params["model0_scale"] is net.scale      # own parameters by full name (1.x)


def test_collect_params_keeps_two_parameters_with_one_full_name_apart():
    net = nn.HybridSequential()
    net.add(nn.Dense(2, prefix="fc_"), nn.Dense(3, prefix="fc_"))
    assert list(net.collect_params()) == ["fc_weight", "fc_bias", "1.weight", "1.bias"]


def test_save_load_parameters_round_trip(tmp_path):
    net = _model()
    x = mx.nd.random.normal(shape=(2, 5))
    expected = net(x).asnumpy()
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    assert sorted(mx.nd.load(path)) == sorted(net._collect_params_with_prefix())   # structural, as MXNet
    other = _model()
    other.load_parameters(path)
    np.testing.assert_allclose(other(x).asnumpy(), expected)


def test_load_errors_name_the_parameters(tmp_path):
    net = _model()
    net(mx.nd.ones((1, 5)))
    path = str(tmp_path / "net.params")
    params = {k: v.data() for k, v in net.collect_params().items() if k != "dense2_bias"}   # body.1.bias
    mx.nd.save(path, params)
    fresh = _model()
    with pytest.raises(AssertionError, match=r"Parameter 'body.1.bias' is missing in 'file: .*net.params', which "
                                             r"contains parameters: .*Set allow_missing=True"):
        fresh.load_parameters(path)
    fresh.load_parameters(path, allow_missing=True)
    mx.nd.save(path, dict(params, extra=mx.nd.ones((1,))))
    with pytest.raises(ValueError, match="Parameter 'extra' loaded from 'file: .*' is not present in Dict"):
        fresh.load_parameters(path, allow_missing=True)
    fresh.load_parameters(path, allow_missing=True, ignore_extra=True)


def test_load_dict_cast_dtype_and_export_style_keys():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    values = {"weight": mx.nd.ones((2, 3), dtype="float64"), "bias": mx.nd.zeros((2,), dtype="float64")}
    with pytest.raises(AssertionError, match="dtype incompatible expected float32 vs saved float64"):
        net.load_dict(values)
    net.load_dict(values, cast_dtype=True)
    assert net.weight.data().dtype == np.float32
    net.load_dict(values, cast_dtype=True, dtype_source="saved")
    assert net.weight.data().dtype == np.float64
    exported = {f"arg:{net.weight.var().name}": mx.nd.full((2, 3), 2.0), f"arg:{net.bias.var().name}": mx.nd.ones((2,))}
    net.cast("float32")
    net.load_dict(exported)
    assert net.weight.data().asnumpy().sum() == 12
    with pytest.raises(AssertionError, match="shape incompatible expected \\(2, 3\\) vs saved \\(4, 3\\)"):
        net.load_dict({"weight": mx.nd.ones((4, 3)), "bias": mx.nd.ones((2,))})


def test_deduplicate_shared_parameters(tmp_path):
    net = nn.HybridSequential()
    a, b = nn.Dense(2, in_units=2), nn.Dense(2, in_units=2)
    b.share_parameters(a.collect_params())
    net.add(a, b)
    net.initialize()
    assert b.weight is a.weight
    path = str(tmp_path / "p.params")
    net.save_parameters(path)
    assert sorted(mx.nd.load(path)) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    net.save_parameters(path, deduplicate=True)
    assert sorted(mx.nd.load(path)) == ["0.bias", "0.weight"]
    net.load_parameters(path)                       # one key per shared parameter is enough
    with pytest.warns(UserWarning, match="Parameter name nothing is not in the current model"):
        b.share_parameters({"nothing": a.weight})


def test_hooks_and_handles():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    calls = []
    pre = net.register_forward_pre_hook(lambda blk, inputs: calls.append(("pre", inputs[0].shape)))
    post = net.register_forward_hook(lambda blk, inputs, out: calls.append(("post", out.shape)))
    net(mx.nd.ones((4, 3)))
    assert calls == [("pre", (4, 3)), ("post", (4, 2))]
    pre.detach()
    with post:
        net(mx.nd.ones((1, 3)))
    net(mx.nd.ones((1, 3)))
    assert calls[2:] == [("post", (1, 2))]


def test_apply_initialize_force_reinit_setattr_zero_grad():
    net = _model()
    seen = []
    assert net.apply(lambda blk: seen.append(type(blk).__name__)) is net
    assert seen == ["Dense", "Activation", "Dense", "Dense", "HybridSequential", "Model"]
    with pytest.warns(UserWarning, match="already initialized"):
        net.initialize()
    net(mx.nd.ones((1, 5)))
    net.initialize(mx.init.Zero(), force_reinit=True)
    assert net.dense0.weight.data().asnumpy().sum() == 0
    net.setattr("lr_mult", 0.5)
    assert all(p.lr_mult == 0.5 for p in net.collect_params().values())
    x = mx.nd.ones((2, 5))
    net.initialize(mx.init.One(), force_reinit=True)
    with mx.autograd.record():
        y = net(x).sum()
    y.backward()
    assert net.dense0.weight.grad().asnumpy().sum() != 0
    net.zero_grad()
    assert all(p.grad().asnumpy().sum() == 0 for p in net.collect_params().values())


def test_cast_and_reset_device():
    net = _model()
    net(mx.nd.ones((1, 5)))
    net.cast("float64")
    assert all(p.data().dtype == np.float64 for p in net.collect_params().values())
    assert net(mx.nd.ones((1, 5), dtype="float64")).dtype == np.float64
    net.reset_device(mx.cpu(2))
    assert net.dense0.weight.data().device == mx.cpu(2)
    bn = nn.BatchNorm(in_channels=2)
    bn.cast("float16")            # BatchNorm stays float32 for half precision, as in MXNet
    assert bn.gamma.dtype == np.float32


def test_unregistered_container_warning_and_register_child():
    class Holder(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2), nn.Dense(2)]

        def forward(self, x):
            return x

    holder = Holder()
    with pytest.warns(UserWarning, match='"Holder.layers" is an unregistered container with Blocks'):
        holder.collect_params()
    for i, layer in enumerate(holder.layers):
        holder.register_child(layer, f"layer{i}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(holder.collect_params()) == 4


def test_changing_attribute_type_is_an_error():
    net = nn.Dense(2)
    with pytest.raises(TypeError, match="Changing attribute type for weight"):
        net.weight = nn.Dense(3)


def test_hybridblock_children_must_be_hybrid():
    seq = nn.HybridSequential()
    with pytest.raises(ValueError, match="(?s)Children of HybridBlock must also be HybridBlock, but .* If you are using "
                                         "Sequential, please try HybridSequential instead."):
        seq.add(nn.Sequential())


def test_sequential_containers():
    with mx.name.NameManager():
        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(3), nn.Dense(4), nn.Dense(5))
    assert len(net) == 3 and isinstance(net[1], nn.Dense)
    sub = net[1:]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2
    net.initialize()
    assert net(mx.nd.ones((2, 2))).shape == (2, 5)
    with pytest.warns(UserWarning, match="All children of this Sequential layer 'sequential0_' are HybridBlocks"):
        net.hybridize()


def test_mxnet1_naming_prefix_params_and_name_scope():
    with mx.name.NameManager():
        class Net(gluon.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.dense0 = nn.Dense(2)
                    self.dense1 = nn.Dense(2)
                    self.w = self.params.get("w", shape=(2, 2))

            def hybrid_forward(self, F, x, w):
                return F.dot(self.dense1(self.dense0(x)), w)

        net = Net()
        other = Net(prefix="custom_")
        shared = nn.Dense(2, params=net.dense0.collect_params())
    assert net.prefix == "net0_" and net.name == "net0"
    assert net.dense1.prefix == "net0_dense1_" and net.dense1.weight.name == "net0_dense1_weight"
    assert net.w.name == "net0_w" and other.w.name == "custom_w"
    assert shared.weight is net.dense0.weight
    assert sorted(net.params) == ["net0_w"]


def test_a_name_scope_entered_again_inside_itself_names_and_restores_as_once():
    """A block's scope entered again inside itself (a hybridized call tracing inside a user's scope,
    an error raised there): children are named after the block, and each exit restores the scope
    that was current at its entry."""
    with mx.name.NameManager():
        net = nn.Dense(2)
        with net.name_scope():
            with net.name_scope():
                inner = nn.Dense(3)
            after = nn.Dense(3)
            with pytest.raises(ValueError):
                with net.name_scope():
                    raise ValueError("inside")
            last = nn.Dense(3)
        outside = nn.Dense(3)
    assert [b.name for b in (inner, after, last)] == ["dense0_dense0", "dense0_dense1", "dense0_dense2"]
    assert outside.name == "dense1"

    class NoForward(gluon.HybridBlock):
        pass
    block = NoForward()
    block.hybridize()
    with pytest.raises(NotImplementedError, match="NoForward must define forward"):
        block(mx.nd.ones((2,)))


def test_repr_nested():
    with mx.name.NameManager():
        net = _model()
    text = repr(net)
    assert text.startswith("Model(\n  (dense0): Dense(None -> 4, linear)\n  (body): HybridSequential(\n")
    assert "    (0): Dense(None -> 3, Activation(relu))" in text


def test_summary_prints_layers():
    net = _model()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        net.summary(mx.nd.ones((2, 5)))
    text = out.getvalue()
    assert "Dense-1" in text and "Total params: 48" in text and "(2, 2)" in text
    net.body.hybridize()
    with pytest.raises(AssertionError, match="must not be hybridized to print summary"):
        net.summary(mx.nd.ones((2, 5)))


def test_block_save_load_with_cached_graph(tmp_path):
    def make():
        net = nn.HybridSequential()
        net.add(nn.Dense(3, activation="tanh"), nn.Dense(2))
        return net
    net = make()
    net.initialize()
    net.hybridize()
    x = mx.nd.random.normal(shape=(2, 4))
    expected = net(x).asnumpy()
    prefix = str(tmp_path / "whole")
    net.save(prefix)
    with open(prefix + "-model.json") as f:
        model = json.load(f)
    top = model["hybridsequential" + "0"]
    assert top["hybridized"] and top["in_format"] == [0] and "nodes" in json.loads(top["symbol"])
    restored = make()
    restored.load(prefix)
    assert restored.hybridization.active and restored.hybridization.graph is not None
    np.testing.assert_allclose(restored(x).asnumpy(), expected, rtol=1e-6)
    assert os.path.exists(prefix + "-model.params")


def test_utils_split_and_clip():
    from hybridlab.gluon import utils
    x = mx.nd.arange(12).reshape((6, 2))
    parts = utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)])
    assert [p.shape for p in parts] == [(3, 2), (3, 2)] and parts[1].device == mx.cpu(1)
    with pytest.raises(ValueError, match="cannot be evenly split into 4 slices"):
        utils.split_data(x, 4)
    arrays = [mx.nd.ones((2,)) * 3, mx.nd.ones((2,)) * 4]
    assert utils.clip_global_norm(arrays, 1.0) == pytest.approx(np.sqrt(50))
    assert np.sqrt(sum((a.asnumpy() ** 2).sum() for a in arrays)) == pytest.approx(1.0, rel=1e-5)


def test_legacy_save_params_load_into_a_symbol_block(tmp_path):
    # MXNet 1.x's save_params: full names less the block's prefix; load_params restores it
    net = nn.HybridSequential(prefix="")
    with net.name_scope():
        net.add(nn.Dense(5, in_units=3), nn.Dense(2, in_units=5))
    net.initialize()
    x = mx.nd.ones((1, 3))
    path = str(tmp_path / "net.params")
    with pytest.warns(UserWarning, match="save_params is deprecated"):
        net.save_params(path)
    assert sorted(mx.nd.load(path)) == sorted(p.name for p in net.collect_params().values())
    model = gluon.SymbolBlock(outputs=net(mx.sym.var("data")), inputs=mx.sym.var("data"))
    with pytest.warns(UserWarning, match="load_params is deprecated"):
        model.load_params(path, ctx=mx.cpu())
    np.testing.assert_allclose(model(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)


def test_symbol_block_keys_its_file_names_without_the_common_prefix(tmp_path):
    # as MXNet 1.x: two instances of one wrapped model read each other's save_parameters files
    def wrapped():
        inner = nn.HybridSequential()
        with inner.name_scope():             # hybridsequential<n>_dense0_weight ...
            inner.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
        inner.initialize()
        return gluon.SymbolBlock(inner(mx.sym.var("data")), mx.sym.var("data"), params=inner.collect_params())

    first, second = wrapped(), wrapped()
    path = str(tmp_path / "w.params")
    first.save_parameters(path)
    assert sorted(mx.nd.load(path)) == ["0_bias", "0_weight", "1_bias", "1_weight"]
    second.load_parameters(path)
    x = mx.nd.ones((2, 3))
    np.testing.assert_allclose(second(x).asnumpy(), first(x).asnumpy())
