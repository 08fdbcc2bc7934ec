"""Build time of the first hybridized call (trace + passes + inference + codegen) of ResNet-50 v2
(``model_zoo.vision.resnet50_v2``, batch 1) and of the hybridize tutorial's MLP (512 -> 256 relu ->
128 relu -> 2, batch 1), for

* ``current``: this tree, nobody watching (no pass snapshots are copied),
* ``current+keep``: this tree with ``hybridize(keep_pipeline=True)`` (what a GraphView asks for:
  the graph after every pass is kept),
* ``baseline``: the revision ``--baseline REV`` (default 4321b59, before pass snapshots were made
  on demand), checked out with ``git worktree add`` into a temporary folder and removed afterwards.

Each variant runs in its own process (PYTHONPATH at that tree's ``kernel_lib``), the processes
alternate for ``--rounds`` rounds and the best of each is kept. In a process, the parameters are
initialised by one imperative call first; then each repetition calls ``hybridize()`` (which drops
the cached op) and times the first call (build + one run), then the best steady call. Build time is
the time the first call spends inside the two functions both trees build with:
``HybridBlock._build_cache`` (trace + passes) and ``CachedOp._compile`` (inference + codegen),
nested calls counted once; it is measured directly because ``first call - steady call`` drowns in
the noise of ResNet's ~100 ms run. Printed: times and the ratios baseline/current (> 1: current is
faster); per-call ratios near 1 show that calls did not get slower. The median of the per-round
ratios (each round runs the variants back to back) is printed too: it is steadier than the ratio of
two bests on a machine whose speed drifts. Each process also gives how long ``import hybridlab`` took
and what a full garbage collection costs right after it (every later full collection walks those
objects again: a pause inside a build or a training loop). No absolute asserts.

Run: python benchmarks/build_time.py [--baseline REV] [--rounds N]
"""
import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ("mlp", "resnet50_v2")


# ---- one process: measure with the hybridlab found at --kernel-lib --------------------------
def _model(name, mx):
    from hybridlab.gluon import nn
    if name == "mlp":
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
        x = mx.nd.random.normal(shape=(1, 512))
        reps, number = 40, 2000
    else:
        from hybridlab.gluon.model_zoo import vision
        net = vision.resnet50_v2()
        x = mx.nd.random.normal(shape=(1, 3, 224, 224))
        reps, number = 15, 3
    net.initialize()
    net(x)                       # parameters initialised: the build below times the graph only
    return net, x, reps, number


class _BuildClock:
    """Time spent inside the wrapped functions (outermost calls only)."""

    def __init__(self):
        self.total, self._depth = 0.0, 0

    def wrap(self, owner, name):
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            self._depth += 1
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
                if not self._depth:
                    self.total += time.perf_counter() - t
        setattr(owner, name, timed)


def _measure(name, keep, mx):
    from hybridlab.compiler.cached_op import CachedOp
    from hybridlab.gluon import HybridBlock
    net, x, reps, number = _model(name, mx)
    clock = _BuildClock()
    clock.wrap(HybridBlock, "_build_cache")
    clock.wrap(CachedOp, "_compile")
    firsts, builds = [], []
    for _ in range(reps):
        if keep:
            net.hybridize(keep_pipeline=True)
        else:
            net.hybridize()
        clock.total = 0.0
        t = time.perf_counter()
        net(x).wait_to_read()
        firsts.append(time.perf_counter() - t)
        builds.append(clock.total)
    call = min(timeit.repeat(lambda: net(x).wait_to_read(), number=number, repeat=5)) / number
    kept = getattr(net.cached_op, "_pipeline", "n/a")     # the baseline keeps them always
    return {"first": min(firsts), "build": min(builds), "call": call, "builds": net.cached_op.compile_count,
            "kept": None if kept == "n/a" else kept is not None}


def child(kernel_lib, keep):
    sys.path.insert(0, kernel_lib)
    start = time.perf_counter()
    import hybridlab as mx
    imported = time.perf_counter() - start
    start = time.perf_counter()
    gc.collect()                  # what every full collection of the process walks from now on
    got = {"hybridlab": os.path.abspath(mx.__file__), "import": imported,
           "collect": time.perf_counter() - start, "objects": len(gc.get_objects())}
    mx.random.seed(0)
    for name in MODELS:
        got[name] = _measure(name, keep, mx)
    print(json.dumps(got))


# ---- the driver: a worktree for the baseline, alternating processes ------------------------------
def _run(variant, kernel_lib):
    env = dict(os.environ, PYTHONPATH=kernel_lib, PYTHONHASHSEED="0")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kernel_lib] + (["--keep"] if variant.endswith("keep")
                                                                               else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"build_time: the {variant} process failed (exit {out.returncode}):\n{out.stderr}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    where = os.path.dirname(os.path.dirname(got["hybridlab"]))
    if os.path.realpath(where) != os.path.realpath(kernel_lib):
        raise SystemExit(f"build_time: the {variant} process imported hybridlab from {where}, expected {kernel_lib}")
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="4321b59", help="git revision to compare with (default 4321b59)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.keep)
    tmp = tempfile.mkdtemp(prefix="hybridlab-baseline-")
    tree = os.path.join(tmp, "tree")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "--quiet", tree, args.baseline], check=True)
    try:
        variants = {"current": os.path.join(ROOT, "kernel_lib"), "current+keep": os.path.join(ROOT, "kernel_lib"),
                    "baseline": os.path.join(tree, "kernel_lib")}
        best, rounds = {}, []
        for _ in range(args.rounds):
            rounds.append({})
            for variant, lib in variants.items():
                got = rounds[-1][variant] = _run(variant, lib)
                for name in MODELS:
                    prev = best.setdefault(variant, {}).get(name)
                    best[variant][name] = got[name] if prev is None else \
                        {k: min(prev[k], got[name][k]) if k in ("first", "build", "call") else got[name][k] for k in prev}
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tree], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", args.baseline], capture_output=True,
                         text=True).stdout.strip()
    print(f"first hybridized call, batch 1: best of {args.rounds} alternating rounds per variant "
          f"(baseline = {args.baseline} = {rev})\n")
    print(f"{'model':<13}{'variant':<14}{'first call ms':>14}{'build ms':>10}{'per call us':>13}"
          f"{'snapshots':>11}")
    for name in MODELS:
        for variant in variants:
            m = best[variant][name]
            kept = "always" if m["kept"] is None else "kept" if m["kept"] else "none"
            print(f"{name:<13}{variant:<14}{m['first'] * 1e3:>14.2f}{m['build'] * 1e3:>10.2f}"
                  f"{m['call'] * 1e6:>13.1f}{kept:>11}")
    print(f"\n{'variant':<14}{'import ms':>10}{'full gc ms':>12}{'objects':>9}   (after import hybridlab; best of the rounds)")
    for variant in ("current", "baseline"):
        imported = min(r[variant]["import"] for r in rounds)
        collect = min(r[variant]["collect"] for r in rounds)
        print(f"{variant:<14}{imported * 1e3:>10.1f}{collect * 1e3:>12.1f}{rounds[0][variant]['objects']:>9}")
    print(f"\n{'ratios baseline/current':<28}{'build':>8}{'first call':>12}{'per call':>10}")
    for name in MODELS:
        base = best["baseline"][name]
        for variant in ("current", "current+keep"):
            m = best[variant][name]
            print(f"{name + ' ' + variant:<28}{base['build'] / m['build']:>7.2f}x"
                  f"{base['first'] / m['first']:>11.2f}x{base['call'] / m['call']:>9.2f}x")
    # the machine's speed drifts over minutes: a round's variants ran back to back, so the ratio
    # within each round is steadier than the ratio of two bests taken at different times
    print(f"\n{'median of the per-round ratios':<28}{'build':>8}{'per call':>10}   (each round's build ratios)")
    for name in MODELS:
        build = sorted(r["baseline"][name]["build"] / r["current"][name]["build"] for r in rounds)
        call = sorted(r["baseline"][name]["call"] / r["current"][name]["call"] for r in rounds)
        print(f"{name + ' current':<28}{statistics.median(build):>7.2f}x{statistics.median(call):>9.2f}x   "
              + " ".join(f"{b:.2f}" for b in build))
    print("\ntarget: build >= 2x with no listener (current); per call ~1x (not slower)")
    r50 = best["current"]["resnet50_v2"]["build"]
    print(f"target: ResNet-50 v2 build (trace + passes + inference + codegen) <= 300 ms: {r50 * 1e3:.1f} ms "
          f"({'met' if r50 <= 0.3 else 'NOT met'}; first call next to MXNet's: benchmarks/cnn_vs_mxnet.py)")


if __name__ == "__main__":
    main()
