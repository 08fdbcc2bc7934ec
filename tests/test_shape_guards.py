"""Shape guards: a shape a 2.0-style forward reads while tracing is baked into the graph; a call
whose input breaks such a read traces again (the rebuild reason names the read, its line and the
change) instead of returning what MXNet 2.0 returns (a wrong shape). ``shape_guards=False`` keeps
MXNet's behaviour and says so."""
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import events
from hybridlab.gluon import nn


class Flatten2(mx.gluon.HybridBlock):
    def forward(self, x):
        return x.reshape((x.shape[0], -1))          # the read the guard names


class FlattenAfterOp(mx.gluon.HybridBlock):
    def forward(self, x):
        y = x * 2
        return y.reshape((y.shape[0], -1))


class RankOnly(mx.gluon.HybridBlock):
    def forward(self, x):
        return x.sum(axis=x.ndim - 1)


class Sized(mx.gluon.HybridBlock):
    def forward(self, x):
        return x / x.size


class WithLayers(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4)

    def forward(self, x):
        return mx.npx.relu(self.dense(x))


def _line_of(cls, text):
    import inspect
    lines, start = inspect.getsourcelines(cls.forward)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_reshape_story_traces_again_with_the_read_as_reason():
    net = Flatten2()
    net.hybridize()
    assert net(mx.np.ones((2, 3, 4))).shape == (2, 12)
    seen = []
    with events.subscribe("cache_built", lambda e: seen.append(e["reason"])):
        out = net(mx.np.ones((3, 3, 4)))
    assert out.shape == (3, 12)
    np.testing.assert_array_equal(out.asnumpy(), np.ones((3, 12)))
    line = _line_of(Flatten2, "x.shape[0]")
    reason = net.hybridization.history[-1].reason
    assert reason == f"shape read at {__file__}:{line} changed: data.shape[0] 2 -> 3"
    assert seen == [reason]
    read, = net.hybridization.shape_reads          # the new trace's read: batch 3
    assert read.value == (3, 3, 4) and read.source["code"] == "return x.reshape((x.shape[0], -1))          # the read the guard names"


def test_same_signature_costs_no_check_and_no_rebuild():
    net = Flatten2()
    net.hybridize()
    for _ in range(3):
        net(mx.np.ones((2, 3, 4)))
    assert len(net.hybridization.history) == 1
    net(mx.np.ones((3, 3, 4)))
    net(mx.np.ones((2, 3, 4)))       # back to a signature read under the first trace: traced again too
    assert [r.reason.split(" changed: ")[-1] for r in net.hybridization.history[1:]] == \
        ["data.shape[0] 2 -> 3", "data.shape[0] 3 -> 2"]


def test_a_read_on_an_intermediate_array_is_checked_by_inference():
    net = FlattenAfterOp()
    net.hybridize()
    net(mx.np.ones((2, 5)))
    out = net(mx.np.ones((4, 5)))
    assert out.shape == (4, 5)
    name = net.name + "__mul_scalar0"         # the node y is the output of
    assert net.hybridization.history[-1].reason.endswith(f"changed: {name}.shape[0] 2 -> 4")


def test_ndim_and_size_reads_guard_only_what_they_read():
    rank = RankOnly()
    rank.hybridize()
    rank(mx.np.ones((2, 3)))
    assert rank(mx.np.ones((5, 3))).shape == (5,)
    assert [r.reason for r in rank.hybridization.history][-1] == "new input signature"   # the rank held
    sized = Sized()
    sized.hybridize()
    sized(mx.np.ones((2, 3)))
    out = sized(mx.np.ones((4, 3)))
    np.testing.assert_allclose(out.asnumpy(), np.full((4, 3), 1 / 12))
    assert "changed: data.size 6 -> 12" in sized.hybridization.history[-1].reason


def test_hybridlab_layers_read_no_guards():
    net = WithLayers()
    net.initialize()
    net.hybridize()
    net(mx.np.ones((2, 3)))
    assert net.hybridization.shape_reads == []
    net(mx.np.ones((5, 3)))
    assert net.hybridization.history[-1].reason == "new input signature"


def test_shape_guards_off_keeps_mxnet_behaviour_and_says_so():
    net = Flatten2()
    net.hybridize(shape_guards=False)
    net(mx.np.ones((2, 3, 4)))
    with pytest.warns(UserWarning, match=r"data.shape\[0\] 2 -> 3.*shape_guards=False") as got:
        out = net(mx.np.ones((3, 3, 4)))
    assert out.shape == (2, 18)                     # what MXNet 2.0 returns
    assert f"{__file__}:{_line_of(Flatten2, 'x.shape[0]')}" in str(got[0].message)
    assert got[0].filename == __file__              # the warning points at the call, not into hybridlab
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # said once per read, not on every call
        net(mx.np.ones((3, 3, 4)))


def test_legacy_blocks_have_no_traced_shapes():
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Activation("relu"))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 4)))
    assert net.hybridization.shape_reads == []


class DtypeBranch(mx.gluon.HybridBlock):
    def forward(self, x):
        if x.dtype == np.float16:                     # picks a branch at trace time
            return x
        return x * 2


def test_a_dtype_read_guards_the_branch_it_picked():
    net = DtypeBranch()
    net.hybridize()
    np.testing.assert_array_equal(net(mx.np.ones((2,))).asnumpy(), [2, 2])
    out = net(mx.np.ones((2,), dtype="float16"))
    np.testing.assert_array_equal(out.asnumpy(), [1, 1])             # eager's answer, not the float32 branch
    assert net.hybridization.history[-1].reason.endswith("changed: data.dtype float32 -> float16")
