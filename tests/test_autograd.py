"""autograd: record/pause/modes, backward with head gradients, grad_req, retain_graph, higher order."""
import numpy as np
import pytest

import hybridlab as mx


def test_modes():
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    with mx.autograd.record():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with mx.autograd.pause():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
        with mx.autograd.predict_mode():
            assert mx.autograd.is_recording() and not mx.autograd.is_training()
    with mx.autograd.record(train_mode=False):
        assert not mx.autograd.is_training()
    with mx.autograd.train_mode():
        assert mx.autograd.is_training() and not mx.autograd.is_recording()
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()


def test_backward_chain_and_reuse():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x + mx.nd.exp(x) * x     # x used several times
        z = y.sum()
    z.backward()
    xn = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * xn + np.exp(xn) * (1 + xn), rtol=1e-5)


def test_head_gradients_and_multiple_heads():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        a = x * 3
        b = x * x
    mx.autograd.backward([a, b], [mx.nd.array([1.0, 1.0]), mx.nd.array([2.0, 0.5])])
    np.testing.assert_allclose(x.grad.asnumpy(), [3 + 2 * 2 * 1, 3 + 0.5 * 2 * 2])


def test_grad_req_add_and_null():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(3):
        with mx.autograd.record():
            y = (x * 2).sum()
        y.backward()
    assert x.grad.asnumpy().tolist() == [6.0, 6.0]
    w = mx.nd.array([1.0])
    w.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = (w * 5).sum()
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        y.backward()
    with pytest.raises(mx.MXNetError, match="grad_req"):
        w.attach_grad(grad_req="sometimes")


def test_retain_graph():
    x = mx.nd.array([2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.asnumpy().tolist() == [4.0]
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()


def test_not_recorded_raises():
    x = mx.nd.array([2.0])
    x.attach_grad()
    y = x * 2           # outside record(): nothing recorded
    with pytest.raises(mx.MXNetError, match="autograd.record"):
        y.backward()


def test_detach_and_pause_cut_the_graph():
    x = mx.nd.array([2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x.detach() * x
        with mx.autograd.pause():
            c = x * 100
        z = y + c
    z.backward()
    assert x.grad.asnumpy().tolist() == [2.0]


def test_grad_function_and_higher_order():
    x = mx.nd.array([0.5, 1.5])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.exp(x) * x
        (dx,) = mx.autograd.grad(y, [x], create_graph=True)
    xn = np.array([0.5, 1.5])
    np.testing.assert_allclose(dx.asnumpy(), np.exp(xn) * (1 + xn), rtol=1e-5)
    dx.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp(xn) * (2 + xn), rtol=1e-5)


def test_grad_does_not_touch_dot_grad():
    x = mx.nd.array([3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    g = mx.autograd.grad(y, x)
    assert g[0].asnumpy().tolist() == [6.0] and x.grad.asnumpy().tolist() == [0.0]


def test_mark_variables():
    x = mx.nd.array([1.0, 2.0])
    gx = mx.nd.zeros((2,))
    mx.autograd.mark_variables([x], [gx])
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    assert gx.asnumpy().tolist() == [2.0, 4.0]


def test_train_mode_reaches_ops():
    x = mx.nd.ones((200,))
    with mx.autograd.record():
        dropped = mx.nd.Dropout(x, p=0.5)
    assert 0 < float((dropped.asnumpy() == 0).mean()) < 1
    with mx.autograd.record(train_mode=False):
        kept = mx.nd.Dropout(x, p=0.5)
    assert kept.asnumpy().tolist() == x.asnumpy().tolist()


def test_the_autograd_namespace_holds_mxnets_names():
    """mx.autograd re-exports MXNet's public names; the state and the driver live in its modules."""
    assert set(mx.autograd.__all__) == {"record", "pause", "train_mode", "predict_mode", "is_recording",
                                        "is_training", "set_recording", "set_training", "mark_variables",
                                        "backward", "grad", "get_symbol", "Function", "NDArray"}
    assert all(callable(getattr(mx.autograd, n)) for n in mx.autograd.__all__)
    assert mx.nd.NDArray.backward.__module__ == "hybridlab.autograd.backward"


def test_array_of_a_freed_graph_is_a_constant_in_a_new_recording():
    # MXNet 1.9.1: backward without retain_graph frees the graph; y is then a constant (x.grad == [3.0])
    x = mx.nd.ones((1,))
    x.attach_grad()
    with mx.autograd.record():
        y = x * 3
    y.backward()
    with mx.autograd.record():
        z = y * x
    z.backward()
    assert x.grad.asnumpy().tolist() == [3.0]
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        y.backward()


def test_recorded_value_into_part_of_an_unrecorded_array_is_refused_as_in_mxnet():
    y = mx.nd.ones((4,))
    y.attach_grad()
    x = mx.nd.zeros((3, 4))
    with mx.autograd.record():
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            x[0] = y
        x[:] = y * 2           # the whole array: recorded as a copy (MXNet's copyto)
        loss = x.sum()
    loss.backward()
    assert y.grad.asnumpy().tolist() == [6.0, 6.0, 6.0, 6.0]


def test_null_grad_req_variable_loses_its_buffer_after_backward():
    # MXNet 1.9.1: backward frees the graph, and a variable with grad_req='null' read by it is no
    # variable anymore (.grad is None); one the graph did not read keeps its buffer
    a, b, c = mx.np.ones((2, 3)), mx.np.ones((3, 3)), mx.np.ones((2,))
    a.attach_grad(grad_req="null")
    b.attach_grad()
    c.attach_grad(grad_req="null")
    assert a.grad.shape == (2, 3)
    with mx.autograd.record():
        y = mx.np.matmul(a, b)
    y.backward()
    assert a.grad is None and c.grad is not None
    assert b.grad.tolist() == [[2.0] * 3] * 3
    # retain_graph keeps the graph, and with it the buffer
    a.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = mx.np.matmul(a, b)
    y.backward(retain_graph=True)
    assert a.grad is not None


def test_views_of_a_variable_are_that_variable():
    # as_np_ndarray / as_nd_ndarray share the variable (MXNet's shallow copy shares its autograd entry)
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.sum(x.as_np_ndarray() * 3) + mx.np.sum(x.as_np_ndarray() ** 2)
    y.backward()
    assert x.grad.asnumpy().tolist() == [5.0, 7.0]      # 3 + 2x, both uses accumulated

