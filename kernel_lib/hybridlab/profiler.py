"""``mx.profiler``: MXNet's profiler API, timing ops and block calls.

* ``set_config(profile_all=..., profile_symbolic=..., profile_imperative=..., aggregate_stats=...,
  filename=...)``, then ``set_state('run')`` ... ``set_state('stop')`` (``pause()``/``resume()``
  in between).
* While it runs, every op of a hybridized block is timed by the instrumented variant of the cached
  op's program (``profile_symbolic``; the plain program is untouched; under ``autograd.record()``
  the train forward's ops, and the compiled backward's ops when ``backward()`` runs), every imperative op call is
  timed at the op's compute (``profile_imperative``; wrappers installed only while the profiler
  runs: zero cost otherwise), and every block call is timed as a whole (domain ``Block calls``,
  with ``mode`` imperative or hybridized). Each block call also publishes a ``"timing"`` event
  (``hybridlab.events``) with its time and its ops' times, for the lab's timing panel.
* ``dumps(reset=False, format='table'|'json', sort_by='total'|'avg'|'min'|'max'|'count',
  ascending=False)``: aggregate statistics per domain and name (count, total, min, max, avg in
  ms). The JSON has MXNet's layout: ``{"Time": {domain: {name: {"Count", "Total", "Min", "Max",
  "Avg"}}}, "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}}``.
* ``dump(finished=True)`` writes a Chrome trace (``{"traceEvents": [...]}``, open it in
  chrome://tracing or Perfetto) to the configured ``filename``.
* ``isolated(**config)``: a profiling run of its own (the lab's timing panel), leaving the user's
  configuration, state and samples as they were.

The code it watches sits below it in the layers: the compiler and the op monitor check the switches
in ``hybridlab.monitor_state`` (this module sets them) and hand their samples to ``record`` through
the callback registered there.

On a GPU the device is synchronised around each timed op, so times are the kernels' (and the
synchronisation slows the run down while profiling).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> net = nn.HybridSequential()
    >>> net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> net.hybridize()
    >>> mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='profile.json')
    >>> mx.profiler.set_state('run')
    >>> _ = net(mx.nd.ones((1, 3)))
    >>> mx.profiler.set_state('stop')
    >>> table = mx.profiler.dumps(reset=True)
    >>> 'FullyConnected' in table and 'Activation' in table
    True
"""
import contextlib
import json
import os
import threading
import time

from . import events, monitor_state, op_monitor
from .base import MXNetError

__all__ = ["set_config", "set_state", "pause", "resume", "dumps", "dump", "dump_profile", "record",
           "is_running", "symbolic_active", "imperative_active", "records", "call_begin", "call_end",
           "isolated", "profiler_set_config", "profiler_set_state", "Domain", "Task", "Frame", "Event", "Counter",
           "Marker"]

CONFIG_DEFAULTS = {
    "filename": "profile.json", "profile_all": False, "profile_symbolic": True, "profile_imperative": True,
    "profile_memory": True, "profile_api": True, "continuous_dump": False, "dump_period": 1.0,
    "aggregate_stats": False, "profile_process": "worker", "gpu_memory_profile_tag": "",
}
SORT_KEYS = {"total": "Total", "avg": "Avg", "min": "Min", "max": "Max", "count": "Count"}

events.add_topic("timing", "a block call timed by the profiler; payload: block (name, str), mode ('imperative' | "
                           "'hybridized'), ms (float, the call), ops (list of {name: node name, op, ms} timed inside)")

_config = dict(CONFIG_DEFAULTS)
_lock = threading.Lock()
_records = []          # (name, domain, t0, t1, args, thread id); times from time.perf_counter()
_instants = []         # (phase "C" counter value | "i" marker, name, domain, t, args, thread id): trace only


class _State:
    running = False
    paused = False


_state = _State()
_origin = time.perf_counter()


def _bool(key, value):
    if isinstance(value, str):
        if value.strip().lower() not in ("true", "false", "1", "0"):
            raise MXNetError(f"profiler.set_config: '{key}' expected a boolean, got {value!r}")
        return value.strip().lower() in ("true", "1")
    return bool(value)


def set_config(**kwargs):
    """Set the profiler's configuration (keyword arguments only, MXNet's names): ``filename``,
    ``profile_all``, ``profile_symbolic``, ``profile_imperative``, ``profile_memory``, ``profile_api``,
    ``continuous_dump``, ``dump_period``, ``aggregate_stats``, ``profile_process``,
    ``gpu_memory_profile_tag``. ``profile_all`` turns on every kind.

    >>> import hybridlab as mx
    >>> mx.profiler.set_config(profile_symbolic=True, filename='trace.json')
    >>> mx.profiler.set_config(profile_everything=True)
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetError: profiler.set_config: unknown argument 'profile_everything'; expected one of ...
    """
    for key in kwargs:
        if key not in CONFIG_DEFAULTS:
            raise MXNetError(f"profiler.set_config: unknown argument {key!r}; expected one of "
                             f"{', '.join(CONFIG_DEFAULTS)}")
    for key, value in kwargs.items():
        default = CONFIG_DEFAULTS[key]
        if isinstance(default, bool):
            value = _bool(key, value)
        elif isinstance(default, float):
            value = float(value)
        else:
            value = str(value)
        _config[key] = value
    _sync()


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated MXNet name: ``mode`` 'symbolic' or 'all'."""
    if mode not in ("symbolic", "all"):
        raise MXNetError(f"profiler_set_config: mode expected 'symbolic' or 'all', got {mode!r}")
    set_config(profile_symbolic=True, profile_all=(mode == "all"), filename=filename)


def set_state(state="stop", profile_process="worker"):
    """Start (``'run'``) or stop (``'stop'``) profiling. Records are kept until ``dumps(reset=True)``.

    >>> import hybridlab as mx
    >>> mx.profiler.set_state('walk')
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetError: profiler.set_state: expected 'run' or 'stop', got 'walk'
    """
    if state not in ("run", "stop"):
        raise MXNetError(f"profiler.set_state: expected 'run' or 'stop', got {state!r}")
    _state.running = state == "run"
    _state.paused = False
    _sync()


def profiler_set_state(state="stop"):
    """Deprecated MXNet name of ``set_state``."""
    set_state(state)


def pause(profile_process="worker"):
    """Stop recording until ``resume()`` (the profiler stays in the 'run' state)."""
    _state.paused = True
    _sync()


def resume(profile_process="worker"):
    """Record again after ``pause()``."""
    _state.paused = False
    _sync()


def is_running():
    """Whether samples are being recorded now (state 'run' and not paused)."""
    return _state.running and not _state.paused


def symbolic_active():
    """Whether hybridized blocks should run their instrumented (per-op timed) program now."""
    return monitor_state.switches.symbolic


def imperative_active():
    """Whether imperative op calls are timed now."""
    return monitor_state.switches.imperative


_installed = [False]


def _sync():
    """After a change of state or configuration: set the monitoring switches, and install the
    imperative op wrappers exactly while imperative ops are being timed."""
    on = _state.running and not _state.paused
    monitor_state.set_switches(running=_state.running,
                               symbolic=on and (_config["profile_symbolic"] or _config["profile_all"]),
                               imperative=on and (_config["profile_imperative"] or _config["profile_all"]))
    want = monitor_state.switches.imperative
    if want and not _installed[0]:
        op_monitor.acquire()
        _installed[0] = True
    elif not want and _installed[0]:
        op_monitor.release()
        _installed[0] = False


def record(name, t0, t1, domain="operator", args=None):
    """Add one timed sample (``t0``/``t1`` from ``time.perf_counter()``) if the profiler runs."""
    if not (_state.running and not _state.paused):
        return
    with _lock:
        _records.append((name, domain, t0, t1, args or {}, threading.get_ident()))


monitor_state.connect(record)    # the compiler's and the op monitor's timed samples come here


def _instant(phase, name, domain, args):
    if _state.running and not _state.paused:
        with _lock:
            _instants.append((phase, name, domain, time.perf_counter(), args, threading.get_ident()))


def records():
    """A copy of the raw samples: ``(name, domain, t0, t1, args, thread id)`` tuples."""
    with _lock:
        return list(_records)


@contextlib.contextmanager
def isolated(**config):
    """A profiling run of its own: inside, the profiler runs with ``config`` (``set_config``'s
    arguments, on top of the current configuration); on exit the configuration and the state
    ('run', paused or 'stop') it had come back, and the samples recorded inside are moved out of the
    profiler into the list this yields (the user's earlier samples stay).

    >>> import hybridlab as mx
    >>> x = mx.nd.ones((2,))
    >>> with mx.profiler.isolated(profile_imperative=True) as samples:
    ...     _ = mx.nd.relu(x)
    >>> [s[0] for s in samples if s[1] == 'operator'], mx.profiler.is_running()
    (['relu'], False)
    """
    saved, state = dict(_config), (_state.running, _state.paused)
    with _lock:
        start = len(_records)
    samples = []
    try:
        set_config(**config)
        set_state("run")
        yield samples
    finally:
        _state.running, _state.paused = state
        _config.clear()
        _config.update(saved)
        _sync()
        with _lock:
            samples.extend(_records[start:])
            del _records[start:]


def call_begin():
    """Start timing a block call: returns a token for ``call_end`` (``None`` when not running)."""
    if not (_state.running and not _state.paused):
        return None
    with _lock:
        return (time.perf_counter(), len(_records))


def call_end(token, block, mode):
    """Record a block call begun with ``call_begin`` and publish a ``"timing"`` event."""
    if token is None:
        return
    t0, first = token
    t1 = time.perf_counter()
    record(block, t0, t1, "Block calls", {"mode": mode})
    if events.has_subscribers("timing"):
        with _lock:
            ops = [{"name": a.get("node", n), "op": n, "ms": (e - s) * 1e3}
                   for n, d, s, e, a, _ in _records[first:] if d == "operator"]
        events.publish("timing", block=block, mode=mode, ms=(t1 - t0) * 1e3, ops=ops)


def _aggregate():
    stats = {}
    with _lock:
        recs = list(_records)
    for name, domain, t0, t1, _, _ in recs:
        ms = (t1 - t0) * 1e3
        s = stats.setdefault(domain, {}).get(name)
        if s is None:
            stats[domain][name] = {"Count": 1, "Total": ms, "Min": ms, "Max": ms}
        else:
            s["Count"] += 1
            s["Total"] += ms
            s["Min"] = min(s["Min"], ms)
            s["Max"] = max(s["Max"], ms)
    for domain in stats.values():
        for s in domain.values():
            s["Avg"] = s["Total"] / s["Count"]
    return stats


def dumps(reset=False, format="table", sort_by="total", ascending=False):  # noqa: A002 - MXNet's name
    """The aggregate statistics as a printable table (``format='table'``) or a JSON string
    (``format='json'``), each domain's rows sorted by ``sort_by`` (total, avg, min, max, count);
    ``reset=True`` clears the samples afterwards.

    >>> import hybridlab as mx
    >>> print(mx.profiler.dumps(reset=True))     # doctest: +ELLIPSIS
    Profile Statistics:
    ...
    >>> mx.profiler.dumps(sort_by='median')
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetError: profiler.dumps: sort_by expected one of total, avg, min, max, count, got 'median'
    """
    if format not in ("table", "json"):
        raise MXNetError(f"profiler.dumps: format expected 'table' or 'json', got {format!r}")
    if sort_by not in SORT_KEYS:
        raise MXNetError(f"profiler.dumps: sort_by expected one of {', '.join(SORT_KEYS)}, got {sort_by!r}")
    key = SORT_KEYS[sort_by]
    stats = _aggregate()
    ordered = {d: dict(sorted(rows.items(), key=lambda kv: kv[1][key], reverse=not ascending))
               for d, rows in stats.items()}
    if reset:
        with _lock:
            _records.clear()
            _instants.clear()
    if format == "json":
        return json.dumps({"Time": ordered, "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}}, indent=4)
    lines = ["Profile Statistics:", "\tNote the difference in units for different entries."]
    head = f"{'Name':<40}{'Total Count':>14}{'Time (ms)':>14}{'Min Time (ms)':>16}{'Max Time (ms)':>16}" \
           f"{'Avg Time (ms)':>16}"
    for domain, rows in ordered.items():
        lines += [domain, "=" * 17, head,
                  f"{'----':<40}{'-----------':>14}{'---------':>14}{'-------------':>16}{'-------------':>16}"
                  f"{'-------------':>16}"]
        for name, s in rows.items():
            lines.append(f"{str(name)[:39]:<40}{s['Count']:>14}{s['Total']:>14.4f}{s['Min']:>16.4f}{s['Max']:>16.4f}"
                         f"{s['Avg']:>16.4f}")
        lines.append("")
    return "\n".join(lines)


def trace_events():
    """The samples as Chrome trace events (complete events, ``ph: "X"``, times in microseconds)."""
    pid = os.getpid()
    events = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "hybridlab"}}]
    for name, domain, t0, t1, args, tid in records():
        events.append({"name": str(name), "cat": domain, "ph": "X", "ts": round((t0 - _origin) * 1e6, 3),
                       "dur": round((t1 - t0) * 1e6, 3), "pid": pid, "tid": tid,
                       "args": {k: str(v) for k, v in args.items()}})
    with _lock:
        instants = list(_instants)
    for phase, name, domain, t, args, tid in instants:
        event = {"name": str(name), "cat": domain, "ph": phase, "ts": round((t - _origin) * 1e6, 3), "pid": pid,
                 "tid": tid, "args": args}
        if phase == "i":
            event["s"] = args.pop("scope", "p")
        events.append(event)
    return events


def dump(finished=True, profile_process="worker"):
    """Write the samples as a Chrome trace JSON (``{"traceEvents": [...], "displayTimeUnit": "ms"}``)
    to the configured ``filename``; returns the file name. ``finished=True`` also stops the profiler."""
    from .fileio import write_atomic
    filename = _config["filename"]
    data = json.dumps({"traceEvents": trace_events(), "displayTimeUnit": "ms"}).encode()
    write_atomic(filename, data, what="profiler trace")
    if finished:
        set_state("stop")
    return filename


def dump_profile():
    """Deprecated MXNet name of ``dump(True)``."""
    return dump(True)


# ---- MXNet's user-defined profiling objects -------------------------------------------------------
# A Task, Frame or Event is a timed range like an op: it shows in dumps() under its domain and in the
# trace; a Counter's values and a Marker's instants go to the trace only.

class Domain:
    """A named group for Tasks, Frames, Counters and Markers (``profiler.Domain('MyDomain')``).

    >>> import hybridlab as mx
    >>> d = mx.profiler.Domain("demo")
    >>> mx.profiler.set_config(aggregate_stats=True)
    >>> mx.profiler.set_state("run")
    >>> with d.new_task("load"):
    ...     pass
    >>> mx.profiler.set_state("stop")
    >>> import json
    >>> json.loads(mx.profiler.dumps(reset=True, format="json"))["Time"]["demo"]["load"]["Count"]
    1
    """

    def __init__(self, name):
        self.name = str(name)

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Domain({self.name!r})"


class _Range:
    """A timed range: ``start()`` ... ``stop()``, or a ``with`` block."""

    def __init__(self, domain, name):
        self.domain, self.name, self._t0 = domain, str(name), None

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self):
        if self._t0 is None:
            raise MXNetError(f"{type(self).__name__} {self.name!r}: stop() expected a start() before it")
        record(self.name, self._t0, time.perf_counter(), domain=self._domain_name())
        self._t0 = None

    def _domain_name(self):
        return str(self.domain)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def __str__(self):
        return self.name


class Task(_Range):
    """A timed range of work in a domain (``Task(domain, name).start()`` ... ``.stop()``)."""


class Frame(_Range):
    """A timed range in a domain that repeats (one per iteration, as a frame of a game loop)."""


class Event(_Range):
    """A timed range without a domain (``Event(name)``); it shows under the domain ``Event``."""

    def __init__(self, name):
        super().__init__(None, name)

    def _domain_name(self):
        return "Event"


class Counter:
    """A named value in a domain whose changes go to the trace: ``set_value``, ``increment``,
    ``decrement``, ``+=`` and ``-=``.

    >>> import hybridlab as mx
    >>> c = mx.profiler.Counter(mx.profiler.Domain("demo"), "items", 5)
    >>> c += 2
    >>> c.value
    7
    """

    def __init__(self, domain, name, value=None):
        self.domain, self.name, self.value = domain, str(name), 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise MXNetError(f"Counter {self.name!r}: expected a number, got {value!r}")
        self.value = value
        _instant("C", self.name, str(self.domain), {"value": value})

    def increment(self, delta=1):
        self.set_value(self.value + delta)

    def decrement(self, delta=1):
        self.set_value(self.value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """An instant in a domain: ``Marker(domain, name).mark(scope)`` with scope ``'global'``,
    ``'process'``, ``'thread'``, ``'task'`` or ``'marker'``."""

    _SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}

    def __init__(self, domain, name):
        self.domain, self.name = domain, str(name)

    def mark(self, scope="process"):
        if scope not in self._SCOPES:
            raise MXNetError(f"Marker {self.name!r}: scope expected one of {sorted(self._SCOPES)}, got {scope!r}")
        _instant("i", self.name, str(self.domain), {"scope": self._SCOPES[scope]})
