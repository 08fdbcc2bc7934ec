"""``TensorInspector(block)``: per-op tensor statistics of a block's calls, computed in the kernel.

The inspector installs MXNet's op hook (``HybridBlock.register_op_hook``) on the block and, for
each op output of a sampled call, computes ``tensor_stats``: shape, dtype, min/max/mean/std, the
share of zeros, NaN and Inf counts, a histogram and a small preview (downsampled heatmap data for
2-D and 4-D tensors). Only these statistics reach the browser, never a whole tensor.

Sampling (``every``): the default ``every=None`` is adaptive, so the inspector adds at most
``budget`` (default 0.25) to the block's own call time over a run: the first call is always
inspected, then a call is inspected only while the time spent inspecting stays within ``budget`` of
the time the block spent running uninspected. Between inspected calls the op hook is removed, so
the block runs its normal (fast) path. ``every=1`` inspects every call, ``every=k`` every k-th.
Large tensors are summarised on a strided sample of at most ``sample`` elements (the mean is
exact; NaN/Inf are counted exactly on the whole tensor).

NaN/Inf detection covers every call: a call that is not inspected still has its outputs checked
(one float64 sum per output, then an exact check when the sum is not finite). When such a call's
output holds a NaN or Inf, ``first_nonfinite`` flags that call at once (the output's node, with
``"inspected": False`` and a ``detail`` sentence) and the next call is inspected in full; if it
shows a NaN/Inf too, the flag moves to the first op that produced one there (``located_step``),
keeping ``step``, the first call that had one.

``steps`` (a Python list) holds the last ``history`` inspected calls, oldest first: ``{"step":
call number (1-based), "nodes": [per op output: name (the tensor), node (the graph node), op,
shape, dtype, size, sampled, min, max, mean, std, zeros, nan, inf, hist: {lo, hi, counts},
preview: [[...]] or None]}``. Synced traits: ``block`` (its name), ``steps_json`` (``steps`` as a
JSON string: one cheap sync per inspected call), ``calls`` (calls seen: synced at each inspected
call, at most twice a second while calls go on, after each notebook cell and by ``flush()``),
``inspected`` (calls inspected), ``first_nonfinite`` (``{step, node, tensor, op}`` of the first op
output that held a NaN or Inf, ``{}`` until one does, plus ``inspected``, ``detail`` and
``located_step`` when the call was not inspected; the dashboard highlights that node on the
graph), ``error``, ``status`` (``status_text()``). ``detach()`` removes the hooks and keeps the view; ``close()`` also closes it.

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.gluon import nn
    >>> from hybridlab.lab.inspector import TensorInspector
    >>> net = nn.HybridSequential(prefix='mlp_')
    >>> with net.name_scope():
    ...     net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
    >>> net.initialize()
    >>> net.hybridize()
    >>> ins = TensorInspector(net, every=1)
    >>> _ = net(mx.nd.ones((3, 5)))
    >>> [(n["node"], n["shape"]) for n in ins.steps[-1]["nodes"]]
    [('mlp_dense0_fwd', [3, 4]), ('mlp_dense0_relu_fwd', [3, 4]), ('mlp_dense1_fwd', [3, 2])]
    >>> ins.first_nonfinite
    {}
    >>> _ = net(mx.nd.array([[float('nan')] * 5] * 3))
    >>> ins.first_nonfinite["node"], ins.first_nonfinite["step"]
    ('mlp_dense0_fwd', 2)
    >>> ins
    <TensorInspector of block 'mlp': 2 of 2 calls inspected, first NaN/Inf at 'mlp_dense0_fwd' (call 2)>
    >>> ins.close()       # removes the op hook
"""
import html
import json
import math
import time
import weakref

import numpy as np
from traitlets import Dict, Int, Unicode, observe

from .graph_json import graph_json
from . import fallback
from .snapshot import SnapshotWidget
from .widgets import MODULE_NAME, MODULE_VERSION

__all__ = ["TensorInspector", "tensor_stats", "nonfinite_output"]


def _f(x):
    x = float(x)
    return x if math.isfinite(x) else None


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _preview(a, size, xp=np):
    """A ``<= size x size`` list-of-lists heatmap of a 2-D tensor, or of ``a[0, 0]`` for a 4-D one
    (NaN/Inf become None); None for other ranks."""
    if a.ndim == 4:
        a = a[0, 0]
    elif a.ndim != 2:
        return None
    r, c = a.shape
    if r == 0 or c == 0:
        return None
    a = np.round(np.asarray(_host(xp, a[::max(1, -(-r // size)), ::max(1, -(-c // size))]), dtype=np.float64), 5)
    ok = np.isfinite(a)
    if ok.all():
        return a.tolist()
    return [[float(v) if f else None for v, f in zip(row, okr)] for row, okr in zip(a.tolist(), ok.tolist())]


def tensor_stats(array, bins=16, sample=4096, preview=16):
    """Statistics of one tensor (an NDArray, a NumPy or CuPy array), as plain JSON.

    ``shape``, ``dtype``, ``size``, ``min``, ``max``, ``mean`` (exact), ``std``, ``zeros`` (share of
    zeros), ``nan``, ``inf`` (exact counts), ``hist`` (``{"lo", "hi", "counts"}`` over the finite
    values, ``bins`` bins), ``preview`` (``_preview``); ``min``/``max``/``std``/``zeros``/``hist``
    come from a strided sample of at most ``sample`` elements for larger tensors (``sampled``
    says so). Non-finite statistics are None.

    >>> s = tensor_stats(np.array([[0.0, 1.0], [2.0, np.nan]]), bins=2)
    >>> s["shape"], s["min"], s["max"], s["nan"], s["inf"], s["zeros"], s["hist"]["counts"]
    ([2, 2], 0.0, 2.0, 1, 0, 0.25, [1, 2])
    >>> s["preview"]
    [[0.0, 1.0], [2.0, None]]
    """
    data = getattr(array, "_data", array)
    xp = np
    if not isinstance(data, np.ndarray):
        module = type(data).__module__.split(".")[0]
        if module == "cupy":
            import cupy as xp  # noqa: F811 -- a GPU tensor: reduce on the device
        else:
            data = np.asarray(data)
    shape = [int(d) for d in data.shape]
    out = {"shape": shape, "dtype": str(data.dtype), "size": int(data.size), "sampled": False,
           "min": None, "max": None, "mean": None, "std": None, "zeros": 0.0, "nan": 0, "inf": 0,
           "hist": {"lo": None, "hi": None, "counts": []}, "preview": None}
    if data.size == 0:
        return out
    flat = data.reshape(-1)
    numeric = data.dtype.kind in "fc"
    total = float(xp.sum(flat, dtype=xp.float64)) if data.dtype.kind != "c" else float(xp.sum(xp.abs(flat)))
    if numeric and not math.isfinite(total):     # rare: count exactly on the whole tensor
        out["nan"] = int(xp.count_nonzero(xp.isnan(flat)))
        out["inf"] = int(xp.count_nonzero(xp.isinf(flat)))
    step = max(1, -(-flat.size // sample))
    out["sampled"] = step > 1
    s = np.asarray(_host(xp, flat[::step]), dtype=np.float64)
    if out["nan"] or out["inf"]:
        finite = s[np.isfinite(s)]
        out["mean"] = _f(total / flat.size) if not out["nan"] else None
    else:
        finite = s
        out["mean"] = _f(total / flat.size)
    out["zeros"] = float(np.count_nonzero(s == 0)) / s.size
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        out["min"], out["max"], out["std"] = _f(lo), _f(hi), _f(finite.std())
        width = (hi - lo) or 1.0
        idx = ((finite - lo) * (bins / width)).astype(np.int64)
        np.clip(idx, 0, bins - 1, out=idx)
        out["hist"] = {"lo": _f(lo), "hi": _f(hi), "counts": np.bincount(idx, minlength=bins).tolist()}
    if preview and data.ndim in (2, 4):
        sub = data[0, 0] if data.ndim == 4 else data
        out["preview"] = _preview(sub, preview, xp)
    return out


def _flat_outputs(out):
    if isinstance(out, (list, tuple)):
        for o in out:
            yield from _flat_outputs(o)
    elif out is not None:
        yield out


def nonfinite_output(out):
    """The index of the first output (flattened) of a block call holding a NaN or Inf, else None:
    a float64 sum per floating-point output, checked exactly only when the sum is not finite.

    >>> nonfinite_output([np.ones(3), np.array([1.0, np.inf])]), nonfinite_output(np.ones(2))
    (1, None)
    """
    for i, o in enumerate(_flat_outputs(out)):
        data = getattr(o, "_data", o)
        kind = getattr(getattr(data, "dtype", None), "kind", "")
        if kind not in "fc" or not getattr(data, "size", 0):
            continue
        xp = np
        if not isinstance(data, np.ndarray):
            if type(data).__module__.split(".")[0] == "cupy":
                import cupy as xp  # noqa: F811 -- check on the device
            else:
                data = np.asarray(data)
        total = xp.sum(xp.abs(data) if kind == "c" else data, dtype=xp.float64)
        if not math.isfinite(float(total)) and not bool(xp.isfinite(data).all()):
            return i
    return None


class _Sampler:
    """Decides which calls are inspected (see the module docstring)."""

    def __init__(self, every, budget):
        if every is not None and (not isinstance(every, int) or every < 1):
            raise ValueError(f"TensorInspector: every expected None (adaptive) or an int >= 1, got {every!r}")
        self.every, self.budget = every, float(budget)
        self.plain = None        # an uninspected call's time (exponential average), seconds
        self.spent = 0.0         # extra time spent on inspected calls
        self.earned = 0.0        # the block's own time over all calls (estimated)

    def done(self, calls, seconds, inspected):
        """Account for a finished call; returns whether the next call is inspected."""
        if inspected:
            base = self.plain if self.plain is not None else 0.0
            self.spent += max(0.0, seconds - base)
            self.earned += base
        else:
            self.plain = seconds if self.plain is None else 0.8 * self.plain + 0.2 * seconds
            self.earned += seconds
        if self.every is not None:
            return calls % self.every == 0
        if self.plain is None:
            return False
        return self.spent <= self.budget * self.earned


class TensorInspector(SnapshotWidget):
    """Per-op tensor statistics of ``block``'s calls (see the module docstring).

    ``TensorInspector(block, every=None, budget=0.25, history=10, bins=16, sample=4096,
    preview=16, monitor_all=False)``; ``reset()`` forgets the history, ``close()`` removes the hook.
    """

    _model_name = Unicode("TensorInspectorModel").tag(sync=True)
    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("TensorInspectorView").tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)

    block = Unicode("").tag(sync=True)
    steps_json = Unicode("[]").tag(sync=True)
    calls = Int(0).tag(sync=True)
    inspected = Int(0).tag(sync=True)
    first_nonfinite = Dict().tag(sync=True)
    error = Unicode("").tag(sync=True)
    status = Unicode("").tag(sync=True)     # ``status_text()``, kept up to date: the frontend shows it as is

    def __init__(self, block, every=None, budget=0.25, history=10, bins=16, sample=4096, preview=16,
                 monitor_all=False, **kwargs):
        if not hasattr(block, "register_op_hook") or not hasattr(block, "register_forward_hook"):
            raise TypeError(f"TensorInspector: expected a Gluon Block, got {type(block).__name__}")
        if not isinstance(history, int) or history < 1:
            raise ValueError(f"TensorInspector: history expected an int >= 1, got {history!r}")
        super().__init__(**kwargs)
        self.block = block.name
        self._block_ref = weakref.ref(block)
        self._sampler = _Sampler(every, budget)
        self._opts = {"bins": int(bins), "sample": int(sample), "preview": int(preview)}
        self._history, self._monitor_all = history, bool(monitor_all)
        self._names = {}          # tensor name -> graph node name
        self._names_for = -1      # the build count the names were read for
        self._current = None      # the records of the call in progress (None: not inspected)
        self._t0 = 0.0
        self._calls = 0           # calls seen (the synced ``calls`` follows at each inspected call)
        self.status = self.status_text()
        self.steps = []           # the history (Python side; synced as ``steps_json``)
        self._step_json = []      # each step's JSON, serialized once
        ref = weakref.ref(self)

        def pre(blk, args):
            me = ref()
            if me is not None:
                me._before_call()

        def post(blk, args, out):
            me = ref()
            if me is not None:
                me._after_call(out)

        def hook(name, op_name, arr):
            me = ref()
            if me is not None:
                me._keep_tensor(name, op_name, arr)

        self._hook = hook
        self._handles = [block.register_forward_pre_hook(pre), block.register_forward_hook(post)]
        self._heads = None        # per graph output: (node, tensor, op), read with the names
        self._synced_at = 0.0
        self._cell_hook = self._watch_cells(ref)
        self._arm(True)

    @staticmethod
    def _watch_cells(ref):
        """Sync ``calls`` after each notebook cell (IPython's ``post_run_cell``); None outside IPython."""
        try:
            from IPython import get_ipython
            shell = get_ipython()
        except ImportError:
            return None
        if shell is None or not hasattr(shell, "events"):
            return None

        def after_cell(*_):
            me = ref()
            if me is None:
                shell.events.unregister("post_run_cell", after_cell)
            elif me.calls != me._calls:
                me.calls = me._calls

        shell.events.register("post_run_cell", after_cell)
        return shell, after_cell

    # ---- the call cycle ------------------------------------------------------------------------
    def _arm(self, on):
        block = self._block_ref()
        if block is not None:
            block.register_op_hook(self._hook if on else None, self._monitor_all)
        self._armed = on

    def _before_call(self):
        self._current = [] if self._armed else None
        self._t0 = time.perf_counter()

    def _after_call(self, out=None):
        records, self._current = self._current, None
        inspected = records is not None
        self._calls += 1
        flagged = False
        if inspected:
            self._publish(records)
        elif not self.first_nonfinite:
            flagged = self._check_outputs(out)
        now = time.perf_counter()
        if not inspected and (flagged or now - self._synced_at > 0.5):
            self.calls, self._synced_at = self._calls, now
        seconds = now - self._t0
        nxt = self._sampler.done(self._calls, seconds, inspected) or flagged
        if nxt != self._armed:
            self._arm(nxt)

    def _check_outputs(self, out):
        """An uninspected call: flag it when an output holds a NaN/Inf (see the module docstring)."""
        try:
            with np.errstate(all="ignore"):
                i = nonfinite_output(out)
        except Exception:  # noqa: BLE001 -- the check is a courtesy: the user's call goes on
            return False
        if i is None:
            return False
        self._node_of("")          # reads the graph's names and heads when the block rebuilt
        heads = self._heads or []
        block = self._block_ref()
        name = block.name if block is not None else self.block
        node, tensor, op = heads[i] if i < len(heads) else (name, f"{name}_output{i}", "")
        self.first_nonfinite = {
            "step": self._calls, "node": node, "tensor": tensor, "op": op, "inspected": False,
            "detail": f"call {self._calls} was not inspected: its output {tensor} held a NaN/Inf; "
                      f"the next call is inspected in full to find the op that produced it"}
        return True

    def _node_of(self, tensor):
        node = self._names.get(tensor)
        if node is not None:
            return node
        block = self._block_ref()
        builds = len(getattr(block, "rebuild_history", None) or [])
        if block is not None and builds != self._names_for and getattr(block, "hybridization", None) is not None \
                and block.hybridization.graph is not None:
            self._names_for = builds
            g = graph_json(block)
            for n in g["nodes"]:
                for o in n["outputs"]:
                    self._names[o["name"]] = n["name"]
            self._heads = [(g["nodes"][k]["name"], g["nodes"][k]["outputs"][j]["name"], g["nodes"][k]["op"])
                           for k, j in g["heads"]]
        node = self._names.get(tensor)
        if node is None:       # an imperative call, or a name the graph does not list
            node = tensor.rsplit("_", 1)[0] if "_" in tensor else tensor
            self._names[tensor] = node
        return node

    def _keep_tensor(self, name, op_name, arr):
        if self._current is None:      # this call is not inspected
            return
        try:
            with np.errstate(all="ignore"):     # NaN/Inf are what is being looked for: no warnings
                stats = tensor_stats(arr, **self._opts)
        except Exception as err:  # noqa: BLE001 -- shown in the widget, the user's call goes on
            self.error = f"statistics of '{name}' failed: {type(err).__name__}: {err}"
            return
        stats.update(name=str(name), node=self._node_of(str(name)), op=str(op_name))
        self._current.append(stats)

    def _publish(self, records):
        step = {"step": self._calls, "nodes": records}
        self.steps = (self.steps + [step])[-self._history:]
        self._step_json = (self._step_json + [json.dumps(step, allow_nan=False)])[-self._history:]
        with self.hold_sync():
            self.calls = self._calls
            self.inspected += 1
            self.steps_json = "[" + ",".join(self._step_json) + "]"
            flag = self.first_nonfinite
            if not flag or (flag.get("inspected") is False and "located_step" not in flag):
                for r in records:
                    if r["nan"] or r["inf"]:
                        if not flag:
                            self.first_nonfinite = {"step": self._calls, "node": r["node"], "tensor": r["name"],
                                                    "op": r["op"]}
                        else:      # the first NaN/Inf call was not inspected: this one locates it
                            self.first_nonfinite = {
                                **flag, "node": r["node"], "tensor": r["name"], "op": r["op"],
                                "located_step": self._calls,
                                "detail": f"call {flag['step']} was not inspected: its output {flag['tensor']} "
                                          f"held a NaN/Inf; call {self._calls}, inspected, first shows one at "
                                          f"node {r['node']} ({r['op']})"}
                        break

    def flush(self):
        """Sync ``calls`` now (it otherwise follows at inspected calls, twice a second and after each cell)."""
        self.calls = self._calls

    # ---- public --------------------------------------------------------------------------------
    def reset(self):
        """Forget the history and the flagged node; the next call is inspected."""
        with self.hold_sync():
            self.steps, self._step_json, self.steps_json, self.first_nonfinite, self.error = [], [], "[]", {}, ""
            self.calls = self.inspected = self._calls = 0
        self._sampler = _Sampler(self._sampler.every, self._sampler.budget)
        self._arm(True)

    def detach(self):
        """Remove the op hook and the forward hooks: the block runs as before, the view stays on
        screen with the statistics it has (``calls`` synced a last time)."""
        for h in getattr(self, "_handles", []):
            h.detach()
        self._handles = []
        hook = getattr(self, "_cell_hook", None)
        if hook is not None:
            shell, fn = hook
            try:
                shell.events.unregister("post_run_cell", fn)
            except ValueError:
                pass
            self._cell_hook = None
        block = self._block_ref() if hasattr(self, "_block_ref") else None
        if block is not None and block.op_hook is getattr(self, "_hook", None):   # ours, not a user's since
            block.register_op_hook(None)
        self._armed = False
        if hasattr(self, "_calls") and self.comm is not None:
            self.calls = self._calls

    def close(self):
        """Remove the op hook and the forward hooks, and close the widget (its view disappears)."""
        self.detach()
        super().close()

    @observe("calls", "inspected", "first_nonfinite", "error")
    def _update_status(self, _change):
        self.status = self.status_text()

    def status_text(self):
        """``mlp_: 2 of 7 calls inspected`` (and the first NaN/Inf when one was seen); synced as
        ``status``."""
        if self.error:
            return f"{self.block}: inspector error: {self.error}"
        text = f"{self.block}: {self.inspected} of {self._calls} call{'' if self._calls == 1 else 's'} inspected"
        flag = self.first_nonfinite
        if flag:
            text += (f"; first NaN/Inf: node {flag['node']} ({flag['op'] or 'output'}), output {flag['tensor']}, "
                     f"call {flag['step']}")
        return text

    def _static(self):
        parts = []
        if self.first_nonfinite.get("detail"):
            parts.append(f"<p>{html.escape(self.first_nonfinite['detail'])}</p>")
        if self.steps:
            step = self.steps[-1]
            parts.append(f"<p>call {step['step']} (the last inspected):</p>")
            parts.append(fallback.table(
                ["node", "op", "shape", "dtype", "min", "max", "mean", "std", "zeros", "NaN", "Inf"],
                [[t["node"], t["op"], str(tuple(t["shape"])), t["dtype"], t["min"], t["max"], t["mean"], t["std"],
                  f"{100 * t['zeros']:.1f}%", t["nan"], t["inf"]] for t in step["nodes"]]))
        return fallback.box("inspector", self.status_text(), *parts), {}

    def __repr__(self):
        flag = self.first_nonfinite
        bad = f", first NaN/Inf at {flag['node']!r} (call {flag['step']})" if flag else ""
        n = self._calls
        return f"<TensorInspector of block {self.block!r}: {self.inspected} of {n} call{'' if n == 1 else 's'} " \
               f"inspected{bad}>"
