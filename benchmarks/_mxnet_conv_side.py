"""The MXNet 1.9.1 half of conv_paths.py and cnn_vs_mxnet.py, run by ``$HYBRIDLAB_MXNET_PYTHON`` (a
separate venv: MXNet 1.9.1 needs NumPy < 1.24; its pip wheel runs convolutions on oneDNN).

``python _mxnet_conv_side.py ROUNDS SIZE NET:BATCH[,NET:BATCH...]`` (conv_paths.py) times the model
zoo's forward (hybridized, static_alloc + static_shape, random weights) for the networks and batch
sizes named and prints one JSON object: ``{"forward": {"<net>/<batch>": seconds}, ...}``.

``python _mxnet_conv_side.py --serve`` (cnn_vs_mxnet.py) answers requests, one JSON object a line on
stdin, with one ``@@ {json}`` line each on stdout, so the caller can alternate its own timings with
MXNet's workload by workload. The workloads are :class:`Workloads`, written against the Gluon API
only: cnn_vs_mxnet.py runs the same class with hybridlab as ``mx``, so both sides run the same code on
the same files (parameters saved by hybridlab, inputs, data order).
"""
import json
import os
import sys
import time
import timeit

import numpy as np


def best(fn, number, rounds):
    """Best seconds per call over ``rounds`` timings of ``number`` calls, after one warm-up call."""
    fn()
    return min(timeit.timeit(fn, number=number) / number for _ in range(rounds))


class Workloads:
    """The benchmark's workloads on the framework ``mx`` (hybridlab or MXNet: Gluon API only), all read
    from files the caller wrote (``.params`` from hybridlab's ``save_parameters``, ``.npy`` inputs).

    ``prepare(spec)`` builds workload ``spec["key"]`` and times its first call (hybridized: trace, graph
    passes, code generation or MXNet's graph build, and the run), ``time(key, number)`` the best of
    ``number`` later calls, ``lenet(spec)`` a whole LeNet training run. A tiny network is built and run
    once first, so that the first-call times hold no process-wide start-up (library loading)."""

    def __init__(self, mx):
        self.mx, self.jobs = mx, {}
        nn = mx.gluon.nn
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Dense(2))
        net.initialize()
        net.hybridize(static_alloc=True, static_shape=True)
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
        self._train_step(net, trainer, mx.nd.ones((2, 3, 8, 8)), mx.nd.array([0, 1]))()

    def _train_step(self, net, trainer, x, y):
        mx = self.mx
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

        def step():
            with mx.autograd.record():
                loss = loss_fn(net(x), y).mean()
            loss.backward()
            trainer.step(1)
            mx.nd.waitall()
            return loss
        return step

    def prepare(self, spec):
        """Build ``spec`` (key, kind forward|train, net, classes, params, input, optimizer) and run its
        first call: ``{"first": seconds, "out": first rows of the output (or the first step's loss)}``."""
        mx = self.mx
        net = mx.gluon.model_zoo.vision.get_model(spec["net"], classes=spec["classes"])
        net.load_parameters(spec["params"])
        net.hybridize(static_alloc=True, static_shape=True)
        x = mx.nd.array(np.load(spec["input"]))
        if spec["kind"] == "train":
            y = mx.nd.array(np.arange(x.shape[0]) % spec["classes"])
            trainer = mx.gluon.Trainer(net.collect_params(), "sgd", spec["optimizer"])
            fn = self._train_step(net, trainer, x, y)
        else:
            def fn():
                out = net(x)
                out.wait_to_read()
                return out
        start = time.perf_counter()
        out = fn()
        first = time.perf_counter() - start
        self.jobs[spec["key"]] = fn
        return {"first": first, "out": np.atleast_1d(out.asnumpy())[:2].reshape(-1).tolist()}

    def time(self, key, number):
        """Best seconds of ``number`` calls of the prepared workload ``key`` (each timed alone)."""
        fn, times = self.jobs[key], []
        for _ in range(number):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    def drop(self, key):
        """Forget workload ``key`` (its network and buffers)."""
        self.jobs.pop(key, None)
        return True

    def lenet(self, spec):
        """Lesson 04's LeNet-like network on scikit-learn's digits (``spec["data"]``: the .npz with the
        training and test sets and one index order per epoch), Adam at 0.005, batches of 64, starting
        from ``spec["params"]``: seconds for the whole run (hybridized first call included), the last
        epoch's mean loss and the test accuracy."""
        mx = self.mx
        nn = mx.gluon.nn
        d = np.load(spec["data"])
        net = nn.HybridSequential()
        net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(64, activation="relu"), nn.Dense(10))
        net.load_parameters(spec["params"])
        net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.005})
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        x_train, y_train, batch = d["x_train"], d["y_train"], 64
        start = time.perf_counter()
        for order in d["orders"]:
            losses = []
            for i in range(0, len(order), batch):
                idx = order[i:i + batch]
                data, label = mx.nd.array(x_train[idx]), mx.nd.array(y_train[idx])
                with mx.autograd.record():
                    loss = loss_fn(net(data), label)
                loss.backward()
                trainer.step(data.shape[0])
                losses.append(loss.mean())
            mx.nd.waitall()
        seconds = time.perf_counter() - start
        epoch_loss = float(np.mean([v.asscalar() for v in losses]))
        acc = float((net(mx.nd.array(d["x_test"])).asnumpy().argmax(axis=1) == d["y_test"]).mean())
        return {"seconds": seconds, "loss": epoch_loss, "accuracy": acc}


def serve():
    """Answer ``{"op": "prepare"|"time"|"drop"|"lenet"|"info", ...}`` lines until stdin closes."""
    import mxnet as mx
    work = Workloads(mx)
    for line in sys.stdin:
        req = json.loads(line)
        op = req.pop("op")
        try:
            if op == "info":
                res = {"version": mx.__version__, "mkldnn": mx.runtime.Features().is_enabled("MKLDNN"),
                       "omp_threads": os.environ.get("OMP_NUM_THREADS")}
            else:
                res = getattr(work, op)(**req)
        except Exception as err:  # noqa: BLE001 - reported to the caller, which prints it
            res = {"error": f"{type(err).__name__}: {err}"[:300]}
        print("@@ " + json.dumps(res), flush=True)


def main():
    if sys.argv[1:] == ["--serve"]:
        return serve()
    rounds, size = int(sys.argv[1]), int(sys.argv[2])
    jobs = [job.split(":") for job in sys.argv[3].split(",")]
    import mxnet as mx
    from mxnet.gluon.model_zoo import vision
    res = {"version": mx.__version__, "mkldnn": mx.runtime.Features().is_enabled("MKLDNN"), "forward": {}}
    nets = {}
    for name, batch in jobs:
        if name not in nets:
            net = vision.get_model(name)
            net.initialize(mx.init.Xavier())
            net.hybridize(static_alloc=True, static_shape=True)
            nets[name] = net
        x = mx.nd.array(np.random.default_rng(0).standard_normal((int(batch), 3, size, size)).astype(np.float32))
        res["forward"][f"{name}/{batch}"] = best(lambda: nets[name](x).wait_to_read(), 1, rounds)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
