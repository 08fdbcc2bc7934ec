"""Idioms from the MXNet 1.x tutorials run unchanged, and bad input gets errors that say what was
expected and what was got."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import nd


def test_tutorial_idioms():
    x = mx.nd.random.normal(shape=(1, 512))
    assert x.shape == (1, 512) and x.dtype == np.float32
    y = nd.random_normal(loc=0, scale=1, shape=(2, 3))
    assert y.shape == (2, 3)
    cond = nd.array([1, 0, 1])
    picked = nd.where(condition=cond, x=nd.array([1, 2, 3]), y=nd.array([-1, -2, -3]))
    assert picked.asnumpy().tolist() == [1, -2, 3]
    assert nd.ones_like(y).asnumpy().sum() == 6
    assert nd.zeros((4, 2, 3)).reshape((0, -1)).shape == (4, 6)
    a, b = nd.ones((2, 3)), nd.ones((4, 3))
    assert nd.dot(a, b, transpose_b=True).shape == (2, 4)
    nd.waitall()


def test_mlp_from_ops():
    x = nd.random.uniform(shape=(1, 512))
    w1, b1 = nd.random.normal(shape=(256, 512)), nd.zeros((256,))
    h = nd.relu(nd.FullyConnected(x, w1, b1, num_hidden=256))
    expected = np.maximum(x.asnumpy() @ w1.asnumpy().T + b1.asnumpy(), 0)
    np.testing.assert_allclose(h.asnumpy(), expected, rtol=1e-4, atol=1e-4)


def test_namespaces_share_one_registry():
    assert mx.nd.FullyConnected.op is mx.npx.fully_connected.op
    assert mx.nd.broadcast_add.op is mx.np.add.op
    assert mx.nd.split.op is mx.nd.SliceChannel.op
    a = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    assert mx.np.sum(a).shape == ()          # NumPy semantics: 0-d
    assert mx.nd.sum(mx.nd.array(a)).shape == (1,)   # MXNet 1.x semantics
    assert float(mx.npx.relu(mx.np.array([-1.0, 2.0])).sum()) == 2.0


def test_incompatible_shapes_name_op_argument_expected_and_got():
    x, w = nd.ones((2, 512)), nd.ones((256, 500))
    with pytest.raises(mx.MXNetError) as err:
        nd.FullyConnected(x, w, nd.zeros((256,)), num_hidden=256)
    text = str(err.value)
    assert "FullyConnected" in text and "weight" in text and "(256, 512)" in text and "(256, 500)" in text
    with pytest.raises(mx.MXNetError, match=r"broadcast_add.*rhs"):
        nd.ones((2, 3)) + nd.ones((4,))
    with pytest.raises(mx.MXNetError, match=r"elemwise_add.*expected shape \(2, 3\), got \(3, 2\)"):
        nd.elemwise_add(nd.ones((2, 3)), nd.ones((3, 2)))


def test_unknown_attribute_lists_valid_ones():
    with pytest.raises(mx.MXNetError) as err:
        nd.Convolution(nd.ones((1, 1, 5, 5)), nd.ones((1, 1, 3, 3)), kernal=(3, 3), num_filter=1, no_bias=True)
    text = str(err.value)
    assert "kernal" in text and "kernel" in text and "num_filter" in text


def test_bad_attribute_value_and_missing_required():
    with pytest.raises(mx.MXNetError, match=r"num_hidden.*expected int"):
        nd.FullyConnected(nd.ones((1, 2)), nd.ones((3, 2)), nd.ones((3,)), num_hidden="many")
    with pytest.raises(mx.MXNetError, match=r"required attribute 'num_hidden'"):
        nd.FullyConnected(nd.ones((1, 2)), nd.ones((3, 2)), nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match="unknown operator"):
        mx.ops.get_op("FullyConnectd")


def test_attribute_strings_parse_like_mxnet():
    conv = mx.ops.get_op("Convolution")
    a = conv.parse_attrs({"kernel": "(3, 3)", "num_filter": "8", "no_bias": "True", "pad": "[1,1]"})
    assert a["kernel"] == (3, 3) and a["num_filter"] == 8 and a["no_bias"] is True and a["pad"] == (1, 1)
    assert conv.format_attrs({"kernel": (3, 3), "no_bias": False}) == {"kernel": "(3, 3)", "no_bias": "False"}
    bn = mx.ops.get_op("BatchNorm").parse_attrs({})
    assert bn["fix_gamma"] is True and bn["eps"] == pytest.approx(1e-3) and bn["momentum"] == pytest.approx(0.9)
