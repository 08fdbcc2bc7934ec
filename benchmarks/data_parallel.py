"""Data parallel over processes: training throughput of 1 and 2 workers ('dist_sync' kvstore over
MPI, started by ``hybridlab.launch``), and the cost of the gradient allreduce per step against the
compute (forward + backward) of the step, measured in the same runs and printed as ratios.

Each worker trains the same MLP (784 -> 512 -> 256 -> 10) on its own batch of ``--batch`` samples
(weak scaling: 2 workers process twice the samples per step). Per step a worker times
forward + backward, a barrier (time spent waiting for a slower worker), ``Trainer.allreduce_grads``
(the MPI allreduce of every gradient) and ``Trainer.update``; throughput is samples per second over all workers. On a machine with fewer
cores than workers x threads, the workers share the cores and the ratio says so.

Run: python benchmarks/data_parallel.py [--batch 64] [--steps 40]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab import launch  # noqa: E402


def worker(batch, steps, warmup=5):
    kv = mx.kv.create("dist_sync")
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(512, activation="relu"), mx.gluon.nn.Dense(256, activation="relu"),
            mx.gluon.nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01}, kvstore=kv,
                               update_on_kvstore=False)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rs = np.random.RandomState(kv.rank)
    x = mx.nd.array(rs.uniform(size=(batch, 784)))
    y = mx.nd.array(rs.randint(0, 10, batch))
    compute = wait = reduce = update = 0.0
    kv.barrier()
    for step in range(warmup + steps):
        if step == warmup:
            kv.barrier()
            start, compute, wait, reduce, update = time.perf_counter(), 0.0, 0.0, 0.0, 0.0
        t0 = time.perf_counter()
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        loss.wait_to_read()
        t1 = time.perf_counter()
        kv.barrier()                  # waiting for a slower worker is not the allreduce's cost
        t1b = time.perf_counter()
        trainer.allreduce_grads()
        t2 = time.perf_counter()
        trainer.update(batch * kv.num_workers)
        net[0].weight.data().wait_to_read()
        t3 = time.perf_counter()
        compute, wait, reduce, update = compute + t1 - t0, wait + t1b - t1, reduce + t2 - t1b, update + t3 - t2
    kv.barrier()
    total = time.perf_counter() - start
    if kv.rank == 0:
        print(json.dumps({"workers": kv.num_workers, "samples_per_s": batch * kv.num_workers * steps / total,
                          "compute_ms": 1e3 * compute / steps, "wait_ms": 1e3 * wait / steps,
                          "allreduce_ms": 1e3 * reduce / steps,
                          "update_ms": 1e3 * update / steps}), flush=True)


def measure(workers, batch, steps):
    run = launch.run(os.path.abspath(__file__), workers, ["--worker", "--batch", batch, "--steps", steps],
                     timeout=600)
    if run.returncode != 0:
        raise SystemExit(f"{workers} workers failed:\n{run.stdout}\n{run.stderr}")
    return json.loads([line for line in run.stdout.splitlines() if line.startswith("{")][-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=40)
    opts = p.parse_args()
    if opts.worker:
        return worker(opts.batch, opts.steps)
    one, two = measure(1, opts.batch, opts.steps), measure(2, opts.batch, opts.steps)
    print(f"MLP 784-512-256-10, batch {opts.batch} per worker, {opts.steps} steps, {os.cpu_count()} cores")
    for r in (one, two):
        print(f"  {r['workers']} worker(s): compute {r['compute_ms']:.2f} ms/step, waiting for the other worker "
              f"{r['wait_ms']:.2f}, allreduce {r['allreduce_ms']:.2f}, update {r['update_ms']:.2f} ms/step (rank 0)")
    print(f"throughput, 2 workers / 1 worker:           {two['samples_per_s'] / one['samples_per_s']:.2f}x")
    print(f"allreduce / compute per step, 2 workers:    {two['allreduce_ms'] / two['compute_ms']:.2f}")
    print(f"allreduce / compute per step, 1 worker:     {one['allreduce_ms'] / one['compute_ms']:.2f}")


if __name__ == "__main__":
    main()
