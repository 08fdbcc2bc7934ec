"""Generate the ``mx.nd``, ``mx.np``, ``mx.npx`` (and their ``random``) functions from the registry.

Each generated function takes the op's inputs positionally or by name, then its attributes
(positionally in schema order, or by keyword), plus ``out=`` and ``name=``; its docstring is the
op's schema with MXNet's defaults, so ``help(mx.nd.Convolution)`` documents every attribute.
"""
import inspect

import numpy as _onp

from ..base import MXNetError
from ..ops.registry import NsName, all_ops
from .dispatch import invoke
from .ndarray import NDArray

__all__ = ["make_function", "populate"]


def _possible_inputs(op):
    if op.all_inputs is not None:
        return op.all_inputs
    try:
        return op.inputs(op.parse_attrs({}))
    except MXNetError:
        return ()


def make_function(op, ns=None, np_style=False):
    """A Python function calling ``op``; ``ns`` (an ``NsName``) adapts it to a NumPy-style name."""
    ns = ns or NsName(op.name)
    rename, defaults = ns.rename, ns.defaults
    possible = _possible_inputs(op)
    n_possible = len(possible)
    positional_attrs = ns.args or tuple(k for k in op.attrs if k != "num_args")
    variadic, packed = op.variadic, ns.packed

    scalar_fn = getattr(_onp, ns.name, None) if np_style and op.family in _SCALAR_FAMILIES else None

    def fn(*args, out=None, name=None, **kwargs):
        if scalar_fn is not None and args and _is_number(args[0]) and out is None and all(map(_is_number, args)):
            # numbers in, a NumPy scalar out (as MXNet's mx.np: np.sqrt(4.) is a float, not a float64 array)
            return scalar_fn(*args, **kwargs)
        if rename:
            kwargs = {rename.get(k, k): v for k, v in kwargs.items()}
        if variadic:
            if packed:
                if not args:
                    raise MXNetError(f"{ns.name}: expected a sequence of arrays as the first argument")
                inputs, extra = list(args[0]), args[1:]
            else:
                n_in = 0
                while n_in < len(args) and _is_input_like(args[n_in]):
                    n_in += 1
                inputs, extra = list(args[:n_in]), args[n_in:]
            kwargs.setdefault("num_args", len(inputs))
        else:
            n_in, limit = 0, min(len(args), n_possible)
            while n_in < limit and (n_in == 0 or _is_input_like(args[n_in])):
                n_in += 1
            inputs, extra = list(args[:n_in]), args[n_in:]
            if kwargs:
                for i, input_name in enumerate(possible):
                    if input_name in kwargs:
                        value = kwargs.pop(input_name)
                        while len(inputs) <= i:
                            inputs.append(None)
                        inputs[i] = value
                inputs = [x for x in inputs if x is not None]
        if extra:
            if len(extra) > len(positional_attrs):
                raise MXNetError(f"{ns.name}: too many positional arguments ({len(args)})")
            for k, v in zip(positional_attrs, extra):
                if k in kwargs:
                    raise MXNetError(f"{ns.name}: attribute '{k}' given twice")
                kwargs[k] = v
        if defaults:
            for k, v in defaults.items():
                kwargs.setdefault(k, v)
        return invoke(op, inputs, kwargs, out, np_style)

    fn.__name__ = ns.name
    fn.__qualname__ = ns.name
    fn.__doc__ = op.signature_doc()
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
              for n in (() if variadic else possible)]
    if variadic:
        params.append(inspect.Parameter("data", inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(rename_back(ns, k), inspect.Parameter.KEYWORD_ONLY,
                                 default=_default_repr(spec)) for k, spec in op.attrs.items()
               if not (variadic and k == "num_args")]
    params += [inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None),
               inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None)]
    try:
        fn.__signature__ = inspect.Signature(_dedupe(params))
    except ValueError:
        pass
    fn.op = op
    return fn


_SCALAR_FAMILIES = ("elemwise", "broadcast")


def _is_number(x):
    return isinstance(x, (int, float, complex, _onp.generic)) and not isinstance(x, _onp.ndarray)


def _dedupe(params):
    seen, out = set(), []
    for p in params:
        if p.name not in seen:
            seen.add(p.name)
            out.append(p)
    return out


def rename_back(ns, attr):
    for user, op_name in ns.rename.items():
        if op_name == attr:
            return user
    return attr


def _default_repr(spec):
    return None if spec.required else spec.default


def _is_input_like(x):
    """Arrays and numbers are inputs; tuples, strings and dtypes given positionally are attributes."""
    return x.__class__ is NDArray or x is None or isinstance(x, (NDArray, int, float, complex)) or hasattr(x, "__array_interface__") \
        or hasattr(x, "__cuda_array_interface__")


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
