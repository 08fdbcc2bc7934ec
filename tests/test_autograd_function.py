"""``mx.autograd.Function``: hand-written forward and backward, recorded as one tape node."""
import numpy as np
import pytest

import hybridlab as mx


class Sigmoid(mx.autograd.Function):
    def forward(self, x):
        y = 1 / (1 + mx.nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


class SplitScale(mx.autograd.Function):
    """Two inputs, two outputs: (2a, a*b)."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return 2 * a, a * b

    def backward(self, d_double, d_product):
        a, b = self.saved_tensors
        return 2 * d_double + d_product * b, d_product * a


def test_function_gradient_flows_through_the_rest_of_the_graph():
    x = mx.nd.array([-1.0, 0.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (Sigmoid()(x * 3) ** 2).sum()
    y.backward()
    s = 1 / (1 + np.exp(-3 * x.asnumpy()))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * s * s * (1 - s) * 3, rtol=1e-5)


def test_function_with_several_inputs_and_outputs():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, -1.0])
    a.attach_grad(), b.attach_grad()
    with mx.autograd.record():
        double, product = SplitScale()(a, b)
        loss = (double + 10 * product).sum()
    loss.backward()
    assert a.grad.asnumpy().tolist() == [2 + 30, 2 - 10] and b.grad.asnumpy().tolist() == [10, 20]


def test_function_outside_record_just_computes_and_instances_are_single_use():
    f = Sigmoid()
    assert f(mx.nd.array([0.0])).asnumpy().tolist() == [0.5]
    with pytest.raises(mx.MXNetError, match="each Function instance can only be called once"):
        f(mx.nd.array([0.0]))


def test_backward_returning_the_wrong_number_of_gradients_names_it():
    class Bad(mx.autograd.Function):
        def forward(self, a, b):
            return a + b

        def backward(self, dy):
            return dy

    a, b = mx.nd.ones(2), mx.nd.ones(2)
    a.attach_grad()
    with mx.autograd.record():
        y = Bad()(a, b)
    with pytest.raises(mx.MXNetError, match=r"Bad.backward: expected 2 gradients \(one per forward input\), got 1"):
        y.backward()
