"""MXNet 1.x ``mx.sym`` functions that are Python wrappers around ops: creation (``zeros``, ``ones``,
``full``, ``arange``, ``linspace``, ``eye``: float32 unless ``dtype`` says otherwise),
``pow``/``power``, ``maximum``, ``minimum``, ``hypot`` (element-wise without broadcasting, a number
on either side, as in MXNet), ``split_v2`` and ``histogram``.

Example::

    >>> import hybridlab as mx
    >>> x = mx.sym.var('x')
    >>> [n.op_name for n in mx.sym.maximum(x, 0.5)._nodes()]
    ['null', '_maximum_scalar']
    >>> mx.sym.maximum(2, 3), mx.sym.pow(2, 3)
    (3, 8)
"""
import numpy as np

from ..base import MXNetError, MXNetValueError
from ..ops.registry import NsName, get_op
from ..ufunc_helper import binary_function
from .namespace import _make
from .symbol import Symbol

__all__ = ["zeros", "ones", "full", "arange", "linspace", "eye", "pow", "power", "maximum", "minimum", "hypot",
           "split_v2", "histogram"]


def _call(op_name, *inputs, **attrs):
    return _make(get_op(op_name), NsName(op_name))(*inputs, **attrs)


def zeros(shape, dtype=None, **kwargs):
    """A node producing zeros of ``shape``."""
    return _call("_zeros", shape=shape, dtype=dtype or "float32", **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A node producing ones of ``shape``."""
    return _call("_ones", shape=shape, dtype=dtype or "float32", **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A node producing ``shape`` filled with ``val``."""
    return _call("_full", shape=shape, value=float(val), dtype=dtype or "float32", **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """A node producing evenly spaced values in [start, stop), each repeated ``repeat`` times."""
    return _call("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range, name=name,
                 dtype=dtype or "float32")


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """A node producing ``num`` evenly spaced samples from ``start`` to ``stop``."""
    return _call("_linspace", start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                 dtype=dtype or "float32")


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A node producing a 2-D array with ones on the k-th diagonal (N x M; M=0 means N x N)."""
    return _call("_eye", N=N, M=M, k=k, dtype=dtype or "float32", **kwargs)


def _sym(name, op, scalar_op, rscalar_op, python, summary):
    return binary_function(name, Symbol, _call, op, scalar_op, rscalar_op, python, summary)


pow = _sym("pow", "_power", "_power_scalar", "_rpower_scalar", lambda b, e: b ** e, "Power")   # noqa: A001
power = _sym("power", "_power", "_power_scalar", "_rpower_scalar", lambda b, e: b ** e, "Power")
maximum = _sym("maximum", "_maximum", "_maximum_scalar", None, lambda x, y: x if x > y else y, "Maximum")
minimum = _sym("minimum", "_minimum", "_minimum_scalar", None, lambda x, y: x if x < y else y, "Minimum")
hypot = _sym("hypot", "_hypot", "_hypot_scalar", None, lambda x, y: float(np.hypot(x, y)), "Hypotenuse")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, name=None):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal parts (an int) or at the sorted
    indices of a tuple; the node has one output per part."""
    if isinstance(indices_or_sections, (int, np.integer)):
        return _call("_split_v2", ary, sections=int(indices_or_sections), axis=axis, squeeze_axis=squeeze_axis,
                     name=name)
    if isinstance(indices_or_sections, (tuple, list)):
        return _call("_split_v2", ary, indices=(0,) + tuple(int(i) for i in indices_or_sections), axis=axis,
                     squeeze_axis=squeeze_axis, name=name)
    raise MXNetError(f"split_v2: indices_or_sections expected an int or a tuple of ints, "
                     f"got {type(indices_or_sections).__name__}")


def histogram(a, bins=10, range=None, **kwargs):   # noqa: A002  (MXNet's parameter name)
    """A ``_histogram`` node (outputs: counts, edges): ``bins`` is a Symbol of bin edges, or a number
    of equal bins over ``range`` (required here, as in MXNet's symbol mode)."""
    if isinstance(bins, Symbol):
        return _call("_histogram", a, bins, **kwargs)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            raise MXNetValueError("histogram: range expected (lo, hi) with an integer bins in symbol mode, got None")
        return _call("_histogram", a, bin_cnt=int(bins), range=tuple(range), **kwargs)
    raise MXNetValueError(f"histogram: bins expected an integer or a Symbol, got {type(bins).__name__}")
