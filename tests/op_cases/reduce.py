"""Op-checker cases for reductions (sum ... nanprod, _np_*, argmax/argmin, norm)."""
import numpy as np

from op_checker import Case


def _axes(axis, ndim, exclude=False):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    axis = tuple(a % ndim for a in axis)
    return tuple(i for i in range(ndim) if i not in axis) if exclude else axis


def legacy(fn):
    """Reference for an MXNet 1.x reduction: all-axes results without keepdims have shape (1,)."""
    def ref(x, axis=None, keepdims=False, exclude=False):
        out = np.asarray(fn(x, axis=_axes(axis, x.ndim, exclude), keepdims=keepdims))
        return out.reshape(1) if out.ndim == 0 else out.astype(x.dtype)
    return ref


def spread(scaled):
    """Reference for _backward_sum / _backward_mean: ograd broadcast back over the reduced axes."""
    def ref(og, x, axis=None, keepdims=False, exclude=False):
        axes = _axes(axis, x.ndim, exclude)
        g = og.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
        n = int(np.prod([x.shape[i] for i in axes])) if scaled else 1
        return np.broadcast_to(g / n, x.shape).astype(og.dtype)
    return ref


def with_nan(rng):
    x = rng.standard_normal((3, 4))
    x[0, 1] = x[2, 3] = np.nan
    return x


def _np_ref(fn):
    def ref(x, axis=None, keepdims=False, dtype=None, initial=None):
        return np.asarray(fn(x, axis=axis, keepdims=keepdims, dtype=dtype))
    return ref


def _argref(fn, legacy_mode):
    def ref(x, axis=None, keepdims=False):
        if axis is None:
            out = np.asarray(fn(x.reshape(-1)))
            out = out.reshape((1,) * x.ndim if keepdims else ((1,) if legacy_mode else ()))
        else:
            out = fn(x, axis=axis)
            if keepdims:
                out = np.expand_dims(out, axis)
        return out.astype(x.dtype if legacy_mode else np.int64)
    return ref


def _norm_ref(x, ord=2, axis=None, keepdims=False, out_dtype=None):
    ax = _axes(axis, x.ndim)
    out = np.abs(x).sum(axis=ax, keepdims=keepdims) if ord == 1 else np.sqrt((x * x).sum(axis=ax, keepdims=keepdims))
    out = np.asarray(out)
    out = out.reshape(1) if out.ndim == 0 else out
    return out.astype(out_dtype or x.dtype)


CASES = [
    Case("sum", [(2, 3, 4)], ref=legacy(np.sum), name="all"),
    Case("sum", [(2, 3, 4)], attrs={"axis": 1}, ref=legacy(np.sum), name="axis"),
    Case("sum", [(2, 3, 4)], attrs={"axis": (0, 2), "keepdims": True}, ref=legacy(np.sum), name="keepdims"),
    Case("sum", [(2, 3, 4)], attrs={"axis": (-1,), "exclude": True}, ref=legacy(np.sum), name="exclude"),
    Case("sum", [(3, 2, 4, 5)], attrs={"axis": (0, 2, 3)}, ref=legacy(np.sum), name="leading_then_trailing"),
    # the gradient ops of sum and mean (ograd, data); data only gives the shape
    Case("_backward_sum", [(2, 4), (2, 3, 4)], attrs={"axis": 1}, ref=spread(False), grad=[0], name="axis"),
    Case("_backward_sum", [(1,), (2, 3)], ref=spread(False), grad=[0], name="all"),
    Case("_backward_mean", [(3, 1), (3, 4)], attrs={"axis": 0, "exclude": True, "keepdims": True},
         ref=spread(True), grad=[0], name="exclude_keepdims"),
    Case("_backward_mean", [(4,), (2, 3, 4)], attrs={"axis": (0, 1)}, ref=spread(True), grad=[0], name="axes"),
    # reduced axes of size 1 (a loss's mean over its one column): compiled programs inline a copy
    Case("_backward_mean", [(5,), (5, 1)], attrs={"axis": 0, "exclude": True}, ref=spread(True), grad=[0],
         name="unit_axes"),
    Case("_backward_sum", [(2, 3), (2, 1, 3)], attrs={"axis": 1}, ref=spread(False), grad=[0], name="unit_axis"),
    Case("sum", [(3, 2, 4, 5)], attrs={"axis": (0, 1, 3)}, ref=legacy(np.sum), name="leading_run_then_last"),
    Case("sum", [(2, 3)], attrs={"axis": ()}, ref=legacy(np.sum), name="empty_axis_is_all"),
    Case("sum", [(2, 3)], attrs={"keepdims": True}, ref=legacy(np.sum), name="all_keepdims"),
    Case("mean", [(2, 3, 4)], attrs={"axis": (0, 2)}, ref=legacy(np.mean)),
    Case("mean", [(3, 4)], ref=legacy(np.mean), name="all"),
    Case("mean", [(3, 4)], attrs={"axis": 1, "keepdims": True}, ref=legacy(np.mean), name="keepdims"),
    Case("prod", [(2, 3, 2)], attrs={"axis": 1}, ref=legacy(np.prod)),
    Case("prod", [(2, 3)], ref=legacy(np.prod), name="all"),
    Case("max", [(3, 4)], attrs={"axis": 0}, ref=legacy(np.max)),
    Case("max", [(2, 3, 2)], ref=legacy(np.max), name="all"),
    Case("min", [(3, 4)], attrs={"axis": -1, "keepdims": True}, ref=legacy(np.min)),
    Case("min", [(3, 4)], attrs={"axis": 0, "exclude": True}, ref=legacy(np.min), name="exclude"),
    Case("nansum", [with_nan], attrs={"axis": 1}, ref=legacy(np.nansum)),
    Case("nansum", [with_nan], ref=legacy(np.nansum), name="all"),
    Case("nanprod", [with_nan], attrs={"axis": 0}, ref=legacy(np.nanprod)),
    Case("_np_sum", [(2, 3, 4)], ref=_np_ref(np.sum), name="all_0d"),
    Case("_np_sum", [(2, 3, 4)], attrs={"axis": (0, 2), "keepdims": True}, ref=_np_ref(np.sum), name="keepdims"),
    Case("_np_sum", [(2, 3)], attrs={"axis": ()}, ref=_np_ref(np.sum), name="no_axes"),
    Case("_np_sum", [(2, 3)], attrs={"axis": 1, "dtype": "float64"}, ref=_np_ref(np.sum), name="dtype"),
    Case("_np_sum", [(2, 3)], attrs={"axis": 1, "initial": 2.0},
         ref=lambda x, axis, initial: x.sum(axis=axis) + initial, name="initial"),
    Case("_np_mean", [(2, 3, 4)], attrs={"axis": -1}, ref=_np_ref(np.mean)),
    Case("_np_mean", [(2, 3)], ref=_np_ref(np.mean), name="all_0d"),
    Case("_np_prod", [(2, 3)], attrs={"axis": 0}, ref=_np_ref(np.prod)),
    Case("_np_prod", [(2, 3)], ref=_np_ref(np.prod), name="all_0d"),
    Case("_np_max", [(3, 4)], ref=lambda x: np.asarray(np.max(x)), name="all_0d"),
    Case("_np_max", [(3, 4)], attrs={"axis": 1, "keepdims": True}, ref=lambda x, axis, keepdims: np.max(x, axis, keepdims=True)),
    Case("_np_max", [(3, 4)], attrs={"axis": 1, "initial": 0.5}, name="initial",
         ref=lambda x, axis, initial: np.maximum(x.max(axis=1), initial)),
    Case("_np_min", [(3, 4)], attrs={"axis": 0}, ref=lambda x, axis: np.min(x, axis)),
    Case("argmax", [(3, 4)], attrs={"axis": 1}, grad=(), ref=_argref(np.argmax, True)),
    Case("argmax", [(3, 4)], grad=(), ref=_argref(np.argmax, True), name="flat"),
    Case("argmax", [(3, 4)], attrs={"axis": 0, "keepdims": True}, grad=(), ref=_argref(np.argmax, True), name="keepdims"),
    Case("argmax", [np.array([[3, 9, 9], [4, 1, 0]], np.int32)], attrs={"axis": 1}, grad=(),
         ref=_argref(np.argmax, True), name="int_first_tie"),
    Case("argmin", [(3, 4)], attrs={"axis": -1}, grad=(), ref=_argref(np.argmin, True)),
    Case("argmin", [(2, 3)], grad=(), ref=_argref(np.argmin, True), name="flat"),
    Case("_np_argmax", [(3, 4)], grad=(), ref=_argref(np.argmax, False), name="flat_0d"),
    Case("_np_argmax", [(3, 4)], attrs={"axis": 0}, grad=(), ref=_argref(np.argmax, False)),
    Case("_np_argmin", [(3, 4)], attrs={"axis": 1, "keepdims": True}, grad=(), ref=_argref(np.argmin, False)),
    Case("argmax_channel", [(3, 4)], grad=(), ref=lambda x: np.argmax(x, axis=1).astype(x.dtype)),
    Case("norm", [(3, 4)], ref=_norm_ref, name="l2_all"),
    Case("norm", [(3, 4)], attrs={"ord": 1, "axis": 1}, ref=_norm_ref, name="l1_axis"),
    Case("norm", [(2, 3, 2)], attrs={"axis": (0, 2), "keepdims": True}, ref=_norm_ref, name="l2_keepdims"),
    Case("norm", [(3, 4)], attrs={"axis": 0, "out_dtype": "float64"}, ref=_norm_ref, name="out_dtype"),
]
