"""Imperative dispatch overhead, printed as ratios measured side by side in one run.

1. Per op: hybridlab's imperative call on small arrays vs the raw NumPy expression it wraps.
2. The tutorial MLP (512 -> 256 -> 128 -> 2, relu) forward at batch 1, built from ops, vs the same
   NumPy calls by hand. Target: within 2.5x of hand NumPy.

Run: python benchmarks/dispatch.py   (numbers: best of several interleaved rounds, so background load
hurts both sides alike).
"""
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel_lib"))
import hybridlab as mx  # noqa: E402
from hybridlab import nd  # noqa: E402


def best_time(fn, number, rounds=7):
    return min(timeit.repeat(fn, number=number, repeat=rounds)) / number


def side_by_side(ours, theirs, number):
    """Best per-call times of two callables, measured alternately round by round."""
    t_ours, t_theirs = [], []
    for _ in range(7):
        t_ours.append(timeit.timeit(ours, number=number) / number)
        t_theirs.append(timeit.timeit(theirs, number=number) / number)
    return min(t_ours), min(t_theirs)


def per_op_table():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    bias = rng.standard_normal((16,)).astype(np.float32)
    x, y, wx, bx = nd.array(a), nd.array(b), nd.array(w), nd.array(bias)
    cases = [
        ("broadcast_add", lambda: nd.broadcast_add(x, y), lambda: a + b),
        ("x + y (operator)", lambda: x + y, lambda: a + b),
        ("_mul_scalar", lambda: x * 2.0, lambda: a * np.float32(2.0)),
        ("relu", lambda: nd.relu(x), lambda: np.maximum(a, 0)),
        ("exp", lambda: nd.exp(x), lambda: np.exp(a)),
        ("sum(axis=1)", lambda: nd.sum(x, axis=1), lambda: a.sum(axis=1)),
        ("Reshape", lambda: x.reshape((0, -1, 2)), lambda: a.reshape(4, -1, 2)),
        ("transpose", lambda: nd.transpose(x), lambda: a.T.copy()),
        ("dot(transpose_b)", lambda: nd.dot(x, wx, transpose_b=True), lambda: a @ w.T),
        ("FullyConnected", lambda: nd.FullyConnected(x, wx, bx, num_hidden=16), lambda: a @ w.T + bias),
        ("softmax", lambda: nd.softmax(x), lambda: _np_softmax(a)),
    ]
    print(f"{'op (4x8 float32)':<22}{'hybridlab us':>14}{'numpy us':>11}{'ratio':>8}")
    for name, ours, theirs in cases:
        t_o, t_n = side_by_side(ours, theirs, 2000)
        print(f"{name:<22}{t_o * 1e6:>14.2f}{t_n * 1e6:>11.2f}{t_o / t_n:>8.2f}x")


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_ratio(batch=1):
    rng = np.random.default_rng(0)
    sizes = [(256, 512), (128, 256), (2, 128)]
    ws = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in sizes]
    bs = [rng.standard_normal(s[0]).astype(np.float32) for s in sizes]
    data = rng.standard_normal((batch, 512)).astype(np.float32)
    nws, nbs, ndata = [nd.array(w) for w in ws], [nd.array(b) for b in bs], nd.array(data)

    def ours():
        h = nd.relu(nd.FullyConnected(ndata, nws[0], nbs[0], num_hidden=256))
        h = nd.relu(nd.FullyConnected(h, nws[1], nbs[1], num_hidden=128))
        return nd.FullyConnected(h, nws[2], nbs[2], num_hidden=2)

    def by_hand():
        h = np.maximum(data @ ws[0].T + bs[0], 0)
        h = np.maximum(h @ ws[1].T + bs[1], 0)
        return h @ ws[2].T + bs[2]

    np.testing.assert_allclose(ours().asnumpy(), by_hand(), rtol=1e-4, atol=1e-4)
    t_o, t_n = side_by_side(ours, by_hand, 500)
    return t_o, t_n


def main():
    print(f"hybridlab imperative dispatch vs raw NumPy (numpy {np.__version__})\n")
    per_op_table()
    print()
    for batch in (1, 64):
        t_o, t_n = mlp_ratio(batch)
        print(f"MLP 512-256-128-2 forward, batch {batch:>3}: hybridlab {t_o * 1e6:8.1f} us, hand NumPy "
              f"{t_n * 1e6:8.1f} us, ratio {t_o / t_n:.2f}x" + ("  (target <= 2.5x)" if batch == 1 else ""))


if __name__ == "__main__":
    main()
