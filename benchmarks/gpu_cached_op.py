"""The cached op on a GPU (CuPy), measured side by side in one run and printed as ratios.

Part 1, the tutorial MLP forward at batch 1 and 1024 and a LeNet training step at batch 64 (forward +
backward + SGD update): imperative vs hybridized vs hybridized with static_alloc (ratios to imperative).

Part 2, the CNN workloads of ``cnn_vs_mxnet.py`` on the GPU: ResNet-18 v1, ResNet-50 v2 and MobileNet
1.0 forward on 224x224 images at batch 1 and ``--batch`` (32), and a ResNet-18 v1 training step (SGD
with momentum, softmax cross-entropy) at ``--batch`` on ``--train-size`` (112) images. Each runs
hybridized and hybridized with static_alloc + static_shape, on both GPU convolution paths
(``ops/conv_path.py``): cuDNN and the im2col code run by CuPy. Ratios: static_alloc / plain hybridized
(the issue's target: <= 1.0), and cuDNN / im2col (below 1 cuDNN is faster). Where PyTorch and
torchvision see the GPU, their ResNet-18 and ResNet-50 (v1.5) run in the same rounds as a reference
(cuDNN, TF32 off, measured algorithms): the last column is hybridlab's best time over PyTorch's.

Every call ends with a device synchronisation; each contender's best of ``--rounds`` rounds of
``--number`` calls is kept. Exits with a message where no CUDA device exists.

Run: PYTHONPATH=kernel_lib python benchmarks/gpu_cached_op.py [--rounds 3] [--number 20] [--only mlp,cnn]
"""
import argparse
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import hybridlab as mx  # noqa: E402
from cached_op_vs_frameworks import MODES, hl_lenet, hl_mlp, hl_train_step  # noqa: E402
from hybridlab.ops import conv_path, cudnn  # noqa: E402

HYBRID_MODES = {m: MODES[m] for m in ("hybridized", "static_alloc")}


def synced(fn, path=None):
    """``fn`` followed by a device synchronisation, on convolution ``path`` when given."""
    def call():
        if path is None:
            out = fn()
        else:
            with conv_path.use(path):
                out = fn()
        mx.nd.waitall()
        return out
    return call


def best(fns, number, rounds):
    times = {}
    for key, fn in fns.items():
        fn()
        timeit.timeit(fn, number=max(1, number // 4))
    for _ in range(rounds):                   # rounds interleave the contenders
        for key, fn in fns.items():
            t = timeit.timeit(fn, number=number) / number
            times[key] = min(times.get(key, t), t)
    return times


def mlp_workloads():
    """Models built under ``with mx.gpu(0)``: parameters and inputs live on the GPU."""
    with mx.gpu(0):
        for batch in (1, 1024):
            x = mx.nd.random.normal(shape=(batch, 512))
            yield f"MLP forward batch {batch}", {m: synced(lambda net=hl_mlp(hybridize=h), x=x: net(x))
                                               for m, h in MODES.items()}
        x = mx.nd.random.normal(shape=(64, 1, 28, 28))
        y = mx.nd.array([i % 10 for i in range(64)])
        yield "LeNet train step batch 64", {m: synced(hl_train_step(hl_lenet(hybridize=h), x, y))
                                            for m, h in MODES.items()}


def _zoo(name, classes, mode):
    from hybridlab.gluon.model_zoo import vision
    with mx.name.NameManager():
        net = getattr(vision, name)(classes=classes)
    mx.random.seed(0)
    net.initialize(mx.init.Xavier(), device=mx.gpu(0))
    net.hybridize(**HYBRID_MODES[mode])
    return net


def _contenders(paths, build, call):
    """``{(path, mode): synced call}``: ``build(mode)`` makes the network on the GPU with ``path`` selected,
    ``call(net)`` the function timed (run with ``path`` selected too)."""
    fns = {}
    for path in paths:
        for mode in HYBRID_MODES:
            with mx.gpu(0), conv_path.use(path):
                net = build(mode)
            fns[path, mode] = synced(call(net), path)
    return fns


# torchvision's networks as a reference where PyTorch sees the GPU (their ResNet-50 is v1.5, not v2)
TORCH_NETS = {"resnet18_v1": "resnet18", "resnet50_v2": "resnet50"}


def _torch():
    """``(torch, torchvision)`` set up like hybridlab's cuDNN path (float32 without TF32, measured
    algorithms as MXNet's default cudnn_tune), or ``None`` where they or a GPU are missing."""
    try:
        import torch
        import torchvision
    except ImportError:
        return None
    try:
        if not torch.cuda.is_available():
            return None
    except RuntimeError:
        return None
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    return torch, torchvision


def _torch_call(tt, name, classes, x, y=None):
    """One synced forward (``y`` None) or SGD-momentum training step of torchvision's ``name``."""
    torch, torchvision = tt
    net = getattr(torchvision.models, TORCH_NETS[name])(num_classes=classes).cuda()
    xt = torch.from_numpy(x.astype(np.float32)).cuda()
    if y is None:
        net.eval()

        def call():
            with torch.no_grad():
                net(xt)
            torch.cuda.synchronize()
        return call
    yt = torch.from_numpy(y.astype(np.int64)).cuda()
    opt, loss_fn = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9), torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(net(xt), yt).backward()
        opt.step()
        torch.cuda.synchronize()
    return step


def _with_reference(fns, tt, *args):
    """``fns`` plus PyTorch's contender for ``args`` (of :func:`_torch_call`), when ``tt`` has PyTorch and
    building it works (a failure is printed: the reference must not cost hybridlab's measurements)."""
    if tt is not None:
        try:
            fns["torch", TORCH_NETS[args[0]]] = _torch_call(tt, *args)
        except Exception as err:       # noqa: BLE001 (any error of the optional reference)
            print(f"PyTorch reference of {args[0]} skipped: {type(err).__name__}: {err}")
    return fns


def cnn_workloads(args, paths, tt):
    """``(name, {(path, mode): call})`` of part 2, plus ``("torch", name)`` where ``tt`` has PyTorch."""
    rng = np.random.default_rng(0)
    forward = [("resnet18_v1", 1), ("resnet18_v1", args.batch), ("resnet50_v2", 1), ("resnet50_v2", args.batch),
               ("mobilenet1_0", 1), ("mobilenet1_0", args.batch)]
    for name, batch in forward:
        x_np = rng.standard_normal((batch, 3, 224, 224))
        x = mx.nd.array(x_np, device=mx.gpu(0))
        fns = _contenders(paths, lambda mode, name=name: _zoo(name, 1000, mode), lambda net, x=x: (lambda: net(x)))
        yield f"{name} forward batch {batch}", _with_reference(fns, tt if name in TORCH_NETS else None,
                                                                name, 1000, x_np)
    size = args.train_size
    x_np, y_np = rng.standard_normal((args.batch, 3, size, size)), rng.integers(0, 10, args.batch)
    x, y = mx.nd.array(x_np, device=mx.gpu(0)), mx.nd.array(y_np, device=mx.gpu(0))
    fns = _contenders(paths, lambda mode: _zoo("resnet18_v1", 10, mode), lambda net: hl_train_step(net, x, y, momentum=0.9))
    yield f"resnet18_v1 train step batch {args.batch} {size}px", _with_reference(fns, tt, "resnet18_v1", 10, x_np, y_np)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--number", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--train-size", type=int, default=112)
    parser.add_argument("--only", default="mlp,cnn")
    args = parser.parse_args()
    if mx.num_gpus() == 0:
        print("no CUDA device (CuPy with a GPU is needed): nothing measured")
        return
    only = set(args.only.split(","))
    if "mlp" in only:
        print("== part 1: imperative vs hybridized vs static_alloc (per call; ratio: imperative / this)")
        for name, fns in mlp_workloads():
            times = best(fns, 50, args.rounds)
            base = times["imperative"]
            row = "  ".join(f"{m} {t * 1e6:9.1f} us ({base / t:4.1f}x)" for m, t in times.items())
            print(f"{name:28s} {row}", flush=True)
    if "cnn" in only:
        usable = cudnn.usable(0)
        print(f"== part 2: CNNs on the GPU (cuDNN {cudnn.version()[:3] if cudnn.available() else None}: "
              f"{'usable' if usable else cudnn.unusable_reason(0)})")
        paths = ["cudnn", "numpy"] if usable else ["numpy"]
        tt = _torch()
        print(f"reference: {'PyTorch ' + tt[0].__version__ + ' (cuDNN, TF32 off)' if tt else 'no PyTorch with a GPU'}")
        head = "  ".join(f"{p}/{m[:6]:>6s}" for p in paths for m in HYBRID_MODES)
        print(f"{'workload':38s} {head}   static/plain per path   cudnn/im2col (plain)   torch: time, best/torch")
        for name, fns in cnn_workloads(args, paths, tt):
            times = best(fns, args.number, args.rounds)
            cells = "  ".join(f"{times[p, m] * 1e3:10.2f}ms" for p in paths for m in HYBRID_MODES)
            static = "  ".join(f"{times[p, 'static_alloc'] / times[p, 'hybridized']:5.2f}x" for p in paths)
            lib = (f"{times['cudnn', 'hybridized'] / times['numpy', 'hybridized']:5.2f}x" if usable else "n/a")
            ref = [t for (who, _), t in times.items() if who == "torch"]
            ours = min(times[p, m] for p in paths for m in HYBRID_MODES)
            torch_cell = f"{ref[0] * 1e3:9.2f}ms {ours / ref[0]:5.2f}x" if ref else "n/a"
            print(f"{name:38s} {cells}   {static:22s}   {lib:20s}   {torch_cell}", flush=True)


if __name__ == "__main__":
    main()
