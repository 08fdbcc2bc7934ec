"""Generate the ``mx.nd``, ``mx.np``, ``mx.npx`` (and their ``random``) functions from the registry.

Each generated function takes the op's inputs positionally or by name, then its attributes
(positionally in schema order, or by keyword), plus ``out=`` and ``name=``, bound by the one binder
of every namespace (``ops.binder``); its signature and docstring are the op's schema with MXNet's
defaults, so ``help(mx.nd.Convolution)`` documents every attribute.
"""
import numpy as _onp

from ..ops.binder import make_binder, signature
from ..ops.registry import NsName, all_ops
from .dispatch import invoke
from .ndarray import NDArray

__all__ = ["make_function", "populate"]


def make_function(op, ns=None, np_style=False):
    """A Python function calling ``op``; ``ns`` (an ``NsName``) adapts it to a NumPy-style name.
    Arguments are bound by ``ops.binder`` (the binder ``mx.sym`` uses too).

    >>> import hybridlab as mx
    >>> from hybridlab.ops.registry import get_op
    >>> make_function(get_op("sum"))(mx.nd.ones((2, 3)), 1, True).shape
    (2, 1)
    """
    ns = ns or NsName(op.name)
    bind = make_binder(op, ns, is_tensor=_is_tensor, tensor_class=NDArray, numbers_are_inputs=np_style,
                       drop_missing=True)

    scalar_fn = getattr(_onp, ns.name, None) if np_style and op.family in _SCALAR_FAMILIES else None

    def fn(*args, out=None, name=None, **kwargs):
        if scalar_fn is not None and args and _is_number(args[0]) and out is None and all(map(_is_number, args)):
            # numbers in, a NumPy scalar out (as MXNet's mx.np: np.sqrt(4.) is a float, not a float64 array)
            return scalar_fn(*args, **kwargs)
        inputs, attrs = bind(args, kwargs)
        return invoke(op, inputs, attrs, out, np_style)

    fn.__name__ = ns.name
    fn.__qualname__ = ns.name
    fn.__doc__ = op.signature_doc()
    sig = signature(bind, ("out", "name"))
    if sig is not None:
        fn.__signature__ = sig
    fn.op, fn.binder = op, bind
    return fn


_SCALAR_FAMILIES = ("elemwise", "broadcast")


def _is_number(x):
    return isinstance(x, (int, float, complex, _onp.generic)) and not isinstance(x, _onp.ndarray)


def _is_tensor(x):
    """NDArrays and host/device arrays are tensors (numbers are, where the binder says so); tuples,
    strings and dtypes given positionally are attributes."""
    return isinstance(x, NDArray) or (not isinstance(x, _onp.generic) and (
        hasattr(x, "__array_interface__") or hasattr(x, "__cuda_array_interface__")))


def populate(namespace, kind, np_style=False):
    """Fill the dict ``namespace`` with one function per op name of ``kind``
    ('nd', 'np', 'npx', 'nd.random', 'np.random'); returns the names added."""
    added = []
    for op in all_ops():
        if kind == "nd":
            entries = [NsName(n) for n in (op.name,) + op.aliases]
        else:
            entries = {"np": op.np_names, "npx": op.npx_names, "nd.random": op.random_names,
                       "np.random": op.np_random_names}[kind]
        for entry in entries:
            namespace[entry.name] = make_function(op, entry, np_style)
            added.append(entry.name)
    return added
