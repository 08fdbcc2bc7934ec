"""``mx.nd`` creation functions with MXNet 1.x signatures: ``zeros``, ``ones``, ``full``, ``empty``,
``arange``, ``linspace``, ``eye``. Each calls the matching creation op (``_zeros``, ``_arange``, ...);
dtype defaults to float32 and the device to the current one.

Example::

    >>> import hybridlab as mx
    >>> mx.nd.zeros((2, 3)).shape, mx.nd.ones(2, dtype='int32').asnumpy().tolist()
    ((2, 3), [1, 1])
    >>> mx.nd.arange(3).asnumpy().tolist(), mx.nd.full((2,), 7).asnumpy().tolist()
    ([0.0, 1.0, 2.0], [7.0, 7.0])
"""
import warnings

from ..base import MXNetError
from ..ops.context import legacy_zero_size
from ..ops.registry import get_op
from .dispatch import invoke

__all__ = ["zeros", "ones", "full", "empty", "arange", "linspace", "eye"]


def _shape(shape):
    if hasattr(shape, "__index__") and getattr(shape, "ndim", 0) == 0:  # an int (or NumPy integer)
        return (int(shape),)
    return tuple(int(d) for d in shape)




def _create(op, attrs, ctx, dtype, out, np_style=False):
    attrs = dict(attrs)
    attrs.pop("name", None)      # MXNet's nd functions take a symbol name and ignore it
    if ctx is not None:
        attrs["ctx"] = ctx
    if dtype is not None:
        attrs["dtype"] = dtype
    return invoke(get_op(op), [], attrs, out, np_style)


def zeros(shape, ctx=None, dtype=None, stype=None, out=None, **kwargs):
    """An array of zeros (float32 unless ``dtype`` says otherwise) on ``ctx`` or the current device;
    ``stype`` 'csr' or 'row_sparse' gives that sparse array (``mx.nd.sparse.zeros``).

    >>> import hybridlab as mx
    >>> mx.nd.zeros((1, 2)).asnumpy().tolist()
    [[0.0, 0.0]]
    """
    if stype not in (None, "default"):      # 'csr' / 'row_sparse': mx.nd.sparse.zeros
        from .sparse import zeros as sparse_zeros
        if out is not None:
            raise MXNetError(f"zeros: out= expected with storage type 'default', got stype={stype!r}")
        return sparse_zeros(stype, _shape(shape), ctx=ctx, dtype=dtype, **kwargs)
    return _create("_zeros", {"shape": _known_shape("zeros", shape), **kwargs}, ctx, dtype, out)


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones (float32 unless ``dtype`` says otherwise). Outside NumPy shape semantics
    (``mx.util.np_shape()``), MXNet 1.x reads a 0 in ``shape`` (or ``shape=()``) as an unknown size,
    so zero-size and 0-d arrays raise there, as in MXNet.

    >>> import hybridlab as mx
    >>> with mx.util.np_shape():
    ...     mx.nd.ones(()).shape, mx.nd.ones((2, 0)).shape
    ((), (2, 0))
    """
    return _create("_ones", {"shape": _known_shape("ones", shape), **kwargs}, ctx, dtype, out)


def _known_shape(where, shape):
    shape = _shape(shape)
    if legacy_zero_size(shape):
        raise MXNetError(f"{where}: shape {shape} has an unknown (0) size or no dimension: expected positive "
                         "sizes, or NumPy shape semantics for zero-size and 0-d arrays (mx.util.np_shape())")
    return shape


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array filled with ``val`` (float32 unless ``dtype`` says otherwise)."""
    return _create("_full", {"shape": _shape(shape), "value": float(val)}, ctx, dtype, out)


def empty(shape, ctx=None, dtype=None, stype=None):
    """A new array (MXNet leaves it uninitialised; hybridlab fills it with zeros); zero sizes are allowed."""
    if stype not in (None, "default"):
        return zeros(shape, ctx=ctx, dtype=dtype, stype=stype)
    return _create("_zeros", {"shape": _shape(shape)}, ctx, dtype, None)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in [start, stop) (``arange(n)``: [0, n)), each repeated ``repeat`` times.

    >>> import hybridlab as mx
    >>> mx.nd.arange(2, 6, 2, repeat=2).asnumpy().tolist()
    [2.0, 2.0, 4.0, 4.0]
    """
    if infer_range is not None:
        warnings.warn("`infer_range` argument has been deprecated", DeprecationWarning, stacklevel=2)
    return _create("_arange", {"start": start, "stop": stop, "step": step, "repeat": repeat,
                               "infer_range": False}, ctx, dtype, None)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (included when ``endpoint``)."""
    return _create("_linspace", {"start": start, "stop": stop, "num": num, "endpoint": endpoint},
                   ctx, dtype, None)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-D array with ones on the k-th diagonal (N x M; M=0 means N x N).

    >>> import hybridlab as mx
    >>> mx.nd.eye(2).asnumpy().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _create("_eye", {"N": N, "M": M, "k": k, **kwargs}, ctx, dtype, None)
