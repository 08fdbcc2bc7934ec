"""Robustness under contention: how much two CPU-bound processes running beside it slow hybridlab
down, against how much they slow MXNet 1.9.1 down, measured side by side in one run.

Workload: ResNet-50 v2 from the model zoo (random weights, hybridized with static_alloc +
static_shape) forward at batch 1 on a 224x224 image. Each framework runs in its own worker process
(hybridlab with this checkout's ``.venv`` Python, MXNet with ``$HYBRIDLAB_MXNET_PYTHON`` or
``.venv-mxnet/bin/python``), built once and then asked for timings over a pipe, so that the two never
run at the same time. The load is two pure-Python spinning processes (``while True: pass``) that this
script starts before each loaded phase and kills (by their process ids) after it.

Each round measures, in turn, both frameworks quiet and then both under load (the order of the
frameworks alternates between rounds); a phase is two warm-up calls and ``--calls`` timed calls.
The time of a (framework, phase) is the median of all its timed calls over all rounds, and it prints
each framework's slowdown (loaded median / quiet median), the ratio of the two slowdowns
(hybridlab's / MXNet's: at most 1 means a busy machine slows hybridlab no more than MXNet) and the
loaded and quiet times against MXNet's. The load average before and after is printed: other work on
the machine shows up there, and in the quiet times.

Threads: each framework keeps its own default (hybridlab: ``hybridlab.threads``, MXNet: half the
CPUs), unless ``--threads N`` sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS for both; ``--hl-env
K=V`` sets an environment variable for the hybridlab worker only, and ``--variant K=V`` adds a
second hybridlab worker with that variable set, measured in the same rounds (for instance
``--variant HYBRIDLAB_NUM_THREADS=all``: every CPU whatever the load, hybridlab's default before
it measured the load).

Run: python benchmarks/contention.py [--rounds N] [--calls N] [--threads N] [--hl-env K=V ...]
     [--variant K=V ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NET, BATCH, SIZE = "resnet50_v2", 1, 224
LOAD_PROCESSES = 2
SPIN = "while True:\n    pass\n"


# ---- workers (one per framework, run as `contention.py --worker hybridlab|mxnet`) ----

def _worker(kind):
    import numpy as np
    if kind == "hybridlab":
        sys.path.insert(0, os.path.join(ROOT, "kernel_lib"))
        import hybridlab as mx
        from hybridlab.gluon.model_zoo import vision
    else:
        import mxnet as mx
        from mxnet.gluon.model_zoo import vision
    net = vision.get_model(NET)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.array(np.random.default_rng(0).standard_normal((BATCH, 3, SIZE, SIZE)).astype(np.float32))
    net(x).wait_to_read()
    info = {"version": mx.__version__}
    if kind == "hybridlab":
        info["threads"] = mx.threads.describe() if hasattr(mx, "threads") else "no hybridlab.threads"
    print(json.dumps(info), flush=True)
    for line in sys.stdin:
        calls = int(line)
        if calls <= 0:
            break
        for _ in range(2):
            net(x).wait_to_read()
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            net(x).wait_to_read()
            times.append(time.perf_counter() - t)
        extra = {"threads": mx.threads.current()} if kind == "hybridlab" and hasattr(mx, "threads") else {}
        print(json.dumps({"times": times, **extra}), flush=True)


# ---- the driver ----

class Worker:
    """A framework's worker process: built once, then timed on request."""

    def __init__(self, kind, python, env):
        self.kind = kind
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", kind], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.info = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.kind} worker exited with status {self.proc.wait()}")
        return json.loads(line)

    def time(self, calls):
        self.proc.stdin.write(f"{calls}\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        try:
            self.proc.stdin.write("0\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def start_load():
    """Two CPU-bound processes (pure Python spinning, one thread each)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, "-c", SPIN], env=env) for _ in range(LOAD_PROCESSES)]
    time.sleep(0.5)          # running, and visible in /proc/stat and the run queue
    return procs


def stop_load(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def mxnet_python():
    python = os.environ.get("HYBRIDLAB_MXNET_PYTHON") or os.path.join(ROOT, ".venv-mxnet", "bin", "python")
    return python if os.path.exists(python) else None


def _loadavg():
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main(args):
    env = dict(os.environ)
    if args.threads:
        env.update(OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    hl_env = dict(env)
    for kv in args.hl_env:
        key, _, value = kv.partition("=")
        hl_env[key] = value
    python = mxnet_python()
    if python is None:
        print("MXNet not installed (set HYBRIDLAB_MXNET_PYTHON): nothing to compare")
        return
    print(f"{NET} forward batch {BATCH} {SIZE}px; {os.cpu_count()} CPUs; load: {LOAD_PROCESSES} spinning processes; "
          f"threads: {args.threads or 'each default'}; hybridlab env: {' '.join(args.hl_env) or '-'}")
    print(f"load average before: {_loadavg()}")
    workers = {"hybridlab": Worker("hybridlab", sys.executable, hl_env)}
    for kv in args.variant:
        key, _, value = kv.partition("=")
        workers[f"hybridlab {kv}"] = Worker("hybridlab", sys.executable, dict(hl_env, **{key: value}))
    workers["mxnet"] = Worker("mxnet", python, env)
    times = {(k, phase): [] for k in workers for phase in ("quiet", "loaded")}
    seen_threads = {(k, phase): set() for k in workers for phase in ("quiet", "loaded")}
    load = []
    try:
        for r in range(args.rounds):
            order = list(workers) if r % 2 == 0 else list(workers)[::-1]
            for phase in ("quiet", "loaded"):
                if phase == "loaded":
                    load = start_load()
                for kind in order:
                    got = workers[kind].time(args.calls)
                    times[(kind, phase)] += got["times"]
                    if "threads" in got:
                        seen_threads[(kind, phase)].add(got["threads"])
                stop_load(load)
                load = []
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        stop_load(load)
        for w in workers.values():
            w.close()
    print(f"load average after: {_loadavg()}")
    for k, w in workers.items():
        if k != "mxnet":
            print(f"{k}: {w.info.get('threads')}; threads used quiet {sorted(seen_threads[(k, 'quiet')])}, "
                  f"loaded {sorted(seen_threads[(k, 'loaded')])}")
    med = {key: statistics.median(v) for key, v in times.items()}
    slow = {k: med[(k, "loaded")] / med[(k, "quiet")] for k in workers}
    print(f"{'framework':36} {'quiet':>10} {'loaded':>10} {'slowdown':>9}")
    for k in workers:
        print(f"{k:36} {med[(k, 'quiet')] * 1e3:8.1f}ms {med[(k, 'loaded')] * 1e3:8.1f}ms {slow[k]:9.2f}")
    for k in workers:
        if k != "mxnet":
            print(f"slowdown ratio {k}/mxnet: {slow[k] / slow['mxnet']:.2f}   "
                  f"(time {k}/mxnet: quiet {med[(k, 'quiet')] / med[('mxnet', 'quiet')]:.2f}, "
                  f"loaded {med[(k, 'loaded')] / med[('mxnet', 'loaded')]:.2f})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="slowdown under two CPU-bound processes: hybridlab vs MXNet")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=8, help="timed calls per framework and phase in a round")
    ap.add_argument("--threads", type=int, default=0, help="OMP/OpenBLAS threads of both (default: their own)")
    ap.add_argument("--hl-env", action="append", default=[], metavar="K=V", help="env var for hybridlab only")
    ap.add_argument("--variant", action="append", default=[], metavar="K=V",
                    help="another hybridlab worker with this env var, in the same rounds")
    ap.add_argument("--worker", choices=("hybridlab", "mxnet"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        _worker(a.worker)
    else:
        main(a)
