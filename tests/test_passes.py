"""Graph passes (compiler/passes/): each pass on small graphs gives the same results when the graph
runs as a CachedOp, with fewer nodes where it should; names and meta survive; the pipeline of the
tutorial MLP keeps each pass's graph (and its graph JSON); partition_if_dynamic splits around
dynamic-shape ops."""
import json

import numpy as np
import pytest

import hybridlab as mx
from models import tutorial_mlp_symbol
from hybridlab.base import MXNetError
from hybridlab.compiler import CachedOp
from hybridlab.compiler.passes import (count_ops, eliminate_common_subexpressions, eliminate_dead_code,
                                       fold_constants, fuse_elementwise, mark_inplace, run_pipeline)
from hybridlab.compiler.partitioned import partition_dynamic


def run(sym, inputs, seed=0):
    """Outputs of ``sym`` as a CachedOp, inputs by name (shapes) -> the same random values each call."""
    op = CachedOp(sym)
    rng = np.random.RandomState(seed)
    values = {n: rng.randn(*inputs[n]).astype(np.float32) for n in sorted(inputs)}
    outs = op(*[mx.nd.array(values[n]) for n in op.input_names])
    return [o.asnumpy() for o in (outs if isinstance(outs, list) else [outs])]


def same(a, b, inputs):
    for x, y in zip(run(a, inputs), run(b, inputs)):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)


def ops_of(sym):
    return [n.op_name for n in sym._nodes() if not n.is_variable]


# ---- dce --------------------------------------------------------------------------------------
def test_dce_drops_identity_copies_and_unkept_outputs():
    x = mx.sym.var("x")
    y = mx.sym.Group([mx.sym.exp(mx.sym.identity(mx.sym.identity(x)), name="e"), mx.sym.sin(x, name="s")])
    out = eliminate_dead_code(y)
    assert count_ops(y) == 4 and ops_of(out) == ["exp", "sin"]
    same(y, out, {"x": (2, 3)})
    assert ops_of(eliminate_dead_code(y, keep=[1])) == ["sin"]
    assert count_ops(y) == 4                       # the input graph is untouched
    with pytest.raises(IndexError, match=r"expected output indices in \[0, 2\), got \[5\]"):
        eliminate_dead_code(y, keep=[5])


def test_dce_keeps_an_identity_that_is_an_output():
    x = mx.sym.var("x")
    y = mx.sym.identity(x, name="copy")
    assert ops_of(eliminate_dead_code(y)) == ["_copy"]


# ---- cse --------------------------------------------------------------------------------------
def test_cse_merges_equal_pure_nodes_and_records_the_names():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    a = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3, name="fa")
    b = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3, name="fb")
    c = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3, flatten=False, name="fc")  # other attrs
    y = mx.sym.Group([mx.sym.elemwise_add(mx.sym.tanh(a, name="ta"), mx.sym.tanh(b, name="tb"), name="s"), c])
    out = eliminate_common_subexpressions(y)
    assert count_ops(y) == 6 and count_ops(out) == 4
    names = {n.name: n for n in out._nodes()}
    assert names["fa"].meta["merged"] == ["fb"] and names["ta"].meta["merged"] == ["tb"]
    same(y, out, {"x": (2, 4), "w": (3, 4)})


def test_cse_leaves_random_and_training_mode_ops_alone():
    x = mx.sym.var("x")
    y = mx.sym.Group([mx.sym.Dropout(x, p=0.5, name="d1"), mx.sym.Dropout(x, p=0.5, name="d2"),
                      mx.sym.random.uniform(shape=(2,), name="u1"), mx.sym.random.uniform(shape=(2,), name="u2")])
    assert count_ops(eliminate_common_subexpressions(y)) == 4


# ---- constant folding -------------------------------------------------------------------------
def test_constant_folding_embeds_variable_free_subgraphs():
    x = mx.sym.var("x")
    c = mx.sym._plus_scalar(mx.sym._mul_scalar(mx.sym._ones(shape=(3,), name="one"), scalar=2.0, name="two"),
                            scalar=1.0, name="three")
    y = mx.sym.broadcast_mul(x, c, name="y")
    out = fold_constants(y)
    assert ops_of(out) == ["_constant", "broadcast_mul"]
    const = out._nodes()[1]
    assert const.name == "three" and const.meta["folded_from"] == ["one", "two", "three"]
    same(y, out, {"x": (2, 3)})
    res = CachedOp(out)(mx.nd.ones((2, 3)))
    res[:] = 0                                         # an output handed out must not alias the constant
    assert CachedOp(out)(mx.nd.ones((2, 3))).asnumpy().tolist() == [[3.0] * 3] * 2


def test_constant_folding_skips_lone_creation_ops_and_random_ops():
    x = mx.sym.var("x")
    y = mx.sym.Group([mx.sym.broadcast_add(x, mx.sym._zeros(shape=(3,))),
                      mx.sym.exp(mx.sym.random.uniform(shape=(3,)))])
    assert ops_of(fold_constants(y)) == ops_of(y)


def test_constant_folding_of_a_graph_output():
    y = mx.sym.exp(mx.sym._ones(shape=(2,)), name="e")
    out = fold_constants(y)
    assert ops_of(out) == ["_constant"]
    np.testing.assert_allclose(CachedOp(out)().asnumpy(), np.exp(np.ones(2, np.float32)))


# ---- fusion -----------------------------------------------------------------------------------
def chain_symbol():
    x, b = mx.sym.var("x"), mx.sym.var("b")
    h = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    e = mx.sym.broadcast_add(mx.sym._mul_scalar(mx.sym.tanh(h, name="t"), scalar=2.0, name="m"), b, name="add")
    return mx.sym.relu(mx.sym.elemwise_mul(e, e, name="sq"), name="act")


def test_fusion_turns_an_elementwise_tree_into_one_node():
    y = chain_symbol()
    out = fuse_elementwise(y)
    assert ops_of(out) == ["FullyConnected", "_fused_elemwise"]
    node = out._nodes()[-1]
    assert node.name == "act" and node.meta["fused_from"] == ["t", "m", "add", "sq", "act"]
    assert out.list_outputs() == y.list_outputs()
    steps = json.loads(node.attrs["program"])
    assert [s[0] for s in steps] == ["tanh", "_mul_scalar", "broadcast_add", "elemwise_mul", "relu"]
    same(y, out, {"x": (3, 5), "fc_weight": (4, 5), "fc_bias": (4,), "b": (4,)})


def test_fusion_stops_at_shared_values_and_outputs():
    x = mx.sym.var("x")
    e = mx.sym.exp(x, name="e")
    y = mx.sym.Group([mx.sym.sin(e, name="s") + mx.sym.cos(e, name="c"), e])
    out = fuse_elementwise(y)
    assert ops_of(out) == ["exp", "_fused_elemwise"]      # e is read twice and is an output
    same(y, out, {"x": (2, 2)})
    assert ops_of(fuse_elementwise(mx.sym.exp(x), min_size=2)) == ["exp"]


def test_fused_gradients_equal_the_unfused_ones():
    y = chain_symbol()
    fused = fuse_elementwise(y)
    rng = np.random.RandomState(3)
    shapes = {"x": (3, 5), "fc_weight": (4, 5), "fc_bias": (4,), "b": (4,)}
    values = {n: rng.randn(*s).astype(np.float32) for n, s in shapes.items()}
    grads = []
    for sym in (y, fused):
        op = CachedOp(sym)
        args = [mx.nd.array(values[n]) for n in op.input_names]
        for a in args:
            a.attach_grad()
        with mx.autograd.record():
            out = op(*args)
        out.backward(mx.nd.array(rng.randn(*out.shape).astype(np.float32)) * 0 + 1)
        grads.append([a.grad.asnumpy() for a in args])
    for g0, g1 in zip(*grads):
        np.testing.assert_allclose(g0, g1, rtol=1e-5, atol=1e-5)


def test_fusion_falls_back_for_integer_inputs():
    x = mx.sym.var("x")
    y = mx.sym.negative(mx.sym._plus_scalar(x, scalar=3))
    out = fuse_elementwise(y)
    assert ops_of(out) == ["_fused_elemwise"]
    got = CachedOp(out)(mx.nd.array([1, 2], dtype="int32"))
    assert got.dtype == np.int32 and got.asnumpy().tolist() == [-4, -5]


# ---- in-place marking -------------------------------------------------------------------------
def test_inplace_marks_single_reader_op_outputs_only():
    x = mx.sym.var("x")
    e = mx.sym.exp(x, name="e")
    r = mx.sym.relu(mx.sym.Reshape(mx.sym.tanh(e, name="t"), shape=(-1,), name="rs"), name="r")
    y = mx.sym.Group([mx.sym.broadcast_add(e, mx.sym.sin(x, name="s"), name="add"), r])
    out = mark_inplace(y)
    marks = {n.name: n.meta.get("inplace") for n in out._nodes() if not n.is_variable}
    # e is read twice, x is a variable, rs (a shape op) may be a view of t: only add may reuse s
    assert marks == {"e": None, "t": None, "rs": None, "r": None, "s": None, "add": [1]}
    assert all("inplace" not in n.meta for n in y._nodes())


# ---- the pipeline -----------------------------------------------------------------------------
def test_pipeline_of_the_tutorial_mlp_keeps_each_pass_graph():
    sym = tutorial_mlp_symbol()
    opt, stages = run_pipeline(sym)
    assert [name for name, _ in stages] == ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
    assert all(count_ops(s) == count_ops(sym) for _, s in stages)
    from hybridlab.lab.graph_json import graph_json, stages_json
    passes = stages_json(stages)
    assert [p["name"] for p in passes] == ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
    json.dumps(passes)
    before = {n["name"]: n for n in graph_json(sym)["nodes"]}
    for p in passes:
        for node in p["graph"]["nodes"]:
            assert node["scope"] == before[node["name"]]["scope"]       # scopes and sources survive
            assert node["source"] == before[node["name"]]["source"]
    shapes = {n: tuple(s) for n, s in zip(sym.list_inputs(), sym.infer_shape(data=(1, 512))[0])}
    same(sym, opt, shapes)


def test_pipeline_snapshots_are_independent_and_show_what_each_pass_did():
    x = mx.sym.var("x")
    c = mx.sym._mul_scalar(mx.sym._ones(shape=(2,)), scalar=2.0)
    y = mx.sym.relu(mx.sym.broadcast_add(mx.sym.exp(x, name="a"), c) + mx.sym.exp(x, name="b"), name="out")
    opt, stages = run_pipeline(y)
    counts = [(name, count_ops(s)) for name, s in stages]
    assert counts == [("dce", 7), ("cse", 6), ("constant_folding", 5), ("pool_first", 5), ("fusion", 2),
                      ("inplace", 2)]
    assert ops_of(stages[2][1]).count("_constant") == 1
    same(y, opt, {"x": (3, 2)})
    _, only = run_pipeline(y, passes=["cse", ("custom", lambda s: s)])
    assert [n for n, _ in only] == ["cse", "custom"]
    with pytest.raises(MXNetError, match="unknown pass 'nope'"):
        run_pipeline(y, passes=["nope"])
    with pytest.raises(MXNetError, match="expected to return a Symbol, got NoneType"):
        run_pipeline(y, passes=[("bad", lambda s: None)])


# ---- pool_first -------------------------------------------------------------------------------
def _conv_relu_pool(act, pool_type="max"):
    x = mx.sym.var("x")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="conv")
    a = mx.sym.Activation(c, act_type=act, name="act") if act != "relu_op" else mx.sym.relu(c, name="act")
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type=pool_type, name="pool")
    return mx.sym.FullyConnected(p, num_hidden=3, name="fc")


@pytest.mark.parametrize("act", ["relu", "relu_op"])
def test_pool_first_moves_relu_after_max_pooling_with_equal_values_and_gradients(act):
    from hybridlab.compiler.passes import pool_before_activation
    sym = _conv_relu_pool(act)
    moved = pool_before_activation(sym)
    order = [n.name for n in moved._nodes() if not n.is_variable]
    assert order.index("pool") < order.index("act") < order.index("fc")
    assert next(n for n in moved._nodes() if n.name == "act").meta["moved_after"] == "pool"
    assert [n.name for n in sym._nodes() if not n.is_variable] == ["conv", "act", "pool", "fc"]   # copy
    # values and every gradient equal, with ties (relu zeros, equal positives) in the windows
    rng = np.random.default_rng(0)
    shapes = {"x": (2, 1, 9, 9)}
    args = {"x": np.round(rng.uniform(-2, 2, (2, 1, 9, 9)))}
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    for name, shp in zip(sym.list_arguments(), arg_shapes):
        args.setdefault(name, rng.standard_normal(shp))
    head = None
    results = []
    for compiled in (False, True):   # op by op (no passes) vs the cached op (after the pipeline)
        arrays = {k: mx.nd.array(v, dtype="float64") for k, v in args.items()}
        for v in arrays.values():
            v.attach_grad()
        with mx.autograd.record():
            out = _run(sym, arrays, compiled)
        head = mx.nd.array(rng.standard_normal(out.shape), dtype="float64") if head is None else head
        out.backward(head)
        results.append((out.asnumpy(), {k: v.grad.asnumpy() for k, v in arrays.items()}))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-12)
    for k in args:
        np.testing.assert_allclose(results[1][1][k], results[0][1][k], rtol=1e-12, atol=1e-12, err_msg=k)


def _run(graph, arrays, compiled):
    from hybridlab.compiler import CachedOp
    from hybridlab.compiler.instrument import HookMonitor, run_nodes
    op = CachedOp(graph, partition_if_dynamic=False)
    args = [arrays[n] for n in op.input_names]
    if compiled:
        assert any(n.meta.get("moved_after") == "pool" for n in op._ops)   # the pass ran
        return op(*args)
    return run_nodes(op, args, HookMonitor(lambda *_: None))


@pytest.mark.parametrize("act, pool_type", [("sigmoid", "max"), ("relu", "avg")])
def test_pool_first_leaves_other_activations_and_pool_types(act, pool_type):
    from hybridlab.compiler.passes import pool_before_activation
    moved = pool_before_activation(_conv_relu_pool(act, pool_type))
    assert [n.name for n in moved._nodes() if not n.is_variable] == ["conv", "act", "pool", "fc"]


def test_pool_first_keeps_a_relu_that_is_read_elsewhere():
    from hybridlab.compiler.passes import pool_before_activation
    x = mx.sym.var("x")
    a = mx.sym.relu(x, name="act")
    y = mx.sym.Group([mx.sym.Pooling(a, kernel=(2, 2), pool_type="max", name="pool"), a])
    moved = pool_before_activation(y)
    assert [n.name for n in moved._nodes() if not n.is_variable] == ["act", "pool"]


# ---- partition_if_dynamic ---------------------------------------------------------------------
def test_partition_splits_around_dynamic_ops_and_runs_like_imperative():
    x, m = mx.sym.var("x"), mx.sym.var("m")
    h = mx.sym.tanh(mx.sym.relu(x, name="r"), name="t")
    masked = mx.sym.boolean_mask(h, m, name="mask")
    y = mx.sym.Group([mx.sym.sum(mx.sym.exp(masked, name="e"), name="s"), mx.sym.sin(h, name="sn")])
    part = partition_dynamic(y, inline_limit=1)
    kinds = [(s.kind, s.op_names) for s in part.segments]
    assert kinds == [("static", ["r", "t", "sn"]), ("dynamic", ["mask"]), ("static", ["e", "s"])]
    assert part.segments[1].inputs == ["t_output", "m"]
    xv = mx.nd.array([[-1.0, 0.5], [2.0, -3.0], [0.1, 0.2]])
    mv = mx.nd.array([1, 0, 1])
    s, sn = part({"x": xv, "m": mv})
    hv = mx.nd.tanh(mx.nd.relu(xv))
    np.testing.assert_allclose(s.asnumpy(), mx.nd.sum(mx.nd.exp(mx.nd.boolean_mask(hv, mv))).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(sn.asnumpy(), mx.nd.sin(hv).asnumpy(), rtol=1e-6)
    assert part.cached_ops[0] is not None and part.cached_ops[2] is not None
    with pytest.raises(MXNetError, match=r"expected values for \['m'\]"):
        part({"x": xv})


def test_partition_of_a_static_graph_is_one_segment_run_inline_below_the_limit():
    x = mx.sym.var("x")
    part = partition_dynamic(mx.sym.exp(x, name="e"))
    assert [s.kind for s in part.segments] == ["static"]
    out = part({"x": mx.nd.zeros((2,))})
    assert out[0].asnumpy().tolist() == [1.0, 1.0] and part.cached_ops[0] is None


def test_fused_members_unfold_a_fused_node_with_each_members_line():
    from hybridlab.compiler.backends import replace_chain
    from hybridlab.compiler.interpreter import Interpreter
    from hybridlab.compiler.passes.fusion import fused_members
    from hybridlab.ops.registry import get_op
    x = mx.sym.var("x")
    e = mx.sym.exp(x, name="e")                       # two lines: two sources
    y = mx.sym.relu(e - 1, name="act")
    fused = fuse_elementwise(y)
    node = fused._outputs[0][0]
    inputs, steps = fused_members(node)
    assert [s.name for s in steps] == node.meta["fused_from"] and [i.name for i in inputs] == ["x"]
    lines = [s.meta["source"]["line"] for s in steps]
    assert lines[0] == lines[1] - 1 == lines[2] - 1     # exp on its line, the rest on the next
    out, = Interpreter([(steps[-1], 0)]).run({"x": mx.nd.array([0.0, 1.0])})
    np.testing.assert_allclose(out.asnumpy(), np.maximum(np.exp([0.0, 1.0]) - 1, 0), rtol=1e-6)
    # a backend's fused node also lists its members, but is no chain of steps
    chain = [n for n in mx.sym.relu(mx.sym.exp(x, name="e2"), name="r2")._nodes() if not n.is_variable]
    assert fused_members(replace_chain(chain, get_op("exp"))) is None
