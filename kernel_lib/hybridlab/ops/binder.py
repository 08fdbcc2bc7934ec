"""The one argument binder of the generated op functions (``mx.nd``, ``mx.sym``, ``mx.np``, ``mx.npx``
and their ``random`` namespaces): it turns a call's ``(args, kwargs)`` into the op's inputs and
keyword attributes, from the op's schema alone, so every namespace binds a call the same way.

Rules (one set for all namespaces; a namespace only says what its tensors are):
  * inputs come first, in the op's input order (``op.all_inputs``); the first positional argument is
    always an input, later ones are inputs while they are tensors of the namespace (or ``None``, a
    missing input). Numbers count as tensors in NumPy-style namespaces (``np.take(a, 1)``) and for
    ops without attributes (``nd.broadcast_add(x, 2.0)``); elsewhere a number is an attribute
    (``sym.sum(s, 1)`` is ``axis=1``, as in ``nd``). Variadic ops take every leading tensor (or, when
    the name is ``packed``, one sequence: ``np.concatenate([a, b])``) and set ``num_args``; ops
    whose input count an attribute gives (``OpDef.count_attr``: ``multi_sgd_update``'s
    ``num_weights``) take every leading tensor too, and their attributes by keyword only;
  * inputs may also be given by keyword (``data=x``);
  * the remaining positional arguments fill the attributes in schema order (``NsName.args`` when
    the name gives its own order), then keywords; a keyword renamed by the name (``np``'s
    ``axis`` -> ``dim``) is renamed first;
  * too many positional arguments, or an argument given both positionally and by keyword, raise
    ``MXNetTypeError`` (an ``MXNetError`` and a ``TypeError``, the type MXNet's generated Python
    functions raise), naming the function, the parameter, what was expected and what was got.
    Unknown keywords are refused where attributes are parsed (``OpDef.parse_attrs``), the same for
    every namespace.

Example::

    >>> from hybridlab.ops.registry import get_op
    >>> bind = make_binder(get_op("sum"), is_tensor=lambda x: isinstance(x, str))
    >>> bind(("x", 1, True), {})
    (['x'], {'axis': 1, 'keepdims': True})
    >>> bind(("x", 1), {"axis": 0})
    Traceback (most recent call last):
    ...
    hybridlab.base.MXNetTypeError: sum: argument 'axis' given twice: expected it once, got 1 positionally and 0 by keyword
"""
import inspect

import numpy as _onp

from ..base import MXNetError, MXNetTypeError
from .registry import NsName

__all__ = ["make_binder", "possible_inputs", "positional_attrs", "signature"]

_NUMBERS = (int, float, complex, _onp.generic)


def possible_inputs(op):
    """Every input ``op`` can take, in order (those of its default attributes when the registry
    does not list them); ``None`` when only a call's attributes tell (``Custom``: its ``op_type``)."""
    if op.all_inputs is not None:
        return op.all_inputs
    if op.count_attr is not None:
        return ()
    try:
        return tuple(op.inputs(op.parse_attrs({})))
    except MXNetError:
        return None if op.open_attrs else ()


def positional_attrs(op, ns=None):
    """The attribute names positional arguments after the inputs fill, in order (none for ops with
    free keywords: ``Custom(*data, op_type=..., **kwargs)``, as in MXNet)."""
    if ns is not None and ns.args:
        return tuple(ns.args)
    if op.open_attrs or op.count_attr is not None:
        return ()
    return tuple(k for k in op.attrs if k != "num_args")


def make_binder(op, ns=None, *, is_tensor, tensor_class=None, numbers_are_inputs=False,
                drop_missing=False):
    """``bind(args, kwargs) -> (inputs, attrs)`` for ``op`` called by the name ``ns`` (an ``NsName``).

    ``is_tensor(x)`` says what the namespace's tensors are (``tensor_class`` is checked first, by
    identity, to keep imperative calls fast). ``numbers_are_inputs``: NumPy semantics. Missing
    inputs (``None``) are removed when ``drop_missing`` (imperative calls: the op takes fewer
    inputs), else kept as ``None`` with trailing ones trimmed (graph building makes them variables).
    ``kwargs`` is consumed: the returned attributes are that dict (or a renamed copy)."""
    ns = ns or NsName(op.name)
    label = ns.name
    rename, defaults, packed = ns.rename, ns.defaults, ns.packed
    variadic = op.variadic
    leading = variadic or op.count_attr is not None     # every leading tensor is an input
    possible = () if variadic else possible_inputs(op)
    dynamic = possible is None      # the inputs are named by the call's attributes
    possible = possible or ()
    n_possible = len(possible)
    pos_attrs = positional_attrs(op, ns)
    n_pos_attrs = len(pos_attrs)
    numbers_in = numbers_are_inputs or not pos_attrs

    def is_input(x, is_tensor=is_tensor, numbers_in=numbers_in):
        return is_tensor(x) or (numbers_in and isinstance(x, _NUMBERS))

    # the common call binds as is: tensors (of tensor_class) for the first inputs, keywords that name no
    # input, nothing to rename or default (what the general path below gives it, without its scans)
    plain = not (rename or defaults or leading or dynamic) and tensor_class is not None

    # The binder's constants are default values rather than closure variables: a closure holds a cell per
    # variable, and the ~2800 binders of the namespaces live from import on, so their ~55,000 cells were a
    # third of the objects every full garbage collection walks (a pause in a build; calls are as fast).
    # Only ``(args, kwargs)`` are ever passed.
    def bind(args, kwargs, plain=plain, n_possible=n_possible, input_names=frozenset(possible),
             cls=tensor_class, rename=rename, possible=possible, dynamic=dynamic, op=op, is_tensor=is_tensor,
             is_input=is_input, leading=leading, packed=packed, variadic=variadic, label=label,
             pos_attrs=pos_attrs, n_pos_attrs=n_pos_attrs, ns=ns, defaults=defaults, drop_missing=drop_missing):
        if plain and len(args) <= n_possible and input_names.isdisjoint(kwargs):
            for a in args:
                if a.__class__ is not cls:
                    break
            else:
                return list(args), kwargs
        if rename:
            kwargs = {rename.get(k, k): v for k, v in kwargs.items()}
        n_args = len(args)
        missing = False
        names, n_names = possible, n_possible
        if dynamic:
            names = op.input_names(op.parse_attrs({k: v for k, v in kwargs.items()
                                                   if v is not None and not is_tensor(v)}))
            n_names = len(names)
        if leading:
            if packed:
                if not n_args:
                    raise MXNetTypeError(f"{label}: expected a sequence of arrays as the first argument, "
                                         f"got no positional argument")
                inputs, n_in = list(args[0]), 1
            else:
                n_in = 0
                while n_in < n_args and (args[n_in].__class__ is cls or args[n_in] is None
                                         or is_input(args[n_in])):
                    n_in += 1
                inputs = list(args[:n_in])
            if variadic:
                kwargs.setdefault("num_args", len(inputs))
        else:
            n_in = 1 if n_args and n_names else 0
            missing = n_in == 1 and args[0] is None
            limit = n_args if n_args < n_names else n_names
            while n_in < limit:
                a = args[n_in]
                if a.__class__ is not cls:
                    if a is None:
                        missing = True
                    elif not is_input(a):
                        break
                n_in += 1
            inputs = list(args[:n_in])
            if kwargs:
                for i, input_name in enumerate(names):
                    if input_name in kwargs:
                        if i < n_in:
                            raise _twice(label, input_name, args[i], kwargs[input_name])
                        while len(inputs) <= i:
                            inputs.append(None)
                        inputs[i] = kwargs.pop(input_name)
                        missing = True
        if n_in < n_args:
            if n_args - n_in > n_pos_attrs:
                raise _too_many(label, names, pos_attrs, args, n_in, leading, packed, ns)
            for i in range(n_in, n_args):
                k = pos_attrs[i - n_in]
                if k in kwargs:
                    raise _twice(label, _user_name(ns, k), args[i], kwargs[k])
                kwargs[k] = args[i]
        if defaults:
            for k, v in defaults.items():
                kwargs.setdefault(k, v)
        if missing:
            if drop_missing:
                inputs = [x for x in inputs if x is not None]
            else:
                while inputs and inputs[-1] is None:
                    inputs.pop()
        return inputs, kwargs

    bind.op, bind.ns, bind.inputs, bind.positional = op, ns, possible, pos_attrs
    return bind


def signature(bind, keywords):
    """The ``inspect.Signature`` a binder accepts, for ``help()``: inputs and the positional
    attributes (positional or keyword), the other attributes keyword-only, then the namespace's
    own ``keywords`` (``("out", "name")`` in ``nd``, ``("name", "attr", "out")`` in ``sym``);
    ``None`` when the names collide so that Python cannot express it.

    >>> import hybridlab as mx
    >>> print(signature(mx.nd.sum.binder, ("out", "name")))
    (data=None, axis=None, keepdims=False, exclude=False, *, out=None, name=None)
    """
    op, ns = bind.op, bind.ns
    P, K = _parameter, inspect.Parameter
    if op.variadic or op.count_attr is not None:
        params = [P("data", K.VAR_POSITIONAL)]
        positional = ()
    else:
        params = [P(n, K.POSITIONAL_OR_KEYWORD, default=None) for n in bind.inputs]
        positional = bind.positional
    spec_of = op.attrs
    params += [P(_user_name(ns, k), K.POSITIONAL_OR_KEYWORD, default=_default(spec_of[k]))
               for k in positional if k in spec_of]
    params += [P(_user_name(ns, k), K.KEYWORD_ONLY, default=_default(spec))
               for k, spec in spec_of.items() if k not in positional and not (op.variadic and k == "num_args")]
    params += [P(k, K.KEYWORD_ONLY, default=None) for k in keywords]
    seen, unique = set(), []
    for p in params:
        if p.name not in seen:
            seen.add(p.name)
            unique.append(p)
    try:
        return inspect.Signature(unique)
    except ValueError:
        return None


def _parameter(name, kind, default=inspect.Parameter.empty):
    """``inspect.Parameter(name, kind, default)``, one object for each such parameter of the ~2800 signatures
    (they live from import on: fewer objects for every full garbage collection to walk)."""
    key = (name, kind, type(default), default)
    try:
        parameter = _parameters.get(key)
    except TypeError:           # an unhashable default
        return inspect.Parameter(name, kind, default=default)
    if parameter is None:
        parameter = _parameters[key] = inspect.Parameter(name, kind, default=default)
    return parameter


_parameters = {}


def _default(spec):
    return None if spec.required else spec.default


def _user_name(ns, attr):
    """The keyword a user of ``ns`` writes for the op attribute ``attr`` (undoing a rename)."""
    for user, op_name in ns.rename.items():
        if op_name == attr:
            return user
    return attr


def _short(v):
    text = repr(v) if not hasattr(v, "shape") else f"{type(v).__name__} of shape {getattr(v, 'shape', '?')}"
    return text if len(text) <= 40 else text[:37] + "..."


def _twice(label, name, positional, keyword):
    return MXNetTypeError(f"{label}: argument '{name}' given twice: expected it once, got "
                          f"{_short(positional)} positionally and {_short(keyword)} by keyword")


def _too_many(label, possible, pos_attrs, args, n_in, variadic, packed, ns):
    if variadic:
        inputs = "a sequence of inputs" if packed else "the inputs"
    else:
        inputs = f"{len(possible)} input(s)" + (f" ({', '.join(possible)})" if possible else "")
    attrs = ", ".join(_user_name(ns, k) for k in pos_attrs) or "none"
    extra = ", ".join(_short(v) for v in args[n_in + len(pos_attrs):])
    return MXNetTypeError(f"{label}: too many positional arguments: expected at most {inputs} then "
                          f"{len(pos_attrs)} attribute(s) ({attrs}), got {len(args)} positional arguments "
                          f"({n_in} taken as inputs; unexpected: {extra})")
