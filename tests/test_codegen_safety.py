"""Generated code is a security boundary: hostile node names and attributes (line breaks of every
kind, quotes, comment and docstring delimiters, backslashes, ``__import__`` payloads) go through
every generator -- forward, instrumented (op hooks, profiler), static_alloc, backward with
BatchNorm's training side effect, the fused elementwise program, the cached op entry -- and the
programs compute exactly what an unmodified graph computes, never running the payload. Non-finite
scalars are written as safe literals. The two reported reproducers run end to end (SymbolBlock.imports
and Module training on the real MXNet bn_dropout export)."""
import gc
import io
import json
import keyword
import linecache
import os
import re
import sys
import tokenize
import types
from fractions import Fraction

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon.consistency import compare
from hybridlab.gluon.nonfinite import find_nonfinite
from hybridlab import profiler
from hybridlab.base import MXNetError
from hybridlab.compiler import CachedOp
from hybridlab.compiler.codegen import make_entry
from hybridlab.compiler.source_text import Namer, c_literal, check_identifier, comment, literal
from hybridlab.compiler import tape_backward
from hybridlab.ops import conv_path, fused

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
BREAKS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\x1c", "\x1d", "\x1e", "\x00"]
CANARY = "__import__('hl_codegen_canary').fire()"
SHELL = "__import__('os').system('touch pwned')"


def hostile(base):
    """``base`` followed by every line break, each followed by an indented payload, then quotes,
    comment/docstring delimiters and backslashes."""
    text = base
    for br in BREAKS:
        text += f"{br}    {CANARY}{br}{SHELL}{br}#"
    return text + "'''\"\"\"\\'\"#\\n" + CANARY + "\\"


@pytest.fixture
def canary(tmp_path, monkeypatch):
    """A module whose ``fire()`` records a call, and a working directory where ``touch pwned``
    would show; both are checked after the test."""
    fired = []
    module = types.ModuleType("hl_codegen_canary")
    module.fire = lambda *a: fired.append(a)
    monkeypatch.setitem(sys.modules, "hl_codegen_canary", module)
    monkeypatch.chdir(tmp_path)
    yield fired
    assert not fired, "a payload in a node name ran"
    assert not (tmp_path / "pwned").exists(), "a payload in a node name ran a shell command"


def same_with_hostile_names(run):
    """``run(name)`` returns ``(arrays, *rest)``: it runs with plain and with hostile names, the arrays must be
    equal (float32 rounding); returns the hostile run's result."""
    clean, got = run(lambda n: n), run(hostile)
    for g, c in zip(got[0], clean[0]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)
    return got


def training_sources(op):
    """The train forward, the backward and the (first) predict program of the cached op ``op``."""
    return [op.source(kind="train_forward"), op.source(kind="backward"), op.source(next(iter(op.signatures)))]


def assert_inert(source):
    """Every line is a comment, the def line or an indented statement; payloads appear only in
    comments; the text has no line break but '\\n' and compiles."""
    assert source.splitlines() == source.split("\n")[:-1]
    for line in source.split("\n")[:-1]:
        assert line.startswith(("#", "def ", "    ")), line
        if CANARY in line or SHELL in line:
            assert line.lstrip().startswith("#"), line
    compile(source, "<check>", "exec")
    kinds = {t.type for t in tokenize.generate_tokens(io.StringIO(source).readline)}
    assert tokenize.STRING not in kinds       # no string literal: names never become strings


# ---- source_text: the one module text reaches generated source through --------------------------
def test_comment_removes_every_line_break_and_control_character():
    everything = "".join(chr(c) for c in range(0x110000))
    text = comment(everything, limit=10 ** 7)
    assert len(("a" + text + "b").splitlines()) == 1
    source = f"x = 1  # {text}\ny = 2\n"
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    assert [t.type for t in tokens if t.type == tokenize.COMMENT] == [tokenize.COMMENT]
    env = {}
    exec(compile(source, "<comment>", "exec"), env)
    assert (env["x"], env["y"]) == (1, 2)
    for br in BREAKS + ["\u202e", "\ud800"]:        # incl. a bidi override and a lone surrogate
        assert br not in comment(f"a{br}b")
    assert comment("# -*- coding: latin-1 -*-") == "# -*- coding : latin-1 -*-"   # no encoding cookie
    assert len(comment("x" * 1000)) == 160 and comment("x" * 1000).endswith("...")


def test_literal_writes_validated_numbers_and_refuses_everything_else():
    cases = [0, -3, True, False, 0.1, -0.0, 1e-300, 5e-324, 1e308, float("nan"), float("inf"), -float("inf"),
             np.float32(0.1), np.float16(2.5), np.int64(7), np.bool_(True), (2, -1), (np.int32(4),)]
    for value in cases:
        env = {}
        exec(compile(f"v = {literal(value)}\n", "<literal>", "exec"), env)
        got = env["v"]
        if isinstance(value, float) and np.isnan(value):
            assert np.isnan(got)
        else:
            assert got == (tuple(value) if isinstance(value, tuple) else value) and type(got) is not str
    assert literal(float("nan")) == "float('nan')" and literal(-float("inf")) == "float('-inf')"

    class Sneaky(float):
        def __repr__(self):
            return "__import__('os')"
    class SneakyInt(int):
        def __repr__(self):
            return "__import__('os')"
    assert literal(Sneaky(1.5)) == "1.5" and literal(SneakyInt(3)) == "3"
    for bad in ["1.0", "__import__('os')", None, 1j, Fraction(1, 3), object(), [1, 2], {"a": 1}, b"1"]:
        with pytest.raises(MXNetError, match="expected a number"):
            literal(bad)
    assert c_literal(float("nan")).startswith("__longlong_as_double(") and c_literal(0.5) == "0.5"
    with pytest.raises(MXNetError, match="expected a real number"):
        c_literal("nan")


def test_namer_makes_plain_unique_identifiers():
    namer = Namer({"ctx"})
    names = [namer(t) for t in [hostile("a"), hostile("a"), "ctx", "sum", "lambda", "1x", "", "é", "x" * 500,
                                "__builtins__", "__debug__", "True"]]
    assert len(set(names)) == len(names)
    for n in names:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) and not keyword.iskeyword(n) and len(n) <= 90
        assert n not in {"ctx", "sum", "__builtins__", "__debug__", "True"}
    assert check_identifier("buf0_n1") == "buf0_n1"
    for bad in ["a b", "def", "x\n", "1a", 3]:
        with pytest.raises(MXNetError, match="expected an identifier"):
            check_identifier(bad)
    with pytest.raises(MXNetError, match="input count"):
        make_entry("1); __import__('os')", None, None, None)


# ---- every generator on a graph with hostile names --------------------------------------------------
def build(name):
    """FullyConnected + relu (inlined on the CPU), _greater_scalar, a scalar chain (fused), exp,
    BatchNorm (training side effect), a multi-output split and a reduction; ``name`` maps a
    plain name to the one used."""
    x = mx.sym.var(name("data"))
    fc = mx.sym.FullyConnected(x, num_hidden=6, name=name("fc"))
    r = mx.sym.relu(fc, name=name("relu"))
    g = mx.sym._greater_scalar(fc, scalar=0.25, name=name("gt"))
    e = mx.sym.exp(mx.sym._mul_scalar(r, scalar=0.1, name=name("ms")), name=name("exp"))
    bn = mx.sym.BatchNorm(mx.sym.elemwise_add(e, g, name=name("add")), name=name("bn"))
    parts = mx.sym.split(bn, num_outputs=2, axis=1, name=name("split"))
    prod = mx.sym.elemwise_mul(parts[0], parts[1], name=name("mul"))
    return mx.sym.sum(prod, axis=1, name=name("out")), x


def make_net(name, **flags):
    sym, x = build(name)
    net = mx.gluon.SymbolBlock(sym, [x])
    net.initialize(mx.init.Constant(0.5))
    net.hybridize(**flags)
    net(mx.nd.ones((3, 4)))                  # shapes known: now set every parameter
    rng = np.random.RandomState(0)
    for p in net.collect_params().values():
        value = rng.uniform(0.5, 1.5, size=p.shape).astype(np.float32)
        p.set_data(mx.nd.array(value))
    return net


def run_everything(net):
    """Predict, predict with an op hook (instrumented program), train forward/backward twice (the
    second under the profiler: instrumented backward); returns every value a user reads."""
    x = mx.nd.array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    results = [net(x).asnumpy()]
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((op, arr.asnumpy().copy())))
    results.append(net(x).asnumpy())
    net.register_op_hook(None)
    results += [v for _, v in seen]
    params = list(net.collect_params().values())
    for p in params:
        p.grad_req = "write"
    for profiled in (False, True):
        if profiled:
            profiler.set_config(profile_symbolic=True, profile_imperative=False)
            profiler.set_state("run")
        try:
            with mx.autograd.record():
                y = net(x)
            y.backward()
        finally:
            profiler.set_state("stop")
            profiler.dumps(reset=True)
        results.append(y.asnumpy())
        results += [p.grad().asnumpy() for p in params if p.grad_req != "null"]
        results += [p.data().asnumpy() for p in params]     # the moving statistics were updated
    return results, [op for op, _ in seen]


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}])
def test_every_generator_computes_the_same_with_hostile_names(canary, flags):
    clean_results, clean_ops = run_everything(make_net(lambda n: n, **flags))
    net = make_net(hostile, **flags)
    results, ops = run_everything(net)
    assert ops == clean_ops and len(results) == len(clean_results)
    for got, want in zip(results, clean_results):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    op = net.cached_op
    predict = next(sig for sig in op.signatures if not sig.training)
    forward = op.source(predict)
    sources = [forward, op.source(kind="train_forward"), op.source(kind="backward"),
               op.program(predict).instrumented().source, op.backward_plan().instrumented_backward().source]
    # the debugging tools' programs: the probe (instrumented with inline rules and the memory plan),
    # run by compare and find_nonfinite, which must agree and name the hostile nodes as they are
    x = mx.nd.array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    sources.append(op.probe_program(net.hybridization.arguments([x])).source)
    report = compare(net, x)
    assert report.ok and any(CANARY in d.name for d in report.nodes)
    assert not find_nonfinite(net, x).found
    for source in sources:
        assert_inert(source)
    assert "update0(update_attrs0," in op.source(kind="backward")      # BatchNorm's update line is there
    if flags:
        assert "out=buf" in forward and op.memory_plans
    # the inlined comparison (a literal) and the fused chain (its own generated program) were exercised
    assert "greater(" in forward and "_fused_elemwise(" in forward


def test_hostile_source_location_title_and_attributes_stay_comments(canary):
    x = mx.sym.var("x")
    y = mx.sym.exp(mx.sym._plus_scalar(x, scalar=1.0, name=hostile("p")), name=hostile("e"))
    for node in [y._outputs[0][0], y._outputs[0][0].inputs[0][0]]:
        node.meta["source"] = {"file": hostile("/tmp/f.py"), "line": 3, "code": hostile("code")}
        node.attrs["__hidden__"] = hostile("attr")       # hidden MXNet keys are kept on the node
    op = CachedOp(y)
    np.testing.assert_allclose(op(mx.nd.array([0.0, 1.0])).asnumpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    assert_inert(op.source())


# ---- fused elementwise programs and non-finite scalars ---------------------------------------------
def fused_program(scalars):
    steps = [["relu", {"__evil__": hostile("s0")}, [0]], ["_plus_scalar", {"scalar": str(scalars[0])}, [1]],
             ["exp", {}, [2]], ["_mul_scalar", {"scalar": str(scalars[1])}, [3]],
             ["broadcast_add", {}, [4, 0]], ["tanh", {}, [5]]]
    return json.dumps(steps)


@pytest.mark.parametrize("scalars", [(float("nan"), float("inf")), (float("-inf"), 2.0), (0.5, -float("inf"))])
def test_fused_program_with_non_finite_scalars_and_hostile_attributes(canary, scalars):
    prog = fused_program(scalars)
    x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        want = np.tanh(np.exp(np.maximum(x, 0) + np.float32(scalars[0])) * np.float32(scalars[1]) + x)
    sym = mx.sym._fused_elemwise(mx.sym.var("x"), num_args=1, program=prog, name=hostile("f"))
    exe = sym.bind(mx.cpu(), {"x": mx.nd.array(x)})
    exe.forward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), want)
    assert callable(fused._cpu_programs[(1, prog)])         # the generated program ran, not the fallback
    params, body = fused.gpu_source(fused.plan({"num_args": 1, "program": prog}), 1)
    assert params == "T i0" and "__evil__" not in body and "hl_codegen" not in body
    assert not re.search(r"\b(nan|inf)\b", body)


def test_reported_fused_chain_with_nan_and_inf_runs():
    x = mx.sym.var("x")
    y = mx.sym.tanh(mx.sym._mul_scalar(mx.sym.exp(mx.sym._plus_scalar(mx.sym.relu(x), scalar=float("nan"))),
                                       scalar=float("inf")))
    exe = y.bind(mx.cpu(), {"x": mx.nd.ones((2,))})
    exe.forward()
    assert np.isnan(exe.outputs[0].asnumpy()).all()


@pytest.mark.parametrize("scalar", [float("nan"), float("inf"), -float("inf"), 0.5])
def test_greater_scalar_inlined_with_non_finite_scalars(scalar):
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, no_bias=True, name="fc")
    op = CachedOp(mx.sym._greater_scalar(fc, scalar=scalar, name="gt"))
    x = np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32)
    w = np.array([[1.0, 0.0], [0.0, 1.0], [1e38, 1e38]], dtype=np.float32)
    with np.errstate(all="ignore"):          # the last row overflows to inf on purpose
        want = ((x @ w.T) > scalar).astype(np.float32)
        got = op(mx.nd.array(x), mx.nd.array(w)).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert "greater(" in op.source()


def test_fused_gpu_kernel_with_non_finite_scalars():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: the GPU kernel source is checked above")
    if not mx.num_gpus():
        pytest.skip("no CUDA device (CuPy with a GPU is needed)")
    prog = fused_program((float("nan"), float("inf")))
    x = cupy.asarray(np.array([-1.0, 2.0], dtype=np.float32))
    out = mx.nd._fused_elemwise(mx.nd.array(x.get(), ctx=mx.gpu(0)), num_args=1, program=prog)
    assert np.isnan(out.asnumpy()).all() and fused._kernels[(1, prog)] is not False


# ---- the reported reproducers, end to end -------------------------------------------------------------
def evil_bn_dropout(tmp_path):
    with open(os.path.join(DATA, "bn_dropout-symbol.json")) as f:
        graph = json.load(f)
    for node in graph["nodes"]:
        if node["op"] == "BatchNorm":
            node["name"] = "bn\n    __import__('os').system('touch pwned')\n    #" + node["name"]
    path = tmp_path / "evil-symbol.json"
    path.write_text(json.dumps(graph))
    return str(path)


def train_symbol_block(symbol_file):
    mx.random.seed(7)                        # Dropout masks: the same in the clean and the evil run
    net = mx.gluon.SymbolBlock.imports(symbol_file, ["data"], os.path.join(DATA, "bn_dropout-0000.params"))
    net.hybridize()
    x = mx.nd.array(np.load(os.path.join(DATA, "bn_dropout-input.npy")))
    with mx.autograd.record():
        y = net(x)
    y.backward()
    params = net.collect_params()
    return ([y.asnumpy()] + [p.grad().asnumpy() for p in params.values() if p.grad_req != "null"]
            + [p.data().asnumpy() for p in params.values()], "update0(" in net.cached_op.source(kind="backward"))


def test_reported_batchnorm_name_through_symbolblock_imports_and_backward(canary, tmp_path):
    want, _ = train_symbol_block(os.path.join(DATA, "bn_dropout-symbol.json"))
    got, has_update = train_symbol_block(evil_bn_dropout(tmp_path))
    assert has_update and len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def train_module(symbol_file):
    mx.random.seed(7)
    out = mx.sym.load(symbol_file)
    sym = mx.sym.LinearRegressionOutput(out, mx.sym.var("label"), name="lro")
    loaded = mx.nd.load(os.path.join(DATA, "bn_dropout-0000.params"))
    args = {k[4:]: v for k, v in loaded.items() if k.startswith("arg:")}
    auxs = {k[4:]: v for k, v in loaded.items() if k.startswith("aux:")}
    x = np.load(os.path.join(DATA, "bn_dropout-input.npy"))
    label = np.linspace(0, 1, 20, dtype=np.float32).reshape(4, 5)
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["label"])
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[("label", label.shape)])
    mod.init_params(arg_params=args, aux_params=auxs)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.01})
    for _ in range(2):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(label)]))
        mod.update()
    train = mx.io.NDArrayIter(np.concatenate([x, x]), np.concatenate([label, label]), batch_size=4)
    mod.fit(train, num_epoch=1, optimizer="sgd", optimizer_params={"learning_rate": 0.01})
    arg_params, aux_params = mod.get_params()
    return [mod.get_outputs()[0].asnumpy()] + [v.asnumpy() for _, v in sorted(arg_params.items())] + \
        [v.asnumpy() for _, v in sorted(aux_params.items())]


@pytest.mark.filterwarnings("ignore:Parameters already initialized")     # fit after init_params, as in MXNet
def test_reported_batchnorm_name_through_module_training(canary, tmp_path):
    want = train_module(os.path.join(DATA, "bn_dropout-symbol.json"))
    got = train_module(evil_bn_dropout(tmp_path))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_names_with_line_breaks_round_trip_through_export_and_imports(canary, tmp_path):
    net = make_net(hostile)
    x = mx.nd.array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    want = net(x).asnumpy()
    net.export(str(tmp_path / "hostile"), 0)
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "hostile-symbol.json"), [hostile("data")],
                                        str(tmp_path / "hostile-0000.params"))
    back.hybridize()
    np.testing.assert_allclose(back(x).asnumpy(), want, rtol=1e-6)
    loaded = mx.sym.load(str(tmp_path / "hostile-symbol.json"))     # MXNet's writer keeps most controls raw
    assert {hostile("data"), hostile("fc") + "_weight"} <= set(loaded.list_arguments())    # byte for byte
    assert hostile("bn") + "_output" in loaded.get_internals().list_outputs()
    assert hostile("fc") + "_weight" in back.collect_params()


def test_collected_programs_leave_linecache_at_the_next_compile():
    # a finalizer popping linecache entries could run inside linecache.checkcache's loop (KeyError)
    op = CachedOp(mx.sym.exp(mx.sym.var("x")))
    op(mx.nd.ones((2,)))
    filename = op.program().filename
    del op
    gc.collect()
    linecache.checkcache()
    CachedOp(mx.sym.exp(mx.sym.var("y")))(mx.nd.ones((3,)))
    assert filename not in linecache.cache


def _new_op_graphs(name):
    """Graphs over ops added for MXNet's unit tests (spatial sampling, im2col, contrib boxes and
    attention, random pdfs, amp casts, an optimizer update, the legacy 0-dim zeros the executor
    resolves at bind), node names from ``name``."""
    x = mx.sym.var(name("x"))                                          # (2, 3, 4, 4)
    loc = mx.sym.var(name("loc"))                                      # (2, 6)
    st = mx.sym.SpatialTransformer(x, loc, target_shape=(4, 4), transform_type="affine",
                                   sampler_type="bilinear", name=name("st"))
    cols = mx.sym.im2col(st, kernel=(2, 2), name=name("cols"))
    resized = mx.sym.contrib.BilinearResize2D(x, height=3, width=3, name=name("resize"))
    pooled = mx.sym.contrib.AdaptiveAvgPooling2D(resized, output_size=1, name=name("pool"))
    pdf = mx.sym.random_pdf_normal(mx.sym.amp_cast(loc, dtype="float32", name=name("cast")),
                                   mx.sym.zeros((2,)), mx.sym.ones((2,)), name=name("pdf"))
    boxes = mx.sym.contrib.box_iou(mx.sym.slice_axis(loc, axis=1, begin=0, end=4, name=name("b")),
                                   mx.sym.slice_axis(loc, axis=1, begin=2, end=6, name=name("c")),
                                   name=name("iou"))
    legacy = mx.sym.elemwise_add(mx.sym.zeros((0, 6), name=name("z")), loc, name=name("legacy"))
    return [cols, pooled, pdf, boxes], legacy, [x, loc]


def test_this_change_s_ops_keep_hostile_names_out_of_generated_code(canary):
    def outputs(name):
        heads, legacy, inputs = _new_op_graphs(name)
        rng = np.random.RandomState(1)
        args = {name("x"): mx.nd.array(rng.uniform(size=(2, 3, 4, 4))),
                name("loc"): mx.nd.array(rng.uniform(0.1, 0.9, size=(2, 6)))}
        exe = mx.sym.Group(heads + [legacy]).bind(mx.cpu(), args)   # resolves the legacy (0, 6) zeros first
        values = [o.asnumpy() for o in exe.forward()]
        net = mx.gluon.SymbolBlock(mx.sym.Group(heads), inputs)
        net.hybridize()
        values += [o.asnumpy() for o in net(args[name("x")], args[name("loc")])]
        return values, exe, net

    clean, _, _ = outputs(lambda n: n)
    got, exe, net = outputs(hostile)
    for a, b in zip(got, clean):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    op = net.cached_op
    sources = [op.source(next(iter(op.signatures))), exe._op.source(next(iter(exe._op.signatures)))]
    for source in sources:
        assert_inert(source)
    assert any(CANARY in line for line in sources[0].split("\n"))   # the names are there, as comments


def _stop28_op_graphs(name):
    """Graphs over ops added in stop 28 (correlation, ROI align, deformable convolution, quadratic,
    index_array, all_finite, sparse retain / square sum / SparseEmbedding, image normalize, and
    arange(infer_range) whose stop the executor writes at bind), node names from ``name``."""
    x = mx.sym.var(name("x"))                                          # (1, 2, 5, 5)
    rois = mx.sym.var(name("rois"))                                    # (2, 5)
    corr = mx.sym.Correlation(x, x, kernel_size=1, max_displacement=1, pad_size=1, name=name("corr"))
    align = mx.sym.contrib.ROIAlign(x, rois, pooled_size=(2, 2), spatial_scale=1.0, name=name("align"))
    offset = mx.sym.zeros((1, 18, 5, 5), name=name("offset"))
    deform = mx.sym.contrib.DeformableConvolution(x, offset, kernel=(3, 3), pad=(1, 1), num_filter=2,
                                                  no_bias=True, name=name("deform"))
    quad = mx.sym.contrib.quadratic(x, a=1.0, b=2.0, c=3.0, name=name("quad"))
    index = mx.sym.contrib.index_array(x, axes=(1,), name=name("index"))
    finite = mx.sym.all_finite(x, name=name("finite"))
    flat = mx.sym.reshape(x, (2, -1), name=name("flat"))
    kept = mx.sym._internal._sparse_retain(flat, mx.sym.zeros((1,), name=name("rows")), name=name("retain"))
    squares = mx.sym._internal._square_sum(kept, axis=1, name=name("squares"))
    embed = mx.sym.contrib.SparseEmbedding(mx.sym.zeros((3,), name=name("ids")), input_dim=4, output_dim=2,
                                           name=name("embed"))
    norm = mx.sym.image.normalize(mx.sym.reshape(x, (1, 10, 5), name=name("img")), mean=0.5, std=2.0,
                                  name=name("norm"))
    ramp = mx.sym.elemwise_add(mx.sym.arange(start=0, infer_range=True, name=name("ramp")),
                               mx.sym.zeros((4,), name=name("four")), name=name("ramped"))
    return [corr, align, deform, quad, index, finite, squares, embed, norm, ramp], [x, rois]


def test_stop28_ops_keep_hostile_names_out_of_generated_code(canary):
    def outputs(name):
        heads, inputs = _stop28_op_graphs(name)
        rng = np.random.RandomState(2)
        args = {name("x"): mx.nd.array(rng.uniform(size=(1, 2, 5, 5))),
                name("rois"): mx.nd.array([[0, 0, 0, 3, 3], [0, 1, 1, 4, 4]]),
                name("deform") + "_weight": mx.nd.full((2, 2, 3, 3), 0.5),
                name("embed") + "_weight": mx.nd.full((4, 2), 0.25)}
        exe = mx.sym.Group(heads).bind(mx.cpu(), args)
        return [o.asnumpy() for o in exe.forward()], exe

    clean, _ = outputs(lambda n: n)
    got, exe = outputs(hostile)
    for a, b in zip(got, clean):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    source = exe._op.source(next(iter(exe._op.signatures)))
    assert_inert(source)
    assert any(CANARY in line for line in source.split("\n"))        # the names are there, as comments


def _stop29_graph(name):
    """A predict graph over what stop 29 added to code generation: BatchNorm folded into a
    convolution and relu fused into it (``_FusedConvolution`` with scale/shift nodes named after
    the BatchNorm), a 1x1 convolution as a matmul, ModulatedDeformableConvolution, a bfloat16
    ``amp_cast`` pair and FullyConnected's ``dot``; node names from ``name``."""
    x = mx.sym.var(name("x"))                                          # (1, 2, 5, 5)
    conv = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=2, name=name("conv"))
    bn = mx.sym.BatchNorm(conv, fix_gamma=False, name=name("bn"))
    act = mx.sym.Activation(bn, act_type="relu", name=name("act"))
    point = mx.sym.Convolution(act, kernel=(1, 1), num_filter=2, name=name("point"))
    mask = mx.sym.ones((1, 9, 5, 5), name=name("mask"))
    offset = mx.sym.zeros((1, 18, 5, 5), name=name("offset"))
    modulated = mx.sym.contrib.ModulatedDeformableConvolution(point, offset, mask, kernel=(3, 3), pad=(1, 1),
                                                              num_filter=2, no_bias=True, name=name("dcn"))
    half = mx.sym.amp_cast(mx.sym.amp_cast(modulated, dtype="bfloat16", name=name("tobf")), dtype="float32",
                           name=name("back"))
    return mx.sym.FullyConnected(half, num_hidden=3, name=name("fc")), x


def test_stop29_predict_passes_and_ops_keep_hostile_names_out_of_generated_code(canary):
    def outputs(name):
        head, x = _stop29_graph(name)
        net = mx.gluon.SymbolBlock(head, [x])
        mx.random.seed(3)                           # the same values for the clean and the hostile names
        net.initialize(mx.init.Uniform(0.5))
        net.hybridize()
        data = mx.nd.array(np.random.RandomState(3).uniform(size=(1, 2, 5, 5)))
        return net(data).asnumpy(), net

    clean, _ = outputs(lambda n: n)
    got, net = outputs(hostile)
    np.testing.assert_allclose(got, clean, rtol=1e-6)
    op = net.cached_op
    source = op.source(next(iter(op.signatures)))
    assert_inert(source)
    assert "_FusedConvolution" in source                              # the predict passes rewrote the graph
    assert any(CANARY in line for line in source.split("\n"))         # the names are there, as comments
    names = [n for n, _ in net.hybridization.pipeline]
    assert {"fold_affine", "fuse_activation"} <= set(names)


def test_cached_op_subgraph_node_with_hostile_names_stays_out_of_generated_code(canary):
    """A hybridized call shown as one ``_CachedOp`` node (``autograd.get_symbol`` above
    ``inline_limit``), its graph's names hostile, bound and run: expanded, compiled, inert."""
    net = mx.gluon.nn.HybridSequential(prefix=hostile("net"))
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=4), mx.gluon.nn.Dense(2, in_units=3))
    net.initialize(mx.init.Constant(0.5))
    net.hybridize(inline_limit=0)
    x = mx.nd.ones((1, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    sym = mx.autograd.get_symbol(y)
    # (dmlc's writer leaves control characters unescaped, as MXNet's: strict=False reads them)
    assert "_CachedOp" in [n["op"] for n in json.loads(sym.tojson(), strict=False)["nodes"]]
    args = dict(zip(sym.list_arguments(), [x] + [p.data() for p in net.collect_params().values()]))
    exe = sym.bind(mx.cpu(), args)
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), y.asnumpy(), rtol=1e-6)
    source = exe._op.source(next(iter(exe._op.signatures)))
    assert_inert(source)
    assert any(CANARY in line for line in source.split("\n"))


def _hybridized_with_positive_variances(out, x, shape, seed):
    """A hybridized SymbolBlock of ``out`` (input ``x``) with uniform parameters, its BatchNorm variances
    positive (no NaN to compare), and data of ``shape``."""
    net = mx.gluon.SymbolBlock(out, [x])
    mx.random.seed(seed)
    net.initialize(mx.init.Uniform(0.5))
    data = mx.nd.array(np.random.RandomState(seed).uniform(size=shape))
    with np.errstate(invalid="ignore"):
        net(data)                                    # the parameters get their shapes
    for p in net.collect_params().values():
        if p.name.endswith("_var"):
            p.set_data(p.data().abs() + 0.5)
    net.hybridize()
    return net, data


@pytest.mark.skipif("onednn" not in conv_path.available_paths(), reason="the layout plan runs on the oneDNN path")
def test_layout_plan_and_affine_pass_keep_hostile_names_out_of_generated_code(canary):
    """A predict program with this stop's rewrites, every name hostile: a BatchNorm of a value
    read twice as ``_ChannelAffine`` (+ relu), the layout plan's blocked convolutions, elementwise
    sum and ``_LayoutReorder`` nodes named after the values they move."""
    def outputs(name):
        x = mx.sym.var(name("x"))                                          # (1, 3, 6, 6)
        # (16 channels: a whole block on AVX2 CPUs, which block by 8, and on AVX-512 ones, by 16)
        c1 = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=16, name=name("c1"))
        pre = mx.sym.relu(mx.sym.BatchNorm(c1, fix_gamma=False, name=name("bn")), name=name("act"))
        c2 = mx.sym.Convolution(pre, kernel=(3, 3), pad=(1, 1), num_filter=16, name=name("c2"))
        head = mx.sym.Pooling(mx.sym.elemwise_add(c2, c1, name=name("sum")), kernel=(2, 2), stride=(2, 2),
                              pool_type="max", name=name("pool"))
        net, data = _hybridized_with_positive_variances(head, x, (1, 3, 6, 6), seed=5)
        with conv_path.use("onednn"):
            return net(data).asnumpy(), net

    clean, _ = outputs(lambda n: n)
    got, net = outputs(hostile)
    assert np.isfinite(clean).all()
    np.testing.assert_allclose(got, clean, rtol=1e-5)
    op = net.cached_op
    source = op.source(next(iter(op.signatures)))
    assert_inert(source)
    assert "_ChannelAffine" in source and "_LayoutReorder(" in source      # both rewrites happened
    assert any(CANARY in line for line in source.split("\n"))


@pytest.mark.skipif("onednn" not in conv_path.available_paths(), reason="the pooling variant's kernel is oneDNN's")
def test_training_programs_of_stop31_keep_hostile_names_out_of_generated_code(canary):
    """A training step whose every name is hostile, through this stop's generation paths: a
    convolution's bias gradient (inlined sums), BatchNorm's fused gradient ``_backward_BatchNorm``,
    the 2x2 max pooling variant on oneDNN, and a dense layer on one row (the matrix-vector product,
    predict program); the gradients equal those of the same net with plain names."""
    def run(name):
        x = mx.sym.var(name("x"))                                          # (1, 8, 8, 8)
        c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name=name("conv"))
        b = mx.sym.relu(mx.sym.BatchNorm(c, fix_gamma=False, name=name("bn")), name=name("act"))
        p = mx.sym.Pooling(b, kernel=(2, 2), stride=(2, 2), pool_type="max", name=name("pool"))
        y = mx.sym.FullyConnected(p, num_hidden=3, name=name("fc"))
        net, data = _hybridized_with_positive_variances(y, x, (1, 8, 8, 8), seed=7)
        params = list(net.collect_params().values())
        with conv_path.use("onednn"):
            with mx.autograd.record():
                out = net(data)
            out.backward()
            predicted = net(data).asnumpy()
        grads = [p.grad().asnumpy() for p in params if p.grad_req != "null"]
        return [out.asnumpy(), predicted] + grads, net

    _, net = same_with_hostile_names(run)
    op = net.cached_op
    sources = training_sources(op)
    for source in sources:
        assert_inert(source)
    train_forward, backward, predict = sources
    assert "_Pooling_first_max(" in train_forward and "_backward_BatchNorm(" in backward
    assert ", 0).sum(axis=(1, 2,))" in backward and ".reshape(-1)), " in predict and ".reshape(1, -1)" in predict
    assert any(CANARY in line for line in backward.split("\n"))


class _ScaleOp(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 3)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 3)


class _ScaleProp(mx.operator.CustomOpProp):
    def __init__(self, **kwargs):        # the hostile keywords arrive as strings, as in MXNet
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return _ScaleOp()


def test_training_step_programs_of_stop33_keep_hostile_names_out_of_generated_code(canary):
    """A Trainer's steps through this stop's generation paths, every name hostile: the backward
    writing gradients into the (packed) gradient buffers (``into`` parameters) and the compiled
    backward of the imperative ops after the block (a Python operator registered under a hostile
    name, with hostile keywords, then a softmax cross-entropy); the weights equal those trained
    with plain names."""
    mx.operator.register(hostile("scale"))(_ScaleProp)

    def run(name):
        x = mx.sym.var(name("x"))
        y = mx.sym.FullyConnected(mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=4, name=name("fc1")),
                                              name=name("act")), num_hidden=3, name=name("fc2"))
        net = mx.gluon.SymbolBlock(y, [x])
        mx.random.seed(3)
        net.initialize(mx.init.Uniform(0.5))
        net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
        data = mx.nd.array(np.random.RandomState(3).uniform(size=(5, 6)))
        label = mx.nd.array([0, 1, 2, 1, 0])
        for _ in range(3):
            with mx.autograd.record():
                out = mx.nd.Custom(net(data), op_type=hostile("scale"), note=hostile("kw"))
                loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(out, label)
            loss.backward()
            trainer.step(5)
        return [p.data().asnumpy() for p in net.collect_params().values()], net

    _, net = same_with_hostile_names(run)
    # the block's backward joined the loss's: one program, writing into the gradient buffers
    imperative = tape_backward.last_program().source
    assert "out=into" in imperative and "_backward_Custom(" in imperative
    for source in [imperative] + [p.source for p in net.cached_op.backward_plan()._into.values()]:
        assert_inert(source)
    assert any(CANARY in line for line in imperative.split("\n"))     # (the node names, in comments)
    marked = [line for line in imperative.split("\n") if "hl_codegen_canary" in line]
    assert any(line.startswith("#   attrs") for line in marked)         # (the keywords, in comments)


def test_stop36_fused_gradients_and_kept_transposes_keep_hostile_names_out_of_generated_code(canary):
    """This stop's generation paths, every name hostile: a net ending in log_softmax trained under an
    imperative from_logits loss (the joined backward fuses the loss's pick gradient with the net's
    log_softmax gradient: ``_backward_pick_log_softmax``), then predicted (the dense layers multiply
    by ``transposed(<weight>)``); the weights and predictions equal those with plain names."""
    def run(name):
        x = mx.sym.var(name("x"))
        h = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=4, name=name("fc1")), name=name("act"))
        y = mx.sym.log_softmax(mx.sym.FullyConnected(h, num_hidden=3, name=name("fc2")), name=name("ls"))
        net = mx.gluon.SymbolBlock(y, [x])
        mx.random.seed(4)
        net.initialize(mx.init.Uniform(0.5))
        net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        data = mx.nd.array(np.random.RandomState(4).uniform(size=(5, 6)))
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)
        for _ in range(3):
            with mx.autograd.record():
                loss = loss_fn(net(data), mx.nd.array([0, 1, 2, 1, 0]))
            loss.backward()
            trainer.step(5)
        joined = tape_backward.last_program().source
        return net(data).asnumpy(), net, joined

    clean, _, _ = run(lambda n: n)
    got, net, joined = run(hostile)
    np.testing.assert_allclose(got, clean, rtol=1e-5, atol=1e-6)
    predict = net.cached_op.source()
    assert "_backward_pick_log_softmax(" in joined and "transposed(" in predict
    for source in (joined, predict):
        assert_inert(source)
    assert any(CANARY in line for line in predict.split("\n"))        # (the node names, in comments)


def test_stop38_one_row_buffer_rows_keep_hostile_names_out_of_generated_code(canary):
    """Static programs at batch 1 bind rows of their buffers (``buf<i>_n<j>_row``) and the dense
    layers write and read them; with every name hostile (line breaks, payloads) the programs stay
    inert, use the rows, and compute what the plain-named net computes, before and after a larger
    batch grows the buffers."""
    rng = np.random.RandomState(7)
    weights = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((5, 4), (5,), (3, 5), (3,), (2, 3), (2,))]
    x1, x4 = (mx.nd.array(rng.uniform(-1, 1, (n, 4)).astype(np.float32)) for n in (1, 4))

    def run(name):
        x = mx.sym.var(name("data"))
        h = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=5, name=name("fc0")), name=name("r0"))
        h = mx.sym.tanh(mx.sym.FullyConnected(h, num_hidden=3, name=name("fc1")), name=name("t1"))
        net = mx.gluon.SymbolBlock(mx.sym.FullyConnected(h, num_hidden=2, name=name("fc2")), [x])
        for p, w in zip(net.collect_params().values(), weights):
            p.initialize()
            p.set_data(mx.nd.array(w))
        net.hybridize(static_alloc=True)
        first = net(x1).asnumpy()
        source = net.cached_op.source()
        return [first, net(x4).asnumpy(), net(x1).asnumpy()], source

    _, source = same_with_hostile_names(run)
    assert_inert(source)
    assert source.count("_row)") >= 3 and any(CANARY in line for line in source.split("\n"))


def _dense_relu_dense(name, weights):
    """A hybridized SymbolBlock ``fc1(relu(fc0(data)))`` whose every name is ``name(...)`` of the plain
    one, with the parameters ``weights`` (fc0's weight and bias, then fc1's: their shapes give the sizes),
    and its parameters."""
    data = mx.sym.var(name("data"))
    h = mx.sym.relu(mx.sym.FullyConnected(data, num_hidden=weights[0].shape[0], name=name("fc0")), name=name("r0"))
    net = mx.gluon.SymbolBlock(mx.sym.FullyConnected(h, num_hidden=weights[2].shape[0], name=name("fc1")), [data])
    params = list(net.collect_params().values())
    for p, w in zip(params, weights):
        p.initialize()
        p.set_data(mx.nd.array(w))
    net.hybridize()
    return net, params


def test_stop39_bias_sums_over_many_rows_keep_hostile_names_out_of_generated_code(canary):
    """From 128 rows a backward program adds a dense layer's bias gradient with ``sum_rows`` (blocks of
    rows); with every name hostile (line breaks, payloads) the backward stays inert, calls it, and
    gives the gradients the plain-named net gives."""
    rng = np.random.RandomState(9)
    weights = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((5, 4), (5,), (2, 5), (2,))]
    x = mx.nd.array(rng.uniform(-1, 1, (256, 4)).astype(np.float32))
    head = mx.nd.array(rng.uniform(-1, 1, (256, 2)).astype(np.float32))

    def run(name):
        net, params = _dense_relu_dense(name, weights)
        for _ in range(2):
            with mx.autograd.record():
                y = net(x)
            y.backward(head)
        return [p.grad().asnumpy() for p in params], net.cached_op.source(kind="backward")

    _, source = same_with_hostile_names(run)
    assert_inert(source)
    assert source.count("sum_rows(") == 2 and any(CANARY in line for line in source.split("\n"))


def test_stop40_replayed_training_loop_keeps_hostile_names_out_of_generated_code(canary):
    """A training loop (hybridized net, a loss written with ``mx.nd``, ``Trainer.step``) runs the joined
    backward program, then replays it from its third step (``tape_backward._Replay``); with every name
    of the net hostile (line breaks, payloads) the program stays inert, is replayed, and every step's
    gradients and weights equal the plain-named loop's."""
    rng = np.random.RandomState(4)
    weights = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((5, 4), (5,), (3, 5), (3,))]
    x = mx.nd.array(rng.uniform(-1, 1, (6, 4)).astype(np.float32))
    y = mx.nd.array(rng.randint(0, 3, 6).astype(np.float32))

    def run(name):
        net, params = _dense_relu_dense(name, weights)
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        replayed, steps, run_replay = [], [], tape_backward._Replay.run

        def counted(self, head):
            done = run_replay(self, head)
            replayed.append(done is not None)
            return done
        tape_backward._Replay.run = counted
        try:
            for _ in range(5):
                with mx.autograd.record():
                    loss = loss_fn(net(x), y)
                loss.backward()
                steps.append([p.grad().asnumpy().copy() for p in params])
                trainer.step(6)
                steps.append([p.data().asnumpy().copy() for p in params])
        finally:
            tape_backward._Replay.run = run_replay
        return steps, replayed, tape_backward.last_program().source

    clean, clean_replayed, _ = run(lambda n: n)
    got, got_replayed, source = run(hostile)
    assert got_replayed[-3:] == clean_replayed[-3:] == [True] * 3     # (steps 3 to 5, both loops)
    for step, (g, c) in enumerate(zip(got, clean)):
        for a, b in zip(g, c):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"step {step}")
    assert_inert(source)
    assert "after the backward of" in source.splitlines()[0] and source.count("add.reduce(") == 2   # (the biases)
    assert any(CANARY in line for line in source.split("\n"))


@pytest.mark.parametrize("path", [p for p in conv_path.available_paths() if p != "cudnn"])
def test_stop42_conv_variants_by_device_keep_hostile_names_out_of_generated_code(canary, path):
    """A training program picks its Convolution variant by the program's device and path (columns on the
    NumPy path, none on a library's) and the cuDNN attributes (``cudnn_tune``, ``workspace``, ``cudnn_off``)
    travel into the gradient ops; with every name hostile (line breaks, payloads) the train forward, the
    backward and the predict program stay inert and the gradients equal the plain-named net's."""
    rng = np.random.default_rng(0)
    data = mx.nd.array(rng.standard_normal((2, 3, 6, 6)))

    def run(name):
        x = mx.sym.var(name("x"))
        c = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name=name("conv"), cudnn_tune="fastest",
                               workspace=64)
        d = mx.sym.Deconvolution(mx.sym.relu(c, name=name("act")), kernel=(2, 2), stride=(2, 2), num_filter=2,
                                 name=name("deconv"), cudnn_off=True)
        net = mx.gluon.SymbolBlock(mx.sym.FullyConnected(d, num_hidden=3, name=name("fc")), x)
        mx.random.seed(3)
        net.initialize(mx.init.Normal(0.3))
        net.hybridize()
        with conv_path.use(path):
            with mx.autograd.record():
                out = net(data)
            out.backward()
            predicted = net(data).asnumpy()
        return [out.asnumpy(), predicted] + [p.grad().asnumpy() for p in net.collect_params().values()], net

    _, net = same_with_hostile_names(run)
    op = net.cached_op
    sources = training_sources(op)
    for source in sources:
        assert_inert(source)
    assert ("_Convolution_columns(" in sources[0]) == (path == "numpy")
    assert any(CANARY in line for source in sources for line in source.split("\n"))
