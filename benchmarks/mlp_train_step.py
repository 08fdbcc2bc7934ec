"""The full training step of the hybridize tutorial's MLP (512 -> 256 relu -> 128 relu -> 2, batch 64):
hybridized forward + softmax cross-entropy + backward + ``gluon.Trainer.step``, with SGD momentum and
with Adam, written as the lessons' loop (``loss.backward()``, ``trainer.step(batch)``; the verdict), with
the mean loss (``.mean()``, ``trainer.step(1)``) and with the loss hybridized too, against a hand-written
NumPy step of the same math (preallocated buffers, ``out=`` matmuls, in-place ufunc updates: the floor).
Printed as ratios measured side by side: the contenders alternate within every round and each keeps its
best round (a shared machine's slow spells then hit all of them alike), over rounds in several fresh
processes (``--processes``, ``_processes.py``: the speed of memory-bound work differs from process to
process). The weights after the first steps are checked equal first.

``--phases`` prints where each step's time goes instead: the net's forward, the loss, the backward and
the update, timed inside the steps, beside the hand step's (absolute times: for finding work, not verdicts).

Run: python benchmarks/mlp_train_step.py [--rounds N] [--processes N] [--profile] [--phases]
"""
import argparse
import cProfile
import os
import pstats
import sys
import timeit
from time import perf_counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.gluon import nn  # noqa: E402
from _processes import add_process_args, merged_times, print_child_times  # noqa: E402

BATCH, LR, MOMENTUM = 64, 0.01, 0.9
ADAM = {"learning_rate": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
NAMES = ("w0", "b0", "w1", "b1", "w2", "b2")


# ---- the hand-written step --------------------------------------------------------------------------
def hand_step(p, x, y, optimizer):
    """One training step on the float32 arrays ``p`` (updated in place), every buffer allocated once:
    forward, softmax cross-entropy (mean over the batch), backward, then ``optimizer`` ('sgd' with
    momentum, or 'adam') as MXNet's ``sgd_mom_update`` / ``adam_update`` compute it."""
    n = x.shape[0]
    f32 = np.float32
    onehot = np.eye(p["w2"].shape[0], dtype=f32)[y.astype(np.int64)]
    h0, h1, z = (np.empty((n, p[k].shape[0]), f32) for k in ("w0", "w1", "w2"))
    d1, d0 = np.empty_like(h1), np.empty_like(h0)
    zmax, zsum = np.empty((n, 1), f32), np.empty((n, 1), f32)
    grads = {k: np.empty_like(v) for k, v in p.items()}
    tmp = {k: np.empty_like(v) for k, v in p.items()}
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    var = {k: np.zeros_like(v) for k, v in p.items()}
    t = [0]
    b1, b2, eps = ADAM["beta1"], ADAM["beta2"], ADAM["epsilon"]

    def forward():
        np.matmul(x, p["w0"].T, out=h0)
        np.add(h0, p["b0"], out=h0)
        np.maximum(h0, 0, out=h0)
        np.matmul(h0, p["w1"].T, out=h1)
        np.add(h1, p["b1"], out=h1)
        np.maximum(h1, 0, out=h1)
        np.matmul(h1, p["w2"].T, out=z)
        np.add(z, p["b2"], out=z)

    def loss_and_logit_grad():
        np.max(z, axis=1, keepdims=True, out=zmax)
        np.subtract(z, zmax, out=z)
        np.exp(z, out=z)
        np.sum(z, axis=1, keepdims=True, out=zsum)
        np.divide(z, zsum, out=z)                   # softmax
        loss = -np.log((z * onehot).sum(axis=1)).mean()
        np.subtract(z, onehot, out=z)
        np.multiply(z, 1.0 / n, out=z)              # d loss / d logits
        return loss

    def backward():
        np.matmul(z.T, h1, out=grads["w2"])
        np.sum(z, axis=0, out=grads["b2"])
        np.matmul(z, p["w2"], out=d1)
        np.multiply(d1, h1 > 0, out=d1)
        np.matmul(d1.T, h0, out=grads["w1"])
        np.sum(d1, axis=0, out=grads["b1"])
        np.matmul(d1, p["w1"], out=d0)
        np.multiply(d0, h0 > 0, out=d0)
        np.matmul(d0.T, x, out=grads["w0"])
        np.sum(d0, axis=0, out=grads["b0"])

    def update():
        if optimizer == "sgd":
            for k, w in p.items():
                m, g = mom[k], grads[k]
                m *= MOMENTUM
                np.multiply(g, LR, out=tmp[k])
                m -= tmp[k]
                w += m
        else:
            t[0] += 1
            lr = ADAM["learning_rate"] * np.sqrt(1.0 - b2 ** t[0]) / (1.0 - b1 ** t[0])
            for k, w in p.items():
                m, v, g, s = mom[k], var[k], grads[k], tmp[k]
                m *= b1
                np.multiply(g, 1.0 - b1, out=s)
                m += s
                v *= b2
                np.multiply(g, g, out=s)
                s *= 1.0 - b2
                v += s
                np.sqrt(v, out=s)
                s += eps
                np.divide(m, s, out=s)
                s *= lr
                w -= s

    def step():
        forward()
        loss = loss_and_logit_grad()
        backward()
        update()
        return loss

    def timed():
        t0 = perf_counter()
        forward()
        t1 = perf_counter()
        loss_and_logit_grad()
        t2 = perf_counter()
        backward()
        t3 = perf_counter()
        update()
        return t1 - t0, t2 - t1, t3 - t2, perf_counter() - t3
    step.timed = timed
    return step


# ---- hybridlab --------------------------------------------------------------------------------------
def hl_net(params):
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    net.initialize()
    net(mx.nd.zeros((1, 512)))
    for i, d in enumerate(net):
        d.weight.set_data(mx.nd.array(params[f"w{i}"]))
        d.bias.set_data(mx.nd.array(params[f"b{i}"]))
    net.hybridize()
    return net


def hl_step(params, x, y, optimizer, mean_loss=False, hybrid_loss=False):
    """The Gluon loop of the lessons: ``loss.backward()`` on the per-sample losses, then
    ``trainer.step(batch)`` (the 1/batch scale folded into the update); ``mean_loss``: the same step
    written with ``.mean()`` of the losses and ``trainer.step(1)`` (two more recorded ops);
    ``hybrid_loss``: the lessons' loop with the loss hybridized too (``loss_fn.hybridize()``)."""
    net = hl_net(params)
    opt_params = {"learning_rate": LR, "momentum": MOMENTUM} if optimizer == "sgd" else dict(ADAM)
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, opt_params)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    if hybrid_loss:
        loss_fn.hybridize()
    xn, yn = mx.nd.array(x), mx.nd.array(y)

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(xn), yn)
        loss.backward()
        trainer.step(BATCH)
        return loss

    def step_mean():
        with mx.autograd.record():
            loss = loss_fn(net(xn), yn).mean()
        loss.backward()
        trainer.step(1)
        return loss
    def timed():
        t0 = perf_counter()
        with mx.autograd.record():
            z = net(xn)
            t1 = perf_counter()
            loss = loss_fn(z, yn)
            if mean_loss:
                loss = loss.mean()
        t2 = perf_counter()
        loss.backward()
        t3 = perf_counter()
        trainer.step(1 if mean_loss else BATCH)
        return t1 - t0, t2 - t1, t3 - t2, perf_counter() - t3
    step = step_mean if mean_loss else step
    step.timed = timed
    step.weights = lambda: {f"{k}{i}": getattr(d, "weight" if k == "w" else "bias").data().asnumpy()
                            for i, d in enumerate(net) for k in "wb"}
    return step


# ---- measuring --------------------------------------------------------------------------------------
def setup():
    mx.random.seed(0)
    rng = np.random.default_rng(0)
    params = {k: (rng.standard_normal(s) * 0.05).astype(np.float32)
              for k, s in zip(NAMES, ((256, 512), (256,), (128, 256), (128,), (2, 128), (2,)))}
    x = rng.standard_normal((BATCH, 512)).astype(np.float32)
    y = (np.arange(BATCH) % 2).astype(np.float32)
    return params, x, y


def check_equal(params, x, y, optimizer, mean_loss, hybrid_loss=False, steps=3):
    hand_p = {k: v.copy() for k, v in params.items()}
    hand, hyb = hand_step(hand_p, x, y, optimizer), hl_step(params, x, y, optimizer, mean_loss, hybrid_loss)
    for _ in range(steps):
        hand(), hyb()
    for k, v in hyb.weights().items():
        np.testing.assert_allclose(v, hand_p[k], rtol=1e-4, atol=1e-6, err_msg=f"{optimizer} {k}")


def measure(args):
    """``{"optimizer|contender": [seconds per step, one per round]}``: the contenders alternate within
    every round (the weights checked equal first)."""
    params, x, y = setup()
    fns = contenders(params, x, y)
    for fn in fns.values():
        timeit.timeit(fn, number=args.number)
    times = {k: [] for k in fns}
    for _ in range(args.rounds):
        for k, fn in fns.items():
            times[k].append(timeit.timeit(fn, number=args.number) / args.number)
    return {f"{opt}|{contender}": t for (opt, contender), t in times.items()}


def contenders(params, x, y):
    """``{(optimizer, contender): step}``, each hybridlab loop checked equal to the hand step first."""
    fns = {}
    for optimizer in ("sgd", "adam"):
        for mean_loss, hybrid_loss, contender in ((False, False, "hybridlab"), (True, False, "hybridlab .mean()"),
                                                  (False, True, "hybridlab loss hybridized")):
            check_equal(params, x, y, optimizer, mean_loss, hybrid_loss)
            fns[(optimizer, contender)] = hl_step(params, x, y, optimizer, mean_loss, hybrid_loss)
        fns[(optimizer, "hand NumPy")] = hand_step({k: v.copy() for k, v in params.items()}, x, y, optimizer)
    return fns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--number", type=int, default=50, help="steps per timing")
    ap.add_argument("--profile", action="store_true", help="cProfile the hybridlab steps instead")
    ap.add_argument("--phases", action="store_true",
                    help="time each phase inside the steps instead (forward, loss, backward, update)")
    add_process_args(ap)
    args = ap.parse_args()
    if args.child:
        print_child_times(measure(args))
        return
    if args.phases or args.profile:
        fns = contenders(*setup())
        if args.phases:
            print_phases(fns, args.rounds, args.number)
            return
        for optimizer in ("sgd", "adam"):
            prof = cProfile.Profile()
            prof.runcall(lambda: [fns[(optimizer, "hybridlab")]() for _ in range(500)])  # noqa: B023
            print(f"---- {optimizer}: 500 steps")
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    load0 = os.getloadavg()[0]
    times, per_process = merged_times(args.processes, measure, args)
    print(f"MLP 512-256-128-2 training step, batch {BATCH} (forward + softmax CE + backward + Trainer.step), "
          f"best of {args.rounds} interleaved rounds x {args.number} steps in each of {len(per_process)} fresh "
          f"process(es); load avg {load0:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print("hybridlab: loss.backward() then trainer.step(batch), as the lessons; '.mean()': the mean loss's "
          "backward then trainer.step(1); 'loss hybridized': the lessons' loop after loss_fn.hybridize()")
    print("ratio: best step over all processes / hand's best; median: of the per-round ratios; "
          "per process: each process's own best / best")
    print(f"{'optimizer':<14}{'loop':<20}{'hybridlab':>12}{'hand NumPy':>12}{'ratio':>8}{'median':>8}"
          f"   {'per process':<20}")
    for optimizer, label in (("sgd", "SGD momentum"), ("adam", "Adam")):
        hand_key = f"{optimizer}|hand NumPy"
        hand = times[hand_key]
        for contender, loop in (("hybridlab", "step(batch)"), ("hybridlab .mean()", ".mean(), step(1)"),
                                ("hybridlab loss hybridized", "loss hybridized")):
            key = f"{optimizer}|{contender}"
            hl = times[key]
            med = float(np.median(np.array(hl) / np.array(hand)))
            r = min(hl) / min(hand)
            each = " ".join(f"{min(p[key]) / min(p[hand_key]):.2f}" for p in per_process)
            verdict = f"   [{'met' if r <= 1.2 else 'NOT met'}: <= 1.2x]" if contender == "hybridlab" else ""
            print(f"{label:<14}{loop:<20}{min(hl) * 1e6:>10.1f}us{min(hand) * 1e6:>10.1f}us{r:>7.2f}x"
                  f"{med:>7.2f}x   {each:<20}{verdict}")


PHASES = ("net forward", "loss", "backward", "update")


def print_phases(fns, rounds, number):
    """Each phase's time inside the steps (``perf_counter`` at the phase boundaries of ``step.timed``),
    the contenders alternating every round, each phase's best round mean kept: where a step's time
    goes, next to the hand step's. The hand step's loss phase includes d loss / d logits, which the
    hybridlab steps compute in their backward."""
    for optimizer, label in (("sgd", "SGD momentum"), ("adam", "Adam")):
        names = [k for k in fns if k[0] == optimizer]
        best = {k: [float("inf")] * len(PHASES) for k in names}
        for _ in range(rounds + 1):             # (the first round warms up)
            for k in names:
                sums = np.zeros(len(PHASES))
                for _ in range(number):
                    sums += fns[k].timed()
                best[k] = [min(b, v / number) for b, v in zip(best[k], sums)]
        print(f"---- {label}: each phase's best mean over {rounds} interleaved rounds x {number} steps (us)")
        print(f"{'contender':<28}" + "".join(f"{p:>13}" for p in PHASES) + f"{'sum':>10}")
        for k in names:
            row = np.array(best[k]) * 1e6
            print(f"{k[1]:<28}" + "".join(f"{v:>13.1f}" for v in row) + f"{row.sum():>10.1f}")


if __name__ == "__main__":
    main()
