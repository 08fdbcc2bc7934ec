"""The imperative end of the tape is differentiated by one compiled program once its structure comes
again (``compiler.tape_backward``): every gradient equals the op-by-op backward's, and what must
see or do each gradient op (op hooks, recorded gradients, ``autograd.Function``) still runs op by
op."""
import importlib

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.compiler import tape_backward

driver = importlib.import_module("hybridlab.autograd.backward")   # (mx.autograd.backward is the function)


def _softmax_ce(rng):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.standard_normal(p.shape).astype(np.float32)))
    net.hybridize()
    x = mx.nd.array(rng.standard_normal((5, 4)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 3, 5))
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        return [p.grad().asnumpy().copy() for p in net.collect_params().values()]
    return step


def _leaf_twice(rng):
    x = mx.nd.array(rng.standard_normal((3, 4)).astype(np.float32))
    x.attach_grad()

    def step():
        with mx.autograd.record():
            y = (x * x + mx.nd.exp(x) * 0.5).sum(axis=1)
            z = mx.nd.broadcast_mul(y.reshape((3, 1)), x).mean()
        z.backward()
        return [x.grad.asnumpy().copy()]
    return step


def _split_and_head_grad(rng):
    x = mx.nd.array(rng.standard_normal((4, 6)).astype(np.float32))
    w = mx.nd.array(rng.standard_normal((6,)).astype(np.float32))
    x.attach_grad()
    w.attach_grad(grad_req="add")
    head = mx.nd.array(rng.standard_normal((4, 3)).astype(np.float32))

    def step():
        with mx.autograd.record():
            a, b = mx.nd.split(mx.nd.broadcast_mul(x, w), num_outputs=2, axis=1)
            out = mx.nd.tanh(a) - mx.nd.relu(b) * 3
        out.backward(head, retain_graph=True)
        out.backward(head)
        return [x.grad.asnumpy().copy(), w.grad.asnumpy().copy()]
    return step


@pytest.mark.parametrize("make", [_softmax_ce, _leaf_twice, _split_and_head_grad])
def test_compiled_imperative_backward_equals_op_by_op(make, monkeypatch):
    steps = {}
    for compiled in (True, False):
        with monkeypatch.context() as m:
            if not compiled:
                m.setattr(driver, "_segment_backward", [None])
            step = make(np.random.default_rng(7))
            steps[compiled] = [step() for _ in range(3)]
    for got, want in zip(steps[True], steps[False]):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_the_loss_of_a_training_loop_runs_compiled_and_one_offs_do_not():
    before = len(tape_backward._programs)
    step = _softmax_ce(np.random.default_rng(3))
    step()
    assert len(tape_backward._programs) == before             # seen once: op by op
    step()
    program = tape_backward.last_program()
    assert program.source.splitlines()[0].endswith("imperative backward of log_softmax, pick, negative, mean")
    assert "_backward_pick(" in program.source


def test_op_hooks_and_functions_keep_the_op_by_op_backward():
    from hybridlab import op_monitor
    x = mx.nd.array([[1.0, -2.0], [3.0, 0.5]])
    x.attach_grad()
    seen = []
    for _ in range(3):
        with op_monitor.hooks("h_", lambda name, op, arr: seen.append(name)):
            with mx.autograd.record():
                y = mx.nd.log_softmax(x * 2).sum()
            y.backward()
    assert any("backward_log_softmax" in n for n in seen)      # the hooks saw the gradient ops

    class Square(mx.autograd.Function):
        def forward(self, a):
            self.save_for_backward(a)
            return a * a

        def backward(self, dy):
            a, = self.saved_tensors
            return dy * 2 * a
    for _ in range(3):
        with mx.autograd.record():
            y = (Square()(x * 3) + 1).sum()
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 18 * x.asnumpy(), rtol=1e-6)
    for _ in range(3):                                         # recorded gradients: op by op, differentiable
        with mx.autograd.record():
            y = x * x * x
            g = mx.autograd.grad(y, [x], create_graph=True)[0]
        g.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * x.asnumpy(), rtol=1e-5)
