"""The log story: where a NaN/Inf comes from (``gluon.nonfinite.find_nonfinite``) and NumPy's
floating-point warnings shown at the user's line, naming the node (``compiler.warning_origin``)."""
import inspect
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.compiler.warning_origin import reattributing
from hybridlab.gluon import HybridBlock, nn
from hybridlab.gluon.nonfinite import find_nonfinite


class LogNet(HybridBlock):              # MXNet 2.0 style
    def forward(self, x):
        return mx.np.log(x) * 2


class LogNet1x(HybridBlock):            # MXNet 1.x style
    def hybrid_forward(self, F, x):
        return F.log(x) * 2


class SingleLog(HybridBlock):           # log alone: not fused
    def forward(self, x):
        return mx.np.log(x)


class SqrtNet(HybridBlock):             # finite forward at 0, infinite gradient
    def forward(self, x):
        return mx.np.sqrt(x)


def return_line(fn):
    """(file, line) of the ``return`` statement of ``fn``."""
    lines, start = inspect.getsourcelines(fn)
    k = next(i for i, text in enumerate(lines) if text.strip().startswith("return"))
    return fn.__code__.co_filename, start + k


def hybridized(cls):
    net = cls()
    net.initialize()
    net.hybridize()
    return net


NEGATIVE = [1.0, -1.0, 2.0]


# ---- find_nonfinite --------------------------------------------------------------------------------
@pytest.mark.parametrize("cls, array, fn", [(LogNet, mx.np.array, LogNet.forward),
                                            (LogNet1x, mx.nd.array, LogNet1x.hybrid_forward)])
def test_the_log_node_its_line_and_its_input_are_named(cls, array, fn):
    net = hybridized(cls)
    report = find_nonfinite(net, array(NEGATIVE))
    assert report.found and report.phase == "forward"
    assert report.node.endswith("log0") and report.op == "log"
    assert report.fused_into is not None            # log * 2 is one fused kernel: opened to name the log
    assert (report.source["file"], report.source["line"]) == return_line(fn)
    assert report.source["code"].startswith("return")
    assert report.outputs[0].nan == 1 and report.outputs[0].inf == 0
    (label, stats), = report.inputs
    assert stats.min < 0 and stats.max == 2.0 and stats.nan == 0 and stats.inf == 0 and stats.shape == (3,)
    text = str(report)
    assert f"node '{report.node}' (log)" in text and f"{os.path.basename(fn.__code__.co_filename)}:" \
        f"{return_line(fn)[1]}" in text and "min -1" in text


def test_a_node_run_on_its_own_is_named_and_finite_inputs_say_all_finite():
    net = hybridized(SingleLog)
    report = find_nonfinite(net, mx.np.array([-1.0, 4.0]))
    assert report.node.endswith("log0") and report.op == "log" and report.fused_into is None
    assert report.source["line"] == return_line(SingleLog.forward)[1]
    fine = find_nonfinite(net, mx.np.array([1.0, 4.0]), backward=True)
    assert not fine.found and str(fine).startswith("all finite (forward and backward")


def test_backward_names_the_gradient_of_sqrt_when_the_forward_is_finite():
    net = hybridized(SqrtNet)
    x = mx.np.array([0.0, 4.0])
    assert not find_nonfinite(net, x).found              # sqrt(0) = 0: the forward is finite
    report = find_nonfinite(net, x, backward=True)
    assert report.found and report.phase == "backward"
    assert "_backward" in report.node and report.backward_of.endswith("sqrt0' (sqrt)")
    assert (report.source["file"], report.source["line"]) == return_line(SqrtNet.forward)
    assert report.outputs[0].inf == 1
    assert "gradient of forward node" in str(report)


def test_the_block_and_its_parameters_are_left_as_they_were():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=2), nn.BatchNorm(in_channels=3))
    net.initialize()
    net.hybridize(static_alloc=True)
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    net(x)
    state, cop = net.hybridization, net.hybridization.cached_op
    builds, sigs = len(state.history), list(state.signatures)
    params = {name: p.data().asnumpy().copy() for name, p in net.collect_params().items()}
    report = find_nonfinite(net, x, backward=True)
    assert not report.found and "static_alloc=True" in report.setting
    assert net.hybridization is state and state.cached_op is cop and state.active
    assert len(state.history) == builds and state.signatures == sigs
    for name, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), params[name], err_msg=name)


def test_a_non_finite_graph_input_is_reported_as_such():
    report = find_nonfinite(hybridized(SingleLog), mx.np.array([np.nan, 1.0]))
    assert report.phase == "input" and report.outputs[0].nan == 1 and "already holds NaN/Inf" in str(report)


# ---- warnings at the user's line --------------------------------------------------------------------
class Shown(list):
    """A ``showwarning`` that keeps what it is asked to show: (text, category, filename, lineno)."""

    def __call__(self, message, category, filename, lineno, file=None, line=None):
        self.append((str(message), category, filename, lineno))


def showing(simplefilter="default"):
    """Inside pytest every test records warnings (which bypasses showwarning): show them through
    the re-attributing wrapper instead, as a plain Python session does."""
    shown = Shown()
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter(simplefilter)
    warnings.showwarning = reattributing(shown)
    return ctx, shown


@pytest.mark.parametrize("cls, array, fn", [(LogNet, mx.np.array, LogNet.forward),
                                            (LogNet1x, mx.nd.array, LogNet1x.hybrid_forward),
                                            (SingleLog, mx.np.array, SingleLog.forward)])
def test_a_hybridized_warning_points_at_the_users_line_and_names_the_node(cls, array, fn):
    net = hybridized(cls)
    ctx, shown = showing()
    try:
        net(array(NEGATIVE))
        net(array(NEGATIVE))                      # the default filter: once per user line and node
    finally:
        ctx.__exit__(None, None, None)
    (text, category, filename, lineno), = shown
    assert category is RuntimeWarning and (filename, lineno) == return_line(fn)
    name = next(n.name for n in net.hybridization.graph._nodes() if n.op_name == "log")
    assert text.startswith("invalid value encountered in log (node ")
    assert f"node '{name}' (log)" in text
    assert f"created at {os.path.basename(filename)}:{lineno}: return" in text


def test_a_warning_in_the_gradient_names_the_backward_node():
    net = hybridized(SqrtNet)
    x = mx.np.array([0.0, 4.0])
    x.attach_grad()
    ctx, shown = showing()
    try:
        with mx.autograd.record():
            y = net(x)
        y.backward()
    finally:
        ctx.__exit__(None, None, None)
    (text, _, filename, lineno), = shown
    assert (filename, lineno) == return_line(SqrtNet.forward)
    assert "divide by zero" in text and re.search(r"in the gradient of '\w*sqrt0'", text)


def test_an_imperative_warning_points_at_the_users_line_once_per_line():
    ctx, shown = showing()
    try:
        here = inspect.currentframe().f_lineno
        mx.np.log(mx.np.array([-1.0]))
        mx.nd.log(mx.nd.array([-1.0]))          # the same NumPy warning from another line: shown too
        for _ in range(2):
            mx.nd.log(mx.nd.array([-1.0]))      # one line, twice: shown once
    finally:
        ctx.__exit__(None, None, None)
    assert [(f, n) for _, _, f, n in shown] == [(__file__, here + k) for k in (1, 2, 4)]
    assert all(t.startswith("invalid value encountered in log (op 'log', imperative call at") for t, *_ in shown)


def test_filters_apply_at_the_users_line_and_numpy_from_user_code_is_untouched():
    net = hybridized(SingleLog)
    ctx, shown = showing()
    try:
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=re.escape(__name__))
        net(mx.np.array([-1.0]))                  # its line is in this module: ignored
        mx.np.log(mx.np.array([-1.0]))
        warnings.resetwarnings()
        warnings.simplefilter("default")
        here = inspect.currentframe().f_lineno
        np.log(np.array([-1.0]))                  # NumPy called by the user: shown as NumPy issues it
    finally:
        ctx.__exit__(None, None, None)
    assert shown == [("invalid value encountered in log", RuntimeWarning, __file__, here + 1)]


def test_recording_users_still_see_numpys_warning():
    """``catch_warnings(record=True)`` / ``pytest.warns`` put the default showwarning back: they get
    NumPy's warning as NumPy issued it (its text, at hybridlab's line)."""
    net = hybridized(SingleLog)
    with pytest.warns(RuntimeWarning, match="invalid value encountered in log"):
        net(mx.np.array([-1.0]))
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        mx.np.log(mx.np.array([-1.0]))
    assert [str(w.message) for w in got] == ["invalid value encountered in log"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            net(mx.np.array([-1.0]))


def _run_script(script):
    """Run ``script`` in a fresh Python with this hybridlab and the default warning filters."""
    kernel_lib = os.path.dirname(os.path.dirname(mx.__file__))
    env = dict(os.environ, PYTHONPATH=kernel_lib + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
                          cwd=script.parent)


def test_a_plain_session_shows_the_log_story_at_the_users_line(tmp_path):
    script = tmp_path / "net.py"
    script.write_text(textwrap.dedent("""\
        import hybridlab as mx
        from hybridlab.gluon import HybridBlock

        class Net(HybridBlock):
            def forward(self, x):
                return mx.np.log(x) * 2

        net = Net()
        net.initialize()
        net.hybridize()
        net(mx.np.array([1.0, -1.0]))
        mx.np.log(mx.np.array([-1.0]))
        """))
    done = _run_script(script)
    assert done.returncode == 0, done.stderr
    assert f"{script}:6: RuntimeWarning: invalid value encountered in log (node 'net0_log0' (log)" in done.stderr
    assert "created at net.py:6: return mx.np.log(x) * 2)" in done.stderr
    assert f"{script}:12: RuntimeWarning: invalid value encountered in log (op 'log'" in done.stderr
    assert "elemwise" not in done.stderr and "<hybridlab" not in done.stderr


def test_a_notebook_cell_shows_the_warning_at_its_line(tmp_path):
    # a Jupyter cell is code compiled under a file name no loaded module has: the re-issued
    # warning must still be shown there (warn_explicit with module=None shows nothing)
    script = tmp_path / "kernel.py"
    cell = tmp_path / "ipykernel_1" / "cell1.py"
    script.write_text(textwrap.dedent(f"""\
        import hybridlab as mx
        source = '''
        from hybridlab.gluon import HybridBlock
        class Net(HybridBlock):
            def forward(self, x):
                return mx.np.log(x) * 2
        net = Net(); net.hybridize()
        net(mx.np.array([1.0, -1.0]))
        '''
        import linecache
        linecache.cache[{str(cell)!r}] = (len(source), None, source.splitlines(True), {str(cell)!r})
        exec(compile(source, {str(cell)!r}, "exec"), {{"mx": mx, "__name__": "__main__"}})
        """))
    done = _run_script(script)
    assert done.returncode == 0, done.stderr
    assert f"{cell}:5: RuntimeWarning: invalid value encountered in log (node 'net0_log0' (log)" in done.stderr


class LogOnItsLine(HybridBlock):        # fused with the multiply of the next line
    def forward(self, x):
        y = mx.np.log(x)
        return y * 2


def test_a_fused_member_warns_at_its_own_line():
    net = hybridized(LogOnItsLine)
    net(mx.np.array([1.0, 2.0, 3.0]))                  # built (and finite): the warning comes below
    assert any(n.op_name == "_fused_elemwise" for n in net.hybridization.cached_op._ops)
    ctx, shown = showing()
    try:
        net(mx.np.array(NEGATIVE) * 2)
    finally:
        ctx.__exit__(None, None, None)
    (text, _, filename, lineno), = shown
    lines, start = inspect.getsourcelines(LogOnItsLine.forward)
    assert (filename, lineno) == (__file__, start + 1)                 # the log's line, not the return's
    assert "(log), fused into" in text
    report = find_nonfinite(net, mx.np.array(NEGATIVE))
    assert report.op == "log" and report.source["line"] == start + 1
