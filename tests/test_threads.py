"""hybridlab.threads: the thread count of BLAS and oneDNN, from the CPUs other processes leave free
(policy only: no timing here; benchmarks/contention.py measures what it buys)."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import threads
from hybridlab.ops import dnnl


@pytest.fixture(autouse=True)
def _restore(monkeypatch):
    saved = dict(threads._state)
    for var in (threads.ENV, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    yield
    threads._state.update(saved, fixed=None, auto=None, blas_n=None)    # the next current() sets BLAS again


def _fake_machine(monkeypatch, cpus, samples):
    """``usable_cpus() == cpus``; ``_sample()`` returns ``samples`` in turn (wall, busy, own seconds)."""
    it = iter(samples)
    monkeypatch.setenv(threads.ENV, "auto")
    monkeypatch.setattr(threads, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(threads, "_sample", lambda: next(it))
    monkeypatch.setattr(threads.time, "monotonic", lambda: threads._state["sample"][0] + threads.INTERVAL)
    threads._state.update(fixed=None, auto=None, others=None, sample=None)


@pytest.mark.parametrize("cpus, others, expected", [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 2.0, 1), (2, 5.0, 1),
    (1, 0.0, 1), (16, 2.0, 14), (16, 0.3, 16), (8, 2.4, 6)])
def test_choose_free_cpus_rounded_at_least_one(cpus, others, expected):
    assert threads.choose(cpus, others) == expected


def test_others_busy_excludes_own_cpu_time():
    # 1.5 busy CPU-seconds over 0.5 s, 0.5 of them this process's: the others kept 2 CPUs busy
    assert threads.others_busy((0.0, 10.0, 1.0), (0.5, 11.5, 1.5)) == pytest.approx(2.0)
    assert threads.others_busy((0.0, 10.0, 1.0), (0.5, 10.2, 1.5)) == 0.0     # clock ticks vs rusage
    assert threads.others_busy((1.0, 10.0, 1.0), (1.0, 11.0, 1.0)) == 0.0     # no time passed


def test_all_is_every_usable_cpu_capped_by_the_environment(monkeypatch):
    monkeypatch.setenv(threads.ENV, "all")
    monkeypatch.setattr(threads, "usable_cpus", lambda: 4)
    assert threads.current() == 4
    assert f"every CPU ({threads.ENV}): 4 usable CPUs" in threads.describe()
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert threads.current() == 2
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert threads.current() == 1


def test_default_is_measured(monkeypatch):
    _fake_machine(monkeypatch, 4, [(0.0, 0.0, 0.0), (1.0, 2.5, 0.5), (2.0, 5.0, 1.0)])
    monkeypatch.delenv(threads.ENV)
    assert threads.current() == 4 and threads.current() == 2     # two CPUs busy beside us
    assert "measured (default): 4 usable CPUs" in threads.describe()


def test_busy_machine_gets_fewer_threads_when_measured(monkeypatch):
    # first window: two CPUs busy beside us (1 thread); second: idle (all 4 CPUs)
    _fake_machine(monkeypatch, 4, [(0.0, 0.0, 0.0), (1.0, 2.5, 0.5), (2.0, 3.0, 1.0)])
    assert threads.current() == 4             # nothing measured yet: every usable CPU
    assert threads.current() == 2
    assert threads._state["others"] == pytest.approx(2.0)
    assert threads.current() == 4


def test_environment_caps_the_measured_count(monkeypatch):
    _fake_machine(monkeypatch, 4, [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0)])
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert threads.current() == 3
    assert threads.current() == 3


def test_set_num_threads_fixes_the_count_and_none_measures_again():
    threads.set_num_threads(1)
    assert threads.current() == 1
    assert "fixed by set_num_threads" in threads.describe()
    threads.set_num_threads(None)
    assert 1 <= threads.current() <= threads.default_count()
    threads.set_num_threads("all")
    assert threads.current() == threads.default_count()
    threads.set_num_threads("auto")
    assert 1 <= threads.current() <= threads.usable_cpus()
    assert "measured (set_num_threads)" in threads.describe()


def test_env_var_fixes_the_count(monkeypatch):
    monkeypatch.setenv(threads.ENV, "3")
    assert threads.current() == 3
    assert f"fixed by {threads.ENV}" in threads.describe()
    threads.set_num_threads(1)                 # the function wins over the variable
    assert threads.current() == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, "Auto"])
def test_set_num_threads_rejects_non_positive_ints(bad):
    with pytest.raises(mx.MXNetError, match="expected a positive int, 'auto', 'all' or None"):
        threads.set_num_threads(bad)


def test_bad_env_var_is_an_error(monkeypatch):
    monkeypatch.setenv(threads.ENV, "many")
    with pytest.raises(mx.MXNetError, match="expected a positive integer, got 'many'"):
        threads.current()


def test_blas_follows_the_count():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not threads._blas_controllers():
        pytest.skip("no BLAS library threadpoolctl can drive")
    for n in (1, 2):
        threads.set_num_threads(n)
        got = {d["internal_api"]: d["num_threads"] for d in threadpoolctl.threadpool_info() if d["user_api"] == "blas"}
        assert set(got.values()) == {n}


@pytest.mark.skipif(not dnnl.available(), reason="oneDNN not installed")
def test_onednn_convolution_equal_on_any_thread_count():
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((2, 8, 12, 12)).astype(np.float32))
    w = mx.nd.array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32))
    outs = []
    for n in (1, 2, 1):
        threads.set_num_threads(n)
        outs.append(mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=16, no_bias=True, pad=(1, 1)).asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outs[2], outs[0])
