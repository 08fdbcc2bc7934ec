"""Symbol: graph-level shape/type inference, debug_str and the readable listing, MXNet's operator
names, fluent methods, and what a Symbol cannot do (MXNet's error text + the rewrite + the user's line)."""
import warnings

import numpy as np
import pytest

import hybridlab as mx


def _mlp():
    data = mx.sym.Variable("data")
    out = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=1000)
    out = mx.sym.Activation(data=out, act_type="relu", name="relu1")
    return mx.sym.FullyConnected(data=out, name="fc2", num_hidden=10)


# ---- infer_shape ------------------------------------------------------------------------------------
def test_infer_shape_by_name_and_position():
    net = _mlp()
    expected = ([(100, 100), (1000, 100), (1000,), (10, 1000), (10,)], [(100, 10)], [])
    assert net.infer_shape(data=(100, 100)) == expected
    assert net.infer_shape((100, 100)) == expected
    assert net.infer_shape((100, 100), None, (1000,)) == expected


def test_infer_shape_incomplete_warns_and_partial_gives_what_is_known():
    data, prev = mx.sym.Variable("data"), mx.sym.Variable("prev")
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=128)
    fc2 = mx.sym.FullyConnected(data=prev, name="fc2", num_hidden=128)
    out = mx.sym.Activation(data=mx.sym.elemwise_add(fc1, fc2), act_type="relu")
    with pytest.warns(UserWarning, match=r"Cannot decide shape for the following arguments.*\n\tprev: \(\)"):
        assert out.infer_shape(data=(10, 64)) == (None, None, None)
    assert out.infer_shape_partial(data=(10, 64)) == (
        [(10, 64), (128, 64), (128,), (), (), ()], [(10, 128)], [])
    assert out.infer_shape(data=(10, 64), prev=(10, 128)) == (
        [(10, 64), (128, 64), (128,), (10, 128), (128, 128), (128,)], [(10, 128)], [])
    # 0 = unknown dimension
    assert out.infer_shape_partial(data=(0, 64))[0][:3] == [(0, 64), (128, 64), (128,)]


def test_infer_shape_uses_variable_shape_attributes():
    x = mx.sym.var("x", shape=(4, 3))
    w = mx.sym.var("w", shape=(5, 0))       # Gluon's deferred shape: 0 = unknown
    fc = mx.sym.FullyConnected(x, w, num_hidden=5, no_bias=True, name="fc")
    assert fc.infer_shape() == ([(4, 3), (5, 3)], [(4, 5)], [])
    assert fc.infer_shape(x=(2, 7)) == ([(2, 7), (5, 7)], [(2, 5)], [])


def test_infer_shape_batchnorm_aux_states_and_multi_output():
    x = mx.sym.var("x")
    bn = mx.sym.BatchNorm(x, name="bn")
    parts = mx.sym.split(bn, num_outputs=2, axis=1, name="sp")
    arg, out, aux = parts.infer_shape(x=(2, 6, 3))
    assert arg == [(2, 6, 3), (6,), (6,)]
    assert aux == [(6,), (6,)]
    assert out == [(2, 3, 3), (2, 3, 3)]
    assert bn.infer_shape_partial(bn_moving_mean=(5,))[2][0] == (5,)   # aux states can be given by name


def test_infer_shape_records_node_meta():
    net = _mlp()
    net.infer_shape(data=(2, 100))
    net.infer_type(data="float16")
    nodes = {n.name: n for n in mx.sym.topo_order(net._outputs)}
    assert nodes["fc1"].meta["shapes"] == [(2, 1000)]
    assert nodes["fc1_weight"].meta["shapes"] == [(1000, 100)]
    assert nodes["fc2"].meta["dtypes"] == [np.dtype("float16")]


def test_infer_shape_inconsistent_names_node_op_argument_and_line():
    net = _mlp()
    with pytest.raises(mx.MXNetError) as info:
        net.infer_shape(data=(100, 100), fc1_weight=(1, 100))
    msg = str(info.value)
    assert msg.startswith("Error in operator fc1: Shape inconsistent for input 'weight' "
                          "(variable 'fc1_weight') of FullyConnected, Provided = (1, 100), "
                          "inferred shape = (1000, 100)")
    assert "test_symbol.py" in msg and "name=\"fc1\"" in msg      # the line that created fc1


def test_infer_shape_rank_mismatch_between_ops():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.elemwise_add(a, b, name="add")
    with pytest.raises(mx.MXNetError, match=r"Error in operator add: Shape inconsistent .*Provided = \(2, 4\)"):
        s.infer_shape(a=(2, 3), b=(2, 4))


def test_infer_shape_argument_errors():
    net = _mlp()
    with pytest.raises(mx.MXNetError, match=r"Keyword argument name datax not found.\nCandidate arguments:\n"
                                            r"\t\[0\]data\n\t\[1\]fc1_weight"):
        net.infer_shape(datax=(1, 2))
    with pytest.raises(TypeError, match=r"Arguments need to be shapes \(tuple\), but 'data' is <class 'list'>"):
        net.infer_shape(data=[1, 2])
    with pytest.raises(ValueError, match="either by positional or kwargs way"):
        net.infer_shape((1, 2), data=(1, 2))
    with pytest.raises(mx.MXNetError, match="expected at most 5 positional"):
        net.infer_shape(*[(1,)] * 6)


# ---- infer_type ------------------------------------------------------------------------------------
def test_infer_type_and_partial():
    net = _mlp()
    arg, out, aux = net.infer_type(data="float64")
    assert arg == [np.float64] * 5 and out == [np.float64] and aux == []
    assert all(isinstance(t, np.dtype) for t in arg)
    x = mx.sym.var("x")
    y = mx.sym.var("y")
    s = mx.sym.Group([mx.sym.relu(x), mx.sym.relu(y)])
    with pytest.warns(UserWarning, match="Cannot decide type for the following arguments"):
        assert s.infer_type(x="float32") == (None, None, None)
    assert s.infer_type_partial(x="float32") == ([np.float32, None], [np.float32, None], [])
    assert mx.sym.var("z", dtype="float16").infer_type() == ([np.float16], [np.float16], [])


def test_infer_type_inconsistent():
    a = mx.sym.var("a", dtype="float16")
    fc = mx.sym.FullyConnected(a, mx.sym.var("w", dtype="float32"), num_hidden=2, no_bias=True, name="fc")
    try:
        fc.infer_type()
    except mx.MXNetError as err:
        assert "Error in operator fc" in str(err)
    else:  # the op allows it: then the output follows the data
        assert fc.infer_type_partial()[1] == [np.float16]


# ---- printing -----------------------------------------------------------------------------------
def test_debug_str_matches_mxnet_format():
    a = mx.sym.Variable("a")
    b = mx.sym.sin(a)
    c = 2 * a + b
    d = mx.sym.FullyConnected(data=c, num_hidden=10, name="fullyconnected0")
    assert d.debug_str() == (
        "Symbol Outputs:\n"
        "\toutput[0]=fullyconnected0(0)\n"
        "Variable:a\n"
        "--------------------\n"
        f"Op:_mul_scalar, Name={c.get_children()[0].name}\n"
        "Inputs:\n"
        "\targ[0]=a(0) version=0\n"
        "Attrs:\n"
        "\tscalar=2\n"
        "--------------------\n"
        f"Op:sin, Name={b.name}\n"
        "Inputs:\n"
        "\targ[0]=a(0) version=0\n"
        "--------------------\n"
        f"Op:elemwise_add, Name={c.name}\n"
        "Inputs:\n"
        f"\targ[0]={c.get_children()[0].name}(0)\n"
        f"\targ[1]={b.name}(0)\n"
        "Variable:fullyconnected0_weight\n"
        "Variable:fullyconnected0_bias\n"
        "--------------------\n"
        "Op:FullyConnected, Name=fullyconnected0\n"
        "Inputs:\n"
        f"\targ[0]={c.name}(0)\n"
        "\targ[1]=fullyconnected0_weight(0) version=0\n"
        "\targ[2]=fullyconnected0_bias(0) version=0\n"
        "Attrs:\n"
        "\tnum_hidden=10\n")
    assert a.debug_str() == "Variable:a\n"


def test_debug_str_shows_versions_of_mutated_inputs():
    bn = mx.sym.BatchNorm(mx.sym.var("x"), name="bn")
    assert "\targ[3]=bn_moving_mean(0) version=1\n\targ[4]=bn_moving_var(0) version=1\n" in bn.debug_str()


def test_graph_str_lists_nodes_with_shapes_and_source():
    net = _mlp()
    net.infer_shape(data=(2, 100))
    text = net.graph_str()
    lines = text.splitlines()
    assert lines[0] == "graph fc2 (5 inputs, 3 ops):"
    assert any(line.strip().startswith("%fc1 = FullyConnected(%data, %fc1_weight, %fc1_bias)  num_hidden=1000")
               and "(2, 1000)" in line and "test_symbol.py" in line for line in lines)
    assert lines[-1] == "  return %fc2"
    assert repr(net) == "<Symbol fc2>" and str(net) == "<Symbol fc2>"     # print() as in MXNet


# ---- MXNet's names and fluent methods --------------------------------------------------------------
def test_operator_names_follow_mxnet():
    with mx.name.NameManager():
        x, y = mx.sym.var("x"), mx.sym.var("y")
        assert (x + y).name == "_plus0" and (x - y).name == "_minus0"
        assert (x * y).name == "_mul0" and (x / y).name == "_div0"
        assert (x + 1).name == "_plusscalar0" and (x * 2).name == "_mulscalar0"
        assert (1 - x).name == "_rminusscalar0" and (1 / x).name == "_rdivscalar0"
        assert (-x).name == "_mulscalar1" and (x ** 2).name == "_powerscalar0"
        assert (x == y).name == "_equal0" and (x > 1).name == "_greater_scalar0"
    s = x + y
    assert s.get_internals().list_outputs()[-1].endswith("_output")
    assert mx.sym.fromjson((x + y).tojson())._outputs[0][0].op.name == "elemwise_add"


def test_reshape_stores_only_given_keywords():
    r = mx.sym.var("x").reshape((0, -1))
    assert r.list_attr() == {"shape": "(0, -1)"}
    assert mx.sym.var("x").reshape(shape=(-1, 2), reverse=True).list_attr() == {"shape": "(-1, 2)",
                                                                                 "reverse": "True"}


def test_fluent_methods():
    x = mx.sym.var("x")
    y = x.sum(axis=1).flatten().transpose().expand_dims(axis=0).relu()
    arg, out, _ = y.infer_shape(x=(2, 3, 4))
    assert out == [(1, 4, 2)]
    assert x.astype("float16").infer_type(x="float32")[1] == [np.float16]


# ---- what a Symbol cannot do -----------------------------------------------------------------------
def test_shape_attribute_error_explains_and_points_at_the_line():
    x = mx.sym.var("x")
    with pytest.raises(AttributeError) as info:
        x.shape  # noqa: B018
    msg = str(info.value)
    assert msg.startswith("'Symbol' object has no attribute 'shape'\n")
    assert "F.reshape special codes" in msg and "reshape_like" in msg and "infer_shape" in msg
    assert "test_symbol.py" in msg and "x.shape" in msg


@pytest.mark.parametrize("attr, hint", [
    ("dtype", "dtype in the block's constructor"), ("asnumpy", "A Symbol has no values"),
    ("item", "A Symbol has no values"), ("context", "no device"), ("grad", "autograd.record"),
    ("sums", "Did you mean .sum()"),
])
def test_other_attribute_errors(attr, hint):
    with pytest.raises(AttributeError, match=f"'Symbol' object has no attribute '{attr}'") as info:
        getattr(mx.sym.var("x"), attr)
    assert hint in str(info.value)


def test_real_methods_and_protocols_still_work():
    x = mx.sym.var("x")
    assert not hasattr(x, "__array_interface__")
    assert hasattr(x, "list_arguments") and x.name == "x"
    import copy
    assert copy.deepcopy(x).list_arguments() == ["x"]


def test_item_assignment_and_bool_errors():
    x = mx.sym.var("x")
    with pytest.raises(TypeError, match=r"'Symbol' object does not support item assignment\n") as info:
        x[0] = 1
    assert "F.where(mask, value, x)" in str(info.value) and "F.slice_axis" in str(info.value)
    with pytest.raises(mx.MXNetError, match=r'Function __bool__ \(namely operator "bool"\) is not implemented '
                                            r"for Symbol and only available in NDArray.") as info:
        if x:
            pass
    assert "F.where" in str(info.value)
    assert isinstance(info.value, NotImplementedError)


def test_indexing_errors():
    s = mx.sym.Group([mx.sym.var("a"), mx.sym.var("b")])
    assert s[1].name == "b" and s["a"].name == "a"
    with pytest.raises(TypeError, match="Symbol only support integer index to fetch i-th output") as info:
        s[1.5]
    assert "F.slice_axis" in str(info.value)
    with pytest.raises(IndexError):
        s[2]


def test_numpy_scalars_defer_to_symbol():
    x = mx.sym.var("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(np.float32(2) * x, mx.sym.Symbol)


def test_infer_shape_conflict_is_found_with_unknown_batch():
    with pytest.raises(mx.MXNetError, match=r"Error in operator fc1: .*Provided = \(1, 100\), inferred shape = "
                                            r"\(1000, 100\)"):
        _mlp().infer_shape_partial(data=(0, 100), fc1_weight=(1, 100))


def test_infer_type_fills_the_other_operand_of_binary_ops():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert (a + b).infer_type(a="float32") == ([np.float32, np.float32], [np.float32], [])
    assert mx.sym.broadcast_mul(a, b).infer_type(b="int32")[0] == [np.int32, np.int32]
    assert (a > b).infer_type(a="float16")[0] == [np.float16, np.float16]


# ---- MXNet 1.9.1's unittest behaviours (values recorded from MXNet 1.9.1) ----------------------------
def test_bool_raises_mxnet_base_not_implemented_for_symbol():
    with pytest.raises(mx.base.NotImplementedForSymbol) as err:
        bool(mx.sym.var("x"))
    assert str(err.value).startswith('Function __bool__ (namely operator "bool") is not implemented for Symbol')


def test_get_children_lists_each_head_node_once():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(mx.sym.FullyConnected(data, name="fc1", num_hidden=10), name="fc2", num_hidden=100)
    assert net.get_children().list_outputs() == ["fc1_output", "fc2_weight", "fc2_bias"]
    assert net.get_children().get_children().list_outputs() == ["data", "fc1_weight", "fc1_bias"]
    assert net.get_children().get_children().get_children() is None      # variables only
    sliced = mx.sym.SliceChannel(data, num_outputs=3, name="slice")
    assert sliced.get_children().list_outputs() == ["data"]


def test_symbol_pickles_through_its_json():
    import pickle
    net = _mlp()
    assert net.__getstate__() == {"handle": net.tojson()}
    assert pickle.loads(pickle.dumps(net)).tojson() == net.tojson()
    group = mx.sym.Group([net, mx.sym.var("extra")])
    assert pickle.loads(pickle.dumps(group)).list_outputs() == ["fc2_output", "extra"]


def test_cast_output_dtype_is_known_without_the_input():
    fc1 = mx.sym.FullyConnected(mx.sym.Cast(mx.sym.var("data"), dtype="float32"), name="fc1", num_hidden=128)
    mlp = mx.sym.SoftmaxOutput(fc1, name="softmax")
    assert mlp.infer_type(data=np.float16) == ([np.float16, np.float32, np.float32, np.float32], [np.float32], [])
    assert mlp.infer_type_partial() == ([None, np.float32, np.float32, np.float32], [np.float32], [])


def test_partial_shape_flows_back_through_elementwise_ops():
    data = mx.sym.Variable("data", shape=(1, 0, 0, 0))
    weight = mx.sym.Variable("weight")
    conv = mx.sym.Convolution(mx.sym.cast(data, dtype="float16"), mx.sym.cast(weight, dtype="float16"), pad=(3, 3),
                              num_filter=64, stride=(2, 2), no_bias=True, kernel=(7, 7))
    arg, out, _ = conv.infer_shape_partial()
    assert arg == [(1, 0, 0, 0), (64, 0, 7, 7)]          # MXNet 1.9.1
    assert out == [(1, 64, 0, 0)]


def test_numpy_integers_in_attributes_are_written_as_numbers():
    b = mx.sym.transpose(mx.sym.var("a"), axes=(np.int64(1), np.int64(0)))
    assert b.list_attr() == {"axes": "(1, 0)"}
    assert b.eval(a=mx.nd.array([[1, 2, 3]]))[0].shape == (3, 1)


def test_gen_atomic_symbol_keeps_op_and_attributes_only():
    s = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("param"), mx.sym.var("h0"), mx.sym.var("h1"), state_size=10,
                   num_layers=2, bidirectional=True, state_outputs=True, mode="lstm", name="rnn")
    atom = s._gen_atomic_symbol()
    assert atom.list_arguments() == []
    assert atom.list_outputs() == ["output", "state_output", "statecell_output"]
    assert atom[0].list_attr() == {"bidirectional": "True", "mode": "lstm", "num_layers": "2",
                                   "state_outputs": "True", "state_size": "10"}


def test_tojson_writes_is_np_shape_in_numpy_shape_mode_only():
    import json
    net = mx.sym.FullyConnected(mx.sym.var("data"), mx.sym.var("weight", shape=(128, 0)), num_hidden=128)
    assert json.loads(net.tojson())["attrs"] == {"mxnet_version": ["int", 10901]}
    with mx.util.np_shape(True):
        text = net.tojson()
        assert json.loads(text)["attrs"] == {"is_np_shape": ["int", 1], "mxnet_version": ["int", 10901]}
    loaded = mx.sym.fromjson(text)
    assert json.loads(loaded.tojson())["attrs"] == {"mxnet_version": ["int", 10901]}
    assert loaded.infer_shape(data=(10, 784))[0] == [(10, 784), (128, 784), (128,)]
