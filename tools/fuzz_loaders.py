"""Long fuzz runs of every loader of untrusted files (the suite runs a bounded, fixed sample).

Each case mutates a real MXNet 1.9.1 export (or a file hybridlab wrote) and loads it; the only
acceptable failure is ``MXNetError``, within 5 s and with at most 64x the case's bytes of traced
allocation (plus a fixed floor). Figures are printed per loader; crashes, hangs and memory bombs
are listed with the seed that reproduces them.

Usage::

    python tools/fuzz_loaders.py --cases 10000            # every loader
    python tools/fuzz_loaders.py --cases 500 --loader nd.load --seed 7
    python tools/fuzz_loaders.py --replay nd.load:123456  # one case again, with its traceback
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import loader_fuzz as lf  # noqa: E402


def fuzz(name, cases, seed, tmpdir, show=5):
    loader = lf.LOADERS[name]
    counts = {"ok": 0, "refused": 0, "crash": 0, "hang": 0}
    bad, slowest, peak, ratio = [], 0.0, 0, 0.0
    master = random.Random(f"{seed}:{name}")
    t0 = time.perf_counter()
    for _ in range(cases):
        case_seed = master.randrange(2 ** 63)
        out = lf.run_case(loader, lf.rng_for(case_seed), tmpdir)
        counts[out.kind] += 1
        slowest = max(slowest, out.seconds)
        peak, ratio = max(peak, out.peak), max(ratio, out.peak / max(out.size, 1))
        if out.bad:
            bad.append((case_seed, out))
    total = time.perf_counter() - t0
    print(f"{name:22s} {cases:6d} cases in {total:7.1f} s: {counts['ok']:5d} loaded, {counts['refused']:5d} "
          f"refused (MXNetError), {counts['crash']} crashes, {counts['hang']} hangs, "
          f"{sum('allocated' in o.bad for _, o in bad)} over the memory bound; slowest {slowest:.3f} s, "
          f"largest peak allocation {peak / 2 ** 20:.1f} MiB (at most {ratio:.0f}x a case's bytes; "
          f"allowed {lf.MEMORY_FACTOR}x + {lf.MEMORY_FLOOR >> 20} MiB)", flush=True)
    for case_seed, out in bad[:show]:
        print(f"    {name}:{case_seed}  {out.label}: {out.bad}")
    return len(bad)


def replay(spec, tmpdir):
    name, case_seed = spec.rsplit(":", 1)
    folder, size, label = lf.make_case(lf.LOADERS[name], lf.rng_for(int(case_seed)), tmpdir)
    print(f"case {label} ({size} bytes) in {folder}")
    try:
        lf.LOADERS[name].load(folder)
        print("loaded")
    except Exception:   # noqa: BLE001 - show whatever it was
        traceback.print_exc()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10000, help="cases per loader (default 10000)")
    ap.add_argument("--loader", action="append", choices=sorted(lf.LOADERS), help="only these (repeatable)")
    ap.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    ap.add_argument("--replay", metavar="LOADER:SEED", help="run one case again and show its traceback")
    args = ap.parse_args(argv)
    tmpdir = tempfile.mkdtemp(prefix="hybridlab-fuzz-")
    try:
        if args.replay:
            replay(args.replay, tmpdir)
            return 0
        failures = 0
        for name in args.loader or sorted(lf.LOADERS):
            failures += fuzz(name, args.cases, args.seed, tmpdir)
        print(f"{failures} failing cases" if failures else "0 crashes, 0 hangs, 0 memory bombs")
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
