"""The layout plan of predict programs (``compiler/passes/layout.py``): on the oneDNN path values
stay in oneDNN's channel-blocked layout between convolutions; every blocked value reaches only
ops that read that layout (the plan's invariant, checked on every model-zoo net's planned graph),
predictions equal the unplanned program's on both convolution paths, the lab's pipeline shows the
plan, and ``HYBRIDLAB_LAYOUT_PLAN=0`` turns it off."""
import subprocess
import sys

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.compiler import CachedOp
from hybridlab.compiler.passes import PREDICT_PASSES, layout, run_pipeline
from hybridlab.gluon.model_zoo import vision
from hybridlab.ops import conv_path, dnnl
from hybridlab.ops.dnnl import layout as dnnl_layout
from hybridlab.ops.fused import lowerable
from graph_inputs import input_shapes
from model_zoo_cases import ZOO_SLOW, zoo_input_shape

pytestmark = pytest.mark.skipif("onednn" not in conv_path.available_paths(),
                                reason=f"the layout plan runs on the oneDNN path: {dnnl.load_error()}")
BLOCK = dnnl_layout.preferred_block() if dnnl.available() else 0
FAST_ZOO = [n for n in sorted(vision.MODELS) if n not in ZOO_SLOW]


def _net(name, shape, seed=0):
    mx.random.seed(seed)
    net = vision.get_model(name, classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    x = mx.nd.array(np.random.RandomState(seed).rand(*shape).astype("float32"))
    with conv_path.use("onednn"):
        net(x)                 # compiled now: with or without the plan, as layout.USE_LAYOUT_PLAN says
    return net, x


def _block_of(node):
    text = node.meta.get("layout", "")
    return int(text.rsplit(" ", 1)[1]) if text.startswith("blocked by") else 0


def _check_invariant(sym):
    """Every reader of a blocked value reads that block: a reorder from it, an elementwise op whose
    inputs are all that block, or an op with a ``BlockedLayout`` taking it as data."""
    for node in sym._nodes():
        if node.is_variable:
            continue
        a = node.parsed_attrs()
        for k, (src, _) in enumerate(node.inputs):
            b = 0 if src.is_variable else _block_of(src)
            if not b:
                continue
            spec = node.op.blocked_layout
            if node.op.name == "_LayoutReorder":
                assert a["from_block"] == b, node.name
            elif spec is not None and k == 0:
                assert a[spec.in_attr] == b, node.name
            else:
                assert lowerable(node.op) or node.op.name == "_fused_elemwise" or \
                    node.op.activation_kind(a) is not None, f"{node.name} ({node.op.name}) reads a blocked value"
                assert all(not s.is_variable and _block_of(s) == b for s, _ in node.inputs), node.name
    for node, _ in sym._outputs:
        assert _block_of(node) == 0, f"graph output {node.name} is blocked"


@pytest.mark.skipif(not BLOCK, reason="oneDNN keeps plain layouts on this CPU")
@pytest.mark.parametrize("name", FAST_ZOO)
def test_planned_model_zoo_graphs_keep_blocked_values_inside_the_plan(name):
    net, x = _net(name, zoo_input_shape(name))
    with conv_path.use("onednn"):
        net(x)
    stage, planned = net.cached_op.pipeline[-1]
    assert stage == "layout"
    _check_invariant(planned)
    ops = [n for n in planned._nodes() if not n.is_variable]
    reorders = [n for n in ops if n.op.name == "_LayoutReorder"]
    convs = [n for n in ops if n.op.name == "_FusedConvolution"]
    assert all(n.op.name != "Convolution" for n in ops)
    assert any(_block_of(n) for n in convs)
    if name.startswith("resnet"):     # blocked from the first convolution to the global pooling
        assert len(reorders) <= 2, [n.name for n in reorders]


@pytest.mark.skipif(not BLOCK, reason="oneDNN keeps plain layouts on this CPU")
@pytest.mark.parametrize("name", ["resnet18_v1", "resnet50_v2", "mobilenetv2_0.25", "densenet121", "squeezenet1.1"])
def test_planned_programs_predict_what_unplanned_ones_do_on_both_paths(name, monkeypatch):
    shape = zoo_input_shape(name)
    planned, x = _net(name, shape)
    monkeypatch.setattr(layout, "USE_LAYOUT_PLAN", False)
    unplanned, _ = _net(name, shape)
    for p, q in zip(unplanned.collect_params().values(), planned.collect_params().values()):
        p.set_data(q.data())
    with conv_path.use("onednn"):
        want = unplanned(x).asnumpy()
        assert "_LayoutReorder" not in unplanned.cached_op.source()
    monkeypatch.setattr(layout, "USE_LAYOUT_PLAN", True)
    with conv_path.use("onednn"):
        got = planned(x).asnumpy()
    assert "_LayoutReorder" in planned.cached_op.source()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(want).max()))
    with conv_path.use("numpy"):          # the planned program off the oneDNN path: NumPy moves the blocks
        np.testing.assert_allclose(planned(x).asnumpy(), want, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(want).max()))


def test_training_programs_have_no_layout_plan():
    net, x = _net("resnet18_v1", (2, 3, 32, 32))
    with conv_path.use("onednn"), mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    plan = net.cached_op.backward_plan()
    assert "_LayoutReorder" not in plan.forward.source and "in_block" not in plan.forward.source


def test_environment_switch_turns_the_plan_off():
    code = ("import numpy as np, hybridlab as mx\n"
            "from hybridlab.compiler.passes import layout\n"
            "from hybridlab.gluon.model_zoo import vision\n"
            "net = vision.get_model('resnet18_v1', classes=4); net.initialize(); net.hybridize()\n"
            "net(mx.nd.zeros((1, 3, 32, 32)))\n"
            "print(layout.USE_LAYOUT_PLAN, '_LayoutReorder(' in net.cached_op.source())\n")
    for value, want in (("0", "False False"), ("1", f"True {bool(BLOCK)}")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**__import__("os").environ, "HYBRIDLAB_LAYOUT_PLAN": value, "HYBRIDLAB_CONV": "onednn"})
        assert out.stdout.split() == want.split(), out.stderr


def _random_graph(rng):
    """A small random predict graph of what the plan rewrites and what it must leave plain: convolutions
    (channels that fit the block or not, grouped, strided), BatchNorms, relus, sums of equal shapes,
    a broadcast multiply, poolings of every kind, a concat, a flatten and a dense head."""
    x = mx.sym.var("x")
    values = [(x, 8)]                   # (symbol, channels); the spatial size stays 8 (pooling pads)
    size = 8
    for k in range(rng.randint(5, 10)):
        kind = "conv" if k == 0 else rng.choice(["conv", "conv", "bn", "relu", "sum", "pool", "scale", "concat"])
        src, c = values[-1] if kind == "sum" or rng.rand() < 0.7 else values[-1 - rng.randint(min(3, len(values)))]
        name = f"n{k}"
        if kind == "conv":
            f = 16 if k == 0 else int(rng.choice([4, 8, 16, 16, 12]))
            groups = 4 if (c % 4 == 0 and f % 4 == 0 and rng.rand() < 0.3) else 1
            y = mx.sym.Convolution(src, kernel=(3, 3), pad=(1, 1), num_filter=f, num_group=groups, name=name)
            values.append((y, f))
        elif kind == "bn":
            values.append((mx.sym.BatchNorm(src, fix_gamma=False, name=name), c))
        elif kind == "relu":
            values.append((mx.sym.relu(src, name=name), c))
        elif kind == "sum":
            same = [v for v, ch in values if ch == c and v is not src]
            if same:
                values.append((mx.sym.elemwise_add(src, same[-1], name=name), c))
        elif kind == "scale":
            values.append((mx.sym.broadcast_mul(src, mx.sym.ones((1, c, 1, 1)) * 0.5, name=name), c))
        elif kind == "concat":
            others = [(v, ch) for v, ch in values[1:] if v is not src]
            if others:
                other, oc = others[-1]
                values.append((mx.sym.concat(src, other, dim=1, name=name), c + oc))
        elif kind == "pool" and size == 8:
            pool = rng.choice(["max", "avg", "sum"])
            y = mx.sym.Pooling(src, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                               count_include_pad=bool(rng.rand() < 0.5), name=name)
            values.append((y, c))
    head, _ = values[-1]
    return mx.sym.FullyConnected(mx.sym.Flatten(head), num_hidden=3, name="fc")


@pytest.mark.skipif(not BLOCK, reason="oneDNN keeps plain layouts on this CPU")
@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_predict_the_same_with_the_plan(seed):
    rng = np.random.RandomState(seed)
    sym = _random_graph(rng)
    shapes = dict(zip(sym.list_inputs(), input_shapes(sym, x=(2, 8, 8, 8))))
    args = {n: mx.nd.array(rng.rand(*shapes[n]).astype("float32") + (0.5 if n.endswith("var") else -0.3))
            for n in sym.list_inputs()}
    predict, _ = run_pipeline(sym, passes=PREDICT_PASSES, snapshots=False)   # BatchNorms as _ChannelAffine
    planned = layout.plan_symbol(predict, {"x": (2, 8, 8, 8)}, block=BLOCK)
    _check_invariant(planned)
    feeds = [args[n] for n in sym.list_inputs()]
    with conv_path.use("onednn"):
        want = CachedOp(sym, passes=())(*feeds).asnumpy()
        got = CachedOp(planned, passes=())(*[args[n] for n in planned.list_inputs()]).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(want).max()))


def test_the_block_probe_is_a_convolution_created_for_the_blocked_kernels():
    """``preferred_block`` asks oneDNN which layout a 3x3 convolution picks; the probe must be one
    that ``_forward_kind`` creates as forward_training (the blocked jit kernels the plan feeds), else a
    forward_inference probe picks channel-last brgconv and silently turns the whole plan off."""
    from hybridlab.ops.dnnl import convolution, library
    assert convolution._forward_kind(dnnl_layout.PROBE, False, 1) == library.FORWARD_TRAINING
