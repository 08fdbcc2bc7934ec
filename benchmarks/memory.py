"""Peak memory of one call of the tutorial MLP (tracemalloc; NumPy reports its buffers to it):
imperative vs hybridized vs hybridized static_alloc, next to what the static memory planner
(compiler/memory.py) computes for the same graph (planned vs imperative vs unplanned bytes) and the
peak of running that plan (buffers bound once, out= kernels; the reference interpreter ``execute``).

Run: python benchmarks/memory.py
"""
import os
import sys
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernel_lib"))
sys.path.insert(0, HERE)
import hybridlab as mx  # noqa: E402
from hybridlab.compiler.memory import ArenaPool, execute, plan  # noqa: E402
from hybridlab.ops.context import op_context  # noqa: E402
from hybridlab.symbol.graph import topo_order  # noqa: E402
from cached_op_vs_frameworks import MODES, hl_mlp  # noqa: E402


def peak(fn):
    """Peak bytes allocated (above what was live before) during one ``fn()``; the result is kept
    until the measurement ends, as a caller would keep it."""
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    result = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del out
    return result


def main():
    mx.random.seed(0)
    print(f"{'batch':>6}{'contender':>28}{'peak KiB':>12}{'x imperative':>14}")
    for batch in (1, 64, 1024):
        x = mx.nd.random.normal(shape=(batch, 512))
        rows = {f"hybridlab {m}": peak(lambda net=hl_mlp(None, f): net(x)) for m, f in MODES.items()}
        net = hl_mlp(None, {})
        net(x)
        symbol = net.hybridization.graph
        inputs = [n for n in topo_order(symbol._outputs) if n.is_variable]
        p = plan(symbol, {inputs[0].name: (batch, 512)})
        params = {v.name: v.data().asnumpy() for v in net.collect_params().values()}
        arrays = [x.asnumpy()] + [params[n.name] for n in inputs[1:]]
        views = ArenaPool().bind(p, np)
        ctx = op_context(mx.cpu(), False)
        rows["planned program (execute)"] = peak(lambda: execute(p, views, ctx, symbol._outputs, inputs, arrays))
        ref = rows["hybridlab imperative"]
        for name, b in rows.items():
            print(f"{batch:>6}{name:>28}{b / 1024:>12.1f}{b / ref:>13.2f}x")
        s = p.summary()
        print(f"{'':>6}{'planner (bytes)':>28}  planned {s['planned_bytes']} = buffers {s['buffer_bytes']} "
              f"(allocated once) + per call {s['per_call_bytes']}; imperative {s['imperative_bytes']}; "
              f"unplanned {s['unplanned_bytes']}; {s['buffers']} buffers, {s['inplace']} in place")
    print("\ntarget: static_alloc peak <= imperative (per call; the planned buffers are allocated once, "
          "outside the call)")


if __name__ == "__main__":
    main()
