"""The training step's fast paths give the results of the general paths they skip:

* ``backward`` has a hybridized block's compiled backward write a gradient straight into the
  variable's buffer (``grad_req='write'``, the block alone gives it), and hands a fresh gradient's
  memory to the buffer where no one can tell: views of the buffer, the user's head gradients,
  gradients shared between two variables and ``autograd.grad`` keep their meaning,
* ``_backward_pick`` (placed, not scatter-added), ``mean`` (NumPy's mean without its wrapper) and
  reductions over axes of size 1 (each value its own result) equal the formulas they replace, and
  a reduction's geometry kept per attributes, shape and dtype is never another call's,
* the dispatcher's path for dense arrays on one device object checks and records as the general one,
* an array whose graph a backward freed is a constant to a hybridized block's plan as to the tape.
"""
import numpy as np
import pytest

import hybridlab as mx


def _dense_step(grad_req="write"):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize(mx.init.One())
    net.hybridize()
    net.collect_params().setattr("grad_req", grad_req)
    x = mx.nd.ones((2, 4))
    with mx.autograd.record():
        y = net(x).sum()
    y.backward()
    return net


def test_backward_adopts_fresh_gradient_memory_and_keeps_values():
    w = mx.nd.ones((3, 4))
    w.attach_grad()
    before = id(w.grad._data)
    with mx.autograd.record():
        y = (w * w * 3).sum()          # imperative ops: a fresh gradient array
    y.backward()
    assert id(w.grad._data) != before          # the op's array became the buffer
    np.testing.assert_array_equal(w.grad.asnumpy(), np.full((3, 4), 6.0, np.float32))


def test_hybridized_backward_writes_gradients_into_their_buffers():
    net = _dense_step()
    buf = net.weight.grad()._data
    view = net.weight.grad()[1]
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(2, 4))
    with mx.autograd.record():
        y = (net(x) * 3).sum()
    y.backward()
    assert net.weight.grad()._data is buf                   # the backward program wrote the buffer
    want = np.tile(3 * np.arange(8, dtype=np.float32).reshape(2, 4).sum(axis=0), (3, 1))
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), want)
    np.testing.assert_array_equal(view.asnumpy(), want[1])    # a view of the buffer sees it
    np.testing.assert_array_equal(net.bias.grad().asnumpy(), np.full(3, 6.0, np.float32))
    plan = net.cached_op.backward_plan()
    assert any("out=into" in prog.source for prog in plan._into.values())


def test_hybridized_backward_sums_a_gradient_fed_twice_and_keeps_grad_results_apart():
    net = _dense_step()
    x = mx.nd.ones((2, 4))
    with mx.autograd.record():      # the weight feeds the block and an imperative op: the two add up
        y = net(x).sum() + (net.weight.data() * 5).sum()
    y.backward()
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.full((3, 4), 7.0, np.float32))
    net.weight.grad()[:] = -1
    with mx.autograd.record():      # autograd.grad returns gradients: the buffers stay as they are
        y = net(x).sum()
    got = mx.autograd.grad(y, [net.weight.data()])[0]
    np.testing.assert_array_equal(got.asnumpy(), np.full((3, 4), 2.0, np.float32))
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.full((3, 4), -1.0, np.float32))


def test_hybridized_backward_does_not_write_a_buffer_it_reads():
    class Add(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, p, q):
            return p * q
    blk = Add()
    blk.hybridize()
    p, q = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    p.attach_grad()
    q.attach_grad()
    p.grad[:] = 10
    with mx.autograd.record():
        z = blk(p, q)
    z.backward(p.grad)            # the head gradient is p's own gradient buffer
    np.testing.assert_array_equal(p.grad.asnumpy(), [30.0, 40.0])
    np.testing.assert_array_equal(q.grad.asnumpy(), [10.0, 20.0])


def test_backward_keeps_a_viewed_gradient_buffer():
    w = mx.nd.ones((4,))
    w.attach_grad()
    view = w.grad[1:3]
    with mx.autograd.record():
        loss = (w * w * 3).sum()
    loss.backward()
    np.testing.assert_array_equal(view.asnumpy(), [6.0, 6.0])    # the view still sees the buffer
    view[:] = 0
    np.testing.assert_array_equal(w.grad.asnumpy(), [6.0, 0.0, 0.0, 6.0])


def test_backward_does_not_alias_the_head_gradient_or_shared_gradients():
    a = mx.nd.array([1.0, 2.0])
    a.attach_grad()
    head = mx.nd.array([3.0, 4.0])
    a.backward(head)
    head[:] = 0
    np.testing.assert_array_equal(a.grad.asnumpy(), [3.0, 4.0])

    class Add(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, p, q):
            return p + q
    blk = Add()
    blk.hybridize()
    p, q = mx.nd.ones((3,)), mx.nd.ones((3,))
    p.attach_grad()
    q.attach_grad()
    for _ in range(2):
        with mx.autograd.record():
            z = blk(p, q)
        z.backward(mx.nd.array([1.0, 2.0, 3.0]))
    p.grad[:] = 7
    np.testing.assert_array_equal(q.grad.asnumpy(), [1.0, 2.0, 3.0])


def test_backward_grad_req_add_accumulates():
    net = _dense_step("add")
    x = mx.nd.ones((2, 4))
    with mx.autograd.record():
        y = net(x).sum()
    y.backward()
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.full((3, 4), 4.0, np.float32))


@pytest.mark.parametrize("axis, keepdims, mode", [(-1, True, "clip"), (0, False, "wrap"), (1, False, "clip")])
def test_backward_pick_places_the_gradient(axis, keepdims, mode):
    rng = np.random.default_rng(1)
    x = mx.nd.array(rng.standard_normal((4, 3)).astype(np.float32))
    x.attach_grad()
    n = x.shape[axis]
    other = 3 if axis == 0 else 4
    idx = mx.nd.array([-1.0, 0.0, 5.0, 2.0][:other])            # out of range: clipped or wrapped
    with mx.autograd.record():
        y = mx.nd.pick(x, idx, axis=axis, keepdims=keepdims, mode=mode)
    g = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(mx.nd.array(g))
    raw = np.array([-1, 0, 5, 2][:other])
    k = np.clip(raw, 0, n - 1) if mode == "clip" else raw % n
    want = np.zeros((4, 3), np.float32)
    for j, kj in enumerate(k):
        if axis == 0:
            want[kj, j] = g.reshape(-1)[j]
        else:
            want[j, kj] = g.reshape(-1)[j]
    np.testing.assert_array_equal(x.grad.asnumpy(), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_mean_equals_numpy_mean(dtype):
    data = (np.random.default_rng(2).standard_normal((5, 6, 3)) * 10).astype(dtype)
    for kwargs, axes in (({"axis": 1}, (1,)), ({"axis": 0, "exclude": True}, (1, 2)), ({}, (0, 1, 2))):
        got = mx.nd.mean(mx.nd.array(data, dtype=dtype), keepdims=True, **kwargs).asnumpy()
        acc = np.float32 if dtype in (np.float16, np.int32) else dtype
        want = np.mean(data, axis=axes, keepdims=True, dtype=acc)
        np.testing.assert_array_equal(got, want.astype(got.dtype))


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "nansum", "nanprod"])
def test_reducing_axes_of_size_one_gives_each_value_as_numpy(name):
    data = np.array([[-0.0], [np.nan], [3.5], [-np.inf]], np.float32)
    for mod, arr in ((mx.nd, mx.nd.array(data)), (mx.np, mx.np.array(data))):
        if not hasattr(mod, name):
            continue
        got = getattr(mod, name)(arr, axis=1).asnumpy()
        want = getattr(np, name)(data, axis=1)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))     # sums of -0.0 are 0.0
        assert got.base is None or not np.shares_memory(got, data)
    kept = mx.nd.mean(mx.nd.array(data), axis=0, exclude=True)                # a loss's per-sample mean
    assert kept.shape == (4,)


def test_recorded_calls_reuse_the_last_plan_only_while_the_same_inputs_need_gradients():
    net = _dense_step()               # hybridized Dense(3, in_units=4) of ones, called recorded once
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(2, 4))
    for attach, req in (("no", "write"), ("no", "write"), ("yes", "write"), ("no", "null"), ("no", "write")):
        net.weight.grad_req = req
        xx = x.copy()
        if attach == "yes":
            xx.attach_grad()
        with mx.autograd.record():
            y = (net(xx) * 2).sum()
        y.backward()
        if req == "write":
            np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.tile(2 * x.asnumpy().sum(axis=0), (3, 1)))
        else:
            assert net.weight.grad_req == "null"
        if attach == "yes":
            np.testing.assert_array_equal(xx.grad.asnumpy(), np.full((2, 4), 6.0, np.float32))
        np.testing.assert_array_equal(net.bias.grad().asnumpy(), np.full(3, 4.0, np.float32))
    with mx.autograd.record(train_mode=False):       # another mode: another plan
        y = net(x).sum()
    y.backward()
    np.testing.assert_array_equal(net.bias.grad().asnumpy(), np.full(3, 2.0, np.float32))
    net.weight.set_data(mx.nd.ones((3, 4)) * 2)       # new values, same arrays: the plan reads them
    with mx.autograd.record():
        y = net(x)
    np.testing.assert_array_equal(y.asnumpy(), np.repeat([[12.0], [44.0]], 3, axis=1))     # (zero bias)


def test_calls_with_several_arrays_reuse_the_last_program_or_plan_of_their_signature():
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    loss_fn.hybridize()
    rng = np.random.default_rng(4)
    z = mx.nd.array(rng.standard_normal((6, 3)).astype(np.float32))
    z.attach_grad()
    want_loss = loss_fn(z, mx.nd.array([0, 1, 2, 2, 1, 0])).asnumpy()   # (a predict call first)
    for labels in ([0, 1, 2, 2, 1, 0], [0, 1, 2, 2, 1, 0], [2, 2, 2, 0, 0, 0], [1, 1, 1, 1, 1, 1]):
        y = mx.nd.array(labels)
        with mx.autograd.record():
            loss = loss_fn(z, y)
        loss.backward()
        p = np.exp(z.asnumpy()) / np.exp(z.asnumpy()).sum(axis=1, keepdims=True)
        want = p - np.eye(3, dtype=np.float32)[labels]
        np.testing.assert_allclose(z.grad.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(loss_fn(z, mx.nd.array([0, 1, 2, 2, 1, 0])).asnumpy(), want_loss)
    z2 = mx.nd.array(rng.standard_normal((2, 3)).astype(np.float32))     # another signature: built anew
    assert loss_fn(z2, mx.nd.array([0, 1])).shape == (2,)
    with pytest.raises(mx.MXNetError):                                   # a wrong label shape still checked
        loss_fn(z2, mx.nd.array([0, 1, 2]))
    zn = z.as_np_ndarray()                                               # np arrays give np arrays
    assert isinstance(loss_fn(zn, mx.np.array([0, 1, 2, 2, 1, 0])), mx.np.ndarray)


def test_a_reduction_kept_geometry_follows_each_call_shape_and_dtype():
    """One parsed attribute dict (the same keywords) reduces arrays of other shapes and dtypes in turn:
    each call gets its own axes, result shape and dtype, not the last call's."""
    rng = np.random.default_rng(8)
    for shape, dtype in (((6, 1), np.float32), ((6, 3), np.float32), ((6, 3), np.int32), ((2, 6, 3), np.float64),
                         ((6, 1), np.float16), ((6, 3), np.float32)):
        data = (rng.standard_normal(shape) * 4).astype(dtype)
        got = mx.nd.mean(mx.nd.array(data, dtype=dtype), axis=0, exclude=True)
        acc = np.float32 if dtype in (np.float16, np.int32) else dtype
        want = np.mean(data, axis=tuple(range(1, len(shape))), dtype=acc).astype(dtype)   # (legacy mean: the input's dtype)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-3 if dtype == np.float16 else 1e-6)
        s = mx.nd.sum(mx.nd.array(data, dtype=dtype), axis=0, exclude=True)
        np.testing.assert_allclose(s.asnumpy(), data.sum(axis=tuple(range(1, len(shape)))), rtol=1e-3)


def test_the_dispatcher_checks_and_records_dense_calls_as_the_general_path():
    a, b = mx.nd.array([1.0, 2.0], ctx=mx.cpu(0)), mx.nd.array([3.0, 4.0], ctx=mx.cpu(1))
    with pytest.raises(mx.MXNetError, match="all inputs must be on one device: expected cpu.0., got an input on cpu.1."):
        mx.nd.elemwise_add(a, b)
    with pytest.raises(mx.MXNetError, match="expected 2 inputs"):
        mx.nd.elemwise_add(a)
    c = mx.nd.array([5.0, 6.0])
    np.testing.assert_array_equal(mx.nd.elemwise_add(a, c).asnumpy(), [6.0, 8.0])      # (cpu(0) made anew)
    np.testing.assert_array_equal(mx.nd.elemwise_add(a, np.array([1.0, 1.0])).asnumpy(), [2.0, 3.0])   # general path
    assert isinstance(mx.np.add(a.as_np_ndarray(), c.as_np_ndarray()), mx.np.ndarray)
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = c * 3                             # no input needs a gradient: not on the tape
        z = mx.nd.elemwise_mul(x, y) + c      # recorded, its sources: the variable, a constant
    assert y._node is None and z._node is not None
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [15.0, 18.0])


def test_an_array_of_a_freed_graph_is_a_constant_to_a_hybridized_block():
    """A backward without ``retain_graph`` frees its graph: an array computed in it is a constant
    from then on, for the block's plan (which inputs need gradients) as for the tape."""
    net = _dense_step()
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(2, 4))
    x.attach_grad()
    with mx.autograd.record():
        h = x * 1.0
    h.backward()                                            # frees h's graph
    assert mx.autograd.state.gradient_mask([h, x]) == (False, True)
    for _ in range(3):
        with mx.autograd.record():
            y = (net(h) * 2).sum()
        y.backward()
        np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.tile(2 * h.asnumpy().sum(axis=0), (3, 1)))
        np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((2, 4), np.float32))    # (from h.backward only)
