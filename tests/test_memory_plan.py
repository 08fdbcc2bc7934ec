"""The static memory planner (compiler/memory.py) and the out= kernels it relies on.

Invariants checked on small graphs: two values sharing a buffer are never alive at once (except an
in-place write over an input that dies at that very node); graph outputs never sit in a shared
buffer; planned peak <= unplanned; in place only for elementwise ops of equal shape and dtype; and a
planned run gives the same outputs as the ordinary compute, call after call.
"""
import re

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError
from hybridlab.compiler.memory import ArenaPool, execute, plan
from hybridlab.ops.context import op_context
from hybridlab.ops.registry import OPS
from hybridlab.symbol.graph import topo_order

sym = mx.sym


def mlp():
    x = sym.var("data")
    h = sym.Activation(sym.FullyConnected(x, num_hidden=32, name="fc1"), act_type="relu", name="relu1")
    h = sym.Activation(sym.FullyConnected(h, num_hidden=16, name="fc2"), act_type="relu", name="relu2")
    return sym.FullyConnected(h, num_hidden=2, name="fc3")


def diamond():
    """Values used twice, an in-place candidate that must wait, a multi-use input."""
    x = sym.var("x")
    a = sym.exp(x, name="a")
    b = sym.relu(a, name="b")
    c = sym.elemwise_mul(a, b, name="c")        # a and b both die here
    d = sym.tanh(c, name="d")
    e = sym.elemwise_add(d, c, name="e")         # c read twice
    return sym.Group([sym.negative(e, name="out1"), sym.sqrt(sym.abs(d, name="ad"), name="out2")])


def with_views():
    """A Reshape (may return a view) between planned values and the output."""
    x = sym.var("x")
    a = sym.exp(x, name="a")
    r = sym.Reshape(a, shape=(4, 4), name="r")     # a view of a's buffer
    b = sym.relu(r, name="b")                      # reads through the view
    f = sym.Flatten(sym.tanh(b, name="t"), name="flat")   # graph output = a view of t
    return f


def lenet_like():
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(3, 3), num_filter=4, name="conv1")
    p = sym.Pooling(sym.Activation(c, act_type="tanh", name="act1"), kernel=(2, 2), stride=(2, 2),
                    pool_type="max", name="pool1")
    h = sym.Activation(sym.FullyConnected(sym.Flatten(p), num_hidden=10, name="fc1"), act_type="relu",
                       name="act2")
    return sym.FullyConnected(h, num_hidden=3, name="fc2")


GRAPHS = {"mlp": (mlp, {"data": (4, 8)}), "diamond": (diamond, {"x": (3, 5)}),
          "views": (with_views, {"x": (16,)}), "lenet": (lenet_like, {"data": (2, 1, 10, 10)})}


def check_invariants(p, symbol):
    heads = {(id(n), i) for n, i in symbol._outputs}
    by_buffer = {}
    for v in p.values:
        if v.key in heads:
            assert v.storage == "output" and v.buffer is None, f"output {v.name} must not be in a buffer"
        if v.buffer is not None:
            assert v.nbytes <= p.buffer_sizes[v.buffer]
            by_buffer.setdefault(v.buffer, []).append(v)
        if v.inplace_of is not None:
            u = v.inplace_of
            assert v.node.op.out_kernel.inplace, f"in place on non-elementwise {v.node.op.name}"
            assert (u.shape, u.dtype) == (v.shape, v.dtype)
            assert u.last_use == v.step and u.buffer == v.buffer
            assert any(s is u.node and i == u.index for s, i in v.node.inputs)
    for vs in by_buffer.values():
        vs.sort(key=lambda v: v.step)
        for u, v in zip(vs, vs[1:]):
            ok = u.last_use < v.step or (u.last_use == v.step and v.inplace_of is u)
            assert ok, f"{u} and {v} share buffer {v.buffer} while both alive"
    assert p.planned_bytes <= p.unplanned_bytes
    assert p.imperative_bytes <= p.unplanned_bytes


def random_inputs(symbol, shapes, seed=0):
    rng = np.random.default_rng(seed)
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    inputs = [n for n in topo_order(symbol._outputs) if n.is_variable]
    by_name = dict(zip(symbol.list_arguments(), arg_shapes))
    by_name.update(zip(symbol.list_auxiliary_states(), aux_shapes))
    return inputs, [rng.standard_normal(by_name[n.name]).astype(np.float32) for n in inputs]


def reference(symbol, inputs, arrays, ctx):
    env = {(id(n), 0): a for n, a in zip(inputs, arrays)}
    for node in topo_order(symbol._outputs):
        if not node.is_variable:
            out = node.op.compute(ctx, node.parsed_attrs(), *[env[(id(s), i)] for s, i in node.inputs])
            for i, o in enumerate(out if isinstance(out, tuple) else (out,)):
                env[(id(node), i)] = o
    return [env[(id(n), i)] for n, i in symbol._outputs]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_invariants_and_results(name):
    build, shapes = GRAPHS[name]
    symbol = build()
    p = plan(symbol, shapes)
    check_invariants(p, symbol)
    ctx = op_context(mx.cpu(), False)
    inputs, arrays = random_inputs(symbol, shapes)
    views = ArenaPool().bind(p, np)
    expected = reference(symbol, inputs, arrays, ctx)
    first = execute(p, views, ctx, symbol._outputs, inputs, arrays)
    kept = [o.copy() for o in first]
    for got, want in zip(first, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # a second call with other data must not change the outputs handed out by the first
    _, other = random_inputs(symbol, shapes, seed=1)
    second = execute(p, views, ctx, symbol._outputs, inputs, other)
    for got, old in zip(first, kept):
        np.testing.assert_array_equal(got, old)
    for got, want in zip(second, reference(symbol, inputs, other, ctx)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_mlp_plan_reuses_and_reports():
    p = plan(mlp(), {"data": (4, 8)})
    storages = {v.name: v.storage for v in p.values}
    assert storages["fc3"] == "output"
    assert {storages[n] for n in ("fc1", "relu1", "fc2", "relu2")} == {"buffer"}
    relu1 = next(v for v in p.values if v.name == "relu1")
    assert relu1.inplace_of is not None and relu1.inplace_of.name == "fc1"
    assert len(p.buffer_sizes) == 2                    # fc2 cannot overwrite relu1 (matmul): 2 buffers
    assert p.planned_bytes < p.unplanned_bytes
    text = str(p)
    assert "MemoryPlan" in text and "in place of fc1" in text and "imperative" in text
    node = next(n for n in topo_order(mlp()._outputs) if n.name == "fc1")
    assert "memory" not in node.meta                   # a fresh graph: meta written by plan only
    sym1 = mlp()
    plan(sym1, {"data": (4, 8)})
    fc1 = next(n for n in topo_order(sym1._outputs) if n.name == "fc1")
    assert fc1.meta["memory"]["storage"] == ["buffer"] and fc1.meta["memory"]["buffer"] == [0]
    assert set(p.summary()) >= {"planned_bytes", "imperative_bytes", "unplanned_bytes", "buffers"}


def test_views_keep_inputs_alive_and_out_of_shared_buffers():
    symbol = with_views()
    p = plan(symbol, {"x": (16,)})
    v = {x.name: x for x in p.values}
    assert v["flat"].storage == "output"
    assert v["t"].storage == "kernel"        # the output is a view of it: never a shared buffer
    assert v["a"].last_use >= v["b"].step    # read through the Reshape view by b
    assert v["b"].inplace_of is None         # b's input is a view, not a planned value


def test_no_inplace_flag_and_no_sharing_across_live_values():
    symbol = diamond()
    p = plan(symbol, {"x": (3, 5)}, inplace=False)
    assert all(v.inplace_of is None for v in p.values)
    check_invariants(p, symbol)


def test_non_float_and_multi_output_nodes_allocate_per_call():
    x = sym.var("x")
    y = sym.relu(sym.exp(x, name="e"), name="r") + 1
    p = plan(y, {"x": (4,)}, {"x": "int32"})
    assert all(v.storage != "buffer" for v in p.values)
    z = sym.split(sym.exp(x, name="e2"), num_outputs=2, axis=0, name="sp")
    q = plan(sym.Group([z[0] + 1, z[1] * 2]), {"x": (4,)})
    assert {v.storage for v in q.values if v.node.name == "sp"} == {"kernel"}


def test_unknown_shape_is_a_clear_error():
    x = sym.var("x")
    with pytest.raises(MXNetError, match="expected a known shape"):
        plan(sym.FullyConnected(x, num_hidden=3, name="fc"), {})


def test_arena_pool_shares_buffers_across_signatures_and_refreshes_views():
    symbol = mlp()
    pool = ArenaPool()
    small = plan(symbol, {"data": (2, 8)})
    env_small = pool.bind(small, np)
    before = pool.nbytes
    big = plan(symbol, {"data": (64, 8)})
    env_big = pool.bind(big, np)
    assert pool.nbytes == sum(big.buffer_sizes) > before        # max of the plans, not the sum
    pool.bind(plan(symbol, {"data": (3, 8)}), np)
    assert pool.nbytes == sum(big.buffer_sizes)
    ctx = op_context(mx.cpu(), False)
    for p, env, batch in ((small, env_small, 2), (big, env_big, 64)):   # small's views were refreshed
        inputs, arrays = random_inputs(symbol, {"data": (batch, 8)})
        got = execute(p, env, ctx, symbol._outputs, inputs, arrays)
        np.testing.assert_allclose(got[0], reference(symbol, inputs, arrays, ctx)[0], rtol=1e-5, atol=1e-6)


def _example_args(name, rng):
    op = OPS[name]
    n_in = op.n_inputs or 2
    if name == "FullyConnected":
        return {"num_hidden": 3}, [rng.standard_normal((2, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)]
    if name == "Activation":
        return {"act_type": "tanh"}, [rng.standard_normal((2, 3))]
    if name == "_FusedConvolution":        # blocked in, plain out, with a folded affine map
        return ({"kernel": (3, 3), "num_filter": 4, "pad": (1, 1), "affine": True, "act_type": "relu", "in_block": 8},
                [rng.standard_normal((1, 8, 5, 5)), rng.standard_normal((4, 8, 3, 3)), rng.standard_normal(4),
                 rng.standard_normal(4), rng.standard_normal(4)])
    if name == "_BlockedPooling":
        return {"kernel": (3, 3), "stride": (2, 2), "pool_type": "max", "block": 8}, [rng.standard_normal((2, 16, 7, 7))]
    if name in ("_LayoutReorder", "_ChannelAffine"):
        return {"to_block" if name == "_LayoutReorder" else "block": 8}, \
            [rng.standard_normal((2, 16, 3, 3))] + [rng.standard_normal(16) for _ in range(n_in - 1)]
    attrs = {"scalar": 1.5} if "scalar" in op.attrs else {}
    if name.startswith("broadcast_"):
        return attrs, [rng.standard_normal((2, 3)), rng.standard_normal((1, 3))]
    return attrs, [np.abs(rng.standard_normal((2, 3))) + 0.5 for _ in range(n_in)]


@pytest.mark.parametrize("name", sorted(name for name, op in OPS.items() if op.out_kernel is not None))
def test_out_kernel_matches_compute(name):
    rng = np.random.default_rng(3)
    attrs, arrays = _example_args(name, rng)
    arrays = [a.astype(np.float32) for a in arrays]
    op = OPS[name]
    a = op.parse_attrs(attrs)
    ctx = op_context(mx.cpu(), False)
    want = op.compute(ctx, a, *arrays)
    out = np.empty(want.shape, want.dtype)
    kernel = op.out_kernel
    got = kernel.kernel(ctx, a, out, *arrays)
    assert got is out
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    if kernel.inplace and arrays[0].shape == want.shape:   # writing over the first input is safe
        first = arrays[0].copy()
        kernel.kernel(ctx, a, first, first, *arrays[1:])
        np.testing.assert_allclose(first, want, rtol=1e-6, atol=1e-6)


def test_one_row_dense_layers_compute_through_their_buffers_rows_and_follow_a_growing_arena():
    # static_alloc at batch 1: each hidden dense layer writes its matrix-vector product into its
    # buffer's row, bound once, and the next one reads the relu's buffer row (no view made per call);
    # a larger batch grows the buffers, and the batch-1 program's rows must follow them
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(16, activation="relu", in_units=8), mx.gluon.nn.Dense(12, activation="relu"),
            mx.gluon.nn.Dense(3))
    net.initialize()
    rng = np.random.default_rng(0)
    x1, x4 = (mx.nd.array(rng.standard_normal((n, 8)).astype(np.float32)) for n in (1, 4))
    want1, want4 = net(x1).asnumpy(), net(x4).asnumpy()
    net.hybridize(static_alloc=True)
    first = net(x1)
    np.testing.assert_allclose(first.asnumpy(), want1, rtol=1e-5, atol=1e-6)
    source = net.cached_op.source()
    written = re.findall(r"dot\(\w+, ([\w\[\]]+), out=(buf\w+_row)\)", source)
    assert len(written) == 2 and written[1][0].endswith("_row"), source        # rows written, then read
    assert re.search(r"dot\(\w+, buf\w+_row\)", source), source               # the output layer reads one
    np.testing.assert_allclose(net(x4).asnumpy(), want4, rtol=1e-5, atol=1e-6)          # the buffers grow
    for _ in range(2):
        np.testing.assert_allclose(net(x1).asnumpy(), want1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(first.asnumpy(), want1, rtol=1e-5, atol=1e-6)     # outputs are the caller's
