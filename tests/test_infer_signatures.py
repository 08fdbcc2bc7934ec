"""One shape/dtype inference per input signature (``symbol.infer.infer_graph``, called by
``Signature.infer``): the results belong to their signature, never to another one served by the
same graph nodes, and no consumer of a build (codegen, memory planning, backward plans, training
variants) infers the graph again."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.lab.widgets import GraphView
from hybridlab.symbol import infer as infer_mod


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


class _Forward(mx.gluon.HybridBlock):         # MXNet 2.0 style: traced by deferred compute
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3)

    def forward(self, x):
        return mx.np.tanh(self.dense(x)) * 2


def _count_inferences(monkeypatch):
    calls = []
    real = infer_mod.propagate

    def counting(nodes, tables, *args):
        calls.append(len(nodes))
        return real(nodes, tables, *args)
    monkeypatch.setattr(infer_mod, "propagate", counting)
    return calls


def _output_shape(graph):
    """The shape of the graph JSON's first head."""
    node, i = graph["heads"][0]
    return tuple(graph["nodes"][node]["outputs"][i]["shape"])


@pytest.mark.parametrize("make", [_mlp, _Forward], ids=["hybrid_forward", "forward"])
@pytest.mark.parametrize("static_alloc", [False, True])
def test_alternating_input_shapes_give_each_signature_its_own_shapes(make, static_alloc):
    net = make()
    if make is _Forward:
        net.initialize()
    xs = {2: mx.nd.random.normal(shape=(2, 5)), 7: mx.nd.random.normal(shape=(7, 5))}
    if make is _Forward:
        xs = {b: x.as_np_ndarray() for b, x in xs.items()}
    expected = {b: net(x).asnumpy() for b, x in xs.items()}        # imperative
    net.hybridize(static_alloc=static_alloc)
    view = GraphView(net)                                          # listens: redrawn on every build
    out_shapes = []
    for batch in (2, 7, 2, 7, 7, 2):
        got = net(xs[batch]).asnumpy()
        np.testing.assert_allclose(got, expected[batch], rtol=1e-5, atol=1e-6)
        out_shapes.append(_output_shape(view.graph))
    # the view follows the builds (one per signature), never a stale signature's shapes
    assert out_shapes[:2] == [(2, expected[2].shape[1]), (7, expected[7].shape[1])]
    assert view.rebuilds == 2
    view.close()
    state = net.hybridization
    assert [s.shapes[0] for s in state.signatures] == [(2, 5), (7, 5)]
    for sig in state.signatures:
        prog = state.cached_op.program(sig)
        head, i = state.cached_op._outputs[0]
        assert prog.shapes[id(head)][i] == (sig.shapes[0][0], expected[2].shape[1])
        if static_alloc:
            assert "B" in str(state.memory_plan(sig))
    fresh = GraphView(net)                       # a view made now shows the latest compiled signature
    assert _output_shape(fresh.graph) == (7, expected[7].shape[1])
    fresh.close()


def test_alternating_shapes_under_autograd_give_right_gradients():
    net, ref = _mlp(), _mlp()
    net(mx.nd.ones((1, 6)))
    ref(mx.nd.ones((1, 6)))
    net.hybridize()
    for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
        q.set_data(p.data())
    for batch in (3, 1, 3, 1):
        x = mx.nd.random.normal(shape=(batch, 6))
        for block in (net, ref):
            with mx.autograd.record():
                loss = (block(x) ** 2).sum()
            loss.backward()
        for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
            np.testing.assert_allclose(p.grad().asnumpy(), q.grad().asnumpy(), rtol=1e-4, atol=1e-5)
    sigs = net.hybridization.signatures
    assert sorted(s.shapes[0] for s in sigs) == [(1, 6), (3, 6)]
    for sig in sigs:
        plan = net.hybridization.backward_plan(sig)
        assert plan.forward.signature == sig


def test_a_build_infers_its_graph_once(monkeypatch):
    net = _mlp()
    x = mx.nd.ones((2, 5))
    net(x)
    net.hybridize(static_alloc=True)
    calls = _count_inferences(monkeypatch)
    net(x)
    assert len(calls) == 1                      # predict: codegen and memory planning read the results
    net(mx.nd.ones((3, 5)))
    assert len(calls) == 2                      # a new signature: one more
    net(x)
    assert len(calls) == 2                      # seen before: none
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    assert len(calls) == 3                      # the training signature: the backward plan reads it


def test_training_variants_extend_the_inferred_tables():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(2, kernel_size=3), nn.MaxPool2D(2))
    net.initialize()
    net.hybridize()
    x = mx.nd.random.normal(shape=(1, 1, 6, 6))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    plan = net.hybridization.backward_plan()
    assert plan.kept_workspaces                 # the convolution kept its columns
    for node, i in plan.saved_entries:
        assert plan.forward.shapes[id(node)][i] is not None


def test_zero_size_inputs_are_exact_shapes():
    net = _mlp()
    net(mx.nd.ones((1, 5)))
    net.hybridize()
    out = net(mx.nd.empty((0, 5)))        # legacy nd.ones/zeros refuse a 0 dim, as MXNet 1.x
    assert out.shape == (0, 2)
    prog = net.hybridization.cached_op.program()
    head, i = net.hybridization.cached_op._outputs[0]
    assert prog.shapes[id(head)][i] == (0, 2)


def test_signature_errors_name_the_node_and_the_argument():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    y = mx.sym.dot(x, w, name="d")
    op = mx.compiler.CachedOp(y)
    with pytest.raises(mx.MXNetError, match=r"CachedOp: node 'd' \(dot\): argument 'rhs' \(input 'w'\) expected "):
        op(mx.nd.ones((2, 3)), mx.nd.ones((4, 2)))
    with pytest.raises(mx.MXNetError, match=r"Error in operator d: Shape inconsistent"):
        y.infer_shape(x=(2, 3), w=(4, 2))


def test_symbolic_inference_sends_earlier_readers_of_a_filled_input_round_again():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    e = mx.sym.exp(x, name="e")                              # swept first: x is not known yet
    out = mx.sym.Group([e, mx.sym.elemwise_add(x, y, name="add")])   # fills x from y
    arg_shapes, out_shapes, _ = out.infer_shape(y=(2, 3))
    assert arg_shapes == [(2, 3), (2, 3)] and out_shapes == [(2, 3), (2, 3)]
