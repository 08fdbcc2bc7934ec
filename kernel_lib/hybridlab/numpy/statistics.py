"""``mx.np`` statistics composed of registered ops (so they record gradients): average, quantile,
percentile, median, nanmax, nanmin, ptp.

Example::

    >>> import hybridlab as mx
    >>> float(mx.np.percentile(mx.np.array([1.0, 2.0, 3.0, 4.0]), 50))
    2.5
"""
import numpy as _onp

from ..base import MXNetValueError
from .. import numpy as _np
from ._call import as_array, slice_axis

__all__ = ["average", "quantile", "percentile", "median", "nanmax", "nanmin", "ptp"]


def average(a, axis=None, weights=None, returned=False, out=None):
    """Weighted mean along ``axis`` (``weights`` of ``a``'s shape, or 1-d along ``axis``).

    >>> import hybridlab as mx
    >>> float(mx.np.average(mx.np.array([1.0, 3.0]), weights=mx.np.array([3.0, 1.0])))
    1.5
    """
    a = as_array(a)
    if weights is None:
        avg = _np.mean(a, axis=axis)
        scl = _np.full(avg.shape, a.size / max(avg.size, 1), dtype=avg.dtype, device=a.device)
    else:
        w = as_array(weights)
        if w.shape != a.shape:
            if axis is None or w.ndim != 1:
                raise MXNetValueError(f"np.average: weights expected of shape {a.shape} or 1-d along axis, "
                                      f"got {w.shape}")
            shape = [1] * a.ndim
            shape[axis] = w.shape[0]
            w = _np.reshape(w, tuple(shape))
        scl = _np.sum(_np.broadcast_to(w, a.shape) if w.shape != a.shape else w, axis=axis)
        avg = _np.sum(a * w, axis=axis) / scl
    return (avg, scl) if returned else avg


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th quantiles (``q`` in [0, 1], scalar or 1-d) along ``axis``; interpolation 'linear',
    'lower', 'higher', 'midpoint' or 'nearest', as NumPy.

    >>> import hybridlab as mx
    >>> mx.np.quantile(mx.np.array([[1.0, 2.0], [3.0, 5.0]]), 0.5, axis=1).tolist()
    [1.5, 4.0]
    """
    a = as_array(a)
    qs = _onp.asarray(q.asnumpy() if isinstance(q, _np.ndarray) else q, dtype=_onp.float64)
    if _onp.any((qs < 0) | (qs > 1)):
        raise MXNetValueError(f"np.quantile: q expected in [0, 1], got {qs}")
    if axis is None:
        src, ax = _np.reshape(a, (-1,)), 0
    else:
        src, ax = a, axis % a.ndim
    s = _np.sort(src, axis=ax)
    n = s.shape[ax]
    results = []
    for qq in qs.reshape(-1):
        pos = qq * (n - 1)
        lo, hi = int(_onp.floor(pos)), int(_onp.ceil(pos))
        frac = pos - lo
        if interpolation == "lower" or (interpolation == "nearest" and _onp.around(pos) == lo):
            hi, frac = lo, 0.0
        elif interpolation in ("higher", "nearest"):
            lo, frac = hi, 0.0
        elif interpolation == "midpoint":
            frac = 0.5 if hi != lo else 0.0
        elif interpolation != "linear":
            raise MXNetValueError(f"np.quantile: unknown interpolation {interpolation!r}")
        vlo = slice_axis(s, ax, lo, lo + 1)
        v = vlo if hi == lo or frac == 0 else vlo + (slice_axis(s, ax, hi, hi + 1) - vlo) * frac
        if keepdims:
            if axis is None:
                v = _np.reshape(v, (1,) * a.ndim)
        else:
            v = _np.squeeze(v, axis=ax)
        results.append(v)
    return results[0] if qs.ndim == 0 else _np.stack(results, axis=0)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th percentiles (``q`` in [0, 100]) along ``axis``; see ``quantile``.

    >>> import hybridlab as mx
    >>> float(mx.np.percentile(mx.np.array([0.0, 10.0]), 25))
    2.5
    """
    qs = q.asnumpy() if isinstance(q, _np.ndarray) else q
    return quantile(a, _onp.asarray(qs, dtype=_onp.float64) / 100.0, axis, out, overwrite_input, interpolation,
                    keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along ``axis``.

    >>> import hybridlab as mx
    >>> float(mx.np.median(mx.np.array([3.0, 1.0, 2.0])))
    2.0
    """
    return quantile(a, 0.5, axis=axis, keepdims=keepdims)


def nanmax(a, axis=None, out=None, keepdims=False):
    """Maximum ignoring NaNs.

    >>> import hybridlab as mx
    >>> float(mx.np.nanmax(mx.np.array([1.0, mx.np.nan, 3.0])))
    3.0
    """
    a = as_array(a)
    return _np.max(_np.where(_np.isnan(a), _np.full_like(a, -_onp.inf), a), axis=axis, keepdims=keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    """Minimum ignoring NaNs.

    >>> import hybridlab as mx
    >>> float(mx.np.nanmin(mx.np.array([1.0, mx.np.nan, 3.0])))
    1.0
    """
    a = as_array(a)
    return _np.min(_np.where(_np.isnan(a), _np.full_like(a, _onp.inf), a), axis=axis, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum - minimum) along ``axis``.

    >>> import hybridlab as mx
    >>> float(mx.np.ptp(mx.np.array([4.0, 1.0, 9.0])))
    8.0
    """
    a = as_array(a)
    return _np.max(a, axis=axis, keepdims=keepdims) - _np.min(a, axis=axis, keepdims=keepdims)
