"""Op-checker cases for ops/histogram.py: _histogram (equal bins over a range, or given edges) and
_npi_searchsorted, and _npi_bincount. Values on bin edges and integer data with a fractional range are binned as
MXNet 1.9.1 bins them (expected counts from MXNet)."""
import numpy as np

from op_checker import Case

F32 = np.float32


def _uniform_ref(data, bin_cnt, range):   # noqa: A002
    lo, hi = range
    i = np.arange(bin_cnt + 1)
    edges = ((lo * (bin_cnt - i) + hi * i) / bin_cnt).astype(data.dtype)
    counts, _ = np.histogram(data.astype(np.float64), bins=bin_cnt, range=(lo, hi))
    return counts.astype(np.int64), edges


def _edges_ref(data, bins):
    counts, _ = np.histogram(data, bins=bins)
    return counts.astype(np.int64), bins


def _fixed(counts, edges, dtype=F32):
    return lambda *args, **attrs: (np.array(counts, np.int64), np.array(edges, dtype))


TENTHS = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], F32)

CASES = [
    Case("_histogram", [(3, 4)], attrs={"bin_cnt": 4, "range": (-1.5, 1.5)}, grad=(), ref=_uniform_ref),
    Case("_histogram", [TENTHS], attrs={"bin_cnt": 3, "range": (0.1, 0.7)}, grad=(),
         ref=_fixed([2, 2, 3], [0.1, 0.3, 0.5, 0.7]), name="values_on_edges"),
    Case("_histogram", [np.array([0, 1, 2, 3], np.int32)], attrs={"bin_cnt": 4, "range": (0, 1)}, grad=(),
         ref=_fixed([0, 1, 0, 1], [0, 0, 0, 0, 1], np.int32), name="int_fractional_edges"),
    Case("_histogram", [np.array([0.0, 1.0, 2.0, 2.5, 6.0, np.nan, np.inf], F32)],
         attrs={"bin_cnt": 4, "range": (2, 2)}, grad=(),
         ref=_fixed([0, 0, 1, 1], [1.5, 1.75, 2.0, 2.25, 2.5]), name="empty_range_widened"),
    Case("_histogram", [(2, 5), np.array([-1.0, 0.0, 0.5, 2.0], F32)], grad=(), ref=_edges_ref, name="edges"),
    Case("_histogram", [np.array([0.29999, 0.3, 0.30001, 0.6, 0.7, -0.1], F32), np.array([0, 0.3, 0.6], F32)],
         grad=(), ref=_fixed([1, 3], [0, 0.3, 0.6]), name="edges_right_closed_last"),
    Case("_npi_searchsorted", [np.array([-1.0, 0.0, 0.5, 0.5, 2.0], F32), (2, 3)], grad=(),
         ref=lambda a, v, side="left": np.searchsorted(a, v, side=side).astype(np.int64)),
    Case("_npi_searchsorted", [np.array([-1.0, 0.0, 0.5, 0.5, 2.0], F32), np.array([0.5, -3.0, 2.0, 9.0], F32)],
         attrs={"side": "right"}, grad=(), ref=lambda a, v, side: np.searchsorted(a, v, side=side).astype(np.int64),
         name="right_ties"),
    Case("_npi_bincount", [np.array([1, 3, 3, 0], np.int32)], attrs={"minlength": 6}, grad=(),
         ref=lambda x, minlength: np.bincount(x, minlength=minlength).astype(x.dtype)),
    Case("_npi_bincount", [np.array([2, 0, 2], np.int8), np.array([0.5, 1.0, 2.0], F32)],
         attrs={"has_weights": True}, grad=(),
         ref=lambda x, w, has_weights: np.bincount(x, w).astype(w.dtype), name="weights"),
    Case("_npi_bincount", [np.zeros((0,), np.int64)], attrs={"minlength": 3}, grad=(),
         ref=lambda x, minlength: np.zeros(3, np.int64), name="empty"),
]
