"""The MXNet 1.9.1 half of cached_op_vs_frameworks.py, run by ``$HYBRIDLAB_MXNET_PYTHON`` (a separate
venv: MXNet 1.9.1 needs NumPy < 1.24). Reads the MLP weights from the .npz named on the command line,
times MXNet hybridized (static_alloc + static_shape) forward and training steps (the caller runs
this once per round, between its own contenders' rounds) and prints one JSON object.
"""
import json
import os
import sys
import timeit

import numpy as np


def best(fn, number, rounds):
    """Best seconds per call over ``rounds`` timings of ``number`` calls, after ``number`` warm-up calls."""
    timeit.timeit(fn, number=number)
    return min(timeit.timeit(fn, number=number) / number for _ in range(rounds))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _hand_numpy import mlp_forward  # noqa: E402


def main():
    weights, rounds = sys.argv[1], int(sys.argv[2])
    batches = [int(b) for b in sys.argv[3].split(",")]
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    p = dict(np.load(weights))
    res = {"version": mx.__version__, "numpy": np.__version__, "forward": {}, "train": {}}

    def mlp():
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
        net.initialize()
        net(mx.nd.zeros((1, 512)))
        for i, d in enumerate(net):
            d.weight.set_data(mx.nd.array(p[f"w{i}"]))
            d.bias.set_data(mx.nd.array(p[f"b{i}"]))
        return net

    net = mlp()
    net.hybridize(static_alloc=True, static_shape=True)
    by_hand = mlp_forward(p)
    for b in batches:
        xn = np.random.default_rng(b).standard_normal((b, 512)).astype(np.float32)
        x = mx.nd.array(xn)
        out = net(x).asnumpy()
        np.testing.assert_allclose(out, by_hand(xn), rtol=1e-3, atol=1e-4)
        number = max(5, 2000 // b)
        res["forward"][b] = best(lambda: net(x).wait_to_read(), number, rounds)

    def step_fn(net, x, y, trainer):
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

        def step():
            with autograd.record():
                loss = loss_fn(net(x), y).mean()
            loss.backward()
            trainer.step(1)
            loss.wait_to_read()
        return step

    batch = 64
    x = mx.nd.array(np.random.default_rng(0).standard_normal((batch, 512)).astype(np.float32))
    y = mx.nd.array(np.arange(batch) % 2)
    tnet = mlp()
    tnet.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(tnet.collect_params(), "sgd", {"learning_rate": 0.01})
    res["train"]["mlp"] = best(step_fn(tnet, x, y, trainer), 20, rounds)

    lenet = nn.HybridSequential()
    lenet.add(nn.Conv2D(6, kernel_size=5, activation="relu"), nn.MaxPool2D(2, 2),
              nn.Conv2D(16, kernel_size=3, activation="relu"), nn.MaxPool2D(2, 2),
              nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    lenet.initialize()
    lenet.hybridize(static_alloc=True, static_shape=True)
    xl = mx.nd.array(np.random.default_rng(1).standard_normal((batch, 1, 28, 28)).astype(np.float32))
    yl = mx.nd.array(np.arange(batch) % 10)
    trainer = gluon.Trainer(lenet.collect_params(), "sgd", {"learning_rate": 0.01})
    res["train"]["lenet"] = best(step_fn(lenet, xl, yl, trainer), 5, rounds)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
