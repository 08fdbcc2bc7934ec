"""The inference passes (BatchNorm folded into convolutions, conv + bias + relu in one call, 1x1
convolutions as matrix products: ``compiler/passes/fold_affine.py``, ``fuse_activation.py``,
``as_matmul.py``; on the oneDNN path the folded BatchNorm and the relu are post-ops of the
convolution primitive) against the same program without them, measured side by side in one run and
printed as ratios.

Workload: ResNet-50 v2 from the model zoo (random weights and random BatchNorm statistics, so no
fold is trivial), hybridized with static_alloc + static_shape, forward in predict mode on
``--size`` images at batch 1 and 32, on each convolution path this process has
(``ops/conv_path.py``: ``numpy``, and ``onednn`` when its library loads). Variants, each its own
network with the same parameters:

* ``off``: no inference passes (``cached_op.USE_PREDICT_PASSES = False`` when it was built),
* ``on``: the default (all three passes, and on the oneDNN path the layout plan:
  ``compiler/passes/layout.py``),
* ``no-layout`` (oneDNN path only): the passes without the layout plan (``layout.USE_LAYOUT_PLAN =
  False`` when its programs were compiled),
* ``on+gemm`` (oneDNN path only): also 1x1 convolutions as matrix products on that path
  (``conv_fused.GEMM_ON_ONEDNN``; off by default: this variant shows why).

Timing: every round runs every variant once per batch size (alternating, so a slow spell of the
shared machine hits all alike); each variant's best round is reported, and the ratio is
``off / variant`` (above 1: the passes make it faster). The outputs of the variants are checked
equal first. Threads: as the process is configured (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``);
the load average is printed before and after.

Run: python benchmarks/inference_passes.py [--rounds N] [--size S] [--paths numpy,onednn]
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.compiler import cached_op  # noqa: E402
from hybridlab.compiler.passes import layout  # noqa: E402
from hybridlab.gluon.model_zoo import vision  # noqa: E402
from hybridlab.ops import conv_fused, conv_path  # noqa: E402

BATCHES = (1, 32)


def build(passes, params=None):
    """ResNet-50 v2, hybridized; its predict programs built with or without the inference passes."""
    net = vision.resnet50_v2()
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 3, 32, 32)))              # parameters get their shapes
    rng = np.random.RandomState(0)
    for k, p in enumerate(net.collect_params().values()):
        if params is not None:
            p.set_data(params[k])
        elif p.name.endswith(("gamma", "beta", "running_mean", "moving_mean")):
            p.set_data(mx.nd.array(rng.randn(*p.shape).astype("float32") * 0.1))
        elif p.name.endswith(("running_var", "moving_var")):
            p.set_data(mx.nd.array(rng.rand(*p.shape).astype("float32") + 0.5))
    net.hybridize(static_alloc=True, static_shape=True)
    saved = cached_op.USE_PREDICT_PASSES
    cached_op.USE_PREDICT_PASSES = passes
    try:
        net(mx.nd.zeros((1, 3, 32, 32)))          # the cached op is built now
    finally:
        cached_op.USE_PREDICT_PASSES = saved
    return net, [p.data() for p in net.collect_params().values()]


def with_flag(module, name, value, call):
    """``call`` run with ``module.name`` set to ``value`` (restored after): the flags a variant compiles
    or runs with."""
    def run(x):
        saved = getattr(module, name)
        setattr(module, name, value)
        try:
            return call(x)
        finally:
            setattr(module, name, saved)
    return run


def timed(net, x):
    start = time.perf_counter()
    net(x).wait_to_read()
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--paths", default=",".join(conv_path.available_paths()))
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 CPUs: above 2 the machine is shared)")
    off, params = build(False)
    on, _ = build(True, params)
    unplanned = with_flag(layout, "USE_LAYOUT_PLAN", False, build(True, params)[0])
    rng = np.random.RandomState(1)
    xs = {b: mx.nd.array(rng.rand(b, 3, args.size, args.size).astype("float32")) for b in BATCHES}
    for path in args.paths.split(","):
        with conv_path.use(path):
            variants = {"off": lambda x: off(x), "on": lambda x: on(x)}
            if path == "onednn":
                variants["no-layout"] = unplanned
                variants["on+gemm"] = with_flag(conv_fused, "GEMM_ON_ONEDNN", True, on)
            ref = {b: off(xs[b]).asnumpy() for b in BATCHES}
            for name, fn in variants.items():
                for b in BATCHES:
                    got = fn(xs[b]).asnumpy()
                    err = np.abs(got - ref[b]).max() / max(np.abs(ref[b]).max(), 1e-30)
                    assert err < 1e-4, f"{name} batch {b}: outputs differ by {err:.2e} (relative)"
            times = {(name, b): [] for name in variants for b in BATCHES}
            for _ in range(args.rounds):
                for b in BATCHES:
                    for name, fn in variants.items():
                        start = time.perf_counter()
                        fn(xs[b]).wait_to_read()
                        times[(name, b)].append(time.perf_counter() - start)
            for b in BATCHES:
                base = min(times[("off", b)])
                cells = [f"off {base * 1e3:8.1f} ms"]
                for name in variants:
                    if name != "off":
                        t = min(times[(name, b)])
                        cells.append(f"{name} {t * 1e3:8.1f} ms  ratio off/{name} {base / t:5.2f}x")
                print(f"ResNet-50 v2 forward {path:6s} batch {b:2d} ({args.size}x{args.size}): " + " | ".join(cells))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
