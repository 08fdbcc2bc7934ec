"""The oneDNN convolution path against the NumPy one (and MXNet 1.9.1, which runs on oneDNN too),
measured side by side in one run and printed as ratios.

Workloads: ResNet-18 v1 and ResNet-50 v2 from the model zoo (random weights, hybridized with
static_alloc + static_shape) forward on 224x224 images at batch 1 and 32, and one training step
(forward, softmax cross-entropy, backward, SGD update) of ResNet-18 v1 at batch 16 on 112x112.
Contenders: hybridlab on each convolution path (``ops/conv_path.py``), and MXNet 1.9.1 forward when
``$HYBRIDLAB_MXNET_PYTHON`` (or ``.venv-mxnet/bin/python``) has it.

Threads: every contender runs ``--threads`` threads (OMP_NUM_THREADS and OPENBLAS_NUM_THREADS, set
before NumPy and oneDNN load, and passed to MXNet); the default is MXNet's own default, half the
CPUs (at least one), so that the MXNet column compares like with like.

Timing: every round runs every contender (MXNet in its own process, after hybridlab's), and each
contender's best time over the rounds is reported, so a slow spell of a shared machine hits all
alike. The load average is printed before and after: on a busy machine the absolute times mean
little and the ratios are what to read.

Run: python benchmarks/conv_paths.py [--rounds N] [--quick] [--threads N]
"""
import argparse
import json
import os
import subprocess
import sys
import timeit


def _parse_args():
    ap = argparse.ArgumentParser(description="oneDNN vs NumPy convolution path (and MXNet): ResNet ratios")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="batch 8 instead of 32, one round")
    ap.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                    help="threads of every contender (default: MXNet's default, half the CPUs)")
    return ap.parse_args()


ARGS = _parse_args() if __name__ == "__main__" else None
if ARGS is not None:        # before NumPy (OpenBLAS) and libdnnl (OpenMP) read them
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[_var] = str(ARGS.threads)

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.gluon.model_zoo import vision  # noqa: E402
from hybridlab.ops import conv_path, dnnl  # noqa: E402

SIZE, TRAIN_SIZE, TRAIN_BATCH = 224, 112, 16


def best(fn, number, rounds=1):
    """Best seconds per call over ``rounds`` timings of ``number`` calls (after one warm-up call)."""
    fn()
    return min(timeit.timeit(fn, number=number) / number for _ in range(rounds))


def build(name, classes=1000):
    net = vision.get_model(name, classes=classes)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    return net


def images(batch, size, seed=0):
    return mx.nd.array(np.random.default_rng(seed).standard_normal((batch, 3, size, size)).astype(np.float32))


def train_step(path, x, y):
    """One SGD step of ResNet-18 v1 built (and compiled) on ``path``: a closure running it there."""
    with conv_path.use(path):
        mx.random.seed(0)
        net = build("resnet18_v1", classes=10)
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with conv_path.use(path):
            with mx.autograd.record():
                loss = loss_fn(net(x), y).mean()
            loss.backward()
            trainer.step(1)
            loss.wait_to_read()
    return step


def mxnet_python():
    python = os.environ.get("HYBRIDLAB_MXNET_PYTHON") or os.path.join(HERE, "..", ".venv-mxnet", "bin", "python")
    return python if os.path.exists(python) else None


def mxnet_round(python, jobs):
    """MXNet's forward times ``{"<net>/<batch>": s}`` for one round, or a string saying why there are none."""
    if python is None:
        return "not installed (set HYBRIDLAB_MXNET_PYTHON)"
    spec = ",".join(f"{name}:{batch}" for name, batch in jobs)
    try:
        proc = subprocess.run([python, os.path.join(HERE, "_mxnet_conv_side.py"), "1", str(SIZE), spec],
                              capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"error: {err}"[:80]
    if proc.returncode != 0:
        return f"error: {(proc.stderr.strip().splitlines() or ['?'])[-1]}"[:100]
    return json.loads(proc.stdout.strip().splitlines()[-1])["forward"]


def main(args):
    rounds = 1 if args.quick else args.rounds
    big = 8 if args.quick else 32
    paths = conv_path.available_paths()
    if "onednn" not in paths:
        print(f"oneDNN path not available ({dnnl.load_error()}): nothing to compare")
        return
    major, minor, patch, lib = dnnl.version()
    print(f"oneDNN {major}.{minor}.{patch} ({lib}); {os.cpu_count()} CPUs, {args.threads} thread(s) per contender; "
          f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    jobs = [("resnet18_v1", 1), ("resnet18_v1", big), ("resnet50_v2", 1), ("resnet50_v2", big)]
    nets = {name: build(name) for name in dict(jobs)}
    inputs = {batch: images(batch, SIZE) for _, batch in jobs}
    for name, net in nets.items():          # both paths compute the same thing
        outs = []
        for path in paths:
            with conv_path.use(path):
                outs.append(net(inputs[1]).asnumpy())
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-3, atol=1e-3 * np.abs(outs[0]).max(), err_msg=name)
    tx = images(TRAIN_BATCH, TRAIN_SIZE, seed=1)
    ty = mx.nd.array(np.arange(TRAIN_BATCH) % 10)
    steps = {path: train_step(path, tx, ty) for path in paths}
    python = mxnet_python()
    times, mxnet_note = {}, None

    def keep(key, t):
        times[key] = min(times.get(key, t), t)

    for r in range(rounds):
        for name, batch in jobs:
            for path in paths:
                with conv_path.use(path):
                    keep((name, batch, path), best(lambda n=nets[name], x=inputs[batch]: n(x).wait_to_read(),
                                                   1 if batch > 1 else 5))
        for path in paths:
            keep(("train", TRAIN_BATCH, path), best(steps[path], 1))
        got = mxnet_round(python, jobs)
        if isinstance(got, str):
            mxnet_note = got
        else:
            for key, t in got.items():
                name, batch = key.split("/")
                keep((name, int(batch), "mxnet"), t)
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)

    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"{'workload':34} {'numpy':>10} {'onednn':>10} {'onednn/numpy':>13} {'mxnet':>10} {'onednn/mxnet':>13}")
    rows = [(f"{name} forward batch {batch} {SIZE}px", (name, batch)) for name, batch in jobs]
    rows.append((f"resnet18_v1 train step b{TRAIN_BATCH} {TRAIN_SIZE}px", ("train", TRAIN_BATCH)))
    for label, key in rows:
        t_np, t_dn, t_mx = (times.get(key + (p,)) for p in ("numpy", "onednn", "mxnet"))
        mx_cols = (f"{t_mx * 1e3:8.1f}ms {t_dn / t_mx:13.2f}" if t_mx
                   else f"{'-':>10} {'-':>13}")
        print(f"{label:34} {t_np * 1e3:8.1f}ms {t_dn * 1e3:8.1f}ms {t_dn / t_np:13.2f} {mx_cols}")
    if mxnet_note:
        print(f"MXNet: {mxnet_note}")
    print("(ratios are time ratios: below 1 the oneDNN path is faster; MXNet times forward only)")


if __name__ == "__main__":
    main(ARGS)
