"""Deferred initialisation: how a ``Parameter`` whose shape still has unknown dimensions (0 or -1)
gets its shape and its data at the first forward pass (the part of ``Parameter`` that
``DeferredInit`` holds; ``gluon.parameter``).

``Parameter.initialize`` only records what to do (``_deferred_init``: the initializer, the devices,
the default initializer, a value given by ``set_data``) while the shape is not known. The first
forward pass then learns the shape, by the graph's shape inference (MXNet 1.x style blocks) or by
tracing ``forward`` (MXNet 2.0 style), where the parameter is a value-less placeholder whose
unknown dimensions ops fill in (``_traced``, then ``_take_traced_shape``), and finishes the
initialisation (``_finish_deferred_init``). Reading the data before that raises
``DeferredInitializationError``.

Example::

    >>> import hybridlab as mx
    >>> w = mx.gluon.Parameter('w', shape=(2, 0), allow_deferred_init=True)
    >>> w.initialize(mx.init.One())
    >>> try:
    ...     w.data()
    ... except mx.gluon.DeferredInitializationError:
    ...     print('deferred')
    deferred
    >>> w.shape = (2, 3)
    >>> w._finish_deferred_init()
    >>> w.data().shape
    (2, 3)
"""
from .. import autograd, initializer
from .. import deferred as _dc
from ..base import MXNetError
from ..device import cpu
from .utils import shape_is_known

__all__ = ["DeferredInitializationError", "DeferredInit", "checked_shape"]


class DeferredInitializationError(MXNetError):
    """Error for unfinished deferred initialization."""


def checked_shape(name, shape):
    """``shape`` as a tuple of ints; a negative size (a layer given ``units=-5``) is refused here,
    naming the parameter, rather than surfacing later as a shape that cannot be inferred."""
    if shape is None:
        return None
    shape = tuple(shape)
    if not all(hasattr(d, "__index__") and not isinstance(d, bool) and d >= -1 for d in shape):
        raise MXNetError(f"Parameter '{name}': shape expected sizes >= 1 (0 or -1 for a size inferred at the "
                         f"first forward pass), got {shape}")
    return tuple(int(d) for d in shape)


class DeferredInit:
    """Parameter's deferred-initialisation half (a mixin: it reads the parameter's shape, dtype,
    data and ``_deferred_init``, and creates the data with ``Parameter._init_impl``)."""

    def _finish_deferred_init(self):
        """Initialise now that the shape is known (no-op when nothing is deferred)."""
        if not self._deferred_init:
            return
        init, devices, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise AssertionError(f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                                 f"{self.shape}. Please specify in_units, in_channels, etc for `Block`s.")
        from ..ndarray import zeros
        with autograd.pause(), _NoTrace():
            if data is None:
                data = zeros(self.shape, dtype=self.dtype, ctx=cpu())
                initializer.create(default_init)(initializer.InitDesc(self.name, {"__init__": init}), data)
            self._init_impl(data, devices)

    def _traced(self, device):
        """A value-less array standing for this parameter while a graph is traced."""
        if self._data is not None:
            arr = self._check_and_get(self._data, device)
            shape, dtype, dev = arr.shape, arr.dtype, arr.device
        elif self._deferred_init:
            if self._shape is None:
                raise DeferredInitializationError(
                    f"Parameter '{self.name}' has no shape (not even its number of dimensions), so it cannot "
                    f"be traced: give it a shape with 0 for the unknown dimensions")
            shape = tuple(d if d > 0 else 0 for d in self._shape)
            dtype, dev = self.dtype, (device or self._deferred_init[1][0])
        else:
            self._check_and_get(None, device)
        ph = _dc.placeholder(shape, dtype, dev)
        _dc.set_variable(ph, self.var())
        if not shape_is_known(shape):
            self._placeholders.append(ph)
        return ph

    def _take_traced_shape(self):
        """After a trace: adopt the dimensions that ops inferred for this parameter's placeholders."""
        for ph in self._placeholders:
            if self._shape is not None and len(ph.shape) == len(self._shape):
                self._shape = tuple(s if s > 0 else p for s, p in zip(self._shape, ph.shape))
        self._placeholders = []


class _NoTrace:
    """Run real computations even inside a deferred-compute trace (initialisation needs values)."""

    def __enter__(self):
        self._prev, _dc.state.tracing.active = _dc.state.tracing.active, False
        return self

    def __exit__(self, *exc):
        _dc.state.tracing.active = self._prev
        return False
