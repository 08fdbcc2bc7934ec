"""mx.operator: operators written in Python (CustomOp / CustomOpProp) as MXNet 1.x projects write
them, run imperatively with autograd, as symbols bound by an executor, inside hybridized Gluon
blocks of both styles (and their exports), and trained by Module, where a custom softmax loss must
train exactly as SoftmaxOutput does."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd, gluon
from hybridlab.lab.graph_json import graph_json
from hybridlab.test_utils import check_numeric_gradient


class _Softmax(mx.operator.CustomOp):
    """MXNet's classic example (example/numpy-ops/custom_softmax.py): a loss layer in NumPy."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(y / y.sum(axis=1, keepdims=True)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("test_softmax")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Softmax()


class _Counting(mx.operator.CustomOp):
    """y = x * scale; counts its calls in the auxiliary state, which the forward mutates."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + 1
        self.assign(out_data[0], req[0], in_data[0] * self.scale)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale)


@mx.operator.register("test_counting_scale")
class _CountingProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__()
        self.scale = float(scale)

    def list_auxiliary_states(self):
        return ["calls"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return _Counting(self.scale)


class _Ones(mx.operator.CustomOp):
    def __init__(self, shape):
        super().__init__()
        self.value = np.ones(shape, dtype=np.float32)

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], self.value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        pass


@mx.operator.register("test_ones")
class _OnesProp(mx.operator.CustomOpProp):
    def __init__(self, rows, cols):
        super().__init__()
        self.shape = (int(rows), int(cols))

    def list_arguments(self):
        return []

    def infer_shape(self, in_shape):
        return [], [self.shape], []

    def infer_type(self, in_type):
        return [], [np.float32], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Ones(self.shape)


def test_an_imperative_custom_op_records_its_gradient_and_gets_keywords_as_strings():
    x = mx.nd.array([[1.0, -2.0], [3.0, 0.5]])
    calls = mx.nd.zeros((1,))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Custom(x, calls, op_type="test_counting_scale", scale=3)
    y.backward(mx.nd.ones_like(y) * 2)
    assert y.asnumpy().tolist() == [[3.0, -6.0], [9.0, 1.5]]
    assert x.grad.asnumpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert calls.asnumpy().tolist() == [1.0]          # the forward mutated its auxiliary state
    ones = mx.nd.Custom(rows=2, cols=3, op_type="test_ones")   # no inputs: keywords only
    assert ones.shape == (2, 3) and ones.asnumpy().sum() == 6


def test_a_custom_symbol_infers_shapes_and_its_backward_matches_finite_differences():
    data = mx.sym.var("data")
    out = mx.sym.Custom(data=data, calls=mx.sym.var("calls"), op_type="test_counting_scale", scale=0.5,
                        name="scaled")
    assert out.list_arguments() == ["data"] and out.list_auxiliary_states() == ["calls"]
    assert out.infer_shape(data=(4, 5)) == ([(4, 5)], [(4, 5)], [(1,)])
    x = np.random.uniform(-1, 1, (4, 5))
    check_numeric_gradient(mx.sym.tanh(out), [x], [np.zeros(1)])
    node = [n for n in json.loads(out.tojson())["nodes"] if n["op"] == "Custom"][0]
    assert node["attrs"] == {"op_type": "test_counting_scale", "scale": "0.5"}


class _Legacy(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = gluon.nn.Dense(3)

    def hybrid_forward(self, F, x, label):
        return F.Custom(self.dense(x), label, op_type="test_softmax")


class _Modern(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = gluon.nn.Dense(3)

    def forward(self, x, label):
        return mx.nd.Custom(self.dense(x), label, op_type="test_softmax")


@pytest.mark.parametrize("block", [_Legacy, _Modern], ids=["1.x", "2.0"])
def test_a_custom_loss_trains_inside_a_hybridized_block_and_exports(tmp_path, block):
    x, label = mx.nd.array(np.random.RandomState(0).randn(8, 4)), mx.nd.array([0, 1, 2, 0, 1, 2, 0, 1])
    nets = []
    for hybridize in (False, True):
        mx.random.seed(3)
        net = block()
        net.initialize(mx.init.Xavier())
        if hybridize:
            net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
        for _ in range(3):
            with autograd.record():
                p = net(x, label)
            p.backward()
            trainer.step(8)
        nets.append(net)
    imperative, hybridized = nets
    np.testing.assert_allclose(hybridized.dense.weight.data().asnumpy(), imperative.dense.weight.data().asnumpy(),
                               rtol=1e-5, atol=1e-6)
    drawn = graph_json(hybridized)["nodes"]        # what the graph view draws: its own Custom node
    assert [(n["attrs"]["op_type"], n["outputs"][0]["shape"]) for n in drawn if n["op"] == "Custom"] == \
        [("test_softmax", [8, 3])]
    hybridized.export(str(tmp_path / "net"))
    loaded = gluon.SymbolBlock.imports(str(tmp_path / "net-symbol.json"), ["data0", "data1"],
                                       str(tmp_path / "net-0000.params"))
    np.testing.assert_allclose(loaded(x, label).asnumpy(), hybridized(x, label).asnumpy(), rtol=1e-6)


def _module_weights(head):
    data, label = mx.sym.var("data"), mx.sym.var("softmax_label")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    out = head(fc, label)
    rng = np.random.RandomState(1)
    train = mx.io.NDArrayIter(rng.randn(32, 5).astype(np.float32), rng.randint(0, 3, 32).astype(np.float32),
                              batch_size=8)
    mod = mx.mod.Module(out, data_names=["data"], label_names=["softmax_label"])
    mx.random.seed(7)
    mod.fit(train, num_epoch=3, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1, "rescale_grad": 1.0})
    return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}


def test_a_custom_softmax_loss_trains_a_module_exactly_as_softmax_output():
    custom = _module_weights(lambda fc, label: mx.sym.Custom(data=fc, label=label, op_type="test_softmax"))
    builtin = _module_weights(lambda fc, label: mx.sym.SoftmaxOutput(fc, label, name="softmax"))
    for name in ("fc_weight", "fc_bias"):
        np.testing.assert_allclose(custom[name], builtin[name], rtol=1e-5, atol=1e-6)


def test_custom_errors_name_the_op_type_and_what_was_expected():
    with pytest.raises(mx.MXNetError, match=r"op_type 'nope' is not registered.*mx.operator.register"):
        mx.nd.Custom(mx.nd.ones((2,)), op_type="nope")
    with pytest.raises(mx.MXNetError, match=r"Custom.*input 'label'|argument 'label' expected shape \(4,\)"):
        mx.nd.Custom(mx.nd.ones((4, 3)), mx.nd.ones((5,)), op_type="test_softmax")
    with pytest.raises(mx.MXNetError, match="expected a CustomOpProp subclass"):
        mx.operator.register("bad")(object)
