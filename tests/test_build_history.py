"""Build records (gluon.rebuild_history): every build keeps its flags, the graph it compiled, the
time it took, static_alloc's planned bytes and whether the graph was traced anew; two builds'
graphs diff node by node (what a shape guard's re-trace changed)."""
import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.gluon.rebuild_history import GraphDiff


class Flatten2(mx.gluon.HybridBlock):
    def forward(self, x):
        return x.reshape((x.shape[0], -1))


def test_records_keep_flags_graph_time_memory_and_retrace():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
    net.initialize()
    net.hybridize(static_alloc=True)
    net(mx.nd.ones((1, 3)))
    net(mx.nd.ones((5, 3)))
    first, second = net.hybridization.history
    assert dict(first.flags)["static_alloc"] is True
    assert first.graph is net.hybridization.graph and second.graph is first.graph
    assert first.retraced and not second.retraced                  # a new signature, the same graph
    assert first.build_ms > 0 and second.build_ms > 0
    assert second.memory_bytes == net.hybridization.memory_plan().planned_bytes > first.memory_bytes > 0
    assert not net.hybridization.history.diff(0, 1)                # same graph object
    assert str(net.hybridization.history.diff(0, 1)) == "same graph"


def test_a_guarded_retrace_diffs_the_frozen_attribute():
    net = Flatten2()
    net.hybridize()
    net(mx.np.ones((2, 3, 4)))
    net(mx.np.ones((3, 3, 4)))
    history = net.hybridization.history
    assert history[1].retraced and history[1].memory_bytes is None
    diff = history.diff(0, 1)
    assert isinstance(diff, GraphDiff) and not diff.added and not diff.removed
    (name, what), = diff.changed.items()
    assert "newshape: (2, -1) -> (3, -1)" in what

