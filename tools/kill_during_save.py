"""Kill saves with SIGKILL at random moments and check that nothing is lost (POSIX only).

For each kind of save (``save_parameters``, ``export``, ``nd.save``, ``save_checkpoint``) a worker
process builds a model of about ``--size-mb`` MB (a gluon net of square Dense layers and a
BatchNorm, or the same arrays as ``nd.save``'s dict / a checkpoint's arg/aux params), saves it
once, then, ``--kills`` times, forks a saver that saves in a loop (all arrays 1.0, then all 2.0,
...) and is SIGKILL-ed after a random delay. After each kill every target must load with
consistent content (all arrays of a file hold one value, 1 or 2: the old or the new save, never a
mix or a truncated file), and each target may have at most one temporary file left (the killed
save's own; older ones must have been cleaned by later saves). After the kills the worker saves
once more, and the folder must then hold the targets only.

Usage::

    python tools/kill_during_save.py --kills 50 --size-mb 200      # long run, several minutes
    python tools/kill_during_save.py --kills 5 --size-mb 4 --kinds nd.save export
    python tools/kill_during_save.py --dir /mnt/nfs/scratch          # test another filesystem

Prints per kind: kills, loadable (kills after which every target loaded with old or new content),
mid-write (kills that left a new temporary file, i.e. landed inside a save), max temps per target
after a kill (1 = older leftovers were cleaned), leftovers after the next save, temp bytes (the size
of the killed saves' temporary files, all removed by later saves), targets (their size) and how
many loads saw all-1.0 / all-2.0 content (savers alternate the two, so either is a complete save).
Exits 1 if a check failed. ``tests/test_atomic_save.py`` runs the same harness with a small model.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

try:
    import hybridlab as mx
except ImportError:      # run from a checkout without the package installed
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib"))
    import hybridlab as mx
import numpy as np

from hybridlab.fileio import stale_temp_files

KINDS = ("save_parameters", "export", "nd.save", "save_checkpoint")
LAYERS = 4


def width_for(size_mb):
    """Width of the square Dense layers so that ``LAYERS`` of them hold about ``size_mb`` MB."""
    return max(8, int((size_mb * 1e6 / (4 * LAYERS)) ** 0.5))


def targets(kind, folder):
    """The files a save of ``kind`` writes in ``folder``."""
    base = os.path.join(folder, "model")
    if kind == "save_parameters":
        return [base + ".params"]
    if kind == "nd.save":
        return [base + ".nd"]
    return [base + "-symbol.json", base + "-0000.params"]


def build_net(width):
    from hybridlab.gluon import nn
    net = nn.HybridSequential()
    for _ in range(LAYERS):
        net.add(nn.Dense(width, in_units=width))
    net.add(nn.BatchNorm(in_channels=width))
    net.initialize(mx.init.Zero())
    net.hybridize()
    net(mx.nd.zeros((1, width)))        # export needs the cached graph
    return net


def _checkpoint_symbol(width):
    x = mx.sym.var("data")
    for i in range(LAYERS):
        x = mx.sym.FullyConnected(x, num_hidden=width, name=f"fc{i}")
    return mx.sym.BatchNorm(x, name="bn")


class Model:
    """What a worker saves: one set of arrays, seen through each kind's API."""

    def __init__(self, kind, size_mb):
        self.kind, self.width = kind, width_for(size_mb)
        self.net = build_net(self.width)
        self.params = list(self.net.collect_params().values())
        self.arrays = [p.data() for p in self.params]
        names = [f"fc{i}_{w}" for i in range(LAYERS) for w in ("weight", "bias")]
        self.arg = dict(zip(names + ["bn_gamma", "bn_beta"], self.arrays))
        self.aux = dict(zip(["bn_moving_mean", "bn_moving_var"], self.arrays[-2:]))
        self.sym = _checkpoint_symbol(self.width)

    def fill(self, value):
        for a in self.arrays:
            a[:] = value

    def save(self, folder):
        files = targets(self.kind, folder)
        if self.kind == "save_parameters":
            self.net.save_parameters(files[0])
        elif self.kind == "nd.save":
            mx.nd.save(files[0], {f"a{i}": a for i, a in enumerate(self.arrays)})
        elif self.kind == "export":
            self.net.export(os.path.join(folder, "model"), epoch=0)
        else:
            mx.model.save_checkpoint(os.path.join(folder, "model"), 0, self.sym, self.arg, self.aux)


def worker(kind, folder, size_mb):
    """The worker protocol (stdin/stdout lines): prints ``ready <seconds per save>`` after a first
    save; ``fork`` starts a saver child and prints ``pid N``, then ``reaped <signal or -code>`` once
    it is dead; ``save`` saves once in the worker and prints ``saved``."""
    model = Model(kind, size_mb)
    t0 = time.perf_counter()
    model.fill(1.0)
    model.save(folder)
    print("ready", time.perf_counter() - t0, flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "fork":
            pid = os.fork()
            if pid == 0:
                try:
                    value = 2.0
                    while True:
                        model.fill(value)
                        model.save(folder)
                        value = 3.0 - value
                except BaseException:
                    traceback.print_exc()
                os._exit(1)      # only an error gets here; the parent reports a death without the kill
            print("pid", pid, flush=True)
            _, status = os.waitpid(pid, 0)
            code = os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)
            print("reaped", code, flush=True)
        elif cmd == "save":
            model.fill(1.0)
            model.save(folder)
            print("saved", flush=True)


def check_targets(kind, folder, reference=None):
    """Load every target of ``kind``; returns ``{file: description}`` where a description is the
    JSON text or ``(names/shapes, value)``; raises AssertionError for an inconsistent file."""
    seen = {}
    files = targets(kind, folder)
    if kind == "save_checkpoint":
        sym, arg, aux = mx.model.load_checkpoint(os.path.join(folder, "model"), 0)
        assert set(sym.list_arguments()) - {"data"} == set(arg), "checkpoint: symbol and params disagree"
    for f in files:
        if f.endswith(".json"):
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
            mx.sym.fromjson(text)
            seen[f] = text
            continue
        loaded = mx.nd.load(f)
        assert isinstance(loaded, dict) and loaded, f"{f}: expected a dict of arrays"
        layout = tuple(sorted((k, v.shape, str(v.dtype)) for k, v in loaded.items()))
        values = set()
        for k, v in loaded.items():
            a = v.asnumpy()
            first = a.flat[0]
            assert np.all(a == first), f"{f}: array {k!r} mixes values (a partial write)"
            values.add(float(first))
        assert len(values) == 1 and values <= {1.0, 2.0}, f"{f}: arrays hold {sorted(values)}, expected one of 1, 2"
        seen[f] = (layout, values.pop())
    if reference is not None:
        for f, desc in seen.items():
            ref = reference[f]
            if isinstance(desc, str):
                assert desc == ref, f"{f}: the JSON changed (expected the same graph on every save)"
            else:
                assert desc[0] == ref[0], f"{f}: names/shapes changed (a partial or foreign file)"
    return seen


def _temps(kind, folder):
    return {f: stale_temp_files(f) for f in targets(kind, folder)}


def _others(kind, folder, temps):
    known = {os.path.basename(f) for f in targets(kind, folder)}
    known |= {os.path.basename(t) for ts in temps.values() for t in ts}
    return sorted(set(os.listdir(folder)) - known)


def run_kind(kind, kills, size_mb, folder, rng, log=None):
    """Run the kills for one kind in ``folder`` (empty); returns a dict of figures, with
    ``errors`` listing every failed check."""
    stats = dict(kind=kind, kills=0, loadable=0, mid_write=0, max_temps=0, leftovers=None,
                 temp_bytes=0, target_bytes=0, values={1.0: 0, 2.0: 0}, errors=[])
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", kind, folder,
                             "--size-mb", str(size_mb)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1, env=env)

    def ask(cmd, expect):
        if cmd:
            proc.stdin.write(cmd + "\n")
            proc.stdin.flush()
        words = proc.stdout.readline().split()
        if not words or words[0] != expect:
            raise RuntimeError(f"worker for {kind}: expected {expect!r}, got {words!r} (see its stderr)")
        return words[1:]

    saver = [None]          # the pid of a saver not yet reaped
    try:
        cycle = float(ask(None, "ready")[0])
        reference = check_targets(kind, folder)
        before = set()
        for _ in range(kills):
            pid = saver[0] = int(ask("fork", "pid")[0])
            time.sleep(rng.uniform(0, 2.0 * cycle))
            os.kill(pid, signal.SIGKILL)
            code = int(ask(None, "reaped")[0])
            saver[0] = None
            stats["kills"] += 1
            if code != signal.SIGKILL:
                stats["errors"].append(f"saver exited with code {-code} before the kill")
                continue
            temps = _temps(kind, folder)
            n = max(len(t) for t in temps.values())
            stats["max_temps"] = max(stats["max_temps"], n)
            now = {t for ts in temps.values() for t in ts}
            if now - before:        # the killed saver's own temporary file: the kill hit a write
                stats["mid_write"] += 1
            before_kill, before = before, now
            if n > 1:
                stats["errors"].append(f"{n} temporary files for one target after a kill: stale ones not cleaned")
            for ts in temps.values():
                for t in set(ts) - before_kill:
                    try:
                        stats["temp_bytes"] += os.path.getsize(t)
                    except OSError:
                        pass
            others = _others(kind, folder, temps)
            if others:
                stats["errors"].append(f"unexpected files after a kill: {others}")
            try:
                seen = check_targets(kind, folder, reference)
            except (AssertionError, mx.MXNetError, OSError) as err:
                stats["errors"].append(f"not loadable after a kill: {err}")
                continue
            stats["loadable"] += 1
            for desc in seen.values():
                if not isinstance(desc, str):
                    stats["values"][desc[1]] += 1
            if log:
                log(f"  {kind}: kill {stats['kills']}/{kills}: temps per target {n}, loadable")
        ask("save", "saved")
        temps = _temps(kind, folder)
        stats["leftovers"] = sum(len(t) for t in temps.values()) + len(_others(kind, folder, temps))
        if stats["leftovers"]:
            stats["errors"].append(f"files left after the next successful save: {sorted(os.listdir(folder))}")
        try:
            final = check_targets(kind, folder, reference)
            if any(not isinstance(d, str) and d[1] != 1.0 for d in final.values()):
                stats["errors"].append("the last save's content (1.0) is not what loads")
        except (AssertionError, mx.MXNetError, OSError) as err:
            stats["errors"].append(f"not loadable after the last save: {err}")
        stats["target_bytes"] = sum(os.path.getsize(f) for f in targets(kind, folder))
    finally:
        if saver[0] is not None:        # interrupted between fork and kill: do not leave it saving
            try:
                os.kill(saver[0], signal.SIGKILL)
            except OSError:
                pass
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return stats


def _mb(n):
    return f"{n / 1e6:.1f} MB"


def report(all_stats):
    lines = [f"{'kind':<16}{'kills':>6}{'loadable':>10}{'mid-write':>11}{'max temps':>11}{'leftovers':>11}"
             f"{'temp bytes':>15}{'targets':>12}  loads 1.0/2.0"]
    for s in all_stats:
        lines.append(f"{s['kind']:<16}{s['kills']:>6}{s['loadable']:>10}{s['mid_write']:>11}{s['max_temps']:>11}"
                     f"{s['leftovers']!s:>11}{_mb(s['temp_bytes']):>15}{_mb(s['target_bytes']):>12}  "
                     f"{s['values'][1.0]}/{s['values'][2.0]}")
        lines += [f"  ERROR {s['kind']}: {e}" for e in s["errors"]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs per kind (default 10)")
    parser.add_argument("--size-mb", type=float, default=20, help="model size in MB (default 20)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--dir", default=None, help="where to make the scratch folder (default: system temp)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--verbose", action="store_true", help="a line per kill")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], args.size_mb)
        return 0
    if os.name != "posix":
        parser.error("needs fork and SIGKILL (POSIX)")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    root = tempfile.mkdtemp(prefix="kill-during-save-", dir=args.dir)
    print(f"kill_during_save: {args.kills} kills per kind, model ~{args.size_mb:g} MB "
          f"(Dense width {width_for(args.size_mb)}), seed {seed}, in {root}", flush=True)
    all_stats = []
    start = time.perf_counter()
    try:
        for kind in args.kinds:
            folder = os.path.join(root, kind.replace(".", "_"))
            os.mkdir(folder)
            t0 = time.perf_counter()
            all_stats.append(run_kind(kind, args.kills, args.size_mb, folder, rng,
                                      log=print if args.verbose else None))
            print(f"  {kind}: done in {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(report(all_stats))
    failed = any(s["errors"] for s in all_stats)
    print(f"{'FAILED' if failed else 'OK'} in {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
