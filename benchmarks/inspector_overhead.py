"""What ``mx.lab.TensorInspector`` at its default sampling adds to a hybridized call.

For the hybridize tutorial's MLP (512-256-128-2) and LeNet, times N hybridized calls without an
inspector and N with one attached (default: adaptive sampling, budget 0.25), interleaved in rounds
so machine noise hits both alike, and prints the ratio (target <= 1.5x), plus the ratio with
``every=1`` (every call inspected) for reference. The inspector's widget has no frontend here, so
this is the kernel-side cost (statistics + history), which is what the budget accounts for.

Run: python benchmarks/inspector_overhead.py [--calls N] [--rounds R]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402
from hybridlab.lab.inspector import TensorInspector  # noqa: E402


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    return net


def lenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Conv2D(16, 3, activation="relu"),
            nn.MaxPool2D(2, 2), nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"),
            nn.Dense(10))
    return net


def timed(net, x, calls):
    t = time.perf_counter()
    for _ in range(calls):
        net(x)
    return time.perf_counter() - t


def measure(build, shape, calls, rounds, **inspector):
    plain, inspected = build(), build()
    for n in (plain, inspected):
        n.initialize()
        n.hybridize()
    x = mx.nd.random.uniform(shape=shape)
    plain(x)
    inspected(x)
    ins = TensorInspector(inspected, **inspector)
    a = b = 0.0
    for _ in range(rounds):
        a += timed(plain, x, calls)
        b += timed(inspected, x, calls)
    ins.flush()
    summary = (ins.inspected, ins.calls)
    ins.close()
    return a / (rounds * calls), b / (rounds * calls), summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(f"{'model':<22}{'sampling':<12}{'plain':>12}{'inspected':>12}{'ratio':>8}  inspected calls")
    for name, build, shape in (("MLP batch 1", mlp, (1, 512)), ("MLP batch 64", mlp, (64, 512)),
                               ("LeNet batch 16", lenet, (16, 1, 28, 28))):
        for label, opts in (("default", {}), ("every=1", {"every": 1})):
            calls = args.calls if label == "default" else max(10, args.calls // 10)
            p, q, (k, n) = measure(build, shape, calls, args.rounds, **opts)
            print(f"{name:<22}{label:<12}{p * 1e6:>10.1f}us{q * 1e6:>10.1f}us{q / p:>7.2f}x  {k} of {n}")


if __name__ == "__main__":
    main()
