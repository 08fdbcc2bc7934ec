"""The imperative op monitor: op hooks on non-hybridized blocks and the profiler's imperative timing.

Imperative calls reach an op's ``compute`` through the dispatcher. While someone needs them (a
non-hybridized block with an op hook is running, or the profiler times imperative ops), each
registered op's ``compute`` is replaced by a thin wrapper that calls the hooks and times the call;
the wrapper keeps the original as ``_hl_plain`` (the cached-op code generator binds that one, so
compiled programs never see the wrapper). With nobody needing them (``acquire``/``release``
counted), the original functions are put back: imperative calls then cost nothing extra. The
wrappers read the profiler's switch and hand it their timings through ``monitor_state`` (the
profiler sits above this module), and stay silent inside ``monitor_state.quiet()``.

Hook names for imperative ops: there is no graph node, so an op call is named
``<block prefix><op name in lower case><n>`` after the innermost running block with a hook and
the op's number within that block's call (``dense0_fullyconnected0_output``); the tensor suffixes
are the hybridized ones (``_output``, ``_<input name>`` with ``monitor_all``).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab import op_monitor
    >>> seen = []
    >>> x = mx.nd.ones((2,))
    >>> with op_monitor.hooks("demo_", lambda n, o, a: seen.append(n)):
    ...     _ = mx.nd.relu(x)
    >>> seen
    ['demo_relu0_output']
"""
import contextlib
import threading
import time

from . import monitor_state
from .base import MXNetError
from .compiler.instrument import input_label

__all__ = ["acquire", "release", "hooks", "installed"]

_lock = threading.Lock()
_users = [0]
_wrappers = {}     # id(OpDef) -> its wrapper (ops are registered once and live as long as the process)
_local = threading.local()     # .frames: list of [prefix, callback, monitor_all, counters]


def installed():
    """Whether the wrappers are in place now."""
    return _users[0] > 0


def _frames():
    frames = getattr(_local, "frames", None)
    if frames is None:
        frames = _local.frames = []
    return frames


def _wrap(op, plain):
    from .ndarray.ndarray import NDArray

    def compute(ctx, a, *arrays):
        if monitor_state.suspended():      # e.g. a monitored graph run reports its ops itself
            return plain(ctx, a, *arrays)
        frames = getattr(_local, "frames", None)
        frame = frames[-1] if frames else None
        if frame is not None:
            prefix, callback, monitor_all, counters = frame
            n = counters.get(op.name, 0)
            counters[op.name] = n + 1
            base = f"{prefix}{op.name.lower()}{n}"
            if monitor_all:
                names = op.input_names(a)
                for i, x in enumerate(arrays):
                    _call(callback, f"{base}_{input_label(op, names, i)}", op, x, ctx.device)
        timed = monitor_state.switches.imperative
        t0 = time.perf_counter() if timed else 0.0
        res = plain(ctx, a, *arrays)
        if timed:
            if ctx.device.is_gpu:
                ctx.device.xp.cuda.Device(ctx.device.device_id).synchronize()
            monitor_state.record(op.name, t0, time.perf_counter(), "operator", {"mode": "imperative"})
        if frame is not None:
            outs = res if type(res) is tuple else (res,)
            names = op.output_names(a)
            for i in range(min(op.n_visible(a), len(outs))):
                _call(callback, f"{base}_{names[i] if i < len(names) else f'output{i}'}", op, outs[i], ctx.device)
        return res

    def _call(callback, tensor, op_, value, device):
        try:
            callback(tensor, op_.name, NDArray._wrap(value, device))
        except Exception as err:
            name = getattr(callback, "__name__", type(callback).__name__)
            raise MXNetError(f"op hook {name!r} raised {type(err).__name__}: {err} (on tensor '{tensor}', "
                             f"op {op_.name}, imperative call)") from err

    compute._hl_plain = plain
    compute.__name__ = getattr(plain, "__name__", op.name)
    return compute


def acquire():
    """One more user of the wrappers: installs them on the first."""
    from .ops.registry import all_ops
    with _lock:
        _users[0] += 1
        if _users[0] == 1:
            for op in all_ops():
                plain = op.compute
                if hasattr(plain, "_hl_plain"):
                    continue
                wrapper = _wrappers.get(id(op))
                if wrapper is None or wrapper._hl_plain is not plain:     # built once per op (and compute)
                    wrapper = _wrappers[id(op)] = _wrap(op, plain)
                op.compute = wrapper


def release():
    """One user fewer: the original functions come back with the last."""
    from .ops.registry import all_ops
    with _lock:
        if _users[0] == 0:
            return
        _users[0] -= 1
        if _users[0] == 0:
            for op in all_ops():
                plain = getattr(op.compute, "_hl_plain", None)
                if plain is not None:
                    op.compute = plain


@contextlib.contextmanager
def hooks(prefix, callback, monitor_all=False):
    """Inside: imperative op calls report to ``callback(name, op_name, array)`` with names starting
    with ``prefix`` (the innermost ``hooks`` block wins)."""
    frames = _frames()
    frames.append([prefix, callback, monitor_all, {}])
    acquire()
    try:
        yield
    finally:
        release()
        frames.pop()
