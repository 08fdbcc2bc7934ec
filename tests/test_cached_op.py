"""CachedOp: a Symbol compiled into generated Python code, once per input signature.

Compiled results equal the imperative ``mx.nd`` calls (bit for bit: the same kernels run), for
hand-built graphs, for every op-checker case, and for the real MXNet 1.9.1 fixture models; the
generated source is printable and registered with ``linecache`` (tracebacks show it); signatures
are cached; the recorded (autograd) path gives the imperative gradients; bad inputs raise
``MXNetError`` naming the input, expected vs got."""
import inspect
import json
import linecache
import os
import traceback

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.compiler import CachedOp, parse_flags
from hybridlab.compiler.codegen import compile_program
from hybridlab.compiler.signature import Signature
from hybridlab.ops.infer import same_shape
from hybridlab.ops.registry import OpDef, get_op
from hybridlab.symbol.symbol import compose, var

from op_cases import all_cases
from op_checker import make_inputs, run_op

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
GPU = pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)")


def mlp_symbol():
    x = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=16, name="fc1"), act_type="relu", name="relu1")
    h = mx.sym.Activation(mx.sym.FullyConnected(h, num_hidden=8, name="fc2"), act_type="relu", name="relu2")
    return mx.sym.FullyConnected(h, num_hidden=2, name="fc3")


MLP_SHAPES = {"data": (4, 10), "fc1_weight": (16, 10), "fc1_bias": (16,), "fc2_weight": (8, 16),
              "fc2_bias": (8,), "fc3_weight": (2, 8), "fc3_bias": (2,)}


def arrays_for(op, shapes, seed=0, device=None):
    rng = np.random.RandomState(seed)
    return [mx.nd.array(rng.randn(*shapes[n]).astype(np.float32), device=device) for n in op.input_names]


def mlp_imperative(x, w1, b1, w2, b2, w3, b3):
    h = mx.nd.Activation(mx.nd.FullyConnected(x, w1, b1, num_hidden=16), act_type="relu")
    h = mx.nd.Activation(mx.nd.FullyConnected(h, w2, b2, num_hidden=8), act_type="relu")
    return mx.nd.FullyConnected(h, w3, b3, num_hidden=2)


# ---- results equal the imperative calls -------------------------------------------------------------
def test_mlp_matches_imperative():
    op = CachedOp(mlp_symbol())
    assert op.input_names == list(MLP_SHAPES)
    args = arrays_for(op, MLP_SHAPES)
    out = op(*args)
    assert isinstance(out, mx.nd.NDArray) and out.shape == (4, 2) and out.device == mx.cpu()
    np.testing.assert_array_equal(out.asnumpy(), mlp_imperative(*args).asnumpy())


def test_conv_bn_pool_net_and_group_outputs():
    x = mx.sym.var("data")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    b = mx.sym.BatchNorm(c, fix_gamma=False, name="bn")
    p = mx.sym.Pooling(mx.sym.relu(b, name="act"), kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    parts = mx.sym.split(p, num_outputs=2, axis=1, name="split")
    total = mx.sym.sum(p, name="total")
    sym = mx.sym.Group([parts[1], mx.sym.Flatten(parts[0], name="flat"), total])
    op = CachedOp(sym)
    assert op.input_names == ["data", "conv_weight", "conv_bias", "bn_gamma", "bn_beta", "bn_moving_mean",
                              "bn_moving_var"]
    shapes = {"data": (2, 3, 6, 6), "conv_weight": (4, 3, 3, 3), "conv_bias": (4,), "bn_gamma": (4,),
              "bn_beta": (4,), "bn_moving_mean": (4,), "bn_moving_var": (4,)}
    args = arrays_for(op, shapes)
    args[-1] = mx.nd.abs(args[-1]) + 0.5
    outs = op(*args)
    assert isinstance(outs, list) and len(outs) == 3

    d, w, bias, g, beta, mm, mv = args
    cc = mx.nd.Convolution(d, w, bias, kernel=(3, 3), num_filter=4, pad=(1, 1))
    bb = mx.nd.BatchNorm(cc, g, beta, mm, mv, fix_gamma=False)
    pp = mx.nd.Pooling(mx.nd.relu(bb), kernel=(2, 2), stride=(2, 2), pool_type="max")
    s0, s1 = mx.nd.split(pp, num_outputs=2, axis=1)
    for got, want in zip(outs, [s1, mx.nd.Flatten(s0), mx.nd.sum(pp)]):
        assert got.shape == want.shape       # predict programs fold the BatchNorm: float32 rounding differs
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


def test_scalar_arithmetic_and_zero_dim_results_are_arrays():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    sym = mx.sym.Group([(a * 2 + b) / 4 - 1, mx.sym._np_sum(a * b)])
    op = CachedOp(sym)
    x, y = mx.np.array([1.0, 2.0, 3.0]), mx.np.array([4.0, 5.0, 6.0])
    lin, dot = op(x, y)
    np.testing.assert_allclose(lin.asnumpy(), (np.array([1, 2, 3]) * 2 + [4, 5, 6]) / 4 - 1)
    assert dot.shape == () and type(dot._data) is np.ndarray and float(dot) == 32.0
    assert isinstance(lin, mx.nd.NDArray) and lin._np and dot._np   # mx.np inputs give mx.np outputs


def test_a_variable_can_be_an_output_and_inputs_are_not_modified():
    a = mx.sym.var("a")
    op = CachedOp(mx.sym.Group([a, mx.sym.relu(a, name="r")]))
    x = mx.nd.array([-1.0, 2.0])
    same, r = op(x)
    assert same.asnumpy().tolist() == [-1.0, 2.0] and r.asnumpy().tolist() == [0.0, 2.0]
    assert x.asnumpy().tolist() == [-1.0, 2.0]


CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_op_case_compiled_equals_imperative(case):
    """Each op-checker case as a one-node graph: the generated program gives the dispatcher's outputs."""
    inputs = make_inputs(case, np.random.default_rng(0), np.float32)
    _, want = run_op(case, mx.cpu(), inputs)
    sym = compose(get_op(case.op), [var(f"in{i}") for i in range(len(inputs))], dict(case.attrs))
    op = CachedOp(sym)
    if case.seed is not None:
        mx.random.seed(case.seed)
    args = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    with mx.autograd.train_mode() if case.train else mx.autograd.predict_mode():
        got = op(*args)
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g._data) is np.ndarray and (g.shape, g.dtype) == (w.shape, w.dtype)
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    if op.signatures and "inlined as NumPy calls" in op.source():
        # an inline expression's value is the program's own array (InlineRule: in-place writes rely on it)
        assert not any(np.shares_memory(g._data, x._data) for g in got for x in args), op.source()


def test_elementwise_inline_ops_write_over_temporaries_that_die_there():
    """A plain CPU program computes an elementwise op in place over an input it computed itself that
    nothing reads afterwards (as ``np.maximum(h, 0, out=h)`` by hand), and never over a graph input, an
    output, a value read later or by another node: the values stay those of the kernels. (Generated
    straight from the graph: the cached op's passes would fuse or merge these nodes.)"""
    x, w = var("x"), var("w")
    h = mx.sym.dot(x, w, name="h")
    r = mx.sym.relu(h, name="r")                       # not over h: the next node reads h too
    m = mx.sym.elemwise_mul(r, h, name="m")            # over r (h was read by two nodes)
    kept = mx.sym.dot(x, w, name="kept")
    out = mx.sym.Group([mx.sym.relu(x, name="rx"),     # never over a graph input
                        mx.sym.elemwise_mul(m, m, name="sq"),   # over m (both reads are this one's)
                        kept, mx.sym.relu(kept, name="rk"),     # never over a graph output
                        mx.sym.relu(mx.sym.dot(x, w, name="d2"), name="r2")])   # over d2
    sig = Signature(["x", "w"], [(4, 5), (5, 6)], [np.dtype("float32")] * 2, mx.cpu(), False)
    inputs = [x._outputs[0][0], w._outputs[0][0]]
    shapes, dtypes = sig.infer(out._outputs, inputs)
    prog = compile_program(out._outputs, inputs, sig, shapes, dtypes)
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((5, 6)).astype(np.float32)
    x0, w0 = xv.copy(), wv.copy()
    hv = xv @ wv
    mv = np.maximum(hv, 0) * hv
    got = prog.fn(xv, wv)
    for g, want in zip(got, [np.maximum(xv, 0), mv * mv, hv, np.maximum(hv, 0), np.maximum(hv, 0)]):
        np.testing.assert_allclose(g, want, rtol=1e-6)
    assert np.array_equal(xv, x0) and np.array_equal(wv, w0)
    lines = {line.split(" = ")[0].strip(): line for line in prog.source.splitlines()
             if " = " in line and not line.lstrip().startswith("#")}
    assert "out=" not in lines["r"] and "out=r)" in lines["m"] and "out=m)" in lines["sq"]
    assert "out=" not in lines["rx"] and "out=" not in lines["rk"] and "out=d2)" in lines["r2"]
    # instrumented variants (hooks may keep what they are given) never do it
    assert "out=" not in prog.instrumented().source


def test_training_mode_and_random_ops_use_the_call_mode_and_device_rng():
    x = mx.sym.var("x")
    op = CachedOp(mx.sym.Dropout(x, p=0.5, name="drop"))
    data = mx.nd.ones((50, 40))
    assert (op(data).asnumpy() == 1).all()                       # predict mode: identity
    mx.random.seed(7)
    with mx.autograd.train_mode():
        got = op(data).asnumpy()
    mx.random.seed(7)
    with mx.autograd.train_mode():
        want = mx.nd.Dropout(data, p=0.5).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(got)) == {0.0, 2.0}
    assert [s.training for s in op.signatures] == [False, True]

    noise = CachedOp(mx.sym.random.normal(loc=1.0, scale=2.0, shape=(3, 4), name="noise"))
    assert noise.input_names == []
    mx.random.seed(3)
    first = noise()
    mx.random.seed(3)
    np.testing.assert_array_equal(first.asnumpy(), mx.nd.random.normal(1.0, 2.0, shape=(3, 4)).asnumpy())
    assert first.device == mx.cpu()


def test_aux_states_are_the_callers_buffers():
    """BatchNorm's moving statistics reach the kernel as the caller's own arrays (no copies)."""
    seen = []
    probe = OpDef("_test_probe_aux", inputs=("data", "state"), aux=("state",), infer_shape=lambda a, s: [s[0]],
                  compute=lambda ctx, a, x, st: seen.append(st) or x + 0, family="internal")
    op = CachedOp(compose(probe, [mx.sym.var("x"), mx.sym.var("st")], {}))
    x, st = mx.nd.ones((2,)), mx.nd.zeros((3,))
    op(x, st)
    assert seen[0] is st._data
    assert op.symbol.list_auxiliary_states() == ["st"]


# ---- the generated source ---------------------------------------------------------------------------
def test_source_is_printable_and_registered_with_linecache(capsys):
    op = CachedOp(mlp_symbol())
    assert "nothing compiled yet" in str(op)
    with pytest.raises(mx.MXNetError, match="has not compiled anything yet"):
        op.source()
    op(*arrays_for(op, MLP_SHAPES))
    src = op.source()
    print(op)
    assert capsys.readouterr().out == src + "\n"
    assert "def forward(data, fc1_weight, fc1_bias, fc2_weight, fc2_bias, fc3_weight, fc3_bias):" in src
    assert "    fc1 = add(fc1 := dot(data, transposed(fc1_weight)), fc1_bias, out=fc1)" in src
    assert "    del fc1\n" in src and "    return fc3\n" in src
    assert "test_cached_op.py:" in src and "mx.sym.FullyConnected(x, num_hidden=16" in src   # user line
    prog = op.program()
    assert linecache.getlines(prog.filename) == src.splitlines(True)
    assert inspect.getsource(prog.fn) == src[src.index("def forward"):]
    assert prog.node_at(src.splitlines().index("    fc1 = add(fc1 := dot(data, transposed(fc1_weight)), fc1_bias, out=fc1)") + 1).name == "fc1"
    linecache.clearcache()     # traceback refills a cleared cache from the program's loader
    linecache.lazycache(prog.filename, prog.fn.__globals__)
    assert linecache.getlines(prog.filename) == src.splitlines(True)


def test_dense_on_image_data_is_inlined_with_its_kernels_result():
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=5, name="fc")           # flatten=True on (N, C, H, W)
    op = CachedOp(y)
    args = arrays_for(op, {"data": (3, 2, 4, 4), "fc_weight": (5, 32), "fc_bias": (5,)})
    out = op(*args).asnumpy()
    # (a predict program: the weight parameter's row-major transpose, kept until written)
    assert "    fc = add(fc := dot(data.reshape(3, -1), transposed(fc_weight)), fc_bias, out=fc)" in op.source()
    expected = mx.nd.FullyConnected(*args, num_hidden=5).asnumpy()
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("data_shape, no_bias, static", [
    ((1, 32), False, False), ((1, 2, 4, 4), False, True), ((1, 32), True, True)],
    ids=["row", "image_static", "no_bias"])
def test_dense_on_one_row_is_the_weights_matrix_vector_product(data_shape, no_bias, static):
    """At batch 1 the program multiplies the weight (as stored, row-major) by the row: the same
    values as the kernel; a static memory plan's buffer is not written (a fresh row is cheaper)."""
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=5, no_bias=no_bias, name="fc")
    op = CachedOp(y, flags=[("static_alloc", True), ("static_shape", True)] if static else ())
    shapes = {"data": data_shape, "fc_weight": (5, 32)}
    if not no_bias:
        shapes["fc_bias"] = (5,)
    args = arrays_for(op, shapes)
    out = op(*args).asnumpy()
    row = "data[0]" if len(data_shape) == 2 else "data.reshape(-1)"
    product = f"dot(fc_weight, {row})"
    assert f"    fc = {product if no_bias else f'add({product}, fc_bias)'}.reshape(1, -1)" in op.source()
    expected = mx.nd.FullyConnected(*args, num_hidden=5, no_bias=no_bias).asnumpy()
    assert out.shape == (1, 5) and np.array_equal(out, expected)      # the inline rule is the kernel's product


def test_failing_op_traceback_shows_the_generated_line():
    def boom(ctx, a, x):
        raise ValueError("kernel exploded")
    bad = OpDef("_test_boom", compute=boom, infer_shape=same_shape, family="internal")
    x = mx.sym.var("x")
    sym = mx.sym.relu(compose(bad, [mx.sym.exp(x, name="e")], {}, name="kaboom"), name="r")
    op = CachedOp(sym)
    with pytest.raises(ValueError, match="kernel exploded") as info:
        op(mx.nd.ones((2,)))
    text = "".join(traceback.format_exception(info.value))
    assert op.program().filename in text
    assert "kaboom = _test_boom(ctx, attrs1, e)" in text                 # the generated line itself
    assert "While running node 'kaboom' (_test_boom)" in text            # the note naming the node...
    assert "sym = mx.sym.relu(compose(bad" in text                       # ...and the user's line


def test_untrusted_names_become_identifiers_and_comments_stay_comments():
    x = mx.sym.var("in put\n__import__('os')")
    y = mx.sym.relu(x, name="lambda")
    z = mx.sym.sum(y, name="1st\nexit()")          # relu -> sum: nothing for the fusion pass to merge
    op = CachedOp(z)
    out = op(mx.nd.array([-1.0, 2.0]))
    assert out.asnumpy().tolist() == [2.0]
    src = op.source()
    lines = src.splitlines()
    assert all(line.startswith(("#", "def ", "    ")) for line in lines)
    assert "def forward(in_put___import____os__):" in src
    assert "    lambda_1 = maximum(in_put___import____os__, 0)" in src
    assert "    v1st_exit__ = sum_1(ctx, attrs1, lambda_1)" in src   # "sum" is a builtin: renamed and "\n    exit()" not in src
    assert "# 1st exit() = sum" in src


# ---- signatures ---------------------------------------------------------------------------------------
def test_new_shapes_compile_a_new_program_and_same_signature_reuses_it():
    reasons = []
    op = CachedOp(mlp_symbol(), on_compile=lambda prog, why: reasons.append(why))
    args = arrays_for(op, MLP_SHAPES)
    op(*args)
    prog = op.program()
    op(*arrays_for(op, MLP_SHAPES, seed=1))                      # same signature, other values
    assert len(op.signatures) == 1 and op.program() is prog
    op(mx.nd.ones((7, 10)), *args[1:])
    assert len(op.signatures) == 2 and op.program() is not prog
    assert op.signatures[1].shapes[0] == (7, 10)
    op(*args)                                                    # back to the first: no compile
    assert len(op.signatures) == 2 and op.program(0) is prog
    op(*[a.astype("float64") for a in args])
    assert op.signatures[2].dtypes[0] == np.dtype("float64")
    assert reasons[0] == "first call"
    assert reasons[1] == "new input signature: data (4, 10) float32 -> (7, 10) float32"
    assert len(reasons) == 3 and "float64" in reasons[2]
    assert "3 compiled signature(s)" in repr(op)


def test_equal_but_distinct_devices_reuse_the_program():
    op = CachedOp(mx.sym.var("a") + mx.sym.var("b"))
    d1, d2 = mx.Device("cpu", 1), mx.Device("cpu", 1)
    x, y = mx.nd.array([1.0, 1.0], device=d1), mx.nd.array([1.0, 1.0], device=d2)
    out = op(x, y)
    assert out.device == d1 and out.asnumpy().tolist() == [2.0, 2.0]
    op(x, y)
    assert len(op.signatures) == 1


def test_flags_are_mxnet_hybridize_flags():
    op = CachedOp(mx.sym.var("a"), flags=[("static_alloc", "True"), ("static_shape", True),
                                          ("inline_limit", 5), ("data_indices", "[0]")])
    assert op.flags["static_alloc"] is True and op.flags["static_shape"] is True
    assert op.flags["inline_limit"] == 5 and op.flags["data_indices"] == (0,) and op.flags["forward_bulk_size"] == 15
    with pytest.raises(mx.MXNetError, match="static_alloc must be True when static_shape is True"):
        parse_flags({"static_shape": True})
    with pytest.raises(mx.MXNetError, match="Cannot find argument 'static_aloc'"):
        parse_flags({"static_aloc": True})


# ---- bad input -------------------------------------------------------------------------------------------
def test_wrong_input_count_names_the_inputs():
    op = CachedOp(mlp_symbol())
    with pytest.raises(mx.MXNetError, match=r"expects 7 inputs \(data, fc1_weight, .*fc3_bias\), got 2"):
        op(mx.nd.ones((4, 10)), mx.nd.ones((16, 10)))


def test_wrong_shape_names_the_variable_expected_and_got():
    op = CachedOp(mlp_symbol())
    args = arrays_for(op, MLP_SHAPES)
    args[3] = mx.nd.ones((8, 5))                                   # fc2_weight
    with pytest.raises(mx.MXNetError) as info:
        op(*args)
    msg = str(info.value)
    assert "node 'fc2' (FullyConnected)" in msg and "'weight' (input 'fc2_weight')" in msg
    assert "expected shape (8, 16), got (8, 5)" in msg and "test_cached_op.py" in msg
    args[3] = mx.nd.ones((8, 16))
    args[0] = mx.nd.ones((4, 3, 10))                               # wrong rank: flattened to 30 inputs
    with pytest.raises(mx.MXNetError, match=r"'fc1_weight'.*expected shape \(16, 30\), got \(16, 10\)"):
        op(*args)


def test_op_inference_errors_name_the_node_and_its_inputs():
    op = CachedOp(mx.sym.dot(mx.sym.var("a"), mx.sym.var("b"), name="d"))
    with pytest.raises(mx.MXNetError, match=r"node 'd' \(dot\): argument 'rhs' \(input 'b'\) expected shape "
                                             r"\(3, \.\.\.\), got \(4, 5\)"):
        op(mx.nd.ones((2, 3)), mx.nd.ones((4, 5)))
    chain = CachedOp(mx.sym.Reshape(mx.sym.exp(mx.sym.var("x"), name="e"), shape=(5, 7), name="rs"))
    with pytest.raises(mx.MXNetError, match=r"node 'rs' \(Reshape\): argument 'data' \(output 0 of node 'e'\)"):
        chain(mx.nd.ones((2, 3)))


def test_an_input_shape_wins_over_the_one_its_variable_declares():
    """As in MXNet 1.9.1 (its shape inference reads ``__shape__`` only for inputs of unknown shape):
    a symbol declared for batch 1 runs at other batch sizes, in a cached op, a SymbolBlock and a
    bound Module."""
    data = mx.sym.var("data", shape=(1, 3, 10, 10))
    conv = mx.sym.Convolution(data, kernel=(1, 1), num_filter=2, name="conv")
    assert CachedOp(mx.sym.relu(mx.sym.var("x", shape=(2, 3))))(mx.nd.ones((5, 4))).shape == (5, 4)
    block = mx.gluon.SymbolBlock(conv, [data])
    block.initialize()
    assert block(mx.nd.ones((4, 3, 5, 5))).shape == (4, 2, 5, 5)
    mod = mx.mod.Module(conv, label_names=None)
    mod.bind(for_training=False, data_shapes=[("data", (1, 3, 10, 10))])
    mod.init_params()
    mod.forward(mx.io.DataBatch([mx.nd.ones((1, 3, 10, 14))]), is_train=False)
    assert mod.get_outputs()[0].shape == (1, 2, 10, 14)


def test_non_ndarray_and_device_mismatch_are_named():
    op = CachedOp(mx.sym.var("a") + mx.sym.var("b"))
    with pytest.raises(mx.MXNetError, match="input 'b' expected an NDArray, got list"):
        op(mx.nd.ones((2,)), [1, 2])
    with pytest.raises(mx.MXNetError, match=r"one device: expected cpu\(0\).*got cpu\(1\) for input 'b'"):
        op(mx.nd.ones((2,)), mx.nd.array([1.0, 1.0], device=mx.Device("cpu", 1)))
    with pytest.raises(mx.MXNetError, match="unexpected keyword arguments"):
        op(mx.nd.ones((2,)), mx.nd.ones((2,)), bogus=1)


# ---- autograd: the recorded path ---------------------------------------------------------------------
def test_recorded_path_gives_the_imperative_gradients():
    op = CachedOp(mlp_symbol())
    args = arrays_for(op, MLP_SHAPES)
    twins = [a.copy() for a in args]
    for a in args[1:] + twins[1:]:
        a.attach_grad()
    with mx.autograd.record():
        out = op(*args)
        loss = (out * out).sum()
    loss.backward()
    with mx.autograd.record():
        want = mlp_imperative(*twins)
        (want * want).sum().backward()
    np.testing.assert_array_equal(out.asnumpy(), want.asnumpy())
    for a, t in zip(args[1:], twins[1:]):
        np.testing.assert_array_equal(a.grad.asnumpy(), t.grad.asnumpy())
    assert len(op.signatures) == 1 and op.signatures[0].training   # inputs checked/compiled once
    with mx.autograd.train_mode():                                 # the compiled program: same values
        np.testing.assert_array_equal(op(*args).asnumpy(), out.asnumpy())


def test_recorded_batchnorm_updates_the_callers_moving_stats_like_imperative():
    x = mx.sym.var("data")
    sym = mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), fix_gamma=False, name="bn")
    op = CachedOp(sym)
    shapes = {"data": (5, 4), "fc_weight": (3, 4), "fc_bias": (3,), "bn_gamma": (3,), "bn_beta": (3,),
              "bn_moving_mean": (3,), "bn_moving_var": (3,)}
    args = arrays_for(op, shapes)
    args[-1] = mx.nd.abs(args[-1]) + 1
    twins = [a.copy() for a in args]
    for group in (args, twins):
        for a in group[1:5]:
            a.attach_grad()
    with mx.autograd.record():
        out = op(*args)
    out.backward()
    d, w, b, g, beta, mm, mv = twins
    with mx.autograd.record():
        want = mx.nd.BatchNorm(mx.nd.FullyConnected(d, w, b, num_hidden=3), g, beta, mm, mv, fix_gamma=False)
    want.backward()
    np.testing.assert_array_equal(out.asnumpy(), want.asnumpy())
    for a, t in zip(args[1:], twins[1:]):
        if a.grad is not None:
            np.testing.assert_allclose(a.grad.asnumpy(), t.grad.asnumpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(a.asnumpy(), t.asnumpy())       # moving stats updated alike
    assert not np.allclose(args[-2].asnumpy(), arrays_for(op, shapes)[-2].asnumpy())


def test_recording_without_gradients_uses_the_compiled_program():
    op = CachedOp(mlp_symbol())
    args = arrays_for(op, MLP_SHAPES)
    with mx.autograd.record():
        out = op(*args)
    assert out._node is None and len(op.signatures) == 1


# ---- real MXNet 1.9.1 models ------------------------------------------------------------------------
FIXTURES = ["mlp", "lenet", "mobilenet0.25", "bn_dropout", "attention"]


def _load_symbol(path):
    load = getattr(mx.sym, "load", None)
    if load is None:
        pytest.skip("mx.sym.load (symbol/json.py) is not available yet: fixture models need the JSON reader")
    return load(path)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_models_reproduce_mxnet_outputs(name):
    sym = _load_symbol(os.path.join(DATA, f"{name}-symbol.json"))
    with open(os.path.join(DATA, f"{name}-meta.json")) as f:
        meta = json.load(f)
    values = {k.split(":", 1)[1]: v for k, v in mx.nd.load(os.path.join(DATA, f"{name}-0000.params")).items()}
    for spec in meta["inputs"]:
        values[spec["name"]] = mx.nd.array(np.load(os.path.join(DATA, spec["file"])), dtype=spec["dtype"])
    op = CachedOp(sym)
    missing = [n for n in op.input_names if n not in values]
    assert not missing, f"{name}: no value for inputs {missing}"
    outs = op(*[values[n] for n in op.input_names])
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == len(meta["outputs"])
    for out, spec in zip(outs, meta["outputs"]):
        want = np.load(os.path.join(DATA, spec["file"]))
        assert out.shape == want.shape
        assert np.abs(out.asnumpy() - want).max() <= 1e-4, f"{name}: output {spec['index']} differs"
    # the recorded path (autograd) computes the same values
    for n in op.input_names[1:]:
        values[n].attach_grad()
    with mx.autograd.record(train_mode=False):
        again = op(*[values[n] for n in op.input_names])
    again = again if isinstance(again, list) else [again]
    for a, o in zip(again, outs):
        np.testing.assert_allclose(a.asnumpy(), o.asnumpy(), rtol=1e-6, atol=1e-6)


# ---- GPU ----------------------------------------------------------------------------------------------------
@GPU
def test_gpu_program_matches_cpu():
    mlp = mlp_symbol()
    op = CachedOp(mx.sym.Group([mlp, mx.sym._np_sum(mlp.get_internals()["data"])]))
    cpu_args = arrays_for(op, MLP_SHAPES)
    gpu_args = [a.copyto(mx.gpu(0)) for a in cpu_args]
    (out_c, s_c), (out_g, s_g) = op(*cpu_args), op(*gpu_args)
    assert out_g.device == mx.gpu(0) and s_g.shape == ()
    np.testing.assert_allclose(out_g.asnumpy(), out_c.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s_g.asnumpy(), s_c.asnumpy(), rtol=1e-5)
    assert len(op.signatures) == 2 and op.signatures[1].device == mx.gpu(0)
    assert "OpContext(gpu(0)" in op.source()


def test_two_variables_with_one_name_are_refused():
    graph = mx.sym.Group([mx.sym.relu(mx.sym.var("data")), mx.sym.sigmoid(mx.sym.var("data"))])
    with pytest.raises(mx.MXNetError, match=r"several different variables named \['data'\]"):
        CachedOp(graph)
