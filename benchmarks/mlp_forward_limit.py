"""The tutorial MLP's forward (512 -> 256 relu -> 128 relu -> 2) against the real floor: hand-written
NumPy with every buffer preallocated and the weights pre-transposed and contiguous
(``np.dot(h, Wt, out=buf)``, bias and relu in place), at batch 1, 64 and 1024.

Contenders: ``hybridized`` (plain), ``static`` (``static_alloc=True, static_shape=True``), and
``hand`` (the floor). Every round runs each contender once, back to back, and each keeps its best
round (a shared machine's slow spells then hit all of them alike) over the rounds of several fresh
processes (``--processes``, ``_processes.py``); the median of the per-round ratios and each process's
own ratio are printed too. Outputs are checked equal first. Targets (the performance issue): static
<= 1.05x hand at batch 64 and 1024, <= 1.1x at batch 1.

Run: python benchmarks/mlp_forward_limit.py [--rounds N] [--processes N]
"""
import argparse
import os
import statistics
import sys
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402
from _processes import add_process_args, merged_times, print_child_times  # noqa: E402

SIZES = (512, 256, 128, 2)
BATCHES = (1, 64, 1024)


def hand_forward(p, batch):
    """The floor: preallocated outputs, weights transposed once into contiguous arrays."""
    wts = [np.ascontiguousarray(p[f"w{i}"].T) for i in range(3)]
    bs = [p[f"b{i}"] for i in range(3)]
    bufs = [np.empty((batch, n), np.float32) for n in SIZES[1:]]

    def forward(x):
        h = x
        for i in range(3):
            np.dot(h, wts[i], out=bufs[i])
            np.add(bufs[i], bs[i], out=bufs[i])
            if i < 2:
                np.maximum(bufs[i], 0, out=bufs[i])
            h = bufs[i]
        return h
    return forward


def hybrid_net(p, **flags):
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu", in_units=512), nn.Dense(128, activation="relu", in_units=256),
            nn.Dense(2, in_units=128))
    net.initialize()
    for i, d in enumerate(net):
        d.weight.set_data(mx.nd.array(p[f"w{i}"]))
        d.bias.set_data(mx.nd.array(p[f"b{i}"]))
    net.hybridize(**flags)
    return net


def measure(args):
    """``{"batch|contender": [seconds per call, one per round]}``, the contenders back to back in every
    round (outputs checked equal first)."""
    rng = np.random.RandomState(0)
    p = {}
    for i, (n_in, n_out) in enumerate(zip(SIZES, SIZES[1:])):
        p[f"w{i}"] = rng.uniform(-0.1, 0.1, (n_out, n_in)).astype(np.float32)
        p[f"b{i}"] = rng.uniform(-0.1, 0.1, (n_out,)).astype(np.float32)
    times = {}
    for batch in BATCHES:
        x_np = rng.uniform(-1, 1, (batch, 512)).astype(np.float32)
        x = mx.nd.array(x_np)
        hand = hand_forward(p, batch)
        nets = {"hybridized": hybrid_net(p), "static": hybrid_net(p, static_alloc=True, static_shape=True)}
        for name, net in nets.items():
            np.testing.assert_allclose(net(x).asnumpy(), hand(x_np), rtol=1e-5, atol=1e-6, err_msg=name)
        calls = {"hand": lambda: hand(x_np)}
        calls.update({k: (lambda n=n: n(x).wait_to_read()) for k, n in nets.items()})
        number = max(5, 20000 // (batch * 4 + 50))
        for _ in range(args.rounds):
            for k, fn in calls.items():
                times.setdefault(f"{batch}|{k}", []).append(timeit.timeit(fn, number=number) / number)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    add_process_args(ap)
    opts = ap.parse_args()
    if opts.child:
        print_child_times(measure(opts))
        return
    load0 = os.getloadavg()[0]
    times, per_process = merged_times(opts.processes, measure, opts)
    print(f"MLP forward vs preallocated hand NumPy: best of {opts.rounds} alternating rounds in each of "
          f"{len(per_process)} fresh process(es) (load {load0:.1f})\n")
    print(f"{'batch':>6} {'hand us':>9} {'hybridized':>11} {'static':>8}   {'median static/hand':>18}  "
          f"{'static per process':<20}  target")
    for batch in BATCHES:
        best = {k: min(times[f"{batch}|{k}"]) for k in ("hand", "hybridized", "static")}
        per_round = np.array(times[f"{batch}|static"]) / np.array(times[f"{batch}|hand"])
        each = " ".join(f"{min(p[f'{batch}|static']) / min(p[f'{batch}|hand']):.2f}" for p in per_process)
        target = 1.1 if batch == 1 else 1.05
        print(f"{batch:>6} {best['hand'] * 1e6:>9.1f} {best['hybridized'] / best['hand']:>10.2f}x "
              f"{best['static'] / best['hand']:>7.2f}x   {statistics.median(per_round):>17.2f}x  {each:<20}"
              f"  <= {target}x")


if __name__ == "__main__":
    main()
