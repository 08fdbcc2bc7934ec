"""Op-checker cases for ops/ctc.py: CTCLoss against a brute-force reference that sums the
probabilities of every alignment (all C**T paths) collapsing to the label."""
import itertools

import numpy as np

from op_checker import Case


def _collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def ref_ctc(data, label, data_lengths=None, label_lengths=None, use_data_lengths=False, use_label_lengths=False,
            blank_label="first"):
    T, N, C = data.shape
    blank = 0 if blank_label == "first" else C - 1
    pad = 0 if blank_label == "first" else -1
    x = data.astype(np.float64)
    prob = np.exp(x - x.max(axis=2, keepdims=True))
    prob /= prob.sum(axis=2, keepdims=True)
    out = np.zeros(N)
    for n in range(N):
        frames = int(data_lengths[n]) if use_data_lengths else T
        row = [int(v) for v in label[n]]
        if use_label_lengths:
            target = row[:int(label_lengths[n])]
        else:
            target = row[:row.index(pad)] if pad in row else row
        total = sum(np.prod([prob[t, n, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(C), repeat=frames) if _collapse(path, blank) == target)
        out[n] = -np.log(total) if total > 0 else 0.0
    return out


def _labels(rows):
    return lambda rng: np.array(rows, dtype=np.float32)


CASES = [
    Case("CTCLoss", [(4, 3, 3), _labels([[1, 2], [2, 2], [1, 0]])], ref=ref_ctc, grad=[0], name="blank_first"),
    Case("CTCLoss", [(4, 2, 3), _labels([[1, 0], [0, -1]])], ref=ref_ctc, attrs={"blank_label": "last"},
         grad=[0], name="blank_last"),
    Case("CTCLoss", [(5, 2, 3), _labels([[1, 2, 1], [2, 1, 2]]), _labels([5, 3]), _labels([2, 1])], ref=ref_ctc,
         attrs={"use_data_lengths": True, "use_label_lengths": True}, grad=[0], name="lengths"),
]
