"""Hybridization errors start at the user's code: the message names what was done, at which user line
(file:line: `code`), why it cannot work while hybridizing and the rewrite in the block's own style
(MXNet 1.x ``hybrid_forward``: ``F.where``; MXNet 2.0 ``forward`` / ``mx.np``: ``mx.np.where``), and
the traceback shows the user's frames only (``HYBRIDLAB_FULL_TRACEBACK=1``: all of them)."""
import os
import traceback

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon
from hybridlab.ops.infer import same_shape
from hybridlab.ops.registry import OpDef
from hybridlab.symbol.symbol import compose
from hybridlab.symbol.user_traceback import ENV, NOTE

PACKAGE = os.path.dirname(os.path.abspath(mx.__file__))


def _line_of(code):
    """The line number in this file of the (unique) source line ``code``."""
    with open(__file__) as f:
        lines = [i for i, text in enumerate(f, 1) if text.strip() == code]
    assert len(lines) == 1, code
    return lines[0]


def _raised(block, x, exc=Exception):
    block.initialize()
    block.hybridize()
    with pytest.raises(exc) as info:
        block(x)
    return info.value


def _package_frames(err):
    return [f for f in traceback.extract_tb(err.__traceback__) if os.path.abspath(f.filename).startswith(PACKAGE)]


def assert_user_traceback(err, code, noted=True):
    """Only the entry ``__call__`` is hybridlab's; the user's line ``code`` is in the traceback; the
    note saying so is on the exception raised (``noted``), not on its chained causes."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = _package_frames(err)
    assert len(ours) <= 1 and all(f.name == "__call__" and f.filename.endswith("hybrid_block.py") for f in ours), \
        [f"{f.filename}:{f.lineno} {f.name}" for f in frames]
    assert any(f.filename == __file__ and f.lineno == _line_of(code) for f in frames)
    assert (NOTE in getattr(err, "__notes__", ())) == noted


def assert_message(err, code, words):
    """The message names this file's line ``code`` in backticks, advises ``words``' style, no '::'."""
    text = str(err)
    assert f"{__file__}:{_line_of(code)}: `{code}`" in text, text
    assert "::" not in text and ".." not in text.replace("...", ""), text
    if words == "np":
        assert "mx.np.where(" in text and "F." not in text, text
    else:
        assert "F.where(" in text and "mx.np" not in text, text


# ---- the `if x.sum() > 0:` story in both styles ---------------------------------------------------

class Branches2(gluon.HybridBlock):
    def forward(self, x):
        if x.sum() > 0:     # 2.0 branch
            return x * 2
        return x


class Child2(gluon.HybridBlock):
    def forward(self, x):
        return x * 2


class Branches1(gluon.HybridBlock):
    """MXNet 1.x style with an MXNet 2.0 child: traced with deferred compute, F = mx.nd."""

    def __init__(self):
        super().__init__()
        self.child = Child2()

    def hybrid_forward(self, F, x):
        y = self.child(x)
        if y.sum() > 0:     # 1.x traced branch
            return y
        return -y


class BranchesSym(gluon.HybridBlock):
    """MXNet 1.x style all the way down: the graph is built with F = mx.sym."""

    def hybrid_forward(self, F, x):
        if x.sum() > 0:     # 1.x symbolic branch
            return x * 2
        return x


@pytest.mark.parametrize("make", [mx.np.ones, mx.nd.ones], ids=["np", "nd"])
def test_branch_on_a_value_in_forward_advises_mx_np(make):
    err = _raised(Branches2(), make((2,)), mx.MXNetError)
    code = "if x.sum() > 0:     # 2.0 branch"
    assert str(err).startswith("cannot read the truth value (bool(), if, while) of an array of shape")
    assert_message(err, code, "np")
    assert "Compute both branches and choose with `mx.np.where(cond, a, b)`" in str(err)
    assert_user_traceback(err, code)


@pytest.mark.parametrize("make", [mx.np.ones, mx.nd.ones], ids=["np", "nd"])
def test_branch_on_a_value_in_traced_hybrid_forward_advises_F(make):
    err = _raised(Branches1(), make((2,)), mx.MXNetError)
    code = "if y.sum() > 0:     # 1.x traced branch"
    assert_message(err, code, "F")
    assert "Compute both branches and choose with `F.where(cond, a, b)`" in str(err)
    assert_user_traceback(err, code)


def test_branch_on_a_symbol_names_the_line_and_starts_there():
    err = _raised(BranchesSym(), mx.nd.ones((2,)), NotImplementedError)
    assert "F.where(condition, x, y)" in str(err) and "::" not in str(err)
    assert_user_traceback(err, "if x.sum() > 0:     # 1.x symbolic branch")


# ---- value reads and writes while tracing -------------------------------------------------------

class Reads2(gluon.HybridBlock):
    def __init__(self, how):
        super().__init__()
        self.how = how

    def forward(self, x):
        s = x.sum()
        if self.how == "asnumpy":
            s.asnumpy()
        elif self.how == "item":
            s.item()
        elif self.how == "print":
            print(x)
        elif self.how == "float":
            float(s)
        elif self.how == "numpy":
            np.asarray(x)
        elif self.how == "write":
            x[0] = 1
        return x


class Reads1(gluon.HybridBlock):
    def __init__(self, how):
        super().__init__()
        self.how = how
        self.child = Child2()

    def hybrid_forward(self, F, x):
        y = self.child(x)
        t = y.sum()
        if self.how == "asnumpy":
            t.asnumpy()
        elif self.how == "item":
            t.item()
        elif self.how == "float":
            float(t)
        elif self.how == "numpy":
            np.asarray(y)
        elif self.how == "write":
            y[0] = 1
        return y


# how -> (the user's line in Reads2, what the message says was read)
READS = {"asnumpy": ("s.asnumpy()", "asnumpy()"), "item": ("s.item()", "item()"),
         "print": ("print(x)", "the values to print (print(), str())"), "float": ("float(s)", "the value (float())"),
         "numpy": ("np.asarray(x)", "the values for NumPy (np.asarray(), np.array())")}


def _in_reads1(code):
    return code.replace("s.", "t.").replace("(s)", "(t)").replace("(x)", "(y)")


@pytest.mark.parametrize("how", sorted(READS))
def test_value_reads_in_forward(how):
    code, what = READS[how]
    err = _raised(Reads2(how), mx.np.ones((2,)), mx.MXNetError)
    assert str(err).startswith(f"cannot read {what} of an array of shape"), str(err)
    assert_message(err, code, "np")
    assert "While hybridizing, arrays have a shape and a dtype but no values." in str(err)
    assert "`mx.npx.reshape` codes for shapes" in str(err)
    assert_user_traceback(err, code)


@pytest.mark.parametrize("how", sorted(set(READS) - {"print"}))
def test_value_reads_in_traced_hybrid_forward(how):
    code, what = READS[how]
    code = _in_reads1(code)
    err = _raised(Reads1(how), mx.nd.ones((2,)), mx.MXNetError)
    assert str(err).startswith(f"cannot read {what} of an array of shape"), str(err)
    assert_message(err, code, "F")
    assert "`F.slice_axis` and `F.reshape` codes for shapes" in str(err)
    assert_user_traceback(err, code)


@pytest.mark.parametrize("block, words, code", [(Reads2, "np", "x[0] = 1"), (Reads1, "F", "y[0] = 1")],
                         ids=["forward", "hybrid_forward"])
def test_item_assignment(block, words, code):
    err = _raised(block("write"), mx.nd.ones((2,)), mx.MXNetError)
    assert str(err).startswith("item assignment is not supported while the graph is being traced")
    assert_message(err, code, words)
    assert ("`mx.np.where(mask, value, x)`" if words == "np" else "`F.where(mask, value, x)`") in str(err)
    assert_user_traceback(err, code)


class UsesOutsideArray(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.offset = mx.np.ones((2,))

    def forward(self, x):
        return x + self.offset


def test_array_from_outside_advises_in_the_block_style():
    err = _raised(UsesOutsideArray(), mx.np.ones((2,)), mx.MXNetError)
    text = str(err)
    assert "neither a traced value, a graph input nor a parameter" in text
    assert f"{__file__}:{_line_of('return x + self.offset')}: `return x + self.offset`." in text
    assert "`mx.np.ones_like`" in text and "F." not in text
    assert_user_traceback(err, "return x + self.offset")


# ---- the traceback ------------------------------------------------------------------------------

class Outer(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.inner = Branches2()

    def forward(self, x):
        return self.inner(x) + 1


def test_nested_blocks_keep_every_user_frame_and_one_entry():
    err = _raised(Outer(), mx.np.ones((2,)), mx.MXNetError)
    names = [f.name for f in traceback.extract_tb(err.__traceback__)]
    assert names == ["_raised", "__call__", "forward", "forward"], names
    assert_user_traceback(err, "return self.inner(x) + 1")
    assert_user_traceback(err, "if x.sum() > 0:     # 2.0 branch")


def test_full_traceback_switch_keeps_hybridlab_frames(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    err = _raised(Branches2(), mx.np.ones((2,)), mx.MXNetError)
    files = {os.path.basename(f.filename) for f in _package_frames(err)}
    assert {"hybrid_block.py", "hybrid_graph.py", "state.py"} <= files, files
    assert NOTE not in getattr(err, "__notes__", ())
    assert "mx.np.where(cond, a, b)" in str(err)        # the message is the same


class DeferredBranch(gluon.HybridBlock):
    """Its own parameter waits for its shape: the first (imperative) call traces forward to learn it."""

    def __init__(self):
        super().__init__()
        self.scale = gluon.Parameter("scale", shape=(0,), allow_deferred_init=True)

    def forward(self, x):
        if x.sum() > 0:     # deferred branch
            return x * self.scale.data()
        return x


def test_chained_cause_is_kept_with_a_user_traceback():
    net = DeferredBranch()
    net.initialize()
    with pytest.raises(ValueError, match="Deferred initialization failed") as info:
        net(mx.np.ones((2,)))
    err = info.value
    assert type(err) is mx.base.MXNetValueError
    cause = err.__cause__
    assert isinstance(cause, mx.MXNetError) and "cannot read the truth value" in str(cause)
    assert "Deferred initialization failed" in str(err) and str(cause) in str(err)
    assert_user_traceback(cause, "if x.sum() > 0:     # deferred branch", noted=False)
    assert not _package_frames(cause)
    names = [f.name for f in traceback.extract_tb(err.__traceback__)]
    assert names == [test_chained_cause_is_kept_with_a_user_traceback.__name__, "__call__"], names
    assert NOTE in err.__notes__


class RaisesOwn(gluon.HybridBlock):
    def forward(self, x):
        raise KeyError("mine") from ValueError("why")


def test_user_exceptions_keep_their_type_message_and_cause():
    net = RaisesOwn()
    with pytest.raises(KeyError) as info:
        net(mx.np.ones((2,)))
    err = info.value
    assert err.args == ("mine",) and isinstance(err.__cause__, ValueError) and err.__suppress_context__
    assert_user_traceback(err, 'raise KeyError("mine") from ValueError("why")')


def test_errors_inside_hybridlab_calls_are_left_alone():
    """A block called by hybridlab's own code (a parent HybridSequential) is trimmed once, at the entry."""
    seq = gluon.nn.HybridSequential()
    seq.add(Branches2())
    err = _raised(seq, mx.np.ones((2,)), mx.MXNetError)
    assert_user_traceback(err, "if x.sum() > 0:     # 2.0 branch")
    assert err.__notes__.count(NOTE) == 1


def test_calls_that_work_are_unchanged():
    net = Branches2()
    assert float(net(mx.np.ones((2,))).sum()) == 4.0       # imperative: values exist
    dense = gluon.nn.Dense(2, in_units=3)
    dense.initialize()
    dense.hybridize()
    assert dense(mx.nd.ones((1, 3))).shape == (1, 2)


def _boom(ctx, a, x):
    raise ValueError("kernel exploded")


class RunsABadKernel(gluon.HybridBlock):
    """An op that fails only when the compiled program runs it (the graph builds fine)."""

    def hybrid_forward(self, F, x):
        bad = OpDef("_test_user_errors_boom", compute=_boom, infer_shape=same_shape, family="internal")
        return F.relu(compose(bad, [F.exp(x)], {}, name="kaboom"))


def test_errors_in_the_generated_program_keep_its_line_and_note():
    err = _raised(RunsABadKernel(), mx.nd.ones((2,)), ValueError)
    text = "".join(traceback.format_exception(err))
    assert "kaboom = _test_user_errors_boom(" in text                         # the generated line stays
    assert "kaboom' (_test_user_errors_boom) of the cached op program" in text  # the note naming the node
    assert NOTE in text
    names = [f.name for f in traceback.extract_tb(err.__traceback__)]
    assert names[:2] == ["_raised", "__call__"] and names[-2:] == ["forward", "_boom"], names
    assert len(_package_frames(err)) == 1
