"""The export round trip, checked: does what ``export`` writes load back as the same model?

``check_export(block, *inputs)`` hybridizes ``block`` (on a trial state: the block is left as it
was), runs it on ``inputs``, exports it to a temporary folder (or checks the given ``files``:
``(symbol file, params file)`` written earlier), loads the files with ``SymbolBlock.imports`` and
compares, each as a list of ``Mismatch``es in an ``ExportReport``:

* ``inputs`` / ``outputs``: the graph's data input names and output names;
* ``parameters``: every parameter of the block is in the ``.params`` file under its graph name
  (``arg:``/``aux:`` as MXNet keys them), with its shape and dtype, and nothing else is;
* ``graph``: the loaded graph has the block's nodes, ops, attributes and edges, in order;
* ``values``: the loaded model's outputs equal the block's on ``inputs``.

With ``mxnet_python`` (default ``$HYBRIDLAB_MXNET_PYTHON``: a Python with real MXNet 1.9.1), the
files are also loaded by real MXNet in a subprocess, which reports its argument, auxiliary and
output names and its outputs for ``inputs``; those are compared too (``mxnet``). ``mxnet_python=""``
checks the hybridlab round trip alone.

Example::

    >>> import hybridlab as mx
    >>> net = mx.gluon.nn.HybridSequential()
    >>> net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Dense(2))
    >>> net.initialize()
    >>> report = check_export(net, mx.nd.ones((3, 5)), mxnet_python="")
    >>> report.ok, [len(getattr(report, k)) for k in ("inputs", "outputs", "parameters", "graph", "values")]
    (True, [0, 0, 0, 0, 0])
    >>> print(report)                                        # doctest: +ELLIPSIS
    export round trip of ...: everything matches (inputs, outputs, parameters, graph, values)
"""
import json
import os
import subprocess
import tempfile

import numpy as np

from .. import ndarray
from ..base import MXNetError
from ..symbol.graph_diff import GraphDiff
from .hybridization import trial
from .symbol_block import SymbolBlock
from .utils import flatten

__all__ = ["check_export", "ExportReport", "Mismatch"]

_PARTS = ("inputs", "outputs", "parameters", "graph", "values", "mxnet")


class Mismatch:
    """One difference: which ``part`` (``"parameters"``...), the ``name`` it is about, and ``what``
    was wrong (expected vs got)."""

    __slots__ = ("part", "name", "what")

    def __init__(self, part, name, what):
        self.part, self.name, self.what = part, name, what

    def __str__(self):
        return f"{self.part}: {self.name}: {self.what}"

    __repr__ = __str__


class ExportReport:
    """What ``check_export`` found: a list of ``Mismatch`` per part (see the module docstring);
    ``files``: the symbol and params files checked; ``mxnet_checked``: whether real MXNet loaded them;
    ``symbol``: the block's traced Symbol (what was exported; ``graph`` is the graph part's mismatches)."""

    def __init__(self, block_name, files, mismatches, mxnet_checked, symbol=None):
        self.block_name, self.files, self.mxnet_checked, self.symbol = block_name, files, mxnet_checked, symbol
        for part in _PARTS:
            setattr(self, part, [m for m in mismatches if m.part == part])

    @property
    def mismatches(self):
        return [m for part in _PARTS for m in getattr(self, part)]

    @property
    def ok(self):
        return not self.mismatches

    def __str__(self):
        parts = ", ".join(_PARTS[:5] + (("real MXNet 1.9.1",) if self.mxnet_checked else ()))
        head = f"export round trip of '{self.block_name}': "
        if self.ok:
            return head + f"everything matches ({parts})"
        return head + f"{len(self.mismatches)} mismatch(es)\n" + "\n".join(f"  {m}" for m in self.mismatches)

    def __repr__(self):
        return f"<ExportReport {self.block_name}: {'ok' if self.ok else f'{len(self.mismatches)} mismatch(es)'}>"


def check_export(block, *inputs, files=None, epoch=0, mxnet_python=None, rtol=1e-5, atol=1e-6):
    """Export ``block`` (or take ``files``), load it back and compare; returns an ``ExportReport``
    (see the module docstring)."""
    if not inputs:
        raise MXNetError("check_export: expected at least one input array (the export is traced from a call)")
    mxnet_python = mxnet_python if mxnet_python is not None else os.environ.get("HYBRIDLAB_MXNET_PYTHON")
    with tempfile.TemporaryDirectory(prefix="hybridlab-export-") as tmp, trial(block, block.name):
        block.hybridize()
        expected = [o.asnumpy() for o in flatten(block(*inputs), "output")[0]]
        state = block.hybridization
        data_names = [v.name for v in state.inputs]
        graph = state.graph
        params = {p.var().name: p for p in block.collect_params().values()}
        sym_file, params_file = files if files is not None else block.export(os.path.join(tmp, "model"), epoch)
        found = []
        try:
            loaded = SymbolBlock.imports(sym_file, data_names, params_file, allow_missing=True, ignore_extra=True)
        except MXNetError as err:
            return ExportReport(block.name, (sym_file, params_file), [Mismatch("graph", sym_file, str(err))], False,
                                graph)
        loaded_graph = loaded.hybridization.graph
        found += _names("inputs", data_names, [v.name for v in loaded.hybridization.inputs])
        found += _names("outputs", graph.list_outputs(), loaded_graph.list_outputs())
        found += _parameters(graph, params, params_file)
        found += _graph(graph, loaded_graph)
        if not found:
            got = [o.asnumpy() for o in flatten(loaded(*inputs), "output")[0]]
            found += _values(expected, got, rtol, atol)
        checked = False
        if mxnet_python:
            found += _real_mxnet(mxnet_python, sym_file, params_file, data_names, inputs, graph, expected, rtol,
                                 atol, tmp)
            checked = True
    return ExportReport(block.name, (sym_file, params_file), found, checked, graph)


def _names(part, expected, got):
    if list(expected) == list(got):
        return []
    return [Mismatch(part, ", ".join(map(str, got)) or "(none)", f"expected {list(expected)}, got {list(got)}")]


def _parameters(graph, params, params_file):
    """Every graph parameter under its key with the block's shape and dtype; nothing extra."""
    saved = ndarray.load(params_file)
    if not isinstance(saved, dict):
        return [Mismatch("parameters", params_file, f"expected a dict of named arrays, got a {type(saved).__name__}")]
    out = []
    keys = {f"arg:{n}" for n in graph.list_arguments()} | {f"aux:{n}" for n in graph.list_auxiliary_states()}
    for key in sorted(keys):
        name = key[4:]
        p = params.get(name)
        if p is None:              # a data input
            continue
        arr = saved.get(key)
        if arr is None:
            near = [k for k in saved if k[4:] not in params]
            out.append(Mismatch("parameters", name, f"expected key '{key}' in {os.path.basename(params_file)}, "
                                                    f"missing" + (f" (the file has {near})" if near else "")))
            continue
        if tuple(arr.shape) != tuple(p.shape):
            out.append(Mismatch("parameters", name, f"expected shape {tuple(p.shape)}, got {tuple(arr.shape)}"))
        if np.dtype(arr.dtype) != np.dtype(p.dtype):
            out.append(Mismatch("parameters", name, f"expected dtype {np.dtype(p.dtype).name}, got "
                                                    f"{np.dtype(arr.dtype).name}"))
        elif tuple(arr.shape) == tuple(p.shape) and not np.array_equal(arr.asnumpy(), p.data().asnumpy()):
            out.append(Mismatch("parameters", name, "expected the block's values, got different ones"))
    for key in sorted(set(saved) - keys):
        out.append(Mismatch("parameters", key, "expected no such key (not a variable of the graph), got one"))
    return out


def _graph(expected, got):
    """Node by node (``symbol.graph_diff``): nodes missing or extra, op, inputs and attributes
    (a variable's ``__shape__``/``__dtype__`` left out: the loader writes them)."""
    diff = GraphDiff(expected, got, skip_dunder=True)
    out = [Mismatch("graph", n, f"expected node '{n}', missing") for n in diff.removed]
    out += [Mismatch("graph", n, f"expected no node '{n}', got one") for n in diff.added]
    for name, c in diff.changes.items():
        if "op" in c:
            out.append(Mismatch("graph", name, f"expected op {c['op'][0]}, got {c['op'][1]}"))
        if "inputs" in c:
            out.append(Mismatch("graph", name, f"expected inputs {c['inputs'][0]}, got {c['inputs'][1]}"))
        if "attrs" in c:
            attrs = c["attrs"]
            out.append(Mismatch("graph", name, "expected attributes " + ", ".join(
                f"{k}={x!r}" for k, (x, _) in attrs.items()) + ", got " + ", ".join(
                f"{k}={y!r}" for k, (_, y) in attrs.items())))
    return out


def _values(expected, got, rtol, atol, part="values"):
    if len(expected) != len(got):
        return [Mismatch(part, "outputs", f"expected {len(expected)} outputs, got {len(got)}")]
    out = []
    for k, (e, g) in enumerate(zip(expected, got)):
        if e.shape != g.shape:
            out.append(Mismatch(part, f"output {k}", f"expected shape {e.shape}, got {g.shape}"))
        elif not np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
            out.append(Mismatch(part, f"output {k}", f"expected the block's values, got max abs difference "
                                                     f"{float(np.nanmax(np.abs(g - e))):.3g}"))
    return out


_MXNET_SCRIPT = r"""
import json, sys, numpy as np, mxnet as mx
sym_file, params_file, names, x_files, out_dir = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
array = mx.nd.array
try:
    net = mx.gluon.SymbolBlock.imports(sym_file, names, params_file, ctx=mx.cpu())
except mx.MXNetError as err:   # saved in np mode (npx.set_np()): MXNet loads it only in np mode
    if "np shape semantics" not in str(err):
        raise
    mx.npx.set_np()
    array = mx.np.array
    net = mx.gluon.SymbolBlock.imports(sym_file, names, params_file, ctx=mx.cpu())
outs = net(*[array(np.load(f)) for f in x_files])
outs = outs if isinstance(outs, (list, tuple)) else [outs]
files = []
for k, o in enumerate(outs):
    files.append(f"{out_dir}/mx_out{k}.npy"); np.save(files[-1], o.asnumpy())
sym = mx.sym.load(sym_file)
print(json.dumps({"version": mx.__version__, "arguments": sym.list_arguments(),
                  "aux": sym.list_auxiliary_states(), "outputs": sym.list_outputs(), "files": files}))
"""


def _real_mxnet(python, sym_file, params_file, names, inputs, graph, expected, rtol, atol, tmp):
    x_files = []
    for k, x in enumerate(flatten(inputs, "input")[0]):
        x_files.append(os.path.join(tmp, f"x{k}.npy"))
        np.save(x_files[-1], x.asnumpy())
    try:
        run = subprocess.run([python, "-c", _MXNET_SCRIPT, sym_file, params_file, json.dumps(names),
                              json.dumps(x_files), tmp], capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return [Mismatch("mxnet", python, f"expected real MXNet to run, got {type(err).__name__}: {err}")]
    if run.returncode != 0:
        return [Mismatch("mxnet", "imports", f"expected real MXNet to load the files, got: "
                                             f"{run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    found = _names("mxnet", graph.list_arguments(), got["arguments"])
    found += _names("mxnet", graph.list_auxiliary_states(), got["aux"])
    found += _names("mxnet", graph.list_outputs(), got["outputs"])
    found += _values(expected, [np.load(f) for f in got["files"]], max(rtol, 1e-4), max(atol, 1e-5), part="mxnet")
    return found
