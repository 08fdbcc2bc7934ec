"""NDArray's Python operators: which registered op ``x + y``, ``x == y``, ``x @ y``, ``-x``, ``x += y``,
``x[key]`` and ``x[key] = v`` call. ``NDArrayOperators`` is a mixin that ``NDArray`` inherits (the
special-method lookup goes through the class's slots, so inheriting them costs nothing per call).

An array operand gets the ``broadcast_*`` op, a Python or NumPy scalar the ``_*_scalar`` op; ``mx.np``
arrays use the ``_npi_*`` op where NumPy's result differs from MXNet 1.x's (comparisons give bool
arrays, ``/`` of integers gives floats). In-place operators write into the array's buffer, so views
and other holders see the change, unless autograd must keep the old value.

Example::

    >>> import hybridlab as mx
    >>> x = mx.nd.array([1, 2, 3])
    >>> (2 ** x - x / 2).asnumpy().tolist(), (x >= 2).asnumpy().tolist()
    ([1.5, 3.0, 6.5], [0.0, 1.0, 1.0])
    >>> v = x[1:]          # a view: the in-place update below shows through it
    >>> x += 1
    >>> v.asnumpy().tolist()
    [3.0, 4.0]
    >>> (mx.np.array([1, 2]) == 2).tolist()
    [False, True]
"""
from ..autograd import state as autograd_state
from ..base import MXNetError
from ..deferred import state as _deferred
from ..deferred.state import TracedValue
from ..write_versions import wrote
# ndarray.py defines these helpers before it imports this module (they need NDArray at call time only)
from .ndarray import _as_array, _binary, _call

__all__ = ["NDArrayOperators"]


class NDArrayOperators:
    """The arithmetic, comparison, in-place and indexing operators of ``NDArray`` (a mixin: it reads
    the array's ``_data``, ``_device`` and ``_node``)."""

    __slots__ = ()    # NDArray declares the slots

    # ---- arithmetic -------------------------------------------------------------------------
    def __add__(self, other):
        return _binary(self, other, "broadcast_add", "_plus_scalar")

    def __radd__(self, other):
        return _binary(self, other, "broadcast_add", "_plus_scalar")

    def __sub__(self, other):
        return _binary(self, other, "broadcast_sub", "_minus_scalar")

    def __rsub__(self, other):
        return _binary(self, other, "broadcast_sub", "_rminus_scalar", reflected=True)

    def __mul__(self, other):
        return _binary(self, other, "broadcast_mul", "_mul_scalar")

    def __rmul__(self, other):
        return _binary(self, other, "broadcast_mul", "_mul_scalar")

    def __truediv__(self, other):
        return _binary(self, other, "broadcast_div", "_div_scalar", np_op="_npi_true_divide")

    def __rtruediv__(self, other):
        return _binary(self, other, "broadcast_div", "_rdiv_scalar", reflected=True, np_op="_npi_true_divide")

    def __floordiv__(self, other):
        return _call("floor", _binary(self, other, "broadcast_div", "_div_scalar"))

    def __mod__(self, other):
        return _binary(self, other, "broadcast_mod", "_mod_scalar")

    def __rmod__(self, other):
        return _binary(self, other, "broadcast_mod", "_rmod_scalar", reflected=True)

    def __pow__(self, other):
        return _binary(self, other, "broadcast_power", "_power_scalar")

    def __rpow__(self, other):
        return _binary(self, other, "broadcast_power", "_rpower_scalar", reflected=True)

    def __matmul__(self, other):
        return _call("_np_matmul", self, _as_array(other, self))

    def __rmatmul__(self, other):
        return _call("_np_matmul", _as_array(other, self), self)

    def __neg__(self):
        return _call("negative", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _call("abs", self)

    # ---- comparison -------------------------------------------------------------------------
    def __eq__(self, other):
        return _binary(self, other, "broadcast_equal", "_equal_scalar", np_op="_npi_equal")

    def __ne__(self, other):
        return _binary(self, other, "broadcast_not_equal", "_not_equal_scalar", np_op="_npi_not_equal")

    def __gt__(self, other):
        return _binary(self, other, "broadcast_greater", "_greater_scalar", np_op="_npi_greater")

    def __ge__(self, other):
        return _binary(self, other, "broadcast_greater_equal", "_greater_equal_scalar", np_op="_npi_greater_equal")

    def __lt__(self, other):
        return _binary(self, other, "broadcast_lesser", "_lesser_scalar", np_op="_npi_less")

    def __le__(self, other):
        return _binary(self, other, "broadcast_lesser_equal", "_lesser_equal_scalar", np_op="_npi_less_equal")

    # defining __eq__ would otherwise make arrays unhashable; they hash by identity (dict keys, sets)
    __hash__ = object.__hash__

    # ---- in-place ---------------------------------------------------------------------------
    def _inplace(self, result):
        """``x op= y``: write into this buffer (views and holders see it) unless autograd must
        keep the old value, in which case the name is rebound to the new array. While tracing the
        name is rebound too (as ``x = x + y``: a graph node is not a buffer), which a pre-check notes."""
        if autograd_state.is_recording() and (self._node is not None or result._node is not None):
            return result
        if self._data.__class__ is TracedValue:
            if _deferred.tracing.precheck is not None:
                _deferred.tracer.precheck_rebind(self)
            return result
        if result.shape != self.shape:
            raise MXNetError(f"in-place operation: result shape {result.shape} does not fit the array's "
                             f"shape {self.shape}")
        self._device.xp.copyto(self._data, result._data.astype(self.dtype, copy=False))
        wrote(self)
        return self

    def __iadd__(self, other):
        return self._inplace(self + other)

    def __isub__(self, other):
        return self._inplace(self - other)

    def __imul__(self, other):
        return self._inplace(self * other)

    def __itruediv__(self, other):
        return self._inplace(self / other)

    def __imod__(self, other):
        return self._inplace(self % other)

    def __ipow__(self, other):
        return self._inplace(self ** other)

    # ---- indexing (the rules are in indexing.py) --------------------------------------------
    def __getitem__(self, key):
        from .indexing import get_item
        return get_item(self, key)

    def __setitem__(self, key, value):
        from .indexing import set_item
        set_item(self, key, value)
        wrote(self)
