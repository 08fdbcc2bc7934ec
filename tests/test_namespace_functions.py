"""MXNet 1.x's module-level functions that wrap ops: ``mx.nd.add``/``maximum``/``power``/``equal``/...
(arrays or numbers on either side), ``mx.sym.pow``/``maximum``/``minimum``/``hypot`` and the sym
creation functions, ``moveaxis``, ``split_v2``, ``concatenate``, ``onehot_encode``, ``from_numpy``."""
import operator

import numpy as np
import pytest

import hybridlab as mx

X = np.array([[1.0, -2.0, 3.0], [0.0, 5.0, -1.0]], np.float32)
Y = np.array([2.0, -2.0, 0.5], np.float32)

ND_FUNCTIONS = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("divide", np.divide),
    ("true_divide", np.divide), ("modulo", np.fmod), ("power", np.power), ("maximum", np.maximum),
    ("minimum", np.minimum), ("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
    ("greater_equal", np.greater_equal), ("lesser", np.less), ("lesser_equal", np.less_equal),
    ("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor),
]


def _ref(np_fn, a, b):
    with np.errstate(all="ignore"):
        if np_fn is np.fmod:         # MXNet's mod takes the divisor's sign, like Python's %, and x % 0 is 0
            return np.where(b == 0, np.float32(0), np.mod(a, b))
        return np_fn(a, b).astype(np.float32)


@pytest.mark.parametrize("name, np_fn", ND_FUNCTIONS, ids=[n for n, _ in ND_FUNCTIONS])
def test_nd_function_takes_arrays_and_numbers_on_either_side(name, np_fn):
    fn = getattr(mx.nd, name)
    x, y = mx.nd.array(X), mx.nd.array(Y)
    with np.errstate(all="ignore"):
        cases = [(fn(x, y), _ref(np_fn, X, Y)),              # broadcasting
                 (fn(x, 2.0), _ref(np_fn, X, np.float32(2))),
                 (fn(3.0, x), _ref(np_fn, np.float32(3), X))]  # the reflected scalar op
    for got, want in cases:
        assert isinstance(got, mx.nd.NDArray) and got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, equal_nan=True, err_msg=name)


def test_nd_functions_of_two_numbers_are_python():
    assert mx.nd.add(2, 3) == 5 and mx.nd.maximum(2, 3.5) == 3.5 and mx.nd.equal(2, 2) == 1
    assert mx.nd.lesser(3, 2) == 0 and mx.nd.power(2, 3) == 8 and mx.nd.logical_xor(0, 4) == 1


def test_nd_function_records_gradients():
    x = mx.nd.array(X)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.maximum(x, 0.5) * mx.nd.power(2.0, x)
    y.backward()
    expected = np.where(X > 0.5, 2.0 ** X + X * 2.0 ** X * np.log(2), 0.5 * 2.0 ** X * np.log(2))
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-5)


def test_nd_function_rejects_other_types_naming_them():
    with pytest.raises(mx.MXNetError, match=r"maximum: expected NDArrays or numbers, got \(str, NDArray\)"):
        mx.nd.maximum("a", mx.nd.ones(2))


@pytest.mark.parametrize("name, op_name, np_fn", [
    ("pow", "_power", np.power), ("power", "_power", np.power), ("maximum", "_maximum", np.maximum),
    ("minimum", "_minimum", np.minimum), ("hypot", "_hypot", np.hypot)])
def test_sym_function_builds_the_op_and_computes_it(name, op_name, np_fn):
    fn = getattr(mx.sym, name)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    A, B = np.abs(X) + 0.5, np.abs(X[::-1]) + 0.25
    graphs = [(fn(a, b), np_fn(A, B), op_name), (fn(a, 2.0), np_fn(A, 2.0), op_name + "_scalar"),
              (fn(3.0, a), np_fn(3.0, A), op_name.replace("_", "_r", 1) + "_scalar" if "power" in op_name
               else op_name + "_scalar")]
    for sym, want, op in graphs:
        assert [n.op_name for n in sym._nodes() if n.op_name != "null"] == [op]
        block = mx.gluon.SymbolBlock(sym, [v for v in (a, b) if v.name in sym.list_arguments()])
        got = block(*[mx.nd.array(v) for v, s in ((A, "a"), (B, "b")) if s in sym.list_arguments()])
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert fn(2, 3) == np_fn(2, 3)


def test_sym_creation_functions_default_to_float32():
    for sym, shape in [(mx.sym.zeros((2, 3)), (2, 3)), (mx.sym.ones(4), (4,)), (mx.sym.full((2,), 7), (2,)),
                       (mx.sym.arange(0, 6, 2), (3,)), (mx.sym.linspace(0, 1, 5), (5,)), (mx.sym.eye(3), (3, 3))]:
        _, out_shapes, _ = sym.infer_shape()
        _, out_types, _ = sym.infer_type()
        assert out_shapes == [shape] and out_types == [np.float32], sym
    filled = mx.sym.full((2,), 7)
    assert filled.attr_dict()[filled.name]["value"] == "7.0"


def test_moveaxis_matches_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for src, dst in [(0, -1), ((0, 1), (-1, -2)), (-1, 0)]:
        np.testing.assert_array_equal(mx.nd.moveaxis(mx.nd.array(x), src, dst).asnumpy(), np.moveaxis(x, src, dst))
    with pytest.raises(mx.MXNetError, match=r"source expected distinct axes in \[-3, 3\), got 3"):
        mx.nd.moveaxis(mx.nd.array(x), 3, 0)


def test_split_v2_by_sections_and_by_indices():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    for parts, want in [(3, np.split(x, 3)), ((1, 4), np.split(x, [1, 4]))]:
        got = mx.nd.split_v2(mx.nd.array(x), parts)
        assert [g.asnumpy().tolist() for g in got] == [w.tolist() for w in want]
    assert mx.sym.split_v2(mx.sym.var("x"), (1, 4)).infer_shape(x=(6, 2))[1] == [(1, 2), (3, 2), (2, 2)]
    with pytest.raises(mx.MXNetError, match="divides axis 0 of size 6, got 4"):
        mx.nd.split_v2(mx.nd.array(x), 4)


def test_concatenate_onehot_encode_and_from_numpy():
    a, b = mx.nd.ones((1, 2)), mx.nd.zeros((2, 2))
    assert mx.nd.concatenate([a, b]).asnumpy().tolist() == [[1, 1], [0, 0], [0, 0]]
    assert mx.nd.concatenate([a], always_copy=False) is a
    out = mx.nd.zeros((2, 3))
    assert mx.nd.onehot_encode(mx.nd.array([2, 0]), out) is out
    assert out.asnumpy().tolist() == [[0, 0, 1], [1, 0, 0]]
    source = np.arange(3, dtype=np.float32)
    shared = mx.nd.from_numpy(source)
    with pytest.raises(ValueError):               # as MXNet: zero copy makes the NumPy array read-only
        source[0] = 7
    shared[0] = 7                                  # ... and the NDArray writes the shared memory
    assert source.tolist() == [7, 1, 2] and mx.nd.from_numpy(source).asnumpy().tolist() == [7, 1, 2]
    assert mx.nd.from_numpy(source, zero_copy=False).asnumpy().tolist() == [7, 1, 2]
    assert operator.eq(mx.nd.from_numpy(source[::2], zero_copy=False).shape, (2,))
    with pytest.raises(ValueError, match="C-contiguous"):      # MXNet: only C-contiguous arrays zero-copy
        mx.nd.from_numpy(np.arange(4.0)[::2])


def test_the_mxnet_base_and_util_names_code_imports():
    # what MXNet's own tests and user code take from mxnet.base / mxnet.util at import time
    import numpy as np
    from hybridlab import base, util
    assert isinstance(np.int64(3), base.integer_types) and not isinstance(3.0, base.integer_types)
    assert isinstance(np.float16(1), base.numeric_types) and isinstance("x", base.string_types)
    assert base.py_str(b"conv") == "conv" and base._as_list((1, 2)) == (1, 2) and base._as_list(3) == [3]
    assert base.mx_real_t is np.float32
    err = base.NotImplementedForSymbol(sorted, "sort", 1)
    assert isinstance(err, base.MXNetError)
    assert str(err) == ("Function sorted (namely operator \"sort\") with arguments (<class 'int'>) "
                        "is not implemented for Symbol and only available in NDArray.")
    with util.TemporaryDirectory() as folder:
        import os
        assert os.path.isdir(folder)
    assert not os.path.exists(folder)


def test_data_dir_follows_mxnet_home(monkeypatch, tmp_path):
    from hybridlab import base
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert base.data_dir() == str(tmp_path)
    monkeypatch.delenv("MXNET_HOME")
    assert base.data_dir().endswith(".mxnet")


def test_runtime_features_and_the_deferred_compute_module():
    import importlib
    import hybridlab as mx
    features = mx.runtime.Features()
    assert features.is_enabled("profiler") and features.is_enabled("INT64_TENSOR_SIZE")
    assert features.is_enabled("cuda") == (mx.num_gpus() > 0)
    assert not features.is_enabled("TENSORRT") and repr(features["TENSORRT"]) == "✖ TENSORRT"
    with pytest.raises(RuntimeError, match="Feature 'WARP_DRIVE' is unknown, known features are: \\['CUDA'"):
        features.is_enabled("warp_drive")
    dc = importlib.import_module("hybridlab._deferred_compute")     # as MXNet's block.py imports it
    assert dc is mx._deferred_compute and callable(dc.context)


def test_attr_scope_marks_the_symbols_created_inside_and_they_still_run():
    import numpy as np
    import hybridlab as mx
    with mx.AttrScope(ctx_group="dev1", __lr_mult__="0.5"):
        data = mx.sym.var("data")
        fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc")        # its weight and bias are created here too
        with mx.AttrScope(ctx_group="dev2"):
            out = mx.sym.relu(fc, name="out", attr={"__mark__": "mine"})
    attrs = out.attr_dict()                 # MXNet stores ctx_group and lr_mult as __key__
    assert attrs["fc_weight"]["__ctx_group__"] == "dev1" and attrs["fc_weight"]["__lr_mult__"] == "0.5"
    assert attrs["out"] == {"__lr_mult__": "0.5", "__ctx_group__": "dev2", "__mark__": "mine"}
    assert out.attr("ctx_group") == "dev2" and out.attr("lr_mult") == "0.5"
    assert mx.sym.var("later").list_attr() == {}
    # MXNet's own test_attr_basic
    with mx.AttrScope(group="4", data="great"):
        data = mx.sym.var("data", attr={"dtype": "data", "group": "1", "force_mirroring": "True"}, lr_mult=1)
        gdata = mx.sym.var("data2")
    assert gdata.attr("group") == "4" and data.attr("group") == "1" and data.attr("data") == "great"
    assert data.attr("lr_mult") == data.attr("__lr_mult__") == "1"
    assert data.attr("force_mirroring") == data.attr("__force_mirroring__") == "True"
    back = mx.sym.fromjson(out.tojson())
    assert back.attr_dict()["out"]["__ctx_group__"] == "dev2"
    ex = back.simple_bind(mx.cpu(), data=(1, 3))
    assert ex.forward()[0].shape == (1, 2)
    with pytest.raises(ValueError, match="attribute 'ctx_group' expected a string value, got int 1"):
        mx.AttrScope(ctx_group=1)
