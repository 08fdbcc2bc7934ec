"""Op-checker cases for ops/interleaved_matmul.py: the interleaved attention matmuls against plain
per-batch, per-head loops, and div_sqrt_dim."""
import numpy as np

from op_checker import Case

S, B, H, D, SQ = 3, 2, 2, 2, 2


def _part(x, b, h, parts, part):
    """(S, B, H*parts*D) -> head h's part of batch b, (S, D)."""
    d = x.shape[2] // (H * parts)
    return x[:, b, (h * parts + part) * d:(h * parts + part + 1) * d]


def _qk(qx, qparts, kx, kparts, kpart, heads):
    out = []
    for b in range(qx.shape[1]):
        for h in range(heads):
            q, k = _part(qx, b, h, qparts, 0), _part(kx, b, h, kparts, kpart)
            out.append(q @ k.T / np.sqrt(q.shape[1]))
    return np.stack(out)


def _valatt(x, parts, part, att, heads):
    nb = x.shape[1]
    d = x.shape[2] // (heads * parts)
    out = np.zeros((att.shape[1], nb, heads * d))
    for b in range(nb):
        for h in range(heads):
            out[:, b, h * d:(h + 1) * d] = att[b * heads + h] @ _part(x, b, h, parts, part)
    return out


CASES = [
    Case("_contrib_interleaved_matmul_selfatt_qk", [(S, B, H * 3 * D)], attrs={"heads": H},
         ref=lambda x, heads: _qk(x, 3, x, 3, 1, heads)),
    Case("_contrib_interleaved_matmul_selfatt_valatt", [(S, B, H * 3 * D), (B * H, S, S)], attrs={"heads": H},
         ref=lambda x, att, heads: _valatt(x, 3, 2, att, heads)),
    Case("_contrib_interleaved_matmul_encdec_qk", [(SQ, B, H * D), (S, B, H * 2 * D)], attrs={"heads": H},
         ref=lambda q, kv, heads: _qk(q, 1, kv, 2, 0, heads)),
    Case("_contrib_interleaved_matmul_encdec_valatt", [(S, B, H * 2 * D), (B * H, SQ, S)], attrs={"heads": H},
         ref=lambda kv, att, heads: _valatt(kv, 2, 1, att, heads)),
    Case("_contrib_div_sqrt_dim", [(2, 3, 4)], ref=lambda x: x / 2.0),
]
