"""Fluent methods: ``x.sum(axis=1)``, ``x.relu()``, ``x.topk(k=2)``... call the namespace function
of the same name with ``x`` as the first input: the ``mx.np`` one for ``mx.np`` arrays (NumPy
semantics), the ``mx.nd`` one otherwise."""
from .ndarray import NDArray

__all__ = ["attach"]

FLUENT = """sum mean prod max min nansum nanprod argmax argmin argmax_channel norm abs sign round rint fix floor
ceil trunc sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh degrees radians exp expm1 log
log10 log2 log1p sqrt rsqrt cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax softmin clip expand_dims
squeeze swapaxes split slice slice_axis slice_like take pick one_hot tile repeat pad flip sort argsort topk
broadcast_to broadcast_like broadcast_axes reshape_like zeros_like ones_like shape_array size_array
depth_to_space space_to_depth""".split()


# MXNet 1.x's NDArray.squeeze / expand_dims take inplace=: a result sharing the array's memory;
# the values are the same either way (here the op's result is a view where NumPy gives one)
_TAKES_INPLACE = ("squeeze", "expand_dims")


def _method(name, nd_fn, np_fn):
    def method(self, *args, **kwargs):
        if name in _TAKES_INPLACE:
            kwargs.pop("inplace", None)
        return (np_fn if self._np else nd_fn)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``{name}(self, ...)``: see ``mx.nd.{name}`` (``mx.np.{name}`` for mx.np arrays)."
    return method


def attach(nd, np):
    """Add the fluent methods to NDArray from the generated namespaces ``nd`` and ``np``."""
    for name in FLUENT:
        nd_fn = getattr(nd, name, None)
        if nd_fn is None or name in NDArray.__dict__:
            continue
        setattr(NDArray, name, _method(name, nd_fn, getattr(np, name, nd_fn)))

    def flatten(self):
        """``mx.nd``: (batch, -1) like ``Flatten``; ``mx.np``: one dimension like ``numpy.ndarray.flatten``."""
        return self.reshape(-1) if self._np else nd.Flatten(self)

    def transpose(self, *axes):
        """Permute dimensions (reversed when no axes are given)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return nd.transpose(self, axes=axes) if axes else nd.transpose(self)

    NDArray.flatten = flatten
    NDArray.transpose = transpose
    _attach_np_methods(nd, np)


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
