"""Op-checker cases for ops/diag_cumsum.py: diag, _np_diag, _np_diagonal, _diag_scatter, _np_cumsum.
References use explicit index loops."""
import numpy as np

from op_checker import Case


def ref_build(v, k=0, **_):
    n = v.shape[0] + abs(k)
    out = np.zeros((n, n), v.dtype)
    for i, x in enumerate(v):
        out[i + max(-k, 0), i + max(k, 0)] = x
    return out


def ref_extract(x, k=0, axis1=0, axis2=1):
    m = np.moveaxis(x, (axis1 % x.ndim, axis2 % x.ndim), (-2, -1))
    n = max(0, min(m.shape[-2] + min(k, 0), m.shape[-1] - max(k, 0)))
    out = np.zeros(m.shape[:-2] + (n,), x.dtype)
    for i in range(n):
        out[..., i] = m[..., i + max(-k, 0), i + max(k, 0)]
    return out


def ref_diag(x, k=0, axis1=0, axis2=1):
    return ref_build(x, k) if x.ndim == 1 else ref_extract(x, k, axis1, axis2)


def ref_scatter(g, like, k=0, axis1=0, axis2=1):
    out = np.zeros(like.shape, g.dtype)
    m = np.moveaxis(out, (axis1 % like.ndim, axis2 % like.ndim), (-2, -1))
    for i in range(g.shape[-1]):
        m[..., i + max(-k, 0), i + max(k, 0)] = g[..., i]
    return out


def ref_cumsum(a, axis=None, dtype=None):
    x = a.reshape(-1) if axis is None else np.moveaxis(a, axis, 0)
    out = np.zeros(x.shape, dtype or (np.int64 if a.dtype == bool else a.dtype))
    acc = np.zeros(x.shape[1:], np.float64)
    for i in range(x.shape[0]):
        acc = acc + x[i]
        out[i] = acc
    return out if axis is None else np.moveaxis(out, 0, axis)


CASES = [
    Case("diag", [(3,)], ref=ref_diag, name="build"),
    Case("diag", [(2,)], attrs={"k": -2}, ref=ref_diag, name="build_below"),
    Case("diag", [(3, 4)], attrs={"k": 1}, ref=ref_diag, name="extract"),
    Case("diag", [(2, 3, 4)], attrs={"k": -1, "axis1": 2, "axis2": 0}, ref=ref_diag, name="extract_3d"),
    Case("_np_diag", [(3,)], attrs={"k": 1}, ref=ref_diag, name="build"),
    Case("_np_diag", [(4, 3)], attrs={"k": -1}, ref=ref_diag, name="extract"),
    Case("_np_diagonal", [(2, 3, 4)], attrs={"offset": 1, "axis1": -1, "axis2": 1},
         ref=lambda x, offset=0, axis1=0, axis2=1: ref_extract(x, offset, axis1, axis2)),
    Case("_np_diagonal", [(3, 3)], ref=lambda x, **a: ref_extract(x), name="default"),
    Case("_diag_scatter", [(3, 2), (2, 3, 4)], attrs={"k": -1, "axis1": 2, "axis2": 0}, ref=ref_scatter,
         grad=(0,)),
    Case("_np_cumsum", [(2, 3, 4)], ref=ref_cumsum, name="flat"),
    Case("_np_cumsum", [(2, 3, 4)], attrs={"axis": 1}, ref=ref_cumsum, name="axis1"),
    Case("_np_cumsum", [(3, 2)], attrs={"axis": -1, "dtype": "float64"}, ref=ref_cumsum, name="float64"),
]
