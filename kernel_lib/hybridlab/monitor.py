"""``mx.monitor`` (also ``mx.mon``): MXNet 1.x's ``Monitor``, statistics of the tensors of bound
executors for debugging.

``Monitor(interval, stat_func=None, pattern='.*', sort=False, monitor_all=False)`` is installed on
executors (``mon.install(exe)``, or ``Module.install_monitor(mon)`` / ``fit(monitor=mon)``), which then
call it with every op output of each forward and backward (``<node>_output``, ``<node>_output<i>``,
``<node>_backward_output<i>``; with ``monitor_all`` also every op input, see
``Executor.set_monitor_callback``). Every ``interval``-th batch, between ``tic()`` and ``toc()``, the
values of the tensors whose names match ``pattern`` (``re.match``) are reduced by ``stat_func``
(default ``norm(x) / sqrt(x.size)``); ``toc()`` adds the arguments and auxiliary states of each
executor and returns ``[(batch, name, 'value\\t')]`` (sorted by name with ``sort``); ``toc_print()``
logs them as ``Batch: {:7d} {:30s} {:s}``.

Example::

    >>> import hybridlab as mx
    >>> net = mx.sym.relu(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'), name='act')
    >>> ex = net.simple_bind(mx.cpu(), data=(1, 2), grad_req='null')
    >>> for arr in ex.arg_arrays:
    ...     arr[:] = 1
    >>> mon = mx.mon.Monitor(1, pattern='.*output')
    >>> mon.install(ex)
    >>> mon.tic()
    >>> _ = ex.forward()
    >>> mon.toc()
    [(1, 'fc_output', '3.0\\t'), (1, 'act_output', '3.0\\t')]
"""
import logging
import math
import re

from . import ndarray as nd
from .ndarray.ndarray import NDArray

__all__ = ["Monitor"]


class Monitor:
    """Statistics of executors' tensors every ``interval`` batches (see the module docstring)."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        if stat_func is None:
            def asum_stat(x):
                """``norm(x) / sqrt(x.size)``."""
                return nd.norm(x) / math.sqrt(x.size)
            stat_func = asum_stat
        self.stat_func = stat_func
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """The executors' callback: queue ``stat_func(array)`` while collecting, for matching names."""
        name = name.decode() if isinstance(name, bytes) else name
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Report ``exe``'s tensors to this monitor (several executors may share one)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting for this batch (when it is an ``interval``-th one); call before forward."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; the statistics of this batch: ``[(batch, name, text)]``, the arguments
        and auxiliary states of every executor last."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        res = []
        for n, k, values in self.queue:
            values = [values] if isinstance(values, NDArray) else values
            if not isinstance(values, list):
                raise TypeError(f"Monitor: stat_func expected to return an NDArray or a list of NDArrays, "
                                f"got {type(values).__name__}")
            text = ""
            for v in values:
                text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            res.append((n, k, text))
        self.queue = []
        return res

    def toc_print(self):
        """Stop collecting and log the statistics (``logging.info``)."""
        for n, k, v in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(n, k, v))
