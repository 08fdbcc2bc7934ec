"""One worker of a data-parallel run (started by ``python -m hybridlab.launch -n 2``) or the
single-process reference: trains a small regression net with Gluon or Module on a fixed dataset and
writes its final weights to ``<out>/<mode>_rank<r>.npz``.

Worker ``r`` of ``n`` reads rows ``[r*B, (r+1)*B)`` of every global batch of ``n*B`` rows, so the
workers together see exactly the batches of the reference run (one process, batch ``n*B``).
``--kill-rank R --kill-after K``: worker R kills itself (SIGKILL) after K steps. ``--gpu``: worker
``r`` trains on ``mx.gpu(r % num_gpus)`` (the 'dist_device_sync' store then reduces over NCCL).
"""
import argparse
import os
import signal

import numpy as np

import hybridlab as mx

p = argparse.ArgumentParser()
p.add_argument("--mode", choices=("gluon", "module"), required=True)
p.add_argument("--kvstore", default="dist_sync")
p.add_argument("--out", required=True)
p.add_argument("--steps", type=int, default=6)
p.add_argument("--batch", type=int, default=8, help="rows per worker per step")
p.add_argument("--workers", type=int, default=2, help="reference run: the global batch is workers * batch")
p.add_argument("--kill-rank", type=int, default=-1)
p.add_argument("--kill-after", type=int, default=0)
p.add_argument("--gpu", action="store_true")
opts = p.parse_args()

if opts.kvstore.startswith("dist"):
    kv = mx.kv.create(opts.kvstore)
    rank, workers = kv.rank, kv.num_workers
else:
    kv, rank, workers = opts.kvstore, 0, 1
rows_per_step = opts.batch * (opts.workers if workers == 1 else 1)      # this process's rows per step
global_batch = opts.batch * opts.workers
dev = mx.gpu(rank % mx.num_gpus()) if opts.gpu else mx.cpu()

data = np.random.RandomState(0)
X = data.uniform(-1, 1, (opts.steps * global_batch, 5)).astype(np.float32)
Y = (X @ data.uniform(-1, 1, (5, 1)) + 0.1).astype(np.float32)
W1 = data.uniform(-0.5, 0.5, (4, 5)).astype(np.float32)
W2 = data.uniform(-0.5, 0.5, (1, 4)).astype(np.float32)
# this worker's shard: its slice of every global batch, in order
shard = np.concatenate([np.arange(s * global_batch + rank * rows_per_step, s * global_batch + (rank + 1) * rows_per_step)
                        for s in range(opts.steps)])
x_mine, y_mine = X[shard], Y[shard]


def maybe_die(step):
    if rank == opts.kill_rank and step == opts.kill_after:
        os.kill(os.getpid(), signal.SIGKILL)


if opts.mode == "gluon":
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu", in_units=5), mx.gluon.nn.Dense(1, in_units=4))
    net.initialize(ctx=dev)
    net[0].weight.set_data(mx.nd.array(W1, ctx=dev))
    net[1].weight.set_data(mx.nd.array(W2, ctx=dev))
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9}, kvstore=kv)
    loss_fn = mx.gluon.loss.L2Loss()
    for step in range(opts.steps):
        maybe_die(step)
        sl = slice(step * rows_per_step, (step + 1) * rows_per_step)
        with mx.autograd.record():
            loss = loss_fn(net(mx.nd.array(x_mine[sl], ctx=dev)), mx.nd.array(y_mine[sl], ctx=dev))
        loss.backward()
        trainer.step(global_batch)        # MXNet: rescale_grad = 1 / batch_size; the workers' gradients add up
    weights = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
else:
    data_sym = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data_sym, num_hidden=4, name="fc1")
    out = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.relu(fc1), num_hidden=1, name="fc2"),
                                        name="lro")
    it = mx.io.NDArrayIter(x_mine, y_mine, rows_per_step, label_name="lro_label")
    mod = mx.mod.Module(out, label_names=["lro_label"], context=dev)
    init = {"fc1_weight": W1 * (1 + rank), "fc1_bias": np.zeros(4, np.float32), "fc2_weight": W2,
            "fc2_bias": np.zeros(1, np.float32)}

    def die_at(param):
        maybe_die(param.nbatch)

    mod.fit(it, num_epoch=1, kvstore=kv, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            arg_params={k: mx.nd.array(v) for k, v in init.items()}, batch_end_callback=die_at)
    weights = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}

os.makedirs(opts.out, exist_ok=True)
np.savez(os.path.join(opts.out, f"{opts.mode}_rank{rank}.npz"), **weights)
print(f"rank {rank} of {workers}: done", flush=True)
