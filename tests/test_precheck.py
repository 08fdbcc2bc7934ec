"""Pre-check (gluon.precheck, block.precheck): one dry trace lists every construct that fails or is
frozen when the block is hybridized, each at its line, with the rewrite in the block's style, and
goes on past each one; the block is left as it was."""
import inspect

import numpy as np

import hybridlab as mx
from hybridlab.gluon import nn


def _line(cls, text, method="forward"):
    lines, start = inspect.getsourcelines(getattr(cls, method))
    return start + next(i for i, line in enumerate(lines) if text in line)


class Reshape(mx.gluon.HybridBlock):
    def forward(self, x):
        return x.reshape((x.shape[0], -1))


class Messy(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4)
        self.spare = nn.Dense(3)

    def forward(self, x, y):
        if x.sum() > 0:
            x = x * 2
        print(x)
        x.asnumpy()
        x[0] = 1
        x = x + mx.np.array([1.0, 2.0, 3.0, 4.0])
        z = x.reshape((x.shape[0], -1))
        z = mx.npx.dropout(z, p=0.5)
        m = mx.npx.boolean_mask(z, z[:, 0] > 0)
        return self.dense(z), m


class Legacy(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            x = x * 2
        return F.reshape(x, (x.shape[0], -1))


def test_the_reshape_story_is_named_before_any_call():
    net = Reshape()
    report = net.precheck(mx.np.ones((2, 3, 4)))
    problem, = report.problems
    assert (problem.kind, problem.severity) == ("shape read", "frozen")
    assert problem.source["line"] == _line(Reshape, "x.shape[0]") and problem.source["file"] == __file__
    assert problem.nodes == [f"{net.name}__np_reshape0"] and f"{net.name}__np_reshape0.newshape" in problem.why
    assert "mx.npx.reshape" in problem.rewrite and "F." not in problem.rewrite
    assert report.verdict == "hybridizes, with numbers frozen: 1 value(s) frozen"
    assert not net.hybridization.active and net.hybridization.graph is None    # nothing was built


def test_a_block_with_many_problems_lists_them_all_with_lines(capsys):
    net = Messy()
    net.initialize()
    report = net.precheck(mx.np.ones((2, 4)), mx.np.ones((2,)))
    assert report.complete
    kinds = [p.kind for p in report.problems]
    assert kinds[:6] == ["branch", "value read", "value read", "in-place write", "outside array", "shape read"]
    assert set(kinds[6:]) == {"random op", "dynamic shape", "unused input", "unused parameter"}
    assert len(set(kinds)) >= 8
    texts = {"branch": "if x.sum() > 0:", "in-place write": "x[0] = 1", "outside array": "mx.np.array(",
             "shape read": "x.shape[0]", "random op": "dropout", "dynamic shape": "boolean_mask"}
    for p in report.problems:
        if p.kind in texts:
            assert p.source["line"] == _line(Messy, texts[p.kind]), p
    reads = [p for p in report.problems if p.kind == "value read"]
    assert [p.source["line"] for p in reads] == [_line(Messy, "print(x)"), _line(Messy, "x.asnumpy()")]
    assert [p.why.split(":")[0] for p in report.problems if p.kind == "unused parameter"] == \
        [f"parameter '{net.spare.weight.name}' is not used by any computation (it still gets saved and trained)",
         f"parameter '{net.spare.bias.name}' is not used by any computation (it still gets saved and trained)"]
    assert report.verdict == "fails when hybridized: 5 problem(s) fail, 1 value(s) frozen"
    assert all("F." not in p.rewrite for p in report.problems)       # 2.0 words for a 2.0 block
    lines = str(report).splitlines()
    assert lines[0] == f"pre-check of '{net.name}' (2.0 style): {report.verdict}"
    assert lines[1:] == [f"  {p}" for p in report.problems]
    capsys.readouterr()                 # print(x) ran on the real values: the dry trace follows the call


def test_legacy_blocks_get_1x_words_and_shape_reads_fail():
    report = Legacy().precheck(mx.nd.ones((2, 3)))
    branch, shape = report.problems
    assert branch.kind == "branch" and "F.where" in branch.rewrite
    assert (shape.kind, shape.severity) == ("shape read", "fails") and "F.reshape(x, (0, -1))" in shape.rewrite
    assert shape.source["line"] == _line(Legacy, "x.shape[0]", "hybrid_forward")


class FirstRow1x(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        corner = x[0, 0]
        return F.broadcast_add(x[0], corner)


class FirstRow2x(mx.gluon.HybridBlock):
    def forward(self, x):
        return x[0] + x[0, 0]


def test_indexing_a_1x_block_s_arrays_is_named_a_2x_block_s_is_fine():
    x = mx.nd.arange(6).reshape((2, 3))
    report = FirstRow1x().precheck(x)
    assert [(p.kind, p.severity) for p in report.problems] == [("symbol indexing", "fails")] * 2
    corner, row = report.problems
    assert corner.source["line"] == _line(FirstRow1x, "x[0, 0]", "hybrid_forward")
    assert "x[0, 0] indexes a Symbol" in corner.why and "F.slice_axis" in corner.rewrite
    assert "x[0] is x itself, not its first row" in row.why
    net = FirstRow1x()
    net.hybridize()
    try:                                    # what the pre-check foretold
        net(x)
    except TypeError as err:
        assert "Symbol only support integer index" in str(err)
    else:
        raise AssertionError("indexing a Symbol with (0, 0) should raise")
    assert FirstRow2x().precheck(x.as_np_ndarray()).verdict == "hybridizes cleanly"


def test_a_trace_that_stops_keeps_the_graph_so_far():
    class Stops(mx.gluon.HybridBlock):
        def forward(self, x):
            y = mx.np.exp(x)
            return y / int("not a number")

    report = Stops().precheck(mx.np.ones((2,)))
    assert not report.complete and report.problems[0].kind == "trace stopped"
    assert "ValueError" in report.problems[0].why
    assert [n.op_name for n in report.graph._nodes() if not n.is_variable] == ["exp"]


def test_clean_blocks_and_plain_blocks():
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Activation("relu"))
    net.initialize()
    assert net.precheck(mx.nd.ones((2, 4))).verdict == "hybridizes cleanly"
    plain = nn.Sequential()
    plain.add(nn.Dense(3))
    from hybridlab.gluon.precheck import precheck
    report = precheck(plain, mx.nd.ones((2, 4)))
    assert [p.kind for p in report.problems] == ["not hybridizable"] and "HybridSequential" in report.problems[0].rewrite


def test_an_uninitialized_block_is_told_to_initialize():
    net = nn.Dense(3, in_units=4)
    problem, = net.precheck(mx.nd.ones((2, 4))).problems
    assert problem.kind == "not initialized" and f"{net.name}.initialize()" in problem.rewrite


def test_the_parameters_are_left_as_they_were():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4), nn.BatchNorm(in_channels=3))
    net.initialize()
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    with mx.autograd.train_mode():
        net.precheck(mx.nd.array(np.random.RandomState(0).normal(size=(5, 4))))
    for k, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), before[k])


class InPlace(mx.gluon.HybridBlock):
    def forward(self, x):
        x += 1
        return x * 2


def test_an_in_place_operator_hybridizes_as_a_rebinding_and_is_noted():
    net = InPlace()
    problem, = net.precheck(mx.np.ones((2,))).problems
    assert (problem.kind, problem.severity) == ("in-place op", "note")
    assert problem.source["line"] == _line(InPlace, "x += 1") and "x = x + y" in problem.rewrite
    eager = net(mx.np.ones((2,))).asnumpy()
    net.hybridize()
    np.testing.assert_array_equal(net(mx.np.ones((2,))).asnumpy(), eager)
