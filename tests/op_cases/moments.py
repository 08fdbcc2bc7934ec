"""Op-checker cases for ops/moments.py: moments, _npi_std, _npi_var (two-pass references in float64)."""
import numpy as np

from op_checker import Case


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def ref_moments(x, axes, keepdims=False):
    ax = _axes(axes, x.ndim)
    x = x.astype(np.float64)
    n = np.prod([x.shape[a] for a in ax])
    mean = x.sum(axis=ax, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=ax, keepdims=True) / n
    shape = mean.shape if keepdims else (tuple(d for i, d in enumerate(x.shape) if i not in ax) or (1,))
    return mean.reshape(shape), var.reshape(shape)


def ref_var(a, axis=None, dtype=None, ddof=0, keepdims=False, sqrt=False):
    ax = _axes(axis, a.ndim)
    x = a.astype(np.float64)
    n = np.prod([x.shape[i] for i in ax]) if ax else 1
    mean = x.sum(axis=ax, keepdims=True) / n
    v = ((x - mean) ** 2).sum(axis=ax, keepdims=True) / (n - ddof)
    v = np.sqrt(v) if sqrt else v
    shape = v.shape if keepdims else tuple(d for i, d in enumerate(x.shape) if i not in ax)
    return v.reshape(shape).astype(dtype or a.dtype)


def ref_std(a, **attrs):
    return ref_var(a, sqrt=True, **attrs)


CASES = [
    Case("moments", [(2, 3, 4)], attrs={"axes": (0, 2)}, ref=ref_moments),
    Case("moments", [(2, 3)], attrs={"axes": (-1,), "keepdims": True}, ref=ref_moments, name="keepdims"),
    Case("moments", [(2, 3)], attrs={"axes": (0, 1)}, ref=ref_moments, name="all_axes"),
    Case("_npi_var", [(2, 3, 4)], ref=ref_var),
    Case("_npi_var", [(2, 3, 4)], attrs={"axis": (0, 2), "ddof": 1}, ref=ref_var, name="axes_ddof"),
    Case("_npi_var", [(3, 4)], attrs={"axis": 1, "keepdims": True, "dtype": "float64"}, ref=ref_var,
         name="keepdims_float64"),
    Case("_npi_std", [(2, 3, 4)], ref=ref_std),
    Case("_npi_std", [(3, 4)], attrs={"axis": 0, "ddof": 1}, ref=ref_std, name="ddof"),
    Case("_npi_std", [(2, 3, 2)], attrs={"axis": (1, 2), "keepdims": True}, ref=ref_std, name="keepdims"),
]
