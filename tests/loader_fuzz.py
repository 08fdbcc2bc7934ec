"""Loader fuzzing: mutated real MXNet files fed to every loader of hybridlab.

Model files are untrusted, so a loader may only answer ``MXNetError`` (or a subclass), within bounded
time and memory, whatever the bytes. This module holds the pieces both drivers share:

* ``LOADERS``: name -> ``Loader``; each knows its seed files (real MXNet 1.9.1 exports from
  ``tests/data/mxnet``, or files hybridlab writes at run time) and how to load a case from a folder.
* the mutators of ``fuzz_mutators`` (bytes, ``.params`` records, JSON structure).
* ``run_case(loader, rng, tmpdir)``: one mutated case -> ``Outcome`` (ok | refused | crash | hang),
  with its time and peak traced allocation.

``tests/test_loader_fuzz.py`` drives it with hypothesis (bounded for CI); ``tools/fuzz_loaders.py``
runs thousands of cases per loader and prints figures.
"""
import json
import os
import random
import signal
import struct
import time
import tracemalloc

import numpy as np

import hybridlab as mx
from hybridlab.base import MXNetError

from fuzz_mutators import mutate_json, mutate_params

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mxnet")
TIME_LIMIT_S = 5.0          # a case using more CPU seconds than this is a hang (CPU time, not wall time:
                            # a busy machine must not turn a slow-but-bounded case into a failure)
MEMORY_FACTOR = 64          # peak traced allocation allowed per byte of the case's files
MEMORY_FLOOR = 8 << 20      # plus this much (imports, caches and fixed costs of a first call)

# ---- outcomes ------------------------------------------------------------------------------------
class Outcome:
    """What one case did: ``kind`` is ok (loaded), refused (MXNetError), crash (any other exception)
    or hang (over ``TIME_LIMIT_S`` of CPU time); ``seconds``, ``peak`` (bytes of traced allocation), ``size``
    (bytes of the case's files) and, for a crash, the exception."""

    def __init__(self, kind, seconds, peak, size, error=None, label=""):
        self.kind, self.seconds, self.peak, self.size, self.error, self.label = \
            kind, seconds, peak, size, error, label

    @property
    def memory_limit(self):
        return MEMORY_FACTOR * self.size + MEMORY_FLOOR

    @property
    def bad(self):
        """Why this case is a failure of the loader, or ``""``."""
        if self.kind == "crash":
            return f"{type(self.error).__name__}: {str(self.error)[:300]}"
        if self.kind == "hang":
            return f"over {TIME_LIMIT_S} s of CPU time"
        if self.peak > self.memory_limit:
            return f"allocated {self.peak} bytes for {self.size} bytes of files (limit {self.memory_limit})"
        return ""

    def __repr__(self):
        return f"<Outcome {self.kind} {self.label} {self.seconds:.3f}s peak={self.peak} size={self.size}>"


class _Hang(BaseException):
    """Raised by the alarm in a case that runs too long (a BaseException: loaders must not catch it)."""


def _alarm(signum, frame):
    raise _Hang()


# ---- seeds ---------------------------------------------------------------------------------------
def _read(name, mode="rb"):
    with open(os.path.join(DATA, name), mode) as f:
        return f.read()


def fixture_models():
    """(name, input names, input files) of the real MXNet 1.9.1 exports in tests/data/mxnet."""
    out = []
    for fname in sorted(os.listdir(DATA)):
        if fname.endswith("-meta.json"):
            meta = json.loads(_read(fname, "r"))
            if os.path.exists(os.path.join(DATA, meta.get("params_file", ""))):
                out.append((meta["name"], [i["name"] for i in meta["inputs"]], [i["file"] for i in meta["inputs"]]))
    return out


def sparse_seeds():
    """Small .params files with row_sparse and csr records (MXNet can write them; hybridlab densifies)."""
    def record(stype, sshape, shape, values, aux):
        r = struct.pack("<Ii", 0xF993FAC9, stype)
        r += struct.pack(f"<i{len(sshape)}q", len(sshape), *sshape)
        r += struct.pack(f"<i{len(shape)}q", len(shape), *shape)
        r += struct.pack("<iii", 1, 0, 0)
        for a in aux:
            r += struct.pack(f"<ii{a.ndim}q", 6, a.ndim, *a.shape)
        r += values.astype("<f4").tobytes()
        for a in aux:
            r += a.astype("<i8").tobytes()
        return r
    rsp = record(1, (2, 3), (5, 3), np.arange(6, dtype=np.float32), [np.array([1, 3])])
    csr = record(2, (3,), (2, 4), np.array([1, 2, 3], np.float32), [np.array([0, 1, 3]), np.array([2, 0, 3])])
    head = struct.pack("<QQQ", 0x112, 0, 2)
    names = struct.pack("<Q", 2) + struct.pack("<Q", 3) + b"rsp" + struct.pack("<Q", 3) + b"csr"
    return [head + rsp + csr + names]


# ---- loaders -------------------------------------------------------------------------------------
class Loader:
    """One loader under fuzz: ``files(tmpdir)`` -> {file name: seed bytes} (a case mutates one of
    them), ``load(folder)`` loads the case from ``folder`` (and uses what it loaded)."""

    def __init__(self, name, files, load):
        self.name, self._files, self.load = name, files, load
        self._seed_cache = None

    def seeds(self, tmpdir):
        if self._seed_cache is None:
            self._seed_cache = self._files(tmpdir)
        return self._seed_cache


def _params_seeds(tmpdir):
    small = [f for f in sorted(os.listdir(DATA)) if f.endswith(".params") and os.path.getsize(os.path.join(DATA, f)) < 200_000]
    return [{"w.params": _read(f)} for f in small] + [{"w.params": b} for b in sparse_seeds()]


def _json_seeds(tmpdir):
    return [{"m-symbol.json": _read(f)} for f in sorted(os.listdir(DATA)) if f.endswith("-symbol.json")]


def _use(value):
    """Touch what a loader returned, as a user would (shapes, values)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
    for v in items:
        if v is not None and hasattr(v, "asnumpy"):
            v.asnumpy()


def _load_nd(folder):
    _use(mx.nd.load(os.path.join(folder, "w.params")))


def _load_frombuffer(folder):
    with open(os.path.join(folder, "w.params"), "rb") as f:
        _use(mx.nd.load_frombuffer(f.read()))


def _load_npx(folder):
    _use(mx.npx.load(os.path.join(folder, "w.params")))


def _load_init(folder):
    init = mx.init.Load(os.path.join(folder, "w.params"), default_init=mx.init.Zero())
    for name, arr in list(init.param.items())[:4]:
        if arr is not None:
            init(name, mx.nd.zeros(arr.shape, dtype=arr.dtype))


def _load_sym(folder):
    s = mx.sym.load(os.path.join(folder, "m-symbol.json"))
    s.list_arguments()
    s.tojson()


def _load_fromjson(folder):
    with open(os.path.join(folder, "m-symbol.json"), "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw            # bytes that are not UTF-8: fromjson must refuse them itself
    s = mx.sym.fromjson(text)
    mx.sym.fromjson(s.tojson())    # hybridlab reads what it writes


def _model_files(tmpdir):
    out = []
    for name, inputs, _ in fixture_models():
        if os.path.getsize(os.path.join(DATA, f"{name}-0000.params")) < 200_000:
            out.append({"m-symbol.json": _read(f"{name}-symbol.json"), "m-0000.params": _read(f"{name}-0000.params"),
                        "inputs.json": json.dumps([inputs, name]).encode()})
    return out


def _load_imports(folder):
    with open(os.path.join(folder, "inputs.json")) as f:
        inputs, name = json.load(f)
    net = mx.gluon.SymbolBlock.imports(os.path.join(folder, "m-symbol.json"), inputs,
                                       os.path.join(folder, "m-0000.params"))
    xs = [mx.nd.array(np.load(os.path.join(DATA, i["file"]))) for i in
          json.loads(_read(f"{name}-meta.json", "r"))["inputs"]]
    net.hybridize()
    with mx.autograd.record():
        out = net(*xs)
    out = out if isinstance(out, (list, tuple)) else [out]
    out[0].backward()


def _load_module(folder):
    with open(os.path.join(folder, "inputs.json")) as f:
        inputs, name = json.load(f)
    sym, arg, aux = mx.model.load_checkpoint(os.path.join(folder, "m"), 0)
    sym.infer_shape_partial()
    mod = mx.mod.Module.load(os.path.join(folder, "m"), 0, data_names=inputs, label_names=None)
    del mod, arg, aux


def _gluon_files(tmpdir):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, in_channels=1), mx.gluon.nn.BatchNorm(in_channels=4),
            mx.gluon.nn.Dense(3, in_units=4 * 6 * 6))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(mx.nd.ones((2, 1, 8, 8)))
    prefix = os.path.join(tmpdir, "seed")
    net.save(prefix)
    net.save_parameters(prefix + ".params")
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    with mx.autograd.record():
        loss = net(mx.nd.ones((2, 1, 8, 8))).sum()
    loss.backward()
    trainer.step(2)
    trainer.save_states(prefix + ".states")
    files = {}
    for ext in ("-model.json", "-model.params", ".params", ".states"):
        with open(prefix + ext, "rb") as f:
            files["m" + ext] = f.read()
    return [files]


def _gluon_net():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, in_channels=1), mx.gluon.nn.BatchNorm(in_channels=4),
            mx.gluon.nn.Dense(3, in_units=4 * 6 * 6))
    net.initialize(mx.init.Xavier())
    return net


def _load_block(folder):
    net = _gluon_net()
    net.load(os.path.join(folder, "m"))
    net(mx.nd.ones((2, 1, 8, 8))).asnumpy()


def _load_parameters(folder):
    net = _gluon_net()
    net.load_parameters(os.path.join(folder, "m.params"))
    net(mx.nd.ones((2, 1, 8, 8))).asnumpy()


def _load_states(folder):
    net = _gluon_net()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    trainer.load_states(os.path.join(folder, "m.states"))
    with mx.autograd.record():
        loss = net(mx.nd.ones((2, 1, 8, 8))).sum()
    loss.backward()
    trainer.step(2)


def _only(names):
    """A seed function keeping only the files a loader reads."""
    def seeds(tmpdir):
        return [{k: v for k, v in s.items() if k in names} for s in _gluon_files(tmpdir)]
    return seeds


RECORDIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "recordio")


def _recordio_seeds(tmpdir):
    """The RecordIO files real MXNet 1.9.1 wrote (tests/data/recordio), with their index files."""
    def read(name):
        with open(os.path.join(RECORDIO, name), "rb") as f:
            return f.read()
    return [{"a.rec": read(f"{stem}.rec"), "a.idx": read(f"{stem}.idx")} for stem in ("images", "grey")] + \
        [{"a.rec": read("parts.rec"), "a.idx": b"0\t0\n"}]


def _load_recordio(folder):
    r = mx.recordio.MXRecordIO(os.path.join(folder, "a.rec"), "r")
    while True:
        s = r.read()
        if s is None:
            break
        if len(s) >= 24:
            mx.recordio.unpack(s)


def _load_indexed_recordio(folder):
    r = mx.recordio.MXIndexedRecordIO(os.path.join(folder, "a.idx"), os.path.join(folder, "a.rec"), "r")
    for k in r.keys:
        r.read_idx(k)


def _load_image_record_iter(folder):
    it = mx.io.ImageRecordIter(path_imgrec=os.path.join(folder, "a.rec"), path_imgidx=os.path.join(folder, "a.idx"),
                               data_shape=(3, 4, 4), batch_size=2)
    for batch in it:
        batch.data[0].asnumpy()


LOADERS = {
    "nd.load": Loader("nd.load", _params_seeds, _load_nd),
    "nd.load_frombuffer": Loader("nd.load_frombuffer", _params_seeds, _load_frombuffer),
    "npx.load": Loader("npx.load", _params_seeds, _load_npx),
    "init.Load": Loader("init.Load", _params_seeds, _load_init),
    "sym.load": Loader("sym.load", _json_seeds, _load_sym),
    "sym.fromjson": Loader("sym.fromjson", _json_seeds, _load_fromjson),
    "SymbolBlock.imports": Loader("SymbolBlock.imports", _model_files, _load_imports),
    "Module.load": Loader("Module.load", _model_files, _load_module),
    "Block.load": Loader("Block.load", _only({"m-model.json", "m-model.params"}), _load_block),
    "load_parameters": Loader("load_parameters", _only({"m.params"}), _load_parameters),
    "Trainer.load_states": Loader("Trainer.load_states", _only({"m.states"}), _load_states),
    "recordio.MXRecordIO": Loader("recordio.MXRecordIO", _recordio_seeds, _load_recordio),
    "recordio.MXIndexedRecordIO": Loader("recordio.MXIndexedRecordIO", _recordio_seeds, _load_indexed_recordio),
    "ImageRecordIter": Loader("ImageRecordIter", _recordio_seeds, _load_image_record_iter),
}


# ---- one case ------------------------------------------------------------------------------------
def make_case(loader, rng, tmpdir):
    """Write one mutated case of ``loader`` into a fresh folder under ``tmpdir``: returns
    (folder, total bytes, label naming the seed and mutated file)."""
    seeds = loader.seeds(tmpdir)
    k = rng.randrange(len(seeds))
    files = dict(seeds[k])
    target = rng.choice([f for f in files if f != "inputs.json"])
    blob = files[target]
    files[target] = mutate_json(rng, blob.decode("utf-8")) if target.endswith(".json") else mutate_params(rng, blob)
    folder = os.path.join(tmpdir, f"case{rng.randrange(2 ** 62)}")
    os.makedirs(folder)
    size = 0
    for name, data in files.items():
        data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        size += len(data)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return folder, size, f"seed {k}, {target}"


def run_case(loader, rng, tmpdir, time_limit=TIME_LIMIT_S):
    """Run one mutated case: ``Outcome`` with what happened, its time and its peak allocation."""
    folder, size, label = make_case(loader, rng, tmpdir)
    old = signal.signal(signal.SIGPROF, _alarm)
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    kind, error = "ok", None
    try:
        signal.setitimer(signal.ITIMER_PROF, time_limit)
        try:
            loader.load(folder)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _Hang:
        kind = "hang"
    except MXNetError:
        kind = "refused"
    except Exception as err:   # noqa: BLE001 - exactly what the fuzz looks for
        kind, error = "crash", err
    finally:
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.signal(signal.SIGPROF, old)
        _remove_tree(folder)
    return Outcome(kind, seconds, peak, size, error, f"{loader.name}: {label}")


def _remove_tree(folder):
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


def rng_for(seed):
    return random.Random(seed)
