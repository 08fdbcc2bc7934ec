"""The hybridize tutorial's MLP (512 -> 256 relu -> 128 relu -> 2): imperative vs hybridized vs the same
computation in hand-written NumPy, measured side by side (interleaved rounds, best of each) in one run
and printed as ratios. Target: hybridized >= 1.5x faster than imperative at batch 1.

Run: python benchmarks/hybridize_mlp.py
"""
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402


def get_net():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"))
    net.add(nn.Dense(128, activation="relu"))
    net.add(nn.Dense(2))
    net.initialize()
    return net


def hand_numpy(net):
    params = [(d.weight.data().asnumpy(), d.bias.data().asnumpy()) for d in net]

    def forward(x):
        h = np.maximum(x @ params[0][0].T + params[0][1], 0)
        h = np.maximum(h @ params[1][0].T + params[1][1], 0)
        return h @ params[2][0].T + params[2][1]
    return forward


def measure(batch, rounds=7):
    mx.random.seed(0)
    imperative = get_net()
    x = mx.nd.random.normal(shape=(batch, 512))
    imperative(x)
    hybrid = get_net()
    hybrid.load_dict({k: v.data() for k, v in zip(hybrid.collect_params(), imperative.collect_params().values())})
    hybrid.hybridize(static_alloc=True, static_shape=True)
    hybrid(x)
    by_hand = hand_numpy(imperative)
    xn = x.asnumpy()
    expected = by_hand(xn)
    np.testing.assert_allclose(imperative(x).asnumpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hybrid(x).asnumpy(), expected, rtol=1e-4, atol=1e-5)
    number = max(5, 2000 // batch)
    times = {"imperative": [], "hybridized": [], "hand NumPy": []}
    for _ in range(rounds):
        times["imperative"].append(timeit.timeit(lambda: imperative(x), number=number) / number)
        times["hybridized"].append(timeit.timeit(lambda: hybrid(x), number=number) / number)
        times["hand NumPy"].append(timeit.timeit(lambda: by_hand(xn), number=number) / number)
    return {k: min(v) for k, v in times.items()}


def main():
    print("tutorial MLP forward: best per-call time of interleaved rounds\n")
    print(f"{'batch':>6}{'imperative us':>16}{'hybridized us':>16}{'NumPy us':>11}{'imp/hyb':>10}{'hyb/NumPy':>11}")
    for batch in (1, 64, 1024):
        t = measure(batch)
        print(f"{batch:>6}{t['imperative'] * 1e6:>16.1f}{t['hybridized'] * 1e6:>16.1f}{t['hand NumPy'] * 1e6:>11.1f}"
              f"{t['imperative'] / t['hybridized']:>9.2f}x{t['hybridized'] / t['hand NumPy']:>10.2f}x")
    print("\ntarget: imp/hyb >= 1.5x at batch 1")


if __name__ == "__main__":
    main()
