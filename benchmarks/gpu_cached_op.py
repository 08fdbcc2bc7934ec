"""The cached op on a GPU (CuPy): imperative vs hybridized vs hybridized with static_alloc, measured
side by side in one run, for the tutorial MLP forward at batch 1 and 1024 and a LeNet training step
at batch 64 (forward + backward + SGD update); every call ends with a device synchronisation.
Prints per-call times and ratios to imperative. Exits with a message where no CUDA device exists.

Run: PYTHONPATH=kernel_lib python benchmarks/gpu_cached_op.py [--rounds 5]
"""
import argparse
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hybridlab as mx  # noqa: E402
from cached_op_vs_frameworks import MODES, hl_lenet, hl_mlp, hl_train_step  # noqa: E402


def synced(fn):
    def call():
        out = fn()
        mx.nd.waitall()
        return out
    return call


def workloads():
    """Models built under ``with mx.gpu(0)``: parameters and inputs live on the GPU."""
    with mx.gpu(0):
        for batch in (1, 1024):
            x = mx.nd.random.normal(shape=(batch, 512))
            yield f"MLP forward batch {batch}", {m: synced(lambda net=hl_mlp(hybridize=h), x=x: net(x))
                                               for m, h in MODES.items()}
        x = mx.nd.random.normal(shape=(64, 1, 28, 28))
        y = mx.nd.array([i % 10 for i in range(64)])
        yield "LeNet train step batch 64", {m: synced(hl_train_step(hl_lenet(hybridize=h), x, y))
                                            for m, h in MODES.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=50)
    args = parser.parse_args()
    if mx.num_gpus() == 0:
        print("no CUDA device (CuPy with a GPU is needed): nothing measured")
        return
    for name, fns in workloads():
        times = {}
        for mode, fn in fns.items():
            fn()
            timeit.timeit(fn, number=args.number)
            times[mode] = min(timeit.timeit(fn, number=args.number) / args.number for _ in range(args.rounds))
        base = times["imperative"]
        row = "  ".join(f"{m} {t * 1e6:9.1f} us ({base / t:4.1f}x)" for m, t in times.items())
        print(f"{name:28s} {row}")


if __name__ == "__main__":
    main()
