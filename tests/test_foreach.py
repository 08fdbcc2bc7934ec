"""``mx.nd.contrib.foreach`` / ``mx.sym.contrib.foreach``: MXNet 1.9.1's loop over axis 0 (values
recorded from real MXNet), imperative, in a graph (unrolled), and in hybridized 1.x blocks."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.symbol.control_flow import LoopLengthUnknown


def test_nd_foreach_values_and_gradients_match_mxnet():
    x, s = mx.nd.array([[1, 2], [3, 4], [5, 6]]), mx.nd.array([0.5, -1])
    x.attach_grad()
    s.attach_grad()
    with mx.autograd.record():
        outs, st = mx.nd.contrib.foreach(lambda d, st: (d * st[0], [st[0] + d * d]), x, [s])
        loss = outs.sum() + (st[0] * st[0]).sum()
    loss.backward()
    assert outs.asnumpy().tolist() == [[0.5, -2.0], [4.5, 12.0], [52.5, 114.0]]
    assert st[0].asnumpy().tolist() == [35.5, 55.0]
    assert x.grad.asnumpy().tolist() == [[158.5, 479.0], [457.5, 931.0], [720.5, 1339.0]]
    assert s.grad.asnumpy().tolist() == [80.0, 122.0]


def test_nd_foreach_keeps_the_formats_of_data_and_outputs():
    body = lambda xs, s: ([xs[0] * xs[1], s], s + xs[0])                  # noqa: E731
    (prod, acc), last = mx.nd.contrib.foreach(body, [mx.nd.array([1, 2]), mx.nd.array([3, 4])], mx.nd.zeros(1))
    # MXNet 1.x: an int index of a 1-D array keeps one axis, so each step's values are (1,)
    assert prod.asnumpy().tolist() == [[3.0], [8.0]] and acc.asnumpy().tolist() == [[0.0], [1.0]]
    assert last.asnumpy().tolist() == [3.0]
    with pytest.raises(mx.MXNetError, match="init_states expected a NDArray or a nested list of NDArrays, got float"):
        mx.nd.contrib.foreach(body, mx.nd.ones((2, 1)), 3.0)


def test_sym_foreach_unrolls_when_the_length_is_known():
    out, last = mx.sym.contrib.foreach(lambda x, s: (x * s, s + x), mx.sym.var("x", shape=(2, 3)), mx.sym.var("s"))
    res = mx.sym.Group([out, last]).eval(x=mx.nd.array([[1, 2, 3], [4, 5, 6]]), s=mx.nd.ones(3))
    assert res[0].asnumpy().tolist() == [[1.0, 2.0, 3.0], [8.0, 15.0, 24.0]]          # MXNet 1.9.1
    assert res[1].asnumpy().tolist() == [6.0, 8.0, 10.0]
    with pytest.raises(LoopLengthUnknown, match=r"foreach: expected data whose length \(axis 0\) is known, got 'x'"):
        mx.sym.contrib.foreach(lambda x, s: (x, s), mx.sym.var("x"), mx.sym.var("s"))
    with pytest.raises(mx.MXNetError, match="states in the format of init_states"):
        mx.sym.contrib.foreach(lambda x, s: (x, [s, s]), mx.sym.var("x", shape=(2,)), mx.sym.var("s"))


class _Loop(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, s):
        return F.contrib.foreach(lambda d, st: (F.relu(d - st), st + d), x, s)


def test_hybridized_1x_block_with_foreach_traces_its_inputs_shapes():
    net = _Loop()
    net.hybridize()
    x, s = mx.nd.array([[1, 2], [3, 4], [5, 6]]), mx.nd.array([0.5, -1])
    out, st = net(x, s)
    assert out.asnumpy().tolist() == [[0.5, 3.0], [1.5, 3.0], [0.5, 1.0]] and st.asnumpy().tolist() == [9.5, 11.0]
    out, st = net(mx.nd.ones((5, 2)), s)                          # a new length: traced again
    assert out.shape == (5, 2) and st.asnumpy().tolist() == [5.5, 4.0]
    assert "len read at" in net.hybridization.history[-1].reason
    with pytest.raises(LoopLengthUnknown):                      # called on Symbols: shapes unknown
        net(mx.sym.var("x"), mx.sym.var("s"))
