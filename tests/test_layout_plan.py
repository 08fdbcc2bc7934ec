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
from hybridlab.compiler.passes import layout
from hybridlab.gluon.model_zoo import vision
from hybridlab.ops import conv_path, dnnl
from hybridlab.ops.dnnl import layout as dnnl_layout
from hybridlab.ops.fused import lowerable
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
