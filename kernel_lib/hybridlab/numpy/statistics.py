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
from ._call import as_array, call

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


def _percentile(fn, a, q, scale, axis, out, interpolation, keepdims):
    """The ``_npi_percentile`` op for ``q`` in percent: a number, a sequence, or an array (kept as
    an input, so a hybridized graph takes it as data; ``scale`` 100 turns quantiles into percent)."""
    interpolation = "linear" if interpolation is None else interpolation
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise MXNetValueError(f"np.{fn}: interpolation expected 'linear', 'lower', 'higher', 'midpoint' or "
                              f"'nearest', got {interpolation!r}")
    attrs = {"axis": axis, "interpolation": interpolation, "keepdims": keepdims}
    a = as_array(a)
    if isinstance(q, _np.ndarray):
        return call("_npi_percentile", a, q * scale if scale != 1 else q, out=out, **attrs)
    qs = _onp.asarray(q, dtype=_onp.float64) * scale
    if qs.ndim == 0:
        return call("_npi_percentile", a, q_scalar=float(qs), out=out, **attrs)
    return call("_npi_percentile", a, _np.array(qs, device=a.device), out=out, **attrs)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th quantiles (``q`` in [0, 1]: a number, a sequence or a 0-d/1-d array) along ``axis``
    (an int, a tuple of ints, or None for all); interpolation 'linear', 'lower', 'higher',
    'midpoint' or 'nearest', as NumPy's ``method``. float32 results (float64 for float64 data).

    >>> import hybridlab as mx
    >>> mx.np.quantile(mx.np.array([[1.0, 2.0], [3.0, 5.0]]), 0.5, axis=1).tolist()
    [1.5, 4.0]
    >>> mx.np.quantile(mx.np.array([[1.0, 2.0], [3.0, 5.0]]), [0.0, 1.0], axis=(0, 1)).tolist()
    [1.0, 5.0]
    """
    return _percentile("quantile", a, q, 100.0, axis, out, interpolation, keepdims)


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``q``-th percentiles (``q`` in [0, 100]) along ``axis``; see ``quantile``.

    >>> import hybridlab as mx
    >>> float(mx.np.percentile(mx.np.array([0.0, 10.0]), 25))
    2.5
    >>> mx.np.percentile(mx.np.array([1.0, 2.0, 3.0, 4.0]), 40, interpolation="nearest").tolist()
    2.0
    """
    return _percentile("percentile", a, q, 1, axis, out, interpolation, keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along ``axis``.

    >>> import hybridlab as mx
    >>> float(mx.np.median(mx.np.array([3.0, 1.0, 2.0])))
    2.0
    """
    return quantile(a, 0.5, axis=axis, out=out, keepdims=keepdims)


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
