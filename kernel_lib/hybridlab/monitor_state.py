"""Monitoring switches, in one place low in the layers: what the compiler, the tracer and the
imperative op monitor (``op_monitor``) check on their hot paths, and the callback through which the
profiler (``mx.profiler``, which sits above them) receives the samples they time.

* ``switches.running``: the profiler is in its 'run' state (paused or not): block calls take the
  monitored path, which times them.
* ``switches.symbolic`` / ``switches.imperative``: whether the profiler times the ops of hybridized
  blocks / imperative op calls now. Only the profiler sets them (``set_switches``).
* ``record(name, t0, t1, domain, args)``: hand one timed sample to the profiler (``connect``).
* ``quiet()``: op calls made inside are not reported to op hooks or the profiler (parameter
  initialisation, values computed while tracing, a monitored graph run that reports its ops itself).
* ``custom_op(op_type)``: inside, the ops a Python operator (``mx.operator``) calls are reported as
  MXNet reports them: ``"<op_type>::<op>"`` in the domain ``"Custom Operator"``.

Example::

    >>> from hybridlab import monitor_state
    >>> with monitor_state.quiet():
    ...     monitor_state.suspended()
    True
    >>> monitor_state.suspended()
    False
"""
import contextlib

__all__ = ["switches", "set_switches", "connect", "record", "quiet", "suspended", "custom_op"]


class _Switches:
    running = False       # the profiler is in the 'run' state (block calls take the monitored path)
    symbolic = False      # time the ops of hybridized blocks (their instrumented programs)
    imperative = False    # time imperative op calls (at the op monitor's wrappers)


switches = _Switches()
_recorder = [None]        # the profiler's record(name, t0, t1, domain, args), set by connect
_quiet = [0]              # > 0 inside quiet()
_custom = []              # the op types of the Python operators running now (innermost last)


def set_switches(running, symbolic, imperative):
    """Set what is timed now (the profiler calls this whenever its state or configuration changes).

    >>> from hybridlab import monitor_state
    >>> monitor_state.switches.running, monitor_state.switches.symbolic, monitor_state.switches.imperative
    (False, False, False)
    """
    switches.running, switches.symbolic, switches.imperative = bool(running), bool(symbolic), bool(imperative)


def connect(recorder):
    """Make ``recorder(name, t0, t1, domain, args)`` the receiver of timed samples (the profiler,
    when it loads)."""
    _recorder[0] = recorder


def record(name, t0, t1, domain="operator", args=None):
    """Hand one timed sample (``t0``/``t1`` from ``time.perf_counter()``) to the profiler."""
    recorder = _recorder[0]
    if recorder is not None:
        if _custom and domain == "operator":
            name, domain = f"{_custom[-1]}::{name}", "Custom Operator"
        recorder(name, t0, t1, domain, args)


@contextlib.contextmanager
def custom_op(op_type):
    """Inside: op samples are named as the ops of the Python operator ``op_type``."""
    _custom.append(op_type)
    try:
        yield
    finally:
        _custom.pop()


@contextlib.contextmanager
def quiet():
    """Inside: imperative op calls are not reported to op hooks or the profiler."""
    _quiet[0] += 1
    try:
        yield
    finally:
        _quiet[0] -= 1


def suspended():
    """Whether op calls are kept from op hooks and the profiler now (inside ``quiet()``)."""
    return _quiet[0] > 0
