"""The host pool (``hybridlab.host_pool``) on and off: a hybridized LeNet training step (batch 64,
static_alloc) timed in fresh interpreters with ``HYBRIDLAB_HOST_POOL=1`` and ``=0``, alternating, and
printed as a ratio (the pool's effect is process-wide, so each setting needs its own process).

Run: python benchmarks/host_pool.py [--rounds N]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, sys, timeit
sys.path.insert(0, {kernel_lib!r}); sys.path.insert(0, {here!r})
import numpy as np
import hybridlab as mx
from cached_op_vs_frameworks import hl_lenet, hl_train_step
rng = np.random.default_rng(0)
x = mx.nd.array(rng.standard_normal((64, 1, 28, 28)).astype(np.float32))
y = mx.nd.array((np.arange(64) % 10).astype(np.float32))
step = hl_train_step(hl_lenet({{"static_alloc": True, "static_shape": True}}), x, y)
for _ in range(5):
    step()
print(json.dumps({{"state": mx.host_pool.state(),
                  "seconds": min(timeit.timeit(step, number=10) / 10 for _ in range(5))}}))
"""


def run_child(pool):
    code = CHILD.format(kernel_lib=os.path.join(HERE, "..", "kernel_lib"), here=HERE)
    env = dict(os.environ, HYBRIDLAB_HOST_POOL=pool)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    best = {"1": float("inf"), "0": float("inf")}
    states = {}
    for _ in range(args.rounds):
        for pool in best:
            got = run_child(pool)
            states[pool] = got["state"]
            best[pool] = min(best[pool], got["seconds"])
    print(f"LeNet training step, batch 64, hybridized static_alloc: best of {args.rounds} processes each")
    print(f"  host pool on  ({states['1']}): {best['1'] * 1e3:7.2f} ms")
    print(f"  host pool off ({states['0']}): {best['0'] * 1e3:7.2f} ms")
    print(f"  off / on: {best['0'] / best['1']:.2f}x")


if __name__ == "__main__":
    main()
