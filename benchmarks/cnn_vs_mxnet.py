"""Convolutional networks, hybridlab against MXNet 1.9.1, measured side by side in one run and printed
as ratios (hybridlab time / MXNet time: below 1 hybridlab is faster).

Workloads (model zoo networks, hybridized with static_alloc + static_shape, the same random weights on
both sides: hybridlab initializes them and writes a ``.params`` file that MXNet loads):

* ResNet-18 v1, ResNet-50 v2 and MobileNet 1.0 forward on 224x224 images at batch 1 and 32;
* one training step (forward, softmax cross-entropy, backward, SGD with momentum 0.9) of ResNet-18 v1
  and ResNet-50 v2 at batch 32 on ``--train-size`` images (default 112x112, a quarter of 224x224's
  work, so that a 2-core machine finishes in minutes; ``--train-size 224`` for the full size);
* LeNet training: lesson 04's LeNet-like network on scikit-learn's digits, Adam, batches of 64,
  ``--epochs`` epochs (default 15) with the same initial weights and the same data order on both
  sides; the whole run is timed (its first, compiling call included) and both sides' final loss and
  test accuracy are printed.

Columns: ``first`` is the first hybridized call of a freshly loaded network (hybridlab: trace, graph
passes, code generation and the run; MXNet: its graph build and the run; a tiny network ran first in
each process, so no library loading is counted), ``steady`` the best later call. ``agree`` is the
largest difference between the two sides' outputs (first two rows; the first step's loss for training)
relative to MXNet's largest value.

Both sides run the same code: ``_mxnet_conv_side.Workloads``, here with hybridlab as ``mx`` and in a
second, long-lived process with MXNet (``$HYBRIDLAB_MXNET_PYTHON`` or ``.venv-mxnet/bin/python``).
Every round times each workload on both sides one after the other (which side goes first alternates
between rounds) and each side's best time over the rounds is kept, so a slow spell of a shared machine
hits both alike. Threads: ``--threads`` for both (OMP_NUM_THREADS and OPENBLAS_NUM_THREADS, set before
NumPy, oneDNN and MXNet load); the default is MXNet's own default, half the CPUs. The load average is
printed before and after: on a busy machine the absolute times mean little and the ratios are what
to read.

Run: python benchmarks/cnn_vs_mxnet.py [--rounds N] [--quick] [--only r18,r50,mobilenet,train,lenet]
     [--batch N] [--train-size N] [--epochs N] [--threads N] [--conv-path numpy|onednn]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

WORKLOADS = ("r18", "r50", "mobilenet", "train", "lenet")


def _parse_args():
    ap = argparse.ArgumentParser(description="CNNs: hybridlab vs MXNet 1.9.1 ratios")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds (each side's best is kept)")
    ap.add_argument("--quick", action="store_true",
                    help="one round, batch 8, training on 64x64, 3 LeNet epochs")
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help=f"comma-separated subset of {','.join(WORKLOADS)} (train: the ResNet training steps "
                         "of the ResNets chosen, r18 and r50)")
    ap.add_argument("--batch", type=int, default=32, help="the large batch (forward and training)")
    ap.add_argument("--train-size", type=int, default=112, help="image size of the training steps")
    ap.add_argument("--epochs", type=int, default=15, help="LeNet epochs")
    ap.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                    help="threads of both sides (default: MXNet's default, half the CPUs)")
    ap.add_argument("--conv-path", default=None, help="hybridlab's convolution path (default: its default)")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.batch, args.train_size, args.epochs = 1, 8, 64, 3
    args.only = [w.strip() for w in args.only.split(",") if w.strip()]
    unknown = sorted(set(args.only) - set(WORKLOADS))
    if unknown:
        ap.error(f"--only: expected names from {WORKLOADS}, got {unknown}")
    return args


ARGS = _parse_args() if __name__ == "__main__" else None
if ARGS is not None:        # before NumPy (OpenBLAS) and libdnnl (OpenMP) read them; MXNet inherits them
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[_var] = str(ARGS.threads)

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from conv_paths import images, mxnet_python  # noqa: E402  (also puts kernel_lib on the path)
from _mxnet_conv_side import Workloads  # noqa: E402
import hybridlab as mx  # noqa: E402
from hybridlab.gluon.model_zoo import vision  # noqa: E402
from hybridlab.ops import conv_path  # noqa: E402

SIZE = 224
NETS = {"r18": "resnet18_v1", "r50": "resnet50_v2", "mobilenet": "mobilenet1.0"}
SETTLE = 0.3        # seconds between the sides: OpenMP workers of the side that just ran stop spinning


class MXNetSide:
    """MXNet's ``Workloads`` in its own process (``_mxnet_conv_side.py --serve``): the same methods, called
    over a pipe. ``note`` says why there is none (not installed, failed to start)."""

    def __init__(self, tmp):
        self.proc, self.note = None, None
        python = mxnet_python()
        if python is None:
            self.note = "not installed (set HYBRIDLAB_MXNET_PYTHON)"
            return
        self.stderr = open(os.path.join(tmp, "mxnet-stderr.txt"), "w+")
        self.proc = subprocess.Popen([python, os.path.join(HERE, "_mxnet_conv_side.py"), "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     text=True, bufsize=1)
        self.info = self.call("info")

    def call(self, op, **kwargs):
        """The answer to one request, or None (and ``note`` set) when the process failed."""
        if self.proc is None:
            return None
        try:
            self.proc.stdin.write(json.dumps({"op": op, **kwargs}) + "\n")
            self.proc.stdin.flush()
            for line in self.proc.stdout:
                if line.startswith("@@ "):
                    res = json.loads(line[3:])
                    if isinstance(res, dict) and "error" in res:
                        self.note = f"{op}: {res['error']}"
                        return None
                    return res
        except (OSError, ValueError) as err:
            self.note = f"error: {err}"
        self.stderr.seek(0)
        self.note = self.note or f"exited: {(self.stderr.read().strip().splitlines() or ['?'])[-1]}"[:160]
        self.proc = None
        return None

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


class HybridlabSide:
    """``Workloads`` on hybridlab, in this process, on ``conv_path`` ``path``."""

    def __init__(self, path):
        self.path = path
        with conv_path.use(path):
            self.work = Workloads(mx)

    def call(self, op, **kwargs):
        with conv_path.use(self.path):
            return getattr(self.work, op)(**kwargs)


def save_params(net_name, classes, tmp):
    """Random (Xavier) parameters of ``net_name`` written by hybridlab: the weights both sides load."""
    mx.random.seed(0)
    net = vision.get_model(net_name, classes=classes)
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 3, 64, 64)))        # every model here ends in global pooling: any size shapes it
    path = os.path.join(tmp, f"{net_name}.params")
    net.save_parameters(path)
    return path


def save_digits(tmp, epochs):
    """Lesson 04's digits split and one shuffled order per epoch, in an .npz both sides read."""
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images / 16.0).astype("float32")[:, None]
    y = d.target.astype("float32")
    perm = np.random.RandomState(0).permutation(len(y))
    x, y = x[perm], y[perm]
    rng = np.random.RandomState(1)
    orders = np.stack([rng.permutation(1437) for _ in range(epochs)])
    path = os.path.join(tmp, "digits.npz")
    np.savez(path, x_train=x[:1437], y_train=y[:1437], x_test=x[1437:], y_test=y[1437:], orders=orders)
    mx.random.seed(7)
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
            nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
            nn.Flatten(), nn.Dense(64, activation="relu"), nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 1, 8, 8)))
    params = os.path.join(tmp, "lenet.params")
    net.save_parameters(params)
    return {"data": path, "params": params}


def jobs_of(args, tmp):
    """The ResNet/MobileNet workloads chosen: ``(label, spec, calls per timing)``."""
    jobs, params, inputs = [], {}, {}

    def input_file(batch, size):
        if (batch, size) not in inputs:
            inputs[batch, size] = os.path.join(tmp, f"x{batch}_{size}.npy")
            np.save(inputs[batch, size], images(batch, size, seed=batch).asnumpy())
        return inputs[batch, size]

    for short in ("r18", "r50", "mobilenet"):
        if short not in args.only:
            continue
        name = NETS[short]
        params[name] = save_params(name, 1000, tmp)
        for batch in (1, args.batch):
            spec = dict(key=f"{name}/forward/{batch}", kind="forward", net=name, classes=1000,
                        params=params[name], input=input_file(batch, SIZE))
            jobs.append((f"{name} forward b{batch} {SIZE}px", spec, 5 if batch == 1 else 1))
    if "train" in args.only:
        for short in ("r18", "r50"):
            name = NETS[short]
            if short not in args.only:
                continue
            spec = dict(key=f"{name}/train/{args.batch}", kind="train", net=name, classes=1000,
                        params=params[name], input=input_file(args.batch, args.train_size),
                        optimizer={"learning_rate": 0.01, "momentum": 0.9})
            jobs.append((f"{name} train step b{args.batch} {args.train_size}px", spec, 1))
    return jobs


def agreement(ours, theirs):
    if ours is None or theirs is None:
        return None
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    return float(np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-30))


def ms(t):
    return f"{t * 1e3:9.1f}ms" if t is not None else f"{'-':>11}"


def ratio(a, b):
    return f"{a / b:7.2f}" if a is not None and b else f"{'-':>7}"


def main(args):
    path = args.conv_path or conv_path.current()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cnn_vs_mxnet-") as tmp:
        jobs = jobs_of(args, tmp)
        ours, theirs = HybridlabSide(path), MXNetSide(tmp)
        info = theirs.info if theirs.proc is not None else None
        version = f"{info['version']}{' (oneDNN)' if info['mkldnn'] else ''}" if info else "-"
        print(f"hybridlab conv path {path}; MXNet {version}; "
              f"{os.cpu_count()} CPUs, {args.threads} thread(s) per side; "
              f"load average before: {' '.join(f'{v:.1f}' for v in load_before)}", flush=True)
        first, best, agree = {}, {}, {}
        for label, spec, _ in jobs:               # build and first call, hybridlab then MXNet
            got = ours.call("prepare", spec=spec)
            time.sleep(SETTLE)
            other = theirs.call("prepare", spec=spec)
            first[label] = (got["first"], other and other["first"])
            agree[label] = agreement(got["out"], other and other["out"])
            print(f"prepared {label}", file=sys.stderr, flush=True)
        sides = (("hl", ours), ("mx", theirs))
        for r in range(args.rounds):
            for label, spec, number in jobs:
                for tag, side in (sides if r % 2 == 0 else sides[::-1]):
                    time.sleep(SETTLE)
                    t = side.call("time", key=spec["key"], number=number)
                    if t is not None:
                        best[label, tag] = min(best.get((label, tag), t), t)
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        for label, spec, _ in jobs:
            ours.call("drop", key=spec["key"])
            theirs.call("drop", key=spec["key"])
        lenet = {}
        if "lenet" in args.only:
            spec = save_digits(tmp, args.epochs)
            for r in range(args.rounds):
                for tag, side in (sides if r % 2 == 0 else sides[::-1]):
                    time.sleep(SETTLE)
                    got = side.call("lenet", spec=spec)
                    if got is not None and got["seconds"] < lenet.get(tag, {"seconds": float("inf")})["seconds"]:
                        lenet[tag] = got
            print("lenet done", file=sys.stderr, flush=True)
        theirs.close()

    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"{'workload':36} {'hl first':>11} {'mx first':>11} {'ratio':>7} "
          f"{'hl steady':>11} {'mx steady':>11} {'ratio':>7} {'agree':>8}")
    for label, _, _ in jobs:
        (f_hl, f_mx), s_hl, s_mx = first[label], best.get((label, "hl")), best.get((label, "mx"))
        a = f"{agree[label]:8.1e}" if agree[label] is not None else f"{'-':>8}"
        print(f"{label:36} {ms(f_hl)} {ms(f_mx)} {ratio(f_hl, f_mx)} {ms(s_hl)} {ms(s_mx)} {ratio(s_hl, s_mx)} {a}")
    if "lenet" in args.only:
        hl, mxr = lenet.get("hl"), lenet.get("mx")
        label = f"lenet digits {args.epochs} epochs (whole run)"
        print(f"{label:36} {'':11} {'':11} {'':7} {ms(hl and hl['seconds'])} {ms(mxr and mxr['seconds'])} "
              f"{ratio(hl and hl['seconds'], mxr and mxr['seconds'])}")
        for tag, res in (("hybridlab", hl), ("MXNet", mxr)):
            if res:
                print(f"  {tag}: last epoch's mean loss {res['loss']:.4f}, test accuracy {res['accuracy']:.3f}")
    if theirs.note:
        print(f"MXNet: {theirs.note}")
    print("(ratios are hybridlab time / MXNet time: below 1 hybridlab is faster; steady = best call over "
          f"{args.rounds} round(s); the ResNet training steps use SGD with momentum on {args.train_size}px images)")


if __name__ == "__main__":
    main(ARGS)
