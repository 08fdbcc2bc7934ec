"""Op-checker case for ops/random_zipfian.py (``_sample_unique_zipfian``): on the CPU the reference
re-creates the seeded generator and draws one at a time until ``num_sampled`` distinct classes are
seen (the op draws in blocks of ``max(16, 2 * num_sampled)``: the stream is the same); on a GPU
``gpu_check`` tests distinctness, range and trial counts."""
import math

import numpy as np

from op_checker import Case

SEED = 11


def ref_unique_zipfian(range_max, shape):
    g = np.random.Generator(np.random.PCG64(SEED))
    batch, n = shape
    out, trials = np.zeros((batch, n), np.int64), np.zeros((batch,), np.int64)
    for i in range(batch):
        block = max(16, 2 * n)
        u = g.random(block)
        seen, pos = [], 0
        while len(seen) < n:
            if pos == u.size:     # the op's next block: at least as large as all its draws so far
                u = np.concatenate([u, g.random(max(block, u.size))])
            v = int(math.floor(math.exp(u[pos] * math.log(range_max)) + 0.5)) - 1
            pos += 1
            if v not in seen:
                seen.append(v)
        out[i], trials[i] = seen, pos
    return out, trials


def check(got, *inputs):
    classes, trials = got
    assert classes.shape == (3, 5) and classes.dtype == np.int64 and trials.dtype == np.int64
    assert all(len(set(row.tolist())) == 5 for row in classes) and ((classes >= 0) & (classes < 8)).all()
    assert (trials >= 5).all()


CASES = [
    Case("_sample_unique_zipfian", [], attrs={"range_max": 8, "shape": (3, 5)}, ref=ref_unique_zipfian,
         seed=SEED, grad=(), gpu_check=check),
]
