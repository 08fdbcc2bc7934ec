"""Fluent methods: ``x.sum(axis=1)``, ``x.relu()``, ``x.topk(k=2)``... call the namespace function
of the same name with ``x`` as the first input: the ``mx.np`` one for ``mx.np`` arrays (NumPy
semantics), the ``mx.nd`` one otherwise."""
from ..base import MXNetError, MXNetValueError
from .ndarray import NDArray

__all__ = ["attach"]

# flatten, squeeze, expand_dims (which take MXNet's inplace=), transpose and broadcast_to are written out in attach
FLUENT = """sum mean prod max min nansum nanprod argmax argmin argmax_channel norm abs sign round rint fix floor
ceil trunc sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh degrees radians exp expm1 log
log10 log2 log1p sqrt rsqrt cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax softmin clip
swapaxes split split_v2 slice slice_axis slice_like take pick one_hot tile repeat pad flip sort argsort topk
broadcast_like broadcast_axes reshape_like zeros_like ones_like shape_array size_array
depth_to_space space_to_depth""".split()


def _method(name, nd_fn, np_fn):
    def method(self, *args, **kwargs):
        return (np_fn if self._np else nd_fn)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``{name}(self, ...)``: see ``mx.nd.{name}`` (``mx.np.{name}`` for mx.np arrays)."
    return method


def _np_clip(np, a, min=None, max=None, out=None):
    return np.clip(a, min, max, out=out)


def attach(nd, np):
    """Add the fluent methods to NDArray from the generated namespaces ``nd`` and ``np``."""
    for name in FLUENT:
        nd_fn = getattr(nd, name, None)
        if nd_fn is None or name in NDArray.__dict__:
            continue
        setattr(NDArray, name, _method(name, nd_fn, getattr(np, name, nd_fn)))

    def clip(self, *args, **kwargs):
        """``mx.np`` arrays: ``clip(min=None, max=None, out=None)`` as ``mx.np.ndarray.clip`` (bounds
        ``min``/``max``); ``mx.nd`` arrays: ``mx.nd.clip(self, a_min, a_max)``.

        >>> import hybridlab as mx
        >>> mx.np.array([-2.0, 0.5, 2.0]).clip(min=-1, max=1).tolist()
        [-1.0, 0.5, 1.0]
        """
        if not self._np:
            return nd.clip(self, *args, **kwargs)
        return _np_clip(np, self, *args, **kwargs)

    NDArray.clip = clip

    def flatten(self, inplace=False):
        """``mx.nd``: (batch, -1) like ``Flatten``; ``mx.np``: one dimension like ``numpy.ndarray.flatten``.
        ``inplace=True`` (``mx.nd``): a view sharing this array's memory instead of a copy.

        >>> import hybridlab as mx
        >>> x = mx.nd.zeros((2, 3, 4))
        >>> y = x.flatten(inplace=True)
        >>> y[:] = 1
        >>> y.shape, x.sum().asscalar()
        ((2, 12), np.float32(24.0))
        """
        if self._np:
            return self.reshape(-1)
        return self.reshape((0, -1)) if inplace else nd.Flatten(self)

    def squeeze(self, axis=None, inplace=False):
        """Remove size-1 dimensions (those of ``axis``, else all; a legacy array keeps at least one).
        ``inplace=True`` (``mx.nd``): a view sharing this array's memory instead of a copy."""
        if self._np or not inplace:
            return (np.squeeze if self._np else nd.squeeze)(self, axis=axis)
        return self.reshape(_squeezed_shape(self.shape, axis))

    def expand_dims(self, axis, inplace=False):
        """Insert a size-1 dimension at ``axis`` (in [-ndim - 1, ndim]). ``inplace=True`` (``mx.nd``):
        a view sharing this array's memory instead of a copy."""
        if self._np or not inplace:
            return (np.expand_dims if self._np else nd.expand_dims)(self, axis=axis)
        ndim = self.ndim
        if not -ndim - 1 <= axis <= ndim:
            raise MXNetError(f"expand_dims: axis expected in [{-ndim - 1}, {ndim}] for a {ndim}-d array, got {axis}")
        shape = list(self.shape)
        shape.insert(axis + ndim + 1 if axis < 0 else axis, 1)
        return self.reshape(shape)

    def transpose(self, *axes, **kwargs):
        """Permute dimensions (reversed when no axes are given): ``x.transpose(1, 0)``,
        ``x.transpose((1, 0))`` or ``x.transpose(axes=(1, 0))``."""
        if "axes" in kwargs:
            if axes:
                raise TypeError(f"transpose() expected the axes once, got {axes} and axes={kwargs['axes']}")
            axes = (kwargs.pop("axes"),)
        if kwargs:
            raise TypeError(f"transpose() got unexpected keyword arguments {sorted(kwargs)}; expected axes")
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = tuple(axes[0] or ())
        if self._np:        # np.transpose: a repeated axis is a ValueError
            return np.transpose(self, axes or None)
        return nd.transpose(self, axes=axes) if axes else nd.transpose(self)

    def broadcast_to(self, shape):
        """This array broadcast to ``shape`` (a tuple, list or NumPy array of ints); ``mx.nd`` arrays
        first get leading size-1 dimensions when ``shape`` has more, as MXNet's method does."""
        shape = tuple(int(d) for d in shape)
        if self._np:
            return np.broadcast_to(self, shape=shape)
        cur = self.shape
        if len(shape) < len(cur) or any(c not in (1, s) for c, s in zip((1,) * (len(shape) - len(cur)) + cur, shape)):
            raise MXNetValueError(f"broadcast_to: expected a shape this array's shape {cur} broadcasts to (size-1 "
                                  f"dimensions changed, leading ones added), got {shape}")
        src = self if len(cur) == len(shape) else self.reshape((1,) * (len(shape) - len(cur)) + cur)
        return nd.broadcast_to(src, shape=shape)

    NDArray.flatten = flatten
    NDArray.broadcast_to = broadcast_to
    NDArray.squeeze = squeeze
    NDArray.expand_dims = expand_dims
    NDArray.transpose = transpose
    _attach_np_methods(nd, np)


def _squeezed_shape(shape, axis):
    """``shape`` without the size-1 dimensions of ``axis`` (all of them when ``None``); MXNet 1.x keeps
    (1,) when every dimension goes."""
    ndim = len(shape)
    if axis is None:
        keep = [d for d in shape if d != 1]
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        for a in axes:
            if not -ndim <= a < ndim:
                raise MXNetError(f"squeeze: axis expected in [{-ndim}, {ndim}) for a {ndim}-d array, got {a}")
        resolved = [a + ndim if a < 0 else a for a in axes]
        if len(set(resolved)) != len(resolved):
            raise MXNetError(f"squeeze: axis expected distinct axes, got {axis}")
        for a, r in zip(axes, resolved):
            if shape[r] != 1:
                raise MXNetError(f"squeeze: axis {a} expected a dimension of size 1, got {shape[r]}")
        keep = [d for i, d in enumerate(shape) if i not in resolved]
    return tuple(keep) or (1,)


_NP_METHODS = "all any std var cumsum dot nonzero diagonal trace ptp".split()


def _attach_np_methods(nd, np):
    """``mx.np``-style methods MXNet 2.0 code calls (``x.all()``, ``x.std(axis=0)``, ``x.nonzero()``...):
    the ``mx.np`` function of that name (the ``mx.nd`` one, where it exists, for ``mx.nd`` arrays)."""
    for name in _NP_METHODS:
        np_fn = getattr(np, name, None)
        if np_fn is None or name in NDArray.__dict__:
            continue
        setattr(NDArray, name, _method(name, getattr(nd, name, np_fn), np_fn))
    if "diag" not in NDArray.__dict__:
        def diag(self, k=0, **kwargs):
            """Diagonal (or diagonal matrix of a 1-d array): ``mx.np.diag`` / ``mx.nd.diag``."""
            return (np.diag if self._np else nd.diag)(self, k, **kwargs)
        NDArray.diag = diag
