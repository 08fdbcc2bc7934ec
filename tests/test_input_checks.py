"""Input checks MXNet 1.9.1 makes and a silent computation would skip: inputs whose dtypes the
operator's type inference refuses (float64 data into float32 weights), and attribute values outside
the ranges MXNet's parameter checks enforce (Dropout p in [0, 1], num_hidden >= 1, ...). Each refusal
is an MXNetError naming the layer or node, the input or attribute, the expected and the got value,
imperatively, hybridized and in symbolic inference alike; valid mixed cases keep working."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd
from hybridlab.gluon import nn, rnn
from hybridlab.ops.registry import OpDef, get_op


def raises(fn, *parts):
    """Run ``fn``; it must raise an MXNetError whose message holds every one of ``parts``."""
    with pytest.raises(mx.MXNetError) as info:
        fn()
    msg = str(info.value)
    for part in parts:
        assert part in msg, f"{part!r} not in {msg!r}"
    return msg


def _dense():
    with mx.name.NameManager():
        net = nn.Dense(2, in_units=3, prefix="dense0_")
    net.initialize()
    return net


class _Wrapper(mx.gluon.HybridBlock):
    """An MXNet 2.0 style block (``forward``): hybridized, its graph is traced with deferred compute."""

    def __init__(self, child, **kwargs):
        super().__init__(**kwargs)
        self.child = child

    def forward(self, x):
        return self.child(x)


# ---- dtype agreement: Gluon layers ------------------------------------------------------------
@pytest.mark.parametrize("mode", ["imperative", "hybridized", "nested_symbolic", "nested_traced"])
def test_dense_float64_input_to_float32_weights_names_the_layer(mode):
    x = mx.nd.ones((1, 3), dtype="float64")
    net = _dense()
    if mode == "hybridized":
        net.hybridize()
    elif mode == "nested_symbolic":     # a 1.x HybridSequential builds its graph with F = mx.sym
        seq = nn.HybridSequential(prefix="seq0_")
        seq.add(net)
        seq.hybridize()
        raises(lambda: seq(x), "dense0_fwd", "FullyConnected", "weight", "float64", "float32")
        return
    elif mode == "nested_traced":
        outer = _Wrapper(net)
        outer.hybridize()
        net = outer
    raises(lambda: net(x), "Layer 'dense0' (Dense)", "input 1 (weight)", "expected float64", "got float32",
           "x.astype('float32')", "net.cast('float64')")


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_kernel_larger_than_the_input_is_named_even_with_deferred_weights(hybridize):
    # the weight's in_channels is still unknown (deferred): the data alone is wrong, and that is
    # what the user reads, not "cannot decide shape"
    net = nn.Conv2D(2, 5)
    net.initialize()
    if hybridize:
        net.hybridize()
    raises(lambda: net(mx.nd.ones((1, 1, 2, 2))), "Convolution", "(1, 1, 2, 2)", "kernel (5, 5) exceeds the input")
    raises(lambda: nn.MaxPool2D(5)(mx.nd.ones((1, 1, 2, 2))), "Pooling", "kernel (5, 5) exceeds the input")


def test_conv2d_int32_input_is_refused():
    conv = nn.Conv2D(2, 3, in_channels=1, prefix="conv0_")
    conv.initialize()
    raises(lambda: conv(mx.nd.ones((1, 1, 5, 5), dtype="int32")), "Layer 'conv0' (Conv2D)", "weight",
           "expected int32", "got float32")
    conv.hybridize()
    raises(lambda: conv(mx.nd.ones((1, 1, 5, 5), dtype="int32")), "Layer 'conv0' (Conv2D)", "weight")


def test_conv_transpose_and_norm_layers_check_dtypes():
    x64 = mx.nd.ones((2, 4, 5, 5), dtype="float64")
    for layer, name in [(nn.Conv2DTranspose(2, 3, in_channels=4, prefix="deconv0_"), "weight"),
                        (nn.BatchNorm(in_channels=4, prefix="bn0_"), "gamma"),
                        (nn.InstanceNorm(in_channels=4, prefix="in0_"), "gamma"),
                        (nn.GroupNorm(2, prefix="gn0_"), "gamma"),
                        (nn.LayerNorm(in_channels=5, prefix="ln0_"), "gamma")]:
        layer.initialize()
        raises(lambda: layer(x64), f"Layer '{layer.name}' ({type(layer).__name__})", name, "expected float64",
               "got float32")


def test_rnn_layers_check_parameters_and_states():
    lstm = rnn.LSTM(4, input_size=3, prefix="lstm0_")
    lstm.initialize()
    x = mx.nd.ones((2, 1, 3))
    raises(lambda: lstm(x.astype("float64")), "Layer 'lstm0' (LSTM)", "parameters", "expected float64", "got float32")
    h, c = lstm.begin_state(batch_size=1)
    raises(lambda: lstm(x, [h.astype("float64"), c]), "Layer 'lstm0' (LSTM)", "input 2 (state)", "expected float32",
           "got float64", "state.astype('float32')")
    lstm.hybridize()
    raises(lambda: lstm(x.astype("float64")), "Layer 'lstm0' (LSTM)", "parameters")
    with pytest.warns(UserWarning, match="hybridized"):
        lstm.cast("float64")
    assert lstm(x.astype("float64")).dtype == np.float64


def test_valid_mixed_dtypes_still_work():
    # Embedding: any numeric index dtype; the output takes the weight's dtype
    emb = nn.Embedding(5, 3)
    emb.initialize()
    for dt in ("int32", "int64", "float64", "float16"):
        assert emb(mx.nd.array([1, 2], dtype=dt)).dtype == np.float32
    w64 = mx.nd.ones((5, 3), dtype="float64")
    assert mx.nd.Embedding(mx.nd.array([0, 4], dtype="int32"), w64, input_dim=5, output_dim=3).dtype == np.float64
    # BatchNorm keeps float16 data's parameters in float32, also after net.cast('float16')
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=2), nn.BatchNorm(in_channels=4), nn.Dense(2, in_units=36))
    net.initialize()
    net.cast("float16")
    assert net[1].gamma.dtype == np.float32 and net[0].weight.dtype == np.float16
    x16 = mx.nd.ones((1, 2, 5, 5), dtype="float16")
    assert net(x16).dtype == np.float16
    net.hybridize()
    assert net(x16).dtype == np.float16
    # float16 everything, and float64 after net.cast('float64')
    dense = nn.Dense(3, in_units=4, dtype="float16")
    dense.initialize()
    assert dense(mx.nd.ones((2, 4), dtype="float16")).dtype == np.float16
    with pytest.warns(UserWarning, match="hybridized"):
        net.cast("float64")
    x64 = mx.nd.ones((1, 2, 5, 5), dtype="float64")
    assert net(x64).dtype == np.float64
    with autograd.record():
        y = net(x64)
    y.backward()
    assert net[0].weight.grad().dtype == np.float64


# ---- dtype agreement: operators, imperatively and in graphs -------------------------------------
def test_operators_refuse_mixed_dtypes_imperatively():
    f64, f32 = "float64", "float32"
    x = mx.nd.ones((2, 3), dtype=f64)
    raises(lambda: mx.nd.FullyConnected(x, mx.nd.ones((4, 3)), mx.nd.ones((4,)), num_hidden=4),
           "FullyConnected", "weight", f64, f32)
    raises(lambda: mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.ones((4,), dtype=f64),
                                        num_hidden=4), "FullyConnected", "bias", f32, f64)
    img = mx.nd.ones((1, 1, 4, 4), dtype=f64)
    raises(lambda: mx.nd.Convolution(img, mx.nd.ones((2, 1, 3, 3)), kernel=(3, 3), num_filter=2, no_bias=True),
           "Convolution", "weight", f64, f32)
    raises(lambda: mx.nd.Deconvolution(img, mx.nd.ones((1, 2, 3, 3)), kernel=(3, 3), num_filter=2),
           "Deconvolution", "weight", f64, f32)
    ones = mx.nd.ones((3,))
    raises(lambda: mx.nd.BatchNorm(x, ones, ones, ones, ones), "BatchNorm", "gamma", f64, f32)
    raises(lambda: mx.nd.LayerNorm(x, ones, ones), "LayerNorm", "gamma", f64, f32)
    raises(lambda: mx.nd.InstanceNorm(mx.nd.ones((1, 3, 4), dtype=f64), ones, ones), "InstanceNorm", "gamma")
    raises(lambda: mx.nd.GroupNorm(mx.nd.ones((1, 3, 4), dtype=f64), mx.nd.ones((1,)), mx.nd.ones((1,))),
           "GroupNorm", "gamma")
    seq = mx.nd.ones((2, 1, 3), dtype=f64)
    params = mx.nd.ones((4 * 4 * (3 + 4 + 2),))
    raises(lambda: mx.nd.RNN(seq, params, mx.nd.zeros((1, 1, 4), dtype=f64), mx.nd.zeros((1, 1, 4), dtype=f64),
                             state_size=4, num_layers=1, mode="lstm"), "RNN", "parameters", f64, f32)


def test_operators_accept_what_mxnet_accepts():
    f16 = "float16"
    x16 = mx.nd.ones((2, 3), dtype=f16)
    ones32 = mx.nd.ones((3,))
    assert mx.nd.BatchNorm(x16, ones32, ones32, ones32, ones32).dtype == np.float16
    assert mx.nd.FullyConnected(x16, mx.nd.ones((4, 3), dtype=f16), num_hidden=4, no_bias=True).dtype == np.float16
    # RNN's sequence_length may have its own (integer) dtype
    seq = mx.nd.ones((2, 1, 3))
    out = mx.nd.RNN(seq, mx.nd.ones((4 * (3 + 4 + 2),)), mx.nd.zeros((1, 1, 4)),
                    mx.nd.array([2], dtype="int32"), state_size=4, num_layers=1, mode="rnn_tanh",
                    use_sequence_length=True)
    assert out.dtype == np.float32


def test_symbolic_inference_and_bind_refuse_mixed_dtypes():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    args, outs, _ = fc.infer_type(data="float64")      # unknown parameter dtypes follow the data
    assert [a.name for a in args] == ["float64"] * 3 and outs[0] == np.float64
    raises(lambda: fc.infer_type(data="float64", fc_weight="float32"), "fc", "weight", "float64", "float32")
    raises(lambda: fc.simple_bind(mx.cpu(), data=(1, 3), type_dict={"data": "float64", "fc_weight": "float32"}),
           "fc", "weight", "float64", "float32")
    # bind infers the outputs (MXNet's executor allocates them), so the mismatch is refused there
    raises(lambda: fc.bind(mx.cpu(), {"data": mx.nd.ones((1, 3), dtype="float64"), "fc_weight": mx.nd.ones((2, 3)),
                                      "fc_bias": mx.nd.ones((2,))}), "fc", "weight", "float64", "float32")
    bn = mx.sym.BatchNorm(data, name="bn")
    args, outs, aux = bn.infer_type(data="float16")
    assert [a.name for a in args] == ["float16", "float32", "float32"] and [a.name for a in aux] == ["float32"] * 2
    raises(lambda: bn.infer_type(data="float64", bn_gamma="float32"), "bn", "gamma", "float64", "float32")


# ---- attribute bounds ---------------------------------------------------------------------------
def _nd(name, *shapes, **attrs):
    # nd.array: a legacy nd.ones refuses zero-size shapes (MXNet reads a 0 there as unknown)
    return lambda: getattr(mx.nd, name)(*[mx.nd.array(np.ones(s)) for s in shapes], **attrs)


@pytest.mark.parametrize("call, attr, got", [
    (_nd("Dropout", (2, 3), p=1.5, mode="always"), "'p'", "1.5"),
    (_nd("Dropout", (2, 3), p=-0.1), "'p'", "-0.1"),
    (_nd("FullyConnected", (2, 3), (5, 3), num_hidden=-5, no_bias=True), "'num_hidden'", "-5"),
    (_nd("FullyConnected", (2, 3), (1, 3), num_hidden=0, no_bias=True), "'num_hidden'", "0"),
    (_nd("Convolution", (1, 1, 4, 4), (2, 1, 3, 3), kernel=(3, 3), num_filter=0, no_bias=True), "'num_filter'", "0"),
    (_nd("Convolution", (1, 1, 4, 4), (2, 1, 3, 3), kernel=(3, 0), num_filter=2, no_bias=True), "'kernel'", "(3, 0)"),
    (_nd("Convolution", (1, 1, 4, 4), (2, 1, 3, 3), kernel=(3, 3), stride=(0, 1), num_filter=2, no_bias=True),
     "'stride'", "(0, 1)"),
    (_nd("Convolution", (1, 1, 4, 4), (2, 1, 3, 3), kernel=(3, 3), dilate=(1, 0), num_filter=2, no_bias=True),
     "'dilate'", "(1, 0)"),
    (_nd("Convolution", (1, 1, 4, 4), (2, 1, 3, 3), kernel=(3, 3), pad=(-1, 0), num_filter=2, no_bias=True),
     "'pad'", "(-1, 0)"),
    (_nd("Deconvolution", (1, 1, 4, 4), (1, 2, 3, 3), kernel=(3, 3), num_filter=2, stride=(2, 2), adj=(-1, 0)),
     "'adj'", "(-1, 0)"),
    (_nd("Pooling", (1, 1, 4, 4), kernel=(0, 2)), "'kernel'", "(0, 2)"),
    (_nd("Pooling", (1, 1, 4, 4), kernel=(2, 2), stride=(0, 2)), "'stride'", "(0, 2)"),
    (_nd("Pooling", (1, 1, 4, 4), kernel=(2, 2), pad=(-1, 0)), "'pad'", "(-1, 0)"),
    (_nd("Embedding", (2,), (3, 5), input_dim=0, output_dim=5), "'input_dim'", "0"),
    (_nd("Embedding", (2,), (3, 5), input_dim=3, output_dim=-1), "'output_dim'", "-1"),
    (_nd("GroupNorm", (1, 4, 2), (1,), (1,), num_groups=0), "'num_groups'", "0"),
    (_nd("RNN", (3, 2, 4), (27,), (1, 2, 3), state_size=3, num_layers=1, mode="rnn_tanh", p=2.0), "'p'", "2.0"),
    (_nd("RNN", (3, 2, 4), (1,), (1, 2, 0), state_size=0, num_layers=1, mode="rnn_tanh"), "'state_size'", "0"),
    (_nd("SliceChannel", (2, 4), num_outputs=0), "'num_outputs'", "0"),
    (_nd("SoftmaxOutput", (2, 3), (2,), smooth_alpha=2.0), "'smooth_alpha'", "2.0"),
    (_nd("ROIPooling", (1, 1, 4, 4), (1, 5), pooled_size=(2, 2), spatial_scale=2.0), "'spatial_scale'", "2.0"),
    (lambda: mx.nd.Concat(), "'num_args'", "0"),
    (lambda: mx.nd.add_n(), "'num_args'", "0"),
])
def test_attribute_bounds(call, attr, got):
    raises(call, attr, f"got {got}", "expected")


def test_bounds_hold_in_graphs_and_model_files():
    data = mx.sym.var("data")
    raises(lambda: mx.sym.Dropout(data, p=1.5), "Dropout", "'p'", "[0, 1]", "1.5")
    fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    doc = json.loads(fc.tojson())
    next(n for n in doc["nodes"] if n["op"] == "FullyConnected")["attrs"]["num_hidden"] = "-5"
    raises(lambda: mx.sym.load_json(json.dumps(doc)), "fc", "num_hidden", "-5")


def test_bounds_are_declared_on_the_op():
    assert get_op("Dropout").bounds["p"] == (0, 1)
    assert get_op("Dropout").attr_problem("p", 1.5) == "expected a value in [0, 1]"
    assert get_op("FullyConnected").attr_problem("num_hidden", 3) is None
    assert "in [0, 1]" in get_op("Dropout").signature_doc()
    with pytest.raises(ValueError, match="unknown attribute"):
        OpDef("_bad_bounds", compute=None, infer_shape=None, bounds={"nope": (0, 1)})


# ---- Gluon constructors -------------------------------------------------------------------------
@pytest.mark.parametrize("make, parts", [
    (lambda: nn.Dense(-5, prefix="dense0_"), ("Layer 'dense0' (Dense)", "units", ">= 1", "num_hidden", "got -5")),
    (lambda: nn.Dense(2.5, prefix="dense0_"), ("Layer 'dense0' (Dense)", "units", "got 2.5")),
    (lambda: nn.Dense(4, in_units=-1, prefix="dense0_"), ("Layer 'dense0' (Dense)", "in_units", "got -1")),
    (lambda: nn.Dropout(1.5, prefix="drop0_"), ("Layer 'drop0' (Dropout)", "rate", "[0, 1]", "got 1.5")),
    (lambda: nn.Conv2D(-1, 3, prefix="conv0_"), ("Layer 'conv0' (Conv2D)", "channels", "num_filter", "got -1")),
    (lambda: nn.Conv2D(2, 0, prefix="conv0_"), ("Layer 'conv0' (Conv2D)", "kernel_size", "got (0, 0)")),
    (lambda: nn.Conv2D(2, 3, strides=0, prefix="conv0_"), ("Layer 'conv0' (Conv2D)", "strides", "got 0")),
    (lambda: nn.Conv2D(2, 3, padding=-1, prefix="conv0_"), ("Layer 'conv0' (Conv2D)", "padding", ">= 0", "got -1")),
    (lambda: nn.Conv2D(2, 3, groups=0, prefix="conv0_"), ("Layer 'conv0' (Conv2D)", "groups", "got 0")),
    (lambda: nn.Conv2DTranspose(2, 3, output_padding=-1, prefix="conv0_"), ("output_padding", "got -1")),
    (lambda: nn.MaxPool2D(0, prefix="pool0_"), ("Layer 'pool0' (MaxPool2D)", "pool_size", "got (0, 0)")),
    (lambda: nn.AvgPool2D(2, padding=-1, prefix="pool0_"), ("Layer 'pool0' (AvgPool2D)", "padding", "got -1")),
    (lambda: nn.Embedding(0, 3, prefix="emb0_"), ("Layer 'emb0' (Embedding)", "input_dim", "got 0")),
    (lambda: nn.GroupNorm(0, prefix="gn0_"), ("Layer 'gn0' (GroupNorm)", "num_groups", "got 0")),
    (lambda: nn.BatchNorm(in_channels=-2, prefix="bn0_"), ("Layer 'bn0' (BatchNorm)", "in_channels", "got -2")),
    (lambda: rnn.LSTM(0, prefix="lstm0_"), ("Layer 'lstm0' (LSTM)", "hidden_size", "got 0")),
    (lambda: rnn.GRU(3, num_layers=0, prefix="gru0_"), ("Layer 'gru0' (GRU)", "num_layers", "got 0")),
    (lambda: rnn.RNN(3, dropout=1.2, prefix="rnn0_"), ("Layer 'rnn0' (RNN)", "dropout", "[0, 1]", "got 1.2")),
])
def test_layer_constructors_refuse_what_their_op_refuses(make, parts):
    raises(make, *parts)


def test_parameter_refuses_negative_sizes():
    raises(lambda: mx.gluon.Parameter("w", shape=(-5, 3)), "Parameter 'w'", "got (-5, 3)")
    assert mx.gluon.Parameter("w", shape=(0, 3)).shape == (0, 3)     # 0: inferred at the first call


def test_ops_without_attributes_ignore_keywords_with_a_warning_as_mxnet_does():
    x = mx.nd.array([1.0, -5.0])
    with pytest.warns(UserWarning, match="broadcast_maximum takes no attributes: 'axis' is ignored"):
        out = mx.nd.broadcast_maximum(mx.nd.array([0.0]), x, axis=1)
    assert out.asnumpy().tolist() == [1.0, 0.0]
    with pytest.raises(mx.MXNetError, match="unknown attribute 'axes'"):
        mx.nd.sum(x, axes=0)          # an op with attributes still refuses a wrong one


def test_imperative_shape_checks_are_remembered_per_attributes_shapes_and_shape_semantics():
    """A loop's calls skip the shape inference a first call passed (same op, attributes and shapes);
    other shapes, another input count or NumPy shape semantics turned off are checked again."""
    x = mx.nd.ones((2, 3))
    assert mx.nd.sum(x, axis=1).shape == (2,)
    assert mx.nd.sum(x, axis=1).shape == (2,)                                    # remembered
    raises(lambda: mx.nd.sum(mx.nd.ones((2,)), axis=1), "sum", "axis=1", "got ndim 1")   # same attributes, new shape
    raises(lambda: mx.nd.elemwise_add(x, mx.nd.ones((3, 2))), "elemwise_add", "(3, 2)")
    add = get_op("elemwise_add")
    from hybridlab.ndarray.dispatch import invoke
    invoke(add, [x, x], {})
    raises(lambda: invoke(add, [x, x, x], {}), "elemwise_add: expected 2 inputs", "got 3")
    with mx.util.np_shape(True):
        empty = mx.nd.zeros((0, 4, 2, 2))
        assert mx.nd.depth_to_space(empty, block_size=2).shape == (0, 1, 4, 4)
    # the same call outside NumPy shape semantics: MXNet 1.x refuses a zero-size shape
    raises(lambda: mx.nd.depth_to_space(empty, block_size=2), "depth_to_space", "without zero sizes",
           "(0, 4, 2, 2)")
