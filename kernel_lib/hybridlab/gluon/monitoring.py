"""A block call while an op hook is set or the profiler runs (the slow path; see
``Block.register_op_hook`` and ``hybridlab.profiler``).

* ``call_monitored(block, call, args)``: times the whole call for the profiler (and its
  ``"timing"`` event) and, for a block that runs imperatively with an op hook, reports each
  imperative op to the hook (``hybridlab.op_monitor``).
* ``run_cached_op(block, cargs)``: a hybridized block's cached op run through the instrumented
  program variant (``hybridlab.compiler.instrument``): hooks get every node's outputs (and inputs
  with ``monitor_all``), the profiler every node's time. Under ``autograd.record()`` with hooks the
  graph runs node by node through the dispatcher instead (autograd records each op, the hooks
  still fire once per op); with only the profiler, the compiled training pair runs instrumented
  (the train forward here, the backward when ``backward()`` runs it), so both are timed per node.

Blocks without hooks, with the profiler stopped, never come here.
"""
from .. import monitor_state, op_monitor, profiler
from .. import deferred as _dc
from ..compiler import instrument
from ..ndarray.ndarray import NDArray

__all__ = ["call_monitored", "run_cached_op", "monitoring"]


def monitoring(block):
    """Whether ``block``'s call must take the monitored path now."""
    return block._callback is not None or monitor_state.switches.running


def call_monitored(block, call, args):
    """Run ``call(*args)`` (the block's normal call) with hooks and timing."""
    if _dc.state.tracing.active or not args or not isinstance(args[0], NDArray):
        return call(*args)                  # graph building: nothing runs, nothing to report
    state = getattr(block, "hybridization", None)     # None: a plain Block
    hybridized = state is not None and state.active
    token = profiler.call_begin()
    if block._callback is not None and not hybridized:
        with op_monitor.hooks(block.prefix, block._callback, block._monitor_all):
            out = call(*args)
    else:
        out = call(*args)
    profiler.call_end(token, block.name, "hybridized" if hybridized else "imperative")
    return out


def run_cached_op(block, cargs):
    """The block's cached op on ``cargs`` with its op hook and/or per-op profiling."""
    op = block.hybridization.cached_op
    monitors = []
    if block._callback is not None:
        monitors.append(instrument.HookMonitor(block._callback, block._monitor_all))
    if profiler.symbolic_active():
        monitors.append(instrument.ProfileMonitor(block.name))
    if not monitors:
        return op(*cargs)
    mon = monitors[0] if len(monitors) == 1 else instrument.MonitorChain(monitors)
    return op.call_monitored(cargs, mon, label=block.name, per_node=block._callback is not None)
