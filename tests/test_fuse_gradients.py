"""Gradient calls fused in backward graphs (``compiler/passes/fuse_gradients.py``): softmax
cross-entropy's gradient, ``_backward_log_softmax(_backward_pick(...))``, is one call of
``_backward_pick_log_softmax`` in compiled backward programs (a hybridized loss, a loss written
with ``mx.nd`` after a hybridized net), with the gradients the two ops give op by op; calls that
do not meet the conditions stay apart."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.compiler import tape_backward
from hybridlab.compiler.passes.fuse_gradients import fuse_gradients
from hybridlab.gluon import nn

RNG = np.random.RandomState(0)


def _fused_names(symbol):
    return [n.op_name for n in symbol._nodes() if "fused" in n.meta]


def _grad(block, pred, label, hybridize):
    """The gradient of the summed loss of ``block`` w.r.t. ``pred`` and the backward plan's symbol
    (``None`` when not hybridized: then op by op, the reference)."""
    if hybridize:
        block.hybridize()
    z = mx.nd.array(pred)
    z.attach_grad()
    with mx.autograd.record():
        loss = block(z, mx.nd.array(label))
    loss.backward()
    return z.grad.asnumpy(), block.cached_op.backward_plan().symbol if hybridize else None


@pytest.mark.parametrize("pred_shape, label, kwargs", [
    ((6, 4), np.array([0, 3, 1, 2, 9, -2]), {}),                       # out-of-range labels clip
    ((6, 4), np.array([[0], [3], [1], [2], [1], [0]]), {}),           # labels (N, 1)
    ((3, 4, 5), RNG.randint(0, 4, (3, 5)), {"axis": 1}),             # classes along axis 1
    ((5, 3), RNG.randint(0, 3, 5), {"weight": 0.5, "batch_axis": 0}),
], ids=["clip", "n1_labels", "axis1", "weighted"])
def test_softmax_ce_gradient_is_one_fused_call_with_the_op_by_op_values(pred_shape, label, kwargs):
    pred = RNG.standard_normal(pred_shape).astype(np.float32)
    want, _ = _grad(mx.gluon.loss.SoftmaxCrossEntropyLoss(**kwargs), pred, label, hybridize=False)
    got, symbol = _grad(mx.gluon.loss.SoftmaxCrossEntropyLoss(**kwargs), pred, label, hybridize=True)
    assert _fused_names(symbol) == ["_backward_pick_log_softmax"]
    assert not any(n.op_name in ("_backward_pick", "_backward_log_softmax") for n in symbol._nodes())
    np.testing.assert_array_equal(got, want)      # the same values (signs of zeros aside)


class _TwoPicks(mx.gluon.HybridBlock):
    """log_softmax's output picked twice: its gradient is the sum of two scattered gradients."""

    def hybrid_forward(self, F, x, y):
        ls = F.log_softmax(x)
        return F.pick(ls, y) + F.pick(ls, 3 - y)


class _OtherAxis(mx.gluon.HybridBlock):
    """pick along another axis than log_softmax's: not the fused op's computation."""

    def hybrid_forward(self, F, x, y):
        return F.pick(F.log_softmax(x, axis=0), y, axis=1)


@pytest.mark.parametrize("block", [_TwoPicks, _OtherAxis])
def test_calls_that_do_not_fuse_stay_apart(block):
    pred = RNG.standard_normal((4, 4)).astype(np.float32)
    label = np.array([0, 1, 2, 3])
    want, _ = _grad(block(), pred, label, hybridize=False)
    got, symbol = _grad(block(), pred, label, hybridize=True)
    assert _fused_names(symbol) == []
    assert any(n.op_name == "_backward_log_softmax" for n in symbol._nodes())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_the_loss_written_with_nd_after_a_hybridized_net_runs_the_fused_call():
    """The lessons' loop: the compiled imperative backward, joined with the net's, fuses too."""
    mx.random.seed(1)
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    net.initialize()
    net.hybridize()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = mx.nd.array(RNG.standard_normal((5, 6))), mx.nd.array([0, 2, 1, 1, 0])
    grads = []
    for _ in range(3):                     # the first backward runs op by op; later ones compiled
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        grads.append([p.grad().asnumpy().copy() for p in net.collect_params().values()])
    source = tape_backward.last_program().source
    assert "_backward_pick_log_softmax(ctx" in source and "_backward_pick(ctx" not in source
    for g_compiled, g_op_by_op in zip(grads[2], grads[0]):
        np.testing.assert_allclose(g_compiled, g_op_by_op, rtol=1e-5, atol=1e-7)


class _LogSoftmaxNet(nn.HybridBlock):
    """A net whose output is already log-probabilities (a loss with ``from_logits=True`` after it)."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3)

    def hybrid_forward(self, F, x):
        return F.log_softmax(self.dense(x))


def test_the_fusion_meets_across_the_join_of_the_net_and_the_loss():
    """log_softmax's gradient in the hybridized net's plan, pick's in the imperative loss: the joined
    program fuses them too, with the op-by-op gradients."""
    mx.random.seed(2)
    net = _LogSoftmaxNet()
    net.initialize()
    net.hybridize()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)
    x, y = mx.nd.array(RNG.standard_normal((5, 6))), mx.nd.array([0, 2, 1, 1, 0])
    grads = []
    for _ in range(3):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        grads.append([p.grad().asnumpy().copy() for p in net.collect_params().values()])
    assert "_backward_log_softmax" in net.cached_op.source(kind="backward")      # the net's own plan
    source = tape_backward.last_program().source
    assert "after the backward of" in source.splitlines()[0]
    assert "_backward_pick_log_softmax(ctx" in source and "_backward_pick(ctx" not in source
    for g_compiled, g_op_by_op in zip(grads[2], grads[0]):
        np.testing.assert_allclose(g_compiled, g_op_by_op, rtol=1e-5, atol=1e-7)


def test_a_producer_output_read_elsewhere_is_not_fused():
    """The scattered gradient is also a graph output: the producer's call must stay."""
    og, idx, y = (mx.sym.var(n) for n in ("og", "idx", "y"))
    picked = mx.sym._backward_pick(og, idx, y, keepdims=True)
    out = mx.sym._backward_log_softmax(picked, y)
    named = {"og": (2, 1), "idx": (2,), "y": (2, 3)}
    shapes = {id(n): named[n.name] for n in out._nodes() if n.is_variable}
    graph = mx.sym.Group([out, picked])
    assert fuse_gradients(graph._outputs, shapes) == 0
    assert fuse_gradients(out._outputs, {}) == 0          # shapes unknown: the attributes cannot say
    assert fuse_gradients(out._outputs, shapes) == 1
    node = out._outputs[0][0]
    assert node.op_name == "_backward_pick_log_softmax" and [s.name for s, _ in node.inputs] == ["og", "idx", "y", "y"]
