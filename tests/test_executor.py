"""MXNet 1.x's executor API: ``Symbol.bind`` / ``simple_bind`` / ``eval``, ``Executor.forward`` /
``backward`` with grad_req write/add/null, auxiliary states, ``reshape``, ``copy_params_from``,
monitor callbacks, and composing symbols by calling them."""
import os

import numpy as np
import pytest

import hybridlab as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


def mlp_symbol():
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name="fc1"), act_type="relu", name="relu1")
    return mx.sym.FullyConnected(h, num_hidden=3, name="fc2")


def params(rng, sym, data_shape):
    shapes, _, _ = sym.infer_shape(data=data_shape)
    return {n: rng.standard_normal(s).astype(np.float32) for n, s in zip(sym.list_arguments(), shapes)}


def imperative_grads(values, head):
    arrays = {k: mx.nd.array(v) for k, v in values.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        h = mx.nd.relu(mx.nd.FullyConnected(arrays["data"], arrays["fc1_weight"], arrays["fc1_bias"], num_hidden=5))
        out = mx.nd.FullyConnected(h, arrays["fc2_weight"], arrays["fc2_bias"], num_hidden=3)
    out.backward(mx.nd.array(head))
    return out.asnumpy(), {k: a.grad.asnumpy() for k, a in arrays.items()}


def test_bind_forward_backward_equals_imperative_autograd():
    rng = np.random.default_rng(0)
    sym = mlp_symbol()
    values = params(rng, sym, (4, 6))
    head = rng.standard_normal((4, 3)).astype(np.float32)
    want_out, want_grads = imperative_grads(values, head)
    args = [mx.nd.array(values[n]) for n in sym.list_arguments()]          # a list in argument order
    grads = {n: mx.nd.zeros(values[n].shape) for n in sym.list_arguments()}  # a dict by name
    ex = sym.bind(mx.cpu(), args, args_grad=grads)
    out = ex.forward(is_train=True)
    np.testing.assert_allclose(out[0].asnumpy(), want_out, rtol=1e-5)
    assert list(ex.output_dict) == ["fc2_output"] and ex.outputs[0] is out[0]
    ex.backward(mx.nd.array(head))
    for name in sym.list_arguments():
        assert ex.grad_dict[name] is grads[name]                  # written into the bound arrays
        np.testing.assert_allclose(grads[name].asnumpy(), want_grads[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_grad_req_add_accumulates_and_null_has_no_gradient():
    rng = np.random.default_rng(1)
    sym = mlp_symbol()
    values = params(rng, sym, (2, 6))
    head = np.ones((2, 3), np.float32)
    _, want = imperative_grads(values, head)
    reqs = {"data": "null", "fc1_weight": "add", "fc1_bias": "write", "fc2_weight": "write", "fc2_bias": "add"}
    ex = sym.simple_bind(mx.cpu(), grad_req=reqs, data=(2, 6))
    ex.copy_params_from({k: mx.nd.array(v) for k, v in values.items()})
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(head))
    assert "data" not in ex.grad_dict and ex.grad_arrays[0] is None
    np.testing.assert_allclose(ex.grad_dict["fc1_weight"].asnumpy(), 2 * want["fc1_weight"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["fc1_bias"].asnumpy(), want["fc1_bias"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["fc2_bias"].asnumpy(), 2 * want["fc2_bias"], rtol=1e-5, atol=1e-6)


def test_softmax_output_needs_no_head_gradient():
    data, label = mx.sym.var("data"), mx.sym.var("softmax_label")
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, no_bias=True, name="fc"), label,
                               name="softmax")
    ex = sym.simple_bind(mx.cpu(), data=(2, 4), softmax_label=(2,))
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    ex.arg_dict["fc_weight"][:] = w
    prob = ex.forward(is_train=True, data=x, softmax_label=np.array([0, 2], np.float32))[0].asnumpy()
    logits = x @ w.T
    want = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    np.testing.assert_allclose(prob, want, rtol=1e-5)
    ex.backward()
    np.testing.assert_allclose(ex.grad_dict["fc_weight"].asnumpy(), (want - np.eye(3)[[0, 2]]).T @ x, rtol=1e-5)


def test_batchnorm_aux_states_update_in_training_only():
    sym = mx.sym.BatchNorm(mx.sym.var("data"), fix_gamma=False, momentum=0.5, name="bn")
    ex = sym.simple_bind(mx.cpu(), data=(4, 2))
    assert list(ex.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    ex.arg_dict["bn_gamma"][:] = 1
    ex.aux_dict["bn_moving_var"][:] = 1
    x = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    ex.forward(is_train=False, data=x)
    assert ex.aux_dict["bn_moving_mean"].asnumpy().tolist() == [0, 0]
    ex.forward(is_train=True, data=x)
    ex.backward(mx.nd.ones((4, 2)))
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), [2.0, 2.5])


def test_eval_and_errors_name_what_is_wrong():
    x = mx.sym.var("x")
    assert (x * 2 + 1).eval(x=mx.nd.array([1, 2]))[0].asnumpy().tolist() == [3, 5]
    sym = mlp_symbol()
    with pytest.raises(mx.MXNetError, match=r"args expected an array for every name, missing \['fc1_weight'"):
        sym.bind(mx.cpu(), {"data": mx.nd.ones((1, 6))})
    ex = sym.simple_bind(mx.cpu(), data=(2, 6))
    with pytest.raises(mx.MXNetError, match=r"argument 'data' expected shape \(2, 6\), got \(3, 6\)"):
        ex.forward(data=np.ones((3, 6), np.float32))
    with pytest.raises(mx.MXNetError, match="unknown argument 'label'"):
        ex.forward(label=np.ones(2))
    with pytest.raises(mx.MXNetError, match="grad_req of 'data' expected 'write', 'add' or 'null', got 'sum'"):
        sym.simple_bind(mx.cpu(), grad_req={"data": "sum"}, data=(2, 6))


def test_reshape_shares_parameters_and_allocates_new_inputs():
    sym = mlp_symbol()
    ex = sym.simple_bind(mx.cpu(), data=(2, 6))
    ex.arg_dict["fc1_weight"][:] = 0.5
    bigger = ex.reshape(allow_up_sizing=True, data=(8, 6))
    assert bigger.arg_dict["fc1_weight"] is ex.arg_dict["fc1_weight"]
    assert bigger.grad_dict["fc2_bias"] is ex.grad_dict["fc2_bias"]
    assert bigger.arg_dict["data"].shape == (8, 6)
    assert bigger.forward(data=np.ones((8, 6), np.float32))[0].shape == (8, 3)
    with pytest.raises(mx.MXNetError, match="grows from \\(2, 6\\) to \\(8, 6\\); expected allow_up_sizing=True"):
        ex.reshape(data=(8, 6))
    with pytest.raises(mx.MXNetError, match="argument 'fc1_weight' changes from \\(5, 6\\) to \\(5, 4\\)"):
        ex.reshape(data=(2, 4))


def test_monitor_callback_sees_every_op_output():
    seen = []
    ex = mlp_symbol().simple_bind(mx.cpu(), data=(1, 6))
    ex.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)))
    ex.forward()
    assert seen == [("fc1_output", (1, 5)), ("relu1_output", (1, 5)), ("fc2_output", (1, 3))]


def test_compose_replaces_variables():
    net = mlp_symbol()
    features = mx.sym.Flatten(mx.sym.var("image"), name="flat")
    composed = net(data=features)
    assert composed.list_arguments() == ["image", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    assert net.list_arguments()[0] == "data"                       # the original is unchanged
    assert composed.infer_shape(image=(2, 3, 2))[1] == [(2, 3)]
    assert net(features, name="head").name == "head"
    with pytest.raises(mx.MXNetError, match=r"\['label'\] are not arguments"):
        net(label=features)


def test_real_mxnet_model_runs_through_bind():
    sym = mx.sym.load(os.path.join(DATA, "mlp-symbol.json"))
    saved = mx.nd.load(os.path.join(DATA, "mlp-0000.params"))
    x = np.load(os.path.join(DATA, "mlp-input.npy"))
    args = {k.split(":", 1)[1]: v for k, v in saved.items() if k.startswith("arg:")}
    data_name = [n for n in sym.list_arguments() if n not in args][0]
    ex = sym.bind(mx.cpu(), {**args, data_name: mx.nd.array(x)}, grad_req="null")
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), np.load(os.path.join(DATA, "mlp-output.npy")),
                               rtol=1e-5, atol=1e-6)


# ---- MXNet 1.9.1's executor behaviours (tests/python/unittest/test_executor.py, test_symbol.py) -------
def test_backward_after_an_inference_forward():
    lhs, rhs = mx.sym.var("lhs"), mx.sym.var("rhs")
    l, r = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    lg, rg = mx.nd.empty((2,)), mx.nd.empty((2,))
    ex = (lhs * rhs).bind(mx.cpu(), args=[l, r], args_grad=[lg, rg])
    ex.forward()                                   # is_train=False, as MXNet's default
    ex.backward([mx.nd.ones((2,))])
    assert lg.asnumpy().tolist() == [3.0, 5.0] and rg.asnumpy().tolist() == [1.0, 2.0]


def test_outputs_exist_from_bind_and_reshape_shares_memory():
    y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    assert [o.shape for o in exe.outputs] == [(5, 4)]
    out = exe.outputs[0]
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    new_exe = exe.reshape(x=(3, 4))
    new_exe.forward(is_train=False)
    assert np.all(new_exe.outputs[0].asnumpy() == 4)
    assert np.all(exe.outputs[0].asnumpy()[:3] == 4)          # the same memory, as in MXNet
    exe.forward(is_train=False)
    assert exe.outputs[0] is out and np.all(out.asnumpy() == 4)
    grown = exe.reshape(allow_up_sizing=True, x=(6, 4))
    grown.arg_arrays[0][:] = 0
    assert np.all(exe.arg_arrays[0].asnumpy() == 1)          # a larger input gets new memory
    assert np.all(grown.arg_arrays[1].asnumpy() == 1)        # the weight is shared


def test_bind_refuses_a_gradient_through_an_op_without_one():
    x, idx = mx.sym.var("x"), mx.sym.var("idx")
    y = mx.sym.batch_take(x, idx)
    types = {"x": np.float32, "idx": np.int32}
    with pytest.raises(mx.MXNetError, match="Operator batch_take is non-differentiable"):
        y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)
    exe = mx.sym.stop_gradient(y).simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types)
    exe.forward()
    exe.backward()
    assert exe.grad_dict["x"].asnumpy().sum() == 0
    y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=types, grad_req="null")


def test_get_optimized_symbol_follows_mxnet_eliminate_common_expr(monkeypatch):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    d = a + 1
    cases = [((a + 1) + (a + 2), 0), ((a + b) + (a + b), 1), (mx.sym.Group([a * d, a * d]), 0),
             (mx.sym.Group([a * d + b, a * d + b]), 1)]
    for sym, savings in cases:
        shapes = {n: (2, 3) for n in sym.list_inputs()}
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "0")
        orig = sym.simple_bind(mx.cpu(), **shapes)
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "1")
        cse = sym.simple_bind(mx.cpu(), **shapes)
        n_orig = len(orig.get_optimized_symbol().get_internals())
        assert len(cse.get_optimized_symbol().get_internals()) + savings == n_orig


def test_debug_str_reports_memory_and_zero_gradient_propagation():
    import re
    data = mx.sym.var("data")
    for _ in range(10):
        data = data * data

    def mb(sym, **kw):
        text = sym.simple_bind(mx.cpu(), data=(10, 3, 256, 256), **kw).debug_str()
        return int(re.search(r"Total (\d+) MB allocated", text).group(1))

    big, small1, small2 = mb(data), mb(data, grad_req="null"), mb(mx.sym.stop_gradient(data))
    assert small1 == small2 == 15          # MXNet 1.9.1: 15 (training: 90 in MXNet, 75 here)
    assert big > small2
