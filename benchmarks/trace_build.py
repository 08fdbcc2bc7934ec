"""Trace + build time of a 1000-node graph: a 2.0-style HybridBlock whose forward chains 1000
elementwise ops. Times the first hybridized call (deferred-compute trace + shape inference + code
generation + compile + run), then each stage alone on the traced symbol: a fresh CachedOp's first
call (inference + codegen + compile), the static memory plan, and a cached call, next to the
imperative call of the same block. Printed as ratios to one imperative call.

Run: python benchmarks/trace_build.py [--nodes N]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab.compiler import CachedOp  # noqa: E402
from hybridlab.compiler.memory import plan  # noqa: E402
from hybridlab.gluon import HybridBlock  # noqa: E402


class Chain(HybridBlock):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n // 4):
            x = mx.npx.relu(x * 0.5 + 1.0)
            x = mx.np.tanh(x)
        return x


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    args = ap.parse_args()
    x = mx.np.ones((4, 8))
    net = Chain(args.nodes)
    imperative, _ = min(timed(lambda: net(x)) for _ in range(3))
    net.hybridize()
    first, _ = timed(lambda: net(x))
    cached = min(timed(lambda: net(x))[0] for _ in range(5))
    symbol = net.hybridization.graph
    n_ops = sum(1 for n in symbol.get_internals()._outputs if not n[0].is_variable) \
        if hasattr(symbol, "get_internals") else "?"
    op = CachedOp(symbol)
    build, _ = timed(lambda: op(x.as_nd_ndarray() if hasattr(x, "as_nd_ndarray") else x))
    plan_t, p = timed(lambda: plan(symbol, {symbol.list_inputs()[0]: (4, 8)}))
    print(f"graph: {n_ops} op nodes, input (4, 8)\n")
    for name, t in (("imperative call", imperative), ("first hybridized call (trace+build+run)", first),
                    ("CachedOp first call (infer+codegen+compile)", build), ("memory plan", plan_t),
                    ("cached call", cached)):
        print(f"{name:<46}{t * 1e3:>10.2f} ms{t / imperative:>10.2f}x imperative")
    print(f"\nplan: {p!r}")


if __name__ == "__main__":
    main()
