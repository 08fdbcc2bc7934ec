"""Symbolic shape inference as MXNet 1.9.1 does it: partial results in both shape conventions
(legacy: unknown shape ``()``, unknown dimension 0; NumPy shape semantics: ``None`` and -1), and
shapes flowing backwards from outputs to inputs (ops' ``infer_partial`` rules). Expected values
were recorded from real MXNet 1.9.1."""
import warnings

import pytest

import hybridlab as mx


def _partial(sym, **shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sym.infer_shape_partial(**shapes)


# ---- the two conventions ----------------------------------------------------------------------
def test_legacy_unknown_is_empty_tuple_and_zero_dims():
    y = mx.sym.sin(mx.sym.var("x"))
    assert _partial(y) == ([()], [()], [])
    assert _partial(y, x=(0, 2)) == ([(0, 2)], [(0, 2)], [])
    assert _partial(y, x=(-1, 2)) == ([(0, 2)], [(0, 2)], [])     # a given -1 reads as unknown
    assert _partial(y, x=()) == ([()], [()], [])                   # ndim 0 is unknown
    assert _partial(mx.sym.sin(mx.sym.var("x", shape=(-1, 3)))) == ([(0, 3)], [(0, 3)], [])


def test_np_shape_unknown_is_none_and_minus_one():
    y = mx.sym.sin(mx.sym.var("x"))
    with mx.util.np_shape():
        assert _partial(y) == ([None], [None], [])
        assert _partial(y, x=(-1, 2)) == ([(-1, 2)], [(-1, 2)], [])
        assert _partial(y, x=()) == ([()], [()], [])               # a scalar
        assert y.infer_shape(x=()) == ([()], [()], [])
        # a 0 where no -1 is given is an empty axis: complete
        assert y.infer_shape(x=(2, 0)) == ([(2, 0)], [(2, 0)], [])
        fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc")
        assert fc.infer_shape(x=(0, 4)) == ([(0, 4), (3, 4), (3,)], [(0, 3)], [])
        assert _partial(fc, x=(-1, 7)) == ([(-1, 7), (3, 7), (3,)], [(-1, 3)], [])
        assert _partial(mx.sym.sin(mx.sym.var("s", shape=()))) == ([()], [()], [])


def test_incomplete_infer_shape_warns_and_returns_nones():
    y = mx.sym.sin(mx.sym.var("x"))
    with pytest.warns(UserWarning, match="x: \\(\\)"):
        assert y.infer_shape() == (None, None, None)
    with mx.util.np_shape():
        with pytest.warns(UserWarning, match="x: \\(-1, 2\\)"):
            assert y.infer_shape(x=(-1, 2)) == (None, None, None)


# ---- shapes flowing backwards --------------------------------------------------------------------
def test_transpose_input_from_output():
    x = mx.sym.var("x")
    b = mx.sym.transpose(x) + mx.sym.var("z")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert b.infer_shape(z=(2, 3), x=(0, 0)) == ([(3, 2), (2, 3)], [(2, 3)], [])
    assert _partial(b, z=(2, 0), x=(0, 0)) == ([(0, 2), (2, 0)], [(2, 0)], [])
    with pytest.raises(mx.MXNetError):
        _partial(b, x=(2, 3), z=(2, 3))


def test_concat_and_slice_channel_inputs_from_outputs():
    a, b, z = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("z")
    c = mx.sym.Concat(a, b, dim=1)
    assert _partial(c + z, a=(0, 3), b=(0, 0), z=(4, 5)) == ([(4, 3), (4, 0), (4, 5)], [(4, 5)], [])
    with mx.util.np_shape():
        assert _partial(c + z, a=(-1, 3), b=(-1, -1), z=(4, 5)) == ([(4, 3), (4, -1), (4, 5)], [(4, 5)], [])
    s = mx.sym.SliceChannel(mx.sym.var("x", shape=(0, 15, 0)), num_outputs=3)
    assert _partial(s[1] + mx.sym.var("c", shape=(3, 5, 2)))[0] == [(3, 15, 2), (3, 5, 2)]
    s = mx.sym.SliceChannel(mx.sym.var("x", shape=(0, 10)), num_outputs=10, axis=1, squeeze_axis=True)
    assert _partial(s[1] + mx.sym.var("c", shape=(5,)))[0] == [(5, 10), (5,)]


def test_convolution_and_dense_data_from_output():
    conv = mx.sym.Convolution(mx.sym.var("a", shape=(0, 10, 0, 0)), num_filter=21, kernel=(3, 3), pad=(1, 1),
                              name="c")
    args, outs, _ = _partial(conv + mx.sym.var("z", shape=(5, 21, 32, 32)))
    assert args == [(5, 10, 32, 32), (21, 10, 3, 3), (21,), (5, 21, 32, 32)]
    # stride 2: only the batch size comes back
    conv = mx.sym.Convolution(mx.sym.var("a"), num_filter=4, kernel=(3, 3), stride=(2, 2), name="c")
    assert _partial(conv + mx.sym.var("z"), a=(0, 10, 0, 0), z=(5, 4, 8, 8))[0][0] == (5, 10, 0, 0)
    # the data's rank unknown: nothing (as MXNet)
    conv = mx.sym.Convolution(mx.sym.var("x"), num_filter=4, kernel=(3, 3), no_bias=True, name="c")
    assert _partial(conv + mx.sym.var("z"), z=(2, 4, 5, 5)) == ([(), (), (2, 4, 5, 5)], [(2, 4, 5, 5)], [])
    fc = mx.sym.FullyConnected(mx.sym.var("x", shape=(0, 7)), num_hidden=3, name="fc")
    assert _partial(fc + mx.sym.var("z", shape=(2, 3)))[0] == [(2, 7), (3, 7), (3,), (2, 3)]


def test_reshape_input_from_output():
    x = mx.sym.var("x")
    assert _partial(mx.sym.reshape(x, shape=(2, 6)), x=(0, 4)) == ([(3, 4)], [(2, 6)], [])
    assert _partial(mx.sym.reshape(x, shape=(-1,)) + mx.sym.var("z"), x=(0, 4), z=(12,)) == \
        ([(3, 4), (12,)], [(12,)], [])


def test_ops_that_wait_for_known_inputs():
    x, y, cond = mx.sym.var("x"), mx.sym.var("y"), mx.sym.var("cond")
    w = mx.sym.where(cond, x, y)
    assert _partial(w, cond=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]
    assert _partial(w, cond=(2, 3)) == ([(2, 3), (), ()], [()], [])
    assert _partial(w + mx.sym.var("q"), cond=(2, 3), q=(2, 3))[0] == [(2, 3)] * 4
    with mx.util.np_shape():
        assert _partial(w, cond=(-1,), x=(2, 2), y=(2, 2))[1] == [None]
    bd = mx.sym.batch_dot(x, y)
    assert _partial(bd, x=(0, 3, 4), y=(0, 4, 5))[1] == [(0, 3, 5)]
    assert _partial(bd, x=(0, 3, 4), y=(0, 0, 5))[1] == [()]
    with mx.util.np_shape():
        assert _partial(bd, x=(-1, 3, 4), y=(-1, -1, 5))[1] == [None]


def test_identity_with_attr_like_rhs_constrains_lhs():
    w, data = mx.sym.var("weight"), mx.sym.var("data")
    wt = mx.sym.broadcast_add(w, mx.sym.var("wshift", shape=(1,)))
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=data, weight=wt, num_hidden=11, no_bias=True)
    args, _, _ = net.infer_shape(data=(7, 100))
    assert dict(zip(net.list_arguments(), args)) == {"data": (7, 100), "weight": (11, 100), "wshift": (1,)}
    lhs, rhs = mx.nd.array([1.0, 2.0]), mx.nd.array([5.0, 6.0])
    lhs.attach_grad()
    rhs.attach_grad()
    with mx.autograd.record():
        out = mx.nd._internal._identity_with_attr_like_rhs(lhs, rhs)
    out.backward()
    assert out.asnumpy().tolist() == [1.0, 2.0]
    assert lhs.grad.asnumpy().tolist() == [1.0, 1.0] and rhs.grad.asnumpy().tolist() == [0.0, 0.0]


# ---- creation ops with unknown dimensions, resolved at bind -----------------------------------------
def test_creation_unknown_dims_resolved_at_bind():
    b = mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))
    assert b.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)
    with mx.util.np_shape():
        b = mx.sym.ones(shape=[2, -1]) + mx.sym.transpose(mx.sym.ones(shape=[3, -1]))
        assert _partial(b) == ([], [(2, 3)], [])
        assert b.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)
    with pytest.raises(mx.MXNetError, match="_zeros: attribute 'shape' expected non-negative"):
        mx.nd._internal._zeros(shape=(-1, 2))


def test_arange_with_infer_range_takes_its_length_from_its_readers_at_bind():
    # MXNet 1.9.1: [2.0, 2.0, 2.5, 2.5, 3.0, 3.0]; arange without stop is not a constant to fold
    s = mx.sym.arange(start=2, step=0.5, repeat=2, infer_range=True) + mx.sym.zeros(shape=[6])
    assert s.eval()[0].asnumpy().tolist() == [2.0, 2.0, 2.5, 2.5, 3.0, 3.0]
    exe = mx.sym.elemwise_add(mx.sym.arange(start=0, infer_range=True), mx.sym.zeros(shape=[5])).bind(mx.cpu(), {})
    exe.forward()
    assert exe.outputs[0].asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
