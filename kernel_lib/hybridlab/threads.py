"""How many threads hybridlab's CPU kernels use: NumPy's BLAS (OpenBLAS in NumPy's wheel, driven
through ``threadpoolctl``) and oneDNN's OpenMP threads (GNU OpenMP, whose idle threads sleep:
``ops/dnnl/library.py`` loads it with ``OMP_WAIT_POLICY=PASSIVE``). One place decides, one count
for both, and the convolutions ask it on every call (:func:`current`).

Default (and ``HYBRIDLAB_NUM_THREADS=auto`` / ``set_num_threads("auto")``), measured: the CPUs
minus those the other processes kept busy over the last ``INTERVAL`` seconds (``/proc/stat``'s busy
time less this process's own CPU time), rounded, at least 1, at most the CPUs this process may run on
(its affinity mask, so ``taskset`` and container CPU sets count) lowered by ``OMP_NUM_THREADS`` /
``OPENBLAS_NUM_THREADS`` when set; measured again at most every ``INTERVAL`` seconds. On a quiet
machine that is every CPU; beside busy processes it leaves their CPUs to them instead of
oversubscribing. Measured on 2 CPUs with two spinning processes beside it (``benchmarks/contention.py
--rounds 3 --variant HYBRIDLAB_NUM_THREADS=auto``, ResNet-50 v2 forward at batch 1, the variants in
the same rounds): every CPU always 169 ms quiet, 354 ms loaded (slowdown 2.10x); measured 167 ms,
263 ms (1.58x); MXNet 1.9.1 on its 1 thread 128 ms, 198 ms (1.54x); twice the same picture that day.
(An earlier day's runs had measured worse loaded, 705 against 564 ms: the scheduler shares a busy CPU
among runnable threads, so the result depends on the load's own threads; re-measure on your machine.)

``HYBRIDLAB_NUM_THREADS=all`` (or ``set_num_threads("all")``): every usable CPU, whatever the load;
``=N`` (read on every call) or ``set_num_threads(N)`` fixes the count at ``N``;
``set_num_threads(None)`` goes back to the environment's choice.

Example::

    >>> import hybridlab as mx
    >>> 1 <= mx.threads.current() <= mx.threads.default_count()
    True
    >>> mx.threads.set_num_threads("all"); mx.threads.current() == mx.threads.default_count()
    True
    >>> mx.threads.set_num_threads(1); mx.threads.current()
    1
    >>> mx.threads.set_num_threads(None)
"""
import os
import threading
import time

from .base import MXNetError

__all__ = ["current", "set_num_threads", "usable_cpus", "default_count", "describe", "choose", "others_busy", "ENV", "INTERVAL"]

ENV = "HYBRIDLAB_NUM_THREADS"
INTERVAL = 0.5          # seconds between two measurements of the other processes' CPU use
_CAPS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
_STAT = "/proc/stat"

_lock = threading.Lock()
_state = {"fixed": None, "n": None, "auto": None, "sample": None, "others": None, "blas": None, "blas_n": None}


def usable_cpus():
    """The CPUs this process may run on (its affinity mask where the OS has one, else the CPU count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _positive(name, text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise MXNetError(f"{name}: expected a positive integer, got {text!r}")
    return n


def _cap(cpus):
    """The most threads allowed: the CPUs, lowered by OMP_NUM_THREADS / OPENBLAS_NUM_THREADS when set."""
    for var in _CAPS:
        v = os.environ.get(var, "").split(",")[0].strip()
        if v.isdigit() and int(v) > 0:
            cpus = min(cpus, int(v))
    return cpus


def choose(cpus, others):
    """The thread count for ``cpus`` usable CPUs when other processes keep ``others`` CPUs busy:
    the free CPUs rounded to the nearest integer, between 1 and ``cpus``.

    >>> choose(2, 0.1), choose(2, 1.0), choose(2, 1.9), choose(8, 2.4)
    (2, 1, 1, 6)
    """
    return max(1, min(cpus, int(cpus - others + 0.5)))


def _sample():
    """``(wall seconds, busy CPU seconds of the machine, CPU seconds of this process)``, or ``None``."""
    try:
        with open(_STAT, encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal [guest guest_nice: already counted in user]
    fields = (fields + [0] * 8)[:8]
    busy = sum(fields) - fields[3] - fields[4]
    t = os.times()
    return time.monotonic(), busy / os.sysconf("SC_CLK_TCK"), t.user + t.system


def others_busy(before, after):
    """CPUs the other processes kept busy between two samples (``(wall, machine busy, own)`` seconds).

    >>> others_busy((0.0, 10.0, 1.0), (0.5, 11.5, 1.5))
    2.0
    """
    wall = after[0] - before[0]
    if wall <= 0:
        return 0.0
    return max(0.0, ((after[1] - before[1]) - (after[2] - before[2])) / wall)


def _blas_controllers():
    if _state["blas"] is None:
        try:
            from threadpoolctl import ThreadpoolController
            _state["blas"] = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
        except Exception:      # not installed, or a library it cannot drive: leave BLAS as it is
            _state["blas"] = []
    return _state["blas"]


def _apply_blas(n):
    _state["blas"] = None      # scanned again: a BLAS loaded since (SciPy's OpenBLAS) follows too
    for c in _blas_controllers():
        try:
            c.set_num_threads(n)
        except Exception:
            pass
    _state["blas_n"] = n


def default_count():
    """The most threads: the usable CPUs, capped by OMP_NUM_THREADS / OPENBLAS_NUM_THREADS ("all")."""
    return _cap(usable_cpus())


def _mode():
    """An int (fixed count), ``"all"`` (every usable CPU) or ``"auto"`` (measured: the default)."""
    if _state["fixed"] is not None:
        return _state["fixed"]
    env = os.environ.get(ENV, "").strip().lower()
    if env in ("", "auto", "all"):
        return env or "auto"
    return _positive(ENV, env)


def current():
    """The thread count kernels should use now (see the module docstring); measures the other
    processes' CPU use again when the last measurement is ``INTERVAL`` seconds old, and sets the
    BLAS libraries' thread count when it changed."""
    mode = _mode()
    if mode == "all":
        n = default_count()
    elif mode != "auto":
        n = mode
    else:
        with _lock:
            prev = _state["sample"]
            if _state["auto"] is None or prev is None or time.monotonic() - prev[0] >= INTERVAL:
                now = _sample()
                if prev is not None and now is not None and now[0] - prev[0] >= INTERVAL / 2:
                    _state["others"] = others_busy(prev, now)
                    _state["sample"] = now
                elif prev is None:
                    _state["sample"] = now
                cpus, others = default_count(), _state["others"]
                _state["auto"] = cpus if others is None else choose(cpus, others)
            n = _state["auto"]
    _state["n"] = n
    if n != _state["blas_n"]:
        _apply_blas(n)
    return n


def set_num_threads(n):
    """Fix the thread count of hybridlab's kernels at ``n`` (an int >= 1), every usable CPU
    (``"all"``), measure it (``"auto"``), or, with ``None``, go back to ``HYBRIDLAB_NUM_THREADS`` or
    the default (measured; the module docstring)."""
    if n is not None and n not in ("auto", "all") and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise MXNetError(f"set_num_threads: expected a positive int, 'auto', 'all' or None, got {n!r}")
    _state["fixed"] = n
    _state["blas_n"] = None    # applied again even when the count is unchanged
    current()


def describe():
    """One line: how the thread count is chosen and what it is now."""
    n, mode = current(), _mode()
    by = ("set_num_threads" if _state["fixed"] is not None else ENV if os.environ.get(ENV, "").strip()
          else "default")
    if mode == "all":
        how = f"every CPU ({by}): {usable_cpus()} usable CPUs, cap {default_count()}"
    elif mode != "auto":
        how = f"fixed by {by}"
    else:
        others = _state["others"]
        how = (f"measured ({by}): {usable_cpus()} usable CPUs, cap {default_count()}, others busy "
               + ("(not measured yet)" if others is None else f"{others:.1f}"))
    blas = ", ".join(c.internal_api for c in _blas_controllers()) or "none found (threadpoolctl)"
    return f"{n} thread(s), {how}; BLAS: {blas}"


_state["sample"] = _sample()     # the first measurement's start: by the first kernel call, a window has passed
