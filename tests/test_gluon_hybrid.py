"""HybridBlock in both styles: identical outputs and gradients before and after hybridize(), the
cached op and its events, graph naming and scopes, deferred shapes, and MXNet's errors."""
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import events, gluon
from hybridlab.gluon import nn


class Legacy(gluon.HybridBlock):
    """MXNet 1.x style, with its own parameter and children."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(4, kernel_size=3, padding=1, activation="relu")
            self.bn = nn.BatchNorm()
            self.pool = nn.MaxPool2D()
            self.dense = nn.Dense(5)
            self.scale = self.params.get("scale", shape=(1, 5), init=mx.init.Constant(2.0))

    def hybrid_forward(self, F, x, scale):
        x = self.pool(self.bn(self.conv(x)))
        return F.broadcast_mul(F.tanh(self.dense(x)), scale)


class Modern(gluon.HybridBlock):
    """MXNet 2.0 style, with a deferred-shape parameter of its own."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(4, kernel_size=3, padding=1, activation="relu")
        self.bn = nn.BatchNorm()
        self.pool = nn.GlobalAvgPool2D()
        self.proj = gluon.Parameter("proj", shape=(6, 0), allow_deferred_init=True)

    def forward(self, x):
        x = mx.npx.batch_flatten(self.pool(self.bn(self.conv(x))))
        return mx.np.tanh(mx.npx.fully_connected(x, self.proj.data(), num_hidden=6, no_bias=True))


def _grads(net):
    return {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items() if p.grad_req != "null"}


@pytest.mark.parametrize("make, array", [(Legacy, mx.nd.array), (Modern, mx.np.array)])
def test_same_outputs_and_gradients_hybridized(make, array):
    mx.random.seed(3)
    net = make()
    net.initialize(mx.init.Xavier())
    x = array(np.random.RandomState(0).normal(size=(2, 3, 8, 8)).astype("float32"))
    with mx.autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    imperative_grads = _grads(net)
    before = net(x).asnumpy()        # after the training step (BatchNorm's running statistics moved)
    running = net.bn.running_mean.data().asnumpy().copy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
    net.zero_grad()
    with mx.autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    for k, g in _grads(net).items():
        np.testing.assert_allclose(g, imperative_grads[k], rtol=1e-4, atol=1e-5, err_msg=k)
    assert not np.allclose(net.bn.running_mean.data().asnumpy(), running)   # the cached op updates them too
    assert "def forward(" in str(net.cached_op) and net.cached_op.source() == str(net.cached_op)


def test_modern_deferred_shapes_come_from_tracing():
    net = Modern()
    net.initialize()
    assert net.proj.shape == (6, 0)
    net(mx.np.ones((1, 3, 8, 8)))
    assert net.proj.shape == (6, 4) and net.conv.weight.shape == (4, 3, 3, 3)
    hybrid = Modern()
    hybrid.initialize()
    hybrid.hybridize()
    hybrid(mx.np.ones((1, 3, 8, 8)))
    assert hybrid.proj.shape == (6, 4)


def test_legacy_graph_names_like_mxnet_export():
    with mx.name.NameManager():
        net = Legacy()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3, 8, 8)))
    inputs, out = net.hybridization.inputs, net.hybridization.graph
    assert [s.name for s in inputs] == ["data"]
    names = [n.name for n in out._nodes() if not n.is_variable]
    assert names == ["legacy0_conv0_fwd", "legacy0_conv0_relu_fwd", "legacy0_batchnorm0_fwd", "legacy0_pool0_fwd",
                     "legacy0_dense0_fwd", "legacy0_tanh0", "legacy0_broadcast_mul0"]
    assert out.list_auxiliary_states() == ["legacy0_batchnorm0_running_mean", "legacy0_batchnorm0_running_var"]
    by_name = {n.name: n for n in out._nodes()}
    assert by_name["legacy0_dense0_fwd"].meta["scope"] == ["legacy0", "dense0"]
    assert by_name["legacy0_conv0_relu_fwd"].meta["scope"] == ["legacy0", "conv0", "relu"]
    assert by_name["legacy0_tanh0"].meta["source"]["file"].endswith("test_gluon_hybrid.py")


def test_modern_graph_has_scopes_and_user_lines():
    with mx.name.NameManager():
        net = Modern()
    net.initialize()
    net.hybridize()
    net(mx.np.ones((1, 3, 8, 8)))
    nodes = [n for n in net.hybridization.graph._nodes() if not n.is_variable]
    scopes = {tuple(n.meta["scope"]) for n in nodes}
    assert ("modern0", "conv0") in {s[:2] for s in scopes} and ("modern0",) in scopes
    tanh = [n for n in nodes if n.op.name.endswith("tanh")][0]
    assert tanh.meta["source"]["code"].startswith("return mx.np.tanh(")


def test_symbol_call_returns_symbol_and_mixed_styles():
    net = Legacy()
    net.initialize()
    out = net(mx.sym.var("data"))
    assert isinstance(out, mx.sym.Symbol) and out.list_arguments()[0] == "data"
    seq = nn.HybridSequential()
    seq.add(Modern(), nn.Dense(2))          # a 2.0-style child: the container is traced instead
    seq.initialize()
    x = mx.np.ones((2, 3, 8, 8))
    before = seq(x).asnumpy()
    seq.hybridize()
    np.testing.assert_allclose(seq(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="defines forward\\(\\) \\(MXNet 2.0 style\\) and was called with a Symbol"):
        seq(mx.sym.var("data"))


def test_cache_built_events_with_reasons():
    seen = []
    with events.subscribe("cache_built", lambda e: seen.append((e["block"], e["reason"], e["signature"],
                                                                 len(e["graph"]._nodes())))):
        with mx.name.NameManager():
            net = nn.HybridSequential()
            net.add(nn.Dense(3, in_units=4))
        net.initialize()
        net.hybridize()
        net(mx.nd.ones((1, 4)))
        net(mx.nd.ones((1, 4)))
        net(mx.nd.ones((2, 4)))
        net.hybridize(static_alloc=True, static_shape=True)
        net(mx.nd.ones((2, 4)))
        with pytest.warns(UserWarning, match="Automatically deactivate the hybridization when adding new children"):
            net.add(nn.Dense(2, prefix="dense1_"))   # not "dense0_" of the fresh NameManager above
        net[1].initialize()
        net.hybridize(static_alloc=True, static_shape=True)
        net(mx.nd.ones((2, 4)))
        with pytest.warns(UserWarning, match="when cast the block to use another data type"):
            net.cast("float64")
        net.hybridize(static_alloc=True, static_shape=True)
        net(mx.nd.ones((2, 4), dtype="float64"))
    assert [(b, r) for b, r, _, _ in seen] == [
        ("hybridsequential0", "first call"), ("hybridsequential0", "new input signature"),
        ("hybridsequential0", "hybridize flags changed"), ("hybridsequential0", "child added"),
        ("hybridsequential0", "cast")]
    assert seen[1][2].startswith("(2, 4) float32") and seen[0][3] == 4
    assert net.hybridization.flags[:2] == [("static_alloc", True), ("static_shape", True)]
    assert net[0].hybridization.flags[:2] == [("static_alloc", True), ("static_shape", True)]    # recursive


def test_hybridize_error_event_and_tracing_value_reads():
    class ReadsValues(gluon.HybridBlock):
        def forward(self, x):
            if x.sum().item() > 0:
                return x
            return -x

    net = ReadsValues()
    net(mx.np.ones((2,)))            # imperative: values exist
    net.hybridize()
    errors = []
    with events.subscribe("hybridize_error", lambda e: errors.append(e["block"])):
        with pytest.raises(mx.MXNetError, match="while the graph is being traced.*test_gluon_hybrid.py"):
            net(mx.np.ones((2,)))
    assert errors == [net.name]


def test_argument_structure_and_none_inputs():
    class Two(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, in_units=3)

        def forward(self, x, y=None):
            out = self.a(x)
            return out if y is None else out + y

    net = Two()
    net.initialize()
    net.hybridize()
    x, y = mx.np.ones((1, 3)), mx.np.ones((1, 2))
    np.testing.assert_allclose(net(x, y).asnumpy(), net.a(x).asnumpy() + 1, rtol=1e-6)
    with pytest.raises(ValueError, match=r"The argument structure of HybridBlock does not match the cached version. "
                                         r"Stored format = \[0, 0\], input format = \[0, \[0, 0\]\]"):
        net(x, [y, y])
    other = Two()
    other.initialize()
    other.hybridize()
    other(x)
    other(x, None)                   # trailing None: the stored structure plus defaults
    assert other.hybridization.inputs[0].name == "data"


def test_unused_input_and_parameter_warnings_and_devices():
    class Unused(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.used = nn.Dense(2, in_units=3)
            self.spare = nn.Dense(2, in_units=3)

        def forward(self, x, y):
            return self.used(x)

    net = Unused()
    net.initialize()
    net.hybridize()
    with pytest.warns(UserWarning) as record:
        net(mx.np.ones((1, 3)), mx.np.ones((1, 3)))
    messages = [str(w.message) for w in record]
    assert "The 1-th input to HybridBlock is not used by any computation. Is this intended?" in messages
    assert {w.filename for w in record} == {__file__}        # the warnings point at the call
    assert any(m.startswith(f"Parameter {net.spare.weight.var().name}") and m.endswith(
        "is not used by any computation. Is this intended?") for m in messages)
    with pytest.raises(ValueError, match="Find multiple devices in the input.*Find all devices = "):
        net(mx.np.ones((1, 3)), mx.np.ones((1, 3), device=mx.cpu(1)))


def test_wrong_rank_names_the_node_and_parameter():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4), nn.Dense(2))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 6)))
    with pytest.raises(mx.MXNetError, match=r"dense0_fwd.*FullyConnected.*weight.*expected shape \(4, 3\), "
                                            r"got \(4, 6\)"):
        net(mx.nd.ones((2, 3)))


def test_infer_shape_and_type():
    net = Legacy()
    net.initialize()
    net.infer_shape(mx.nd.ones((2, 3, 8, 8)))
    assert net.conv.weight.shape == (4, 3, 3, 3) and net.dense.weight.shape == (5, 64)
    net.infer_type(mx.nd.ones((2, 3, 8, 8)))
    assert net.dense.weight.dtype == np.float32


def test_export_before_forward_and_export_none():
    net = nn.HybridSequential()
    net.add(nn.Dense(2, in_units=3))
    net.initialize()
    with pytest.raises(RuntimeError, match="Please first call block.hybridize\\(\\) and then run forward with this "
                                           "block at least once before calling export."):
        net.export("never")
    net.hybridize()
    net(mx.nd.ones((1, 3)))
    sym, params = net.export(None)
    assert isinstance(sym, mx.sym.Symbol)
    assert sorted(params) == sorted(f"arg:{p.var().name}" for p in net.collect_params().values())


def test_hybrid_lambda_identity_and_dropout_modes():
    lam = nn.HybridLambda("tanh")
    lam.hybridize()
    np.testing.assert_allclose(lam(mx.nd.array([0.5])).asnumpy(), np.tanh([0.5]), rtol=1e-6)
    ident = nn.Identity()
    ident.hybridize()
    assert ident(mx.nd.array([1.0, 2.0])).asnumpy().tolist() == [1.0, 2.0]
    drop = nn.Dropout(0.5)
    drop.hybridize()
    x = mx.nd.ones((100, 100))
    assert drop(x).asnumpy().sum() == 10000                   # prediction mode: identity
    with mx.autograd.record():
        dropped = drop(x).asnumpy()
    assert 0.3 < (dropped == 0).mean() < 0.7 and set(np.unique(dropped)) <= {0.0, 2.0}


def test_no_warnings_in_the_common_path():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, activation="relu"), nn.Dense(1))
    net.initialize()
    net.hybridize(static_alloc=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net(mx.nd.ones((2, 4)))
        net(mx.nd.ones((2, 4)))


def test_hybridized_child_is_traced_into_the_parent():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            inner = nn.HybridSequential()
            with inner.name_scope():
                inner.add(nn.Dense(3, activation="relu"))
            net.add(inner, nn.Dense(2))
    net.initialize()
    net.hybridize()                      # recursive: the child is hybridized too
    assert inner.hybridization.active
    x = mx.nd.ones((1, 4))
    net(x)
    names = [n.name for n in net.hybridization.graph._nodes() if not n.is_variable]
    assert names == ["hybridsequential0_hybridsequential0_dense0_fwd",
                     "hybridsequential0_hybridsequential0_dense0_relu_fwd", "hybridsequential0_dense0_fwd"]
    assert inner.cached_op is None       # it ran inside the parent's program, not its own
    inner(x)                             # called alone it builds its own
    assert inner.cached_op is not None


def test_cache_built_events_carry_the_reason_and_the_new_signature_shapes():
    import hybridlab as mx
    from hybridlab.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    seen = []
    with mx.events.subscribe("cache_built", seen.append):
        net(mx.nd.ones((3, 5)))
        net(mx.nd.ones((7, 5)))
        net(mx.nd.ones((7, 5)))          # same signature: no rebuild
    assert [e["reason"] for e in seen] == ["first call", "new input signature"]
    from hybridlab.lab.graph_json import graph_json     # what a graph view draws of each event
    graphs = [graph_json(net, shapes=e["shapes"], dtypes=e["dtypes"]) for e in seen]
    heads = [g["nodes"][g["heads"][0][0]]["outputs"][0]["shape"] for g in graphs]
    assert heads == [[3, 2], [7, 2]]
    assert all(g["source_code"] for g in graphs)


def test_repeated_calls_see_parameter_updates_shapes_and_modes():
    """Repeated calls with an unchanged signature skip the lookup: they must still see new parameter
    values (in place or replaced), new shapes, np-style inputs and training mode."""
    import numpy as np
    import hybridlab as mx
    from hybridlab.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4), nn.Dropout(0.5))
    net.initialize()
    net.hybridize(static_alloc=True)
    x = mx.nd.ones((2, 4))
    first = net(x).asnumpy()
    np.testing.assert_array_equal(net(x).asnumpy(), first)
    net[0].weight.data()[:] = 0                         # written in place
    np.testing.assert_allclose(net(x).asnumpy(), np.broadcast_to(net[0].bias.data().asnumpy(), (2, 3)))
    net[0].weight.set_data(mx.nd.ones((3, 4)))          # replaced
    np.testing.assert_allclose(net(x).asnumpy(), 4 + np.broadcast_to(net[0].bias.data().asnumpy(), (2, 3)))
    assert net(mx.nd.ones((5, 4))).shape == (5, 3)
    assert type(net(mx.np.ones((2, 4)))) is mx.np.ndarray and net(mx.np.ones((2, 4)))._np
    with mx.autograd.train_mode():
        dropped = net(mx.nd.ones((50, 4))).asnumpy()
    assert (dropped == 0).any()


def test_partition_if_dynamic_runs_a_graph_with_boolean_mask():
    """A graph with a value-dependent output shape (boolean_mask) still hybridizes: the cached op runs
    the static parts compiled and the dynamic op imperatively; with partition_if_dynamic=False it
    refuses, naming the op."""
    import numpy as np
    import pytest
    import hybridlab as mx
    from hybridlab import gluon
    from hybridlab.gluon import nn

    class Masked(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.fc = nn.Dense(4, in_units=3)

        def hybrid_forward(self, F, x, m):
            return F.sum(F.contrib.boolean_mask(F.relu(self.fc(x)), m) * 2)

    net = Masked()
    net.initialize()
    x, m = mx.nd.random.normal(shape=(5, 3)), mx.nd.array([1, 0, 1, 1, 0])
    expected = net(x, m).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x, m).asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(net(x, mx.nd.array([0, 0, 1, 0, 0])).asnumpy().shape, expected.shape)
    kinds = [s.kind for s in net.cached_op._partition.segments]
    assert kinds == ["static", "dynamic", "static"]
    x.attach_grad()
    with mx.autograd.record():
        y = net(x, m)
    y.backward()
    assert x.grad.shape == (5, 3) and float(abs(x.grad).sum().asscalar()) > 0
    net.hybridize(partition_if_dynamic=False)
    with pytest.raises(mx.MXNetError, match="boolean_mask"):
        net(x, m)


def test_forward_style_blocks_with_dynamic_shape_ops_hybridize():
    """MXNet 2.0 style (forward with mx.np / mx.npx): tracing runs a dynamic-shape op (boolean_mask,
    nonzero, unique) on the real input and parameter values to learn its output shape, as MXNet 2.0's
    deferred compute; the graph then runs split around it. Outputs and gradients equal the imperative
    ones, for other masks too, and a parameter waiting for deferred initialisation is initialised."""

    class Masked(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4)                     # in_units deferred: known from the first input
            self.out = nn.Dense(2)                    # after the mask: its input shape comes from it

        def forward(self, x, m):
            h = mx.npx.boolean_mask(mx.npx.relu(self.fc(x)), m)
            return self.out(mx.np.tanh(h) * 2)

    class Indices(gluon.HybridBlock):
        def forward(self, x):
            idx = mx.npx.nonzero(x > 0)                            # (N, 2) int64
            picked = mx.npx.gather_nd(x, mx.np.transpose(idx))     # the positive entries
            uniq = mx.np.unique(mx.np.floor(picked))               # a dynamic op after a dynamic op
            return picked * 3, mx.np.sum(idx, axis=0), uniq

    x = mx.np.array(np.random.RandomState(0).randn(5, 3).astype(np.float32))
    m1, m2 = mx.np.array([1, 0, 1, 1, 0]), mx.np.array([0, 0, 1, 0, 0])

    def run(net, m):
        x.attach_grad()
        with mx.autograd.record():
            y = net(x, m)
        y.backward()
        return (y.asnumpy(), x.grad.asnumpy().copy(),
                {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items()})

    net = Masked()
    net.initialize()
    want = [run(net, m) for m in (m1, m2)]
    net.hybridize()
    got = [run(net, m) for m in (m1, m2)]
    for (y0, gx0, gp0), (y1, gx1, gp1) in zip(want, got):
        np.testing.assert_allclose(y1, y0, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gx1, gx0, rtol=1e-5, atol=1e-6)
        for k in gp0:
            np.testing.assert_allclose(gp1[k], gp0[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert got[0][0].shape == (3, 2) and got[1][0].shape == (1, 2)
    assert [s.kind for s in net.cached_op._partition.segments] == ["static", "dynamic", "static"]

    fresh = Masked()                                  # deferred initialisation while tracing
    fresh.initialize()
    fresh.hybridize()
    assert fresh(x, m1).shape == (3, 2) and fresh.fc.weight.shape == (4, 3)
    assert fresh.out.weight.shape == (2, 4)

    ind = Indices()
    ind.initialize()
    for data in (x, mx.np.array([[1.5, -1, 2.5], [0, 1.2, -3]])):
        want = [o.asnumpy() for o in ind(data)]
        ind.hybridize()
        got = [o.asnumpy() for o in ind(data)]
        ind.hybridize(False)
        assert [g.shape for g in got] == [w.shape for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        assert got[1].dtype == np.int64
    ind.hybridize()
    ind(x)
    assert [s.kind for s in ind.cached_op._partition.segments] == ["static", "dynamic", "static", "dynamic"]


def test_tracing_a_dynamic_shape_op_without_values_still_names_it():
    """Deferred compute without values (placeholders only) cannot learn a dynamic op's shape."""
    dc = mx._deferred_compute
    x = dc.placeholder((3,))
    dc.set_variable(x, mx.sym.var("x"))
    with dc.context(), pytest.raises(mx.MXNetError, match="nonzero: its output shape depends on the input"):
        mx.npx.nonzero(x)


class _Either(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, a, b):
        if a is None:
            return b * 2
        return a if b is None else a + b


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_legacy_block_takes_none_for_an_optional_first_input(hybridize):
    x = mx.nd.ones((3,))
    for args, expected in (((None, x), 2.0), ((x, None), 1.0), ((x, x), 2.0)):
        net = _Either()
        if hybridize:
            net.hybridize()
        for _ in range(2):      # the second call takes the cached op
            assert net(*args).asnumpy().tolist() == [expected] * 3
    with pytest.raises(ValueError, match="all inputs are None"):
        net(None, None)
    with pytest.raises(ValueError, match="all Symbols or all NDArrays"):
        net(x, mx.sym.var("a"))
    if hybridize:               # as MXNet's cached op: the structure of the inputs is fixed once built
        with pytest.raises(ValueError, match="does not match the cached version"):
            net(None, x)
