"""Eager vs hybridized (gluon.consistency.compare, mx.test_utils.check_gluon_hybridize_consistency):
the node whose compiled value differs from its eager value is the one named, whichever mechanism
of the compiled program (an inlined expression, a fused kernel, a planned buffer) is wrong."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.gluon.model_zoo import vision
from models import zoo_input_side
from hybridlab.gluon.consistency import compare, compare_settings
from hybridlab.ops.registry import InlineRule, get_op
from hybridlab.test_utils import check_gluon_hybridize_consistency


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Activation("relu"), nn.Dense(2, in_units=4))
    net.initialize()
    return net


@pytest.fixture
def wrong_relu_inline(monkeypatch):
    """Activation's inline rule made wrong (max(x, 0.5)): only compiled CPU programs run it."""
    op = get_op("Activation")
    rule = op.inline
    wrong = InlineRule(lambda a, site: f"maximum({site.args[0]}, 0.5{site.out_arg})"
                       if rule.expression(a, site) is not None else None, functions=rule.functions)
    monkeypatch.setattr(op, "inline", wrong)


def test_a_correct_block_agrees_everywhere():
    report_net = _mlp()
    report = compare(report_net, mx.nd.array(np.random.RandomState(0).normal(size=(2, 3))), backward=True)
    assert report.ok and report.first_divergence is None
    assert [d.op for d in report.nodes] == ["FullyConnected", "Activation", "FullyConnected"]
    params = [p.name for p in report_net.collect_params().values()]
    assert [d.name for d in report.gradients] == ["input 0"] + params


def test_the_wrong_node_is_the_first_divergence(wrong_relu_inline):
    net = _mlp()
    x = mx.nd.array(np.random.RandomState(1).normal(size=(4, 3)))
    report = compare(net, x)
    assert not report.ok
    first = report.first_divergence
    assert first.op == "Activation" and first.max_abs > 0.1
    assert [d.ok for d in report.nodes] == [True, False, False]      # before it agrees, after it inherits
    assert "DIFFER (first at node" in str(report) and first.name in str(report)
    assert report.by_error()[0].name in (first.name, report.nodes[-1].name)
    assert not net.hybridization.active          # the block is left as it was


def test_settings_and_passes_are_named(wrong_relu_inline):
    reports = compare_settings(_mlp(), mx.nd.array(np.random.RandomState(2).normal(size=(3, 3))))
    assert [r.ok for r in reports[:3]] == [False, False, False]       # every setting inlines the rule
    assert all(not r.ok for r in reports[3:])                          # no pass is to blame


def test_fused_nodes_say_where_they_went():
    class Chain(mx.gluon.HybridBlock):
        def forward(self, x):
            return mx.np.exp(-mx.np.abs(x)) * 2

    report = compare(Chain(), mx.np.array(np.linspace(-1, 1, 6)))
    assert report.ok
    notes = [d.note for d in report.nodes if d.max_abs is None]
    assert notes and all(n.startswith("fused into") for n in notes)


def test_check_gluon_hybridize_consistency_names_the_node(wrong_relu_inline):
    check = lambda: check_gluon_hybridize_consistency(_mlp, [mx.nd.array(np.random.RandomState(3).normal(size=(2, 3)))])
    with pytest.raises(AssertionError, match=r"first node that differs when hybridized: '\w+' \(Activation"):
        check()


def test_check_gluon_hybridize_consistency_with_numpy_reference():
    w = np.ones((2, 3), dtype=np.float32)

    def build():
        net = nn.Dense(2, in_units=3, use_bias=False)
        net.weight.initialize(mx.init.Constant(w))
        return net
    check_gluon_hybridize_consistency(build, [mx.nd.ones((4, 3))], numpy_func=lambda x: x @ w.T)
    with pytest.raises(AssertionError, match="numpy_func"):
        check_gluon_hybridize_consistency(build, [mx.nd.ones((4, 3))], numpy_func=lambda x: x @ w.T + 1)


_WITH_GRAD = {"resnet18_v1", "resnet18_v2", "mobilenet0.25", "mobilenetv2_0.25", "squeezenet1.1", "alexnet"}


@pytest.mark.parametrize("name", sorted(vision.MODELS))
def test_every_model_zoo_net_is_consistent(name):
    # forward for every net; gradients too (training mode: BatchNorm's batch statistics, Dropout
    # with the same seed in both runs) for one net of each family with them
    side = zoo_input_side(name)
    x = mx.nd.array(np.random.RandomState(0).normal(size=(1, 3, side, side)).astype("float32"))
    check_gluon_hybridize_consistency(lambda: vision.get_model(name, classes=4), [x], test_grad=name in _WITH_GRAD,
                                      rtol=1e-3, atol=1e-4)
