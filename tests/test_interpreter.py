"""compiler.interpreter: the one node-by-node runner gives the compiled program's values, and a
custom step sees (and may replace) every node's values."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError
from hybridlab.compiler import CachedOp
from hybridlab.compiler.interpreter import Interpreter
from models import tutorial_mlp_symbol


def _feed(symbol, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return {name: mx.nd.array(rng.standard_normal(shapes[name])) for name in symbol.list_inputs()}


def _compiled(symbol, feed):
    op = CachedOp(symbol)
    out = op(*[feed[n] for n in op.input_names])
    return out if isinstance(out, list) else [out]


def test_values_equal_the_compiled_program_on_the_tutorial_mlp():
    sym = tutorial_mlp_symbol()
    shapes = dict(zip(sym.list_inputs(), sym.infer_shape(data=(3, 512))[0]))
    feed = _feed(sym, shapes)
    got = Interpreter(sym).run(feed)
    want = _compiled(sym, feed)
    assert len(got) == len(want) == 1
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-5, atol=1e-6)


def test_multi_output_nodes_keep_every_output_under_its_index():
    x = mx.sym.var("x")
    parts = mx.sym.split(mx.sym.exp(x, name="e"), num_outputs=3, axis=1, name="sp")
    y = mx.sym.Group([mx.sym.relu(parts[2], name="r"), parts[0], mx.sym.sum(parts[1], name="s")])
    feed = _feed(y, {"x": (2, 6)})
    interpreter = Interpreter(y)
    got = interpreter.run(feed)
    for g, w in zip(got, _compiled(y, feed)):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
    split = next(n for n in interpreter.nodes if n.name == "sp")
    assert [interpreter.values[(split, i)].shape for i in range(3)] == [(2, 2)] * 3


def test_batchnorm_in_training_updates_the_fed_moving_stats_like_the_compiled_program():
    x = mx.sym.var("data")
    sym = mx.sym.BatchNorm(mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="conv"), fix_gamma=False,
                           name="bn")
    shapes = dict(zip(sym.list_inputs(), sym.infer_shape(data=(2, 3, 6, 6))[0]))
    shapes.update(zip(sym.list_auxiliary_states(), sym.infer_shape(data=(2, 3, 6, 6))[2]))
    runs = []
    for interpreted in (True, False):
        feed = _feed(sym, shapes, seed=1)
        feed["bn_moving_var"] = mx.nd.abs(feed["bn_moving_var"]) + 1
        for name in ("conv_weight", "bn_gamma"):
            feed[name].attach_grad()
        with mx.autograd.record():
            out = Interpreter(sym).run(feed)[0] if interpreted else _compiled(sym, feed)[0]
        out.backward()
        runs.append({"out": out.asnumpy(), "dw": feed["conv_weight"].grad.asnumpy(),
                     "dg": feed["bn_gamma"].grad.asnumpy(), "mean": feed["bn_moving_mean"].asnumpy(),
                     "var": feed["bn_moving_var"].asnumpy()})
    before = _feed(sym, shapes, seed=1)["bn_moving_mean"].asnumpy()
    assert not np.allclose(runs[0]["mean"], before)          # the interpreter's run updated the fed array
    for key in runs[0]:
        np.testing.assert_allclose(runs[0][key], runs[1][key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_a_custom_step_observes_and_replaces_values():
    x = mx.sym.var("x")
    y = mx.sym.sum(mx.sym.relu(mx.sym.negative(x, name="neg"), name="act"), name="s")
    seen = []

    class Doubling(Interpreter):
        def step(self, node, inputs):
            outs = super().step(node, inputs)
            seen.append((node.name, [i.asnumpy().tolist() for i in inputs]))
            return [outs[0] * 2] if node.name == "neg" else outs

    out = Doubling(y).run({"x": mx.nd.array([1.0, -3.0])})
    assert float(out[0].asscalar()) == 6.0
    assert seen == [("neg", [[1.0, -3.0]]), ("act", [[-2.0, 6.0]]), ("s", [[0.0, 6.0]])]


def test_known_values_are_not_computed_again():
    x = mx.sym.var("x")
    e = mx.sym.exp(x, name="e")
    y = mx.sym.relu(e, name="r")
    calls = []

    class Counting(Interpreter):
        def step(self, node, inputs):
            calls.append(node.name)
            return super().step(node, inputs)

    known = {(e.get_internals()[1]._outputs[0][0], 0): mx.nd.array([-1.0, 5.0])}
    out = Counting(y).run({"x": mx.nd.zeros((2,))}, values=known)
    assert calls == ["r"] and out[0].asnumpy().tolist() == [0.0, 5.0]
    assert any(k[0].name == "r" for k in known)                 # filled in as the run went


def test_variables_can_come_from_a_function_and_missing_ones_are_named():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    y = mx.sym.broadcast_mul(x, w, name="m")
    out = Interpreter(y).run(lambda name: mx.nd.array([2.0]) if name == "x" else mx.nd.array([3.0]))
    assert out[0].asnumpy().tolist() == [6.0]
    with pytest.raises(MXNetError, match=r"graph input 'w', got values for \['x'\]"):
        Interpreter(y).run({"x": mx.nd.array([2.0])})


def test_errors_name_the_node_and_a_missing_output():
    x = mx.sym.var("x")
    y = mx.sym.dot(x, mx.sym.var("w"), name="bad_dot")
    with pytest.raises(MXNetError, match="in node 'bad_dot'"):
        Interpreter(y).run({"x": mx.nd.ones((2, 3)), "w": mx.nd.ones((4, 5))})

    class Short(Interpreter):
        def step(self, node, inputs):
            return super().step(node, inputs)[:1]

    parts = mx.sym.split(x, num_outputs=2, axis=0, name="sp")
    with pytest.raises(MXNetError, match=r"node 'r' reads output 1 of node 'sp'"):
        Short(mx.sym.relu(parts[1], name="r")).run({"x": mx.nd.ones((2, 2))})
