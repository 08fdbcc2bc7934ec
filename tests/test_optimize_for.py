"""optimize_for backends (compiler/backends.py): the docs/passes.md walk-through runs as written; a
custom backend fusing Dense+relu on the tutorial MLP gives the same outputs and gradients; the
default backend runs the pipeline and reports its stages; bad backends fail clearly."""
import os
import re

import numpy as np
import pytest

import hybridlab as mx
from models import tutorial_mlp_symbol
from hybridlab.base import MXNetError
from hybridlab.compiler import CachedOp, backends
from hybridlab.gluon import nn
from hybridlab.ops import get_op
from hybridlab.ops.registry import find_op

DOCS = os.path.join(os.path.dirname(__file__), "..", "docs", "passes.md")
FC = get_op("FullyConnected")


def docs_example():
    text = open(DOCS, encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, f"docs/passes.md: expected one python example, got {len(blocks)}"
    return blocks[0]


def test_the_docs_example_runs_and_registers_nothing_in_the_op_registry(capsys):
    env = {}
    exec(compile(docs_example(), DOCS, "exec"), env)   # noqa: S102 - our own documentation
    assert capsys.readouterr().out.strip() == "['_fused_dense_relu', 'FullyConnected']"
    assert "dense_relu" in backends.list_backends()
    assert find_op("_fused_dense_relu") is None


def dense_relu_backend():
    """The backend exactly as docs/passes.md defines it."""
    env = {}
    exec(compile(docs_example(), DOCS, "exec"), env)   # noqa: S102
    return env["dense_relu"]


def run_with_grads(sym, values):
    op = CachedOp(sym)
    args = [mx.nd.array(values[n]) for n in op.input_names]
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        out = op(*args)
    out.backward()
    return out.asnumpy(), [a.grad.asnumpy() for a in args]


def test_custom_backend_fuses_dense_relu_on_the_tutorial_mlp():
    dense_relu_backend()
    sym = tutorial_mlp_symbol()
    shapes = dict(zip(sym.list_inputs(), sym.infer_shape(data=(4, 512))[0]))
    fused = backends.optimize_for(sym, "dense_relu", {"data": (4, 512)})
    assert [n.op_name for n in fused._nodes() if not n.is_variable] == [
        "_fused_dense_relu", "_fused_dense_relu", "FullyConnected"]
    assert fused.list_outputs() == sym.list_outputs() and fused.list_inputs() == sym.list_inputs()
    first = fused._nodes()[3]
    assert len(first.meta["fused_from"]) == 2 and first.meta.get("scope")   # scope of the Dense block kept
    assert first.meta["shapes"] == [(4, 256)]                                # args_shapes annotated the copy
    rng = np.random.RandomState(0)
    values = {n: (rng.randn(*s) * 0.1).astype(np.float32) for n, s in shapes.items()}
    out0, g0 = run_with_grads(sym, values)
    out1, g1 = run_with_grads(fused, values)
    np.testing.assert_allclose(out1, out0, rtol=1e-5, atol=1e-6)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    assert [n.op_name for n in sym._nodes() if not n.is_variable].count("Activation") == 2   # input untouched


def test_default_backend_runs_the_pipeline_and_collects_stages():
    x = mx.sym.var("x")
    y = mx.sym.relu(mx.sym.exp(x, name="a") + mx.sym.exp(x, name="b"), name="out")
    stages = []
    opt = backends.optimize_for(y, "default", [(2, 3)], stages=stages)
    assert [n for n, _ in stages] == ["dce", "cse", "constant_folding", "pool_first", "fusion", "inplace"]
    assert [n.op_name for n in opt._nodes()] == ["null", "_fused_elemwise"]
    v = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    np.testing.assert_allclose(CachedOp(opt)(v).asnumpy(), CachedOp(y)(v).asnumpy(), rtol=1e-6)
    only = backends.optimize_for(y, passes=["cse"])
    assert [n.op_name for n in only._nodes()] == ["null", "exp", "elemwise_add", "relu"]


def test_custom_backend_stage_is_recorded():
    @backends.register_backend("test_identity_backend")
    def keep(symbol, args_shapes, **opts):
        assert opts == {"stages": stages, "level": 3}
        return symbol
    stages = []
    backends.optimize_for(mx.sym.exp(mx.sym.var("x")), "test_identity_backend", stages=stages, level=3)
    assert [n for n, _ in stages] == ["optimize_for:test_identity_backend"]


def test_bad_backends_and_arguments_fail_clearly():
    y = mx.sym.exp(mx.sym.var("x"))
    with pytest.raises(MXNetError, match="unknown backend 'nope'; registered backends: .*default"):
        backends.optimize_for(y, "nope")
    backends.register_backend("test_returns_none", lambda s, shapes, **o: None)
    with pytest.raises(MXNetError, match="expected to return a Symbol, got NoneType"):
        backends.optimize_for(y, "test_returns_none")
    with pytest.raises(MXNetError, match="already registered"):
        backends.register_backend("default", lambda s, a: s, replace=False)
    with pytest.raises(MXNetError, match="expected a callable partitioner, got int"):
        backends.register_backend("x", 3)
    with pytest.raises(MXNetError, match=r"expected at most 1 input shapes \(x\), got 2"):
        backends.optimize_for(y, "default", [(1,), (2,)])
    with pytest.raises(MXNetError, match="takes passes=, flags=, stages=; got \\['bogus'\\]"):
        backends.optimize_for(y, "default", bogus=1)


def test_match_chains_respects_single_readers_and_outputs():
    x = mx.sym.var("x")
    e = mx.sym.exp(x, name="e1")
    y = mx.sym.Group([mx.sym.exp(e, name="e2"), mx.sym.sin(e, name="s")])
    assert backends.match_chains(y, ["exp", "exp"]) == []          # e1 has two readers
    z = mx.sym.exp(mx.sym.exp(mx.sym.exp(x, name="a"), name="b"), name="c")
    chains = backends.match_chains(z, ["exp", lambda n: n.op.family == "elemwise"])
    assert [[n.name for n in c] for c in chains] == [["a", "b"]]   # chains do not overlap


def test_hybridblock_optimize_for_with_the_docs_backend():
    dense_relu_backend()                      # registers "dense_relu" as docs/passes.md shows
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    net.initialize()
    x = mx.nd.random.normal(shape=(4, 5))
    expected = net(x).asnumpy()
    net.optimize_for(x, backend="dense_relu")
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6, atol=1e-6)
    ops = [n.op_name for n in net.cached_op._ops]
    assert "_fused_dense_relu" in ops and "Activation" not in ops
    assert "_fused_dense_relu" in net.cached_op.source()
    assert net.rebuild_history[-1].reason.startswith("optimize_for")
    from hybridlab.lab.graph_json import graph_json
    assert "optimize_for:dense_relu" in [p["name"] for p in graph_json(net)["passes"]]
    with pytest.raises(MXNetError):
        net.optimize_for(x, backend="no_such_backend")
