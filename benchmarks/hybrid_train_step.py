"""Training step (forward + backward, loss = sum of squares) of the hybridize tutorial's MLP
(512 -> 256 relu -> 128 relu -> 2): imperative (one tape node per op) vs hybridized (one tape node
per call, the compiled backward program), measured side by side (interleaved rounds, best of each) in
one run and printed as ratios. The gradients of both are checked equal first.

Run: python benchmarks/hybrid_train_step.py [--device gpu]
"""
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab import autograd  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402


def get_net(device):
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    net.initialize(device=device)
    return net


def step(net, x):
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    return loss


def measure(batch, device, rounds=7):
    mx.random.seed(0)
    x = mx.nd.random.normal(shape=(batch, 512)).copyto(device)
    imperative = get_net(device)
    imperative(x)
    hybrid = get_net(device)
    hybrid.load_dict({k: v.data() for k, v in zip(hybrid.collect_params(), imperative.collect_params().values())},
                     device=device)
    hybrid.hybridize()
    step(imperative, x)
    step(hybrid, x)
    for p0, p1 in zip(imperative.collect_params().values(), hybrid.collect_params().values()):
        np.testing.assert_allclose(p1.grad().asnumpy(), p0.grad().asnumpy(), rtol=1e-4, atol=1e-5)
    assert not hybrid.cached_op.fallbacks
    sync = (lambda: x.wait_to_read()) if device.is_gpu else (lambda: None)

    def run(net):
        step(net, x)
        sync()
    number = max(5, 1000 // batch)
    times = {"imperative": [], "hybridized": []}
    for _ in range(rounds):
        times["imperative"].append(timeit.timeit(lambda: run(imperative), number=number) / number)
        times["hybridized"].append(timeit.timeit(lambda: run(hybrid), number=number) / number)
    return {k: min(v) for k, v in times.items()}


def main():
    device = mx.gpu(0) if "--device" in sys.argv and sys.argv[-1] == "gpu" else mx.cpu()
    print(f"MLP training step (forward + backward) on {device}, best of 7 interleaved rounds")
    print(f"{'batch':>6} {'imperative':>12} {'hybridized':>12} {'speed-up':>9}")
    for batch in (1, 64):
        t = measure(batch, device)
        print(f"{batch:>6} {t['imperative'] * 1e6:>10.1f}us {t['hybridized'] * 1e6:>10.1f}us "
              f"{t['imperative'] / t['hybridized']:>8.2f}x")


if __name__ == "__main__":
    main()
