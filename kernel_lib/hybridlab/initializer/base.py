"""The initializer base class and registry behind ``mx.init.create``: ``Initializer`` (the name rules
of MXNet: weight, bias, gamma, beta, running statistics), ``InitDesc``, ``register``/``alias``, and
the opt-in for file-reading initializers from model files (``allow_file_initializers``)."""
import contextlib
import contextvars
import json

import numpy as np

from ..base import MXNetError, MXNetTypeError, MXNetValueError  # MXNet raises Value/TypeError here
from ..fileio import parse_json

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "allow_file_initializers"]

_REGISTRY = {}
_FILES_ALLOWED = contextvars.ContextVar("hybridlab_file_initializers", default=False)


@contextlib.contextmanager
def allow_file_initializers(allow=True):
    """Within this block, dumps strings (``__init__`` attributes of model files) may create
    initializers that read files (``["load", {"param": "w.params"}]``). Use it only for model files
    you trust: such an attribute opens whatever path the file names.

    >>> import hybridlab as mx
    >>> try:
    ...     mx.init.create('["load", {"param": "/etc/passwd"}]')
    ... except mx.MXNetError as err:
    ...     print(str(err)[:61])
    initializer '["load", {"param": "/etc/passwd"}]' reads a file
    """
    token = _FILES_ALLOWED.set(bool(allow))
    try:
        yield
    finally:
        _FILES_ALLOWED.reset(token)


def register(klass):
    """Register an Initializer class under its lower-cased class name (``create`` finds it)."""
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise TypeError(f"register expected an Initializer subclass, got {klass!r}")
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*aliases):
    """Decorator registering an Initializer class under extra names (``Zero`` is also 'zeros')."""
    def reg(klass):
        register(klass)
        for name in aliases:
            _REGISTRY[name.lower()] = klass
        return klass
    return reg


def create(init, **kwargs):
    """An Initializer from an instance (returned as is), a registered name ('xavier', 'zeros') or
    a ``dumps()`` string ('["xavier", {"magnitude": 2}]').

    >>> import hybridlab as mx
    >>> mx.init.create('["normal", {"sigma": 0.5}]').sigma
    0.5
    """
    if isinstance(init, Initializer):
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(**kwargs)
    if not isinstance(init, str):
        raise TypeError(f"Cannot create an initializer from {init!r}: expected an Initializer, a "
                        f"registered name or a dumps() string")
    text = init.strip()
    if not text.startswith("["):
        klass = _lookup(text)
        try:
            return klass(**kwargs)
        except TypeError as err:   # a bare name from a file ('load', 'constant') lacks its arguments
            raise MXNetTypeError(f"Cannot create initializer {text[:80]!r}: {str(err)[:200]}") from None
    shown = text if len(text) <= 80 else text[:80] + "..."
    doc = parse_json(text, f"Cannot parse initializer {shown!r} (as written by Initializer.dumps())", 40)
    name, args = doc if isinstance(doc, list) and len(doc) == 2 else (None, None)
    if not isinstance(name, str) or not isinstance(args, dict):
        raise MXNetError(f"Cannot parse initializer {shown!r}: expected '[name, {{kwargs}}]' with a string "
                         f"name and an object of arguments, got [{type(name).__name__}, {type(args).__name__}]")
    klass = _lookup(name)
    if getattr(klass, "_reads_files", False) and not _FILES_ALLOWED.get():
        raise MXNetError(f"initializer {shown!r} reads a file, and it comes from a dumps string (a model "
                         f"file's __init__ attribute), which may name any path: refused. If you trust the "
                         f"model file, run the initialisation inside 'with mx.init.allow_file_initializers():'; "
                         f"or create mx.init.{klass.__name__}(path) in your code")
    try:
        return klass(**args)
    except (TypeError, ValueError) as err:
        raise MXNetError(f"Cannot create initializer {shown!r}: {str(err)[:200]}") from None


def _lookup(name):
    klass = _REGISTRY.get(str(name).lower())
    if klass is None:
        raise MXNetValueError(f"Cannot find initializer {str(name)[:80]!r}: expected one of {sorted(_REGISTRY)}")
    return klass


class InitDesc(str):
    """A parameter name with the attributes that guide initialisation (``__init__``) and the
    global initializer that was asked to fill it."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _fill(arr, value):
    """Write ``value`` (an NDArray or a number) into ``arr`` in place, in ``arr``'s dtype."""
    from ..ndarray.ndarray import NDArray
    if isinstance(value, NDArray):
        value = value.as_in_context(arr.device).asnumpy()
    arr[:] = np.asarray(value).astype(arr.dtype, copy=False)


def _uniform(low, high, arr):
    from ..ndarray import random as _random
    return _random.uniform(low, high, shape=arr.shape, dtype="float32", ctx=arr.device)


def _normal(loc, scale, arr):
    from ..ndarray import random as _random
    return _random.normal(loc, scale, shape=arr.shape, dtype="float32", ctx=arr.device)


class Initializer:
    """Base class: subclasses implement ``_init_weight(name, arr)``; ``__call__`` dispatches by the
    description's ``__init__`` attribute or by the name's suffix."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Print a summary (``print_func(arr)``, default the L2 norm) of every array initialised."""
        self._verbose = verbose
        self._print_func = print_func or (lambda x: str(float(np.linalg.norm(x.asnumpy())
                                                              / np.sqrt(max(x.size, 1)))))
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            print(f"Initialized {desc} as {init}: {self._print_func(arr)}")

    def dumps(self):
        """MXNet's JSON form ``'["name", {kwargs}]'`` (a variable's ``__init__`` attribute)."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Fill ``arr`` in place; ``desc`` is an ``InitDesc`` (or a plain name, MXNet's legacy form)."""
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffixes, method in _BY_NAME:
            if desc.endswith(suffixes):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, method[6:], arr)
                return
        self._init_default(desc, arr)

    def __eq__(self, other):
        return isinstance(other, Initializer) and type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.__class__.__name__}({', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())})"

    # ---- the per-kind rules ----------------------------------------------------------------
    def _init_zero(self, _, arr):
        _fill(arr, 0)

    def _init_one(self, _, arr):
        _fill(arr, 1)

    def _init_bias(self, _, arr):
        _fill(arr, 0)

    def _init_gamma(self, _, arr):
        _fill(arr, 1)

    def _init_beta(self, _, arr):
        _fill(arr, 0)

    def _init_weight(self, name, arr):
        raise NotImplementedError(f"{type(self).__name__} must override _init_weight (asked to fill {name})")

    def _init_default(self, name, _):
        raise ValueError(
            f"Unknown initialization pattern for {name}. Default initialization is now limited to "
            f'"weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use '
            f"mx.sym.Variable(init=mx.init.*) to set initialization pattern")


# name suffix -> rule, checked in order (MXNet's Initializer.__call__ plus the BatchNorm statistics)
_BY_NAME = [
    (("weight",), "_init_weight"),
    (("bias",), "_init_bias"),
    (("gamma",), "_init_gamma"),
    (("beta",), "_init_beta"),
    (("running_mean", "moving_mean", "moving_inv_var", "moving_avg", "min"), "_init_zero"),
    (("running_var", "moving_var", "max"), "_init_one"),
]
