"""``mx.init``: weight initializers (MXNet's ``mxnet.initializer``).

An initializer fills an array in place given its name: ``init(InitDesc('fc1_weight'), arr)``. A
description carrying an ``__init__`` attribute (what ``Parameter`` passes) uses that initializer's
weight rule; otherwise the name decides, as in MXNet: ``*weight`` -> the initializer's rule,
``*bias``/``*beta``/``*running_mean``/``*moving_mean``/``*min`` -> 0, ``*gamma``/``*running_var``/
``*moving_var``/``*max`` -> 1. Random draws go through ``mx.random``, so ``mx.random.seed`` makes
initialisation reproducible. ``dumps()`` gives MXNet's JSON form, stored in symbol files as a
variable's ``__init__``; ``create`` turns a name, a dumps string or an instance back into one.

Model files are untrusted: a dumps string may create a file-reading initializer (``Load``) only
inside ``with mx.init.allow_file_initializers():``; ``mx.init.Load(path)`` in code is always allowed.

Example::

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((4, 6))
    >>> mx.init.Xavier(magnitude=2.0)(mx.init.InitDesc('fc_weight'), w)
    >>> bool((w.asnumpy() != 0).all())
    True
    >>> mx.init.Xavier().dumps()
    '["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 3}]'
    >>> b = mx.nd.ones((3,))
    >>> mx.init.Uniform()(mx.init.InitDesc('fc_bias'), b)
    >>> b.asnumpy().tolist()
    [0.0, 0.0, 0.0]
"""
import contextlib
import contextvars
import json
import re

import numpy as np

from .base import MXNetError, MXNetTypeError, MXNetValueError  # MXNet raises Value/TypeError here
from .fileio import parse_json

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Zero", "One", "Constant",
           "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear", "LSTMBias", "Mixed", "Load",
           "allow_file_initializers"]

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
    from .ndarray.ndarray import NDArray
    if isinstance(value, NDArray):
        value = value.as_in_context(arr.device).asnumpy()
    arr[:] = np.asarray(value).astype(arr.dtype, copy=False)


def _uniform(low, high, arr):
    from .ndarray import random as _random
    return _random.uniform(low, high, shape=arr.shape, dtype="float32", ctx=arr.device)


def _normal(loc, scale, arr):
    from .ndarray import random as _random
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


@alias("zeros")
class Zero(Initializer):
    """Fills with 0 (also registered as 'zeros')."""

    def _init_weight(self, _, arr):
        _fill(arr, 0)


@alias("ones")
class One(Initializer):
    """Fills with 1 (also registered as 'ones')."""

    def _init_weight(self, _, arr):
        _fill(arr, 1)


@register
class Constant(Initializer):
    """Fills with ``value`` (a number or an array broadcastable to the parameter's shape)."""

    def __init__(self, value):
        from .ndarray.ndarray import NDArray
        stored = value.asnumpy().tolist() if isinstance(value, NDArray) else value
        super().__init__(value=stored.tolist() if isinstance(stored, np.ndarray) else stored)
        self.value = value

    def _init_weight(self, _, arr):
        _fill(arr, np.broadcast_to(np.asarray(self.value.asnumpy() if hasattr(self.value, "asnumpy")
                                              else self.value), arr.shape))


@register
class Uniform(Initializer):
    """Uniform samples in ``[-scale, scale)``.

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((100,)); mx.init.Uniform(0.1)._init_weight('w', w)
    >>> bool((abs(w.asnumpy()) <= 0.1).all())
    True
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill(arr, _uniform(-self.scale, self.scale, arr))


@register
class Normal(Initializer):
    """Normal samples with mean 0 and standard deviation ``sigma``."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill(arr, _normal(0, self.sigma, arr))


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (from the SVD of a random one) times ``scale`` (Saxe et al. 2013)."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        from .ndarray import random as _random
        nout, nin = arr.shape[0], int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == "normal":
            tmp = _random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise ValueError(f"Unknown rand_type {self.rand_type!r}: expected 'uniform' or 'normal'")
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        _fill(arr, self.scale * res.reshape(arr.shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot: samples scaled by ``sqrt(magnitude / factor)``, where the factor is the
    fan-in, fan-out or their average (``factor_type``); ``rnd_type`` is 'uniform' or 'gaussian'."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to vector {name}. It requires at least 2D.")
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
        if self.factor_type not in factors:
            raise ValueError(f"Incorrect factor type {self.factor_type!r}: expected 'avg', 'in' or 'out'")
        scale = np.sqrt(self.magnitude / factors[self.factor_type])
        if self.rnd_type == "uniform":
            _fill(arr, _uniform(-scale, scale, arr))
        elif self.rnd_type == "gaussian":
            _fill(arr, _normal(0, scale, arr))
        else:
            raise ValueError(f"Unknown random type {self.rnd_type!r}: expected 'uniform' or 'gaussian'")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialisation for PReLU nets: Gaussian Xavier with magnitude ``2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear-interpolation kernels for upsampling (``Conv2DTranspose``) weights of shape
    ``(C_out, C_in, kh, kw)``, as MXNet: ``(1 - |x / f - c|) * (1 - |y / f - c|)`` with
    ``f = ceil(kw / 2)``, ``c = (2f - 1 - f % 2) / (2f)``.

    >>> import hybridlab as mx
    >>> w = mx.nd.zeros((1, 1, 4, 4))
    >>> mx.init.Bilinear()('up_weight', w)
    >>> w[0, 0, 0].asnumpy().tolist()
    [0.0625, 0.1875, 0.1875, 0.0625]
    """

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        shape = arr.shape
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        x = np.arange(shape[3])
        y = np.arange(shape[2])
        kernel = np.outer(1 - np.abs(y / f - c), 1 - np.abs(x / f - c)).astype(np.float32)
        _fill(arr, np.broadcast_to(kernel, shape))


@register
class LSTMBias(Initializer):
    """LSTM biases: 0 except the forget gate (the second of the 4 gates), set to ``forget_bias``.
    Give it as a bias initializer (``i2h_bias_initializer=mx.init.LSTMBias(1.0)``).

    >>> import hybridlab as mx
    >>> b = mx.nd.zeros((8,))
    >>> mx.init.LSTMBias(forget_bias=1.0)._init_weight('lstm_i2h_bias', b)
    >>> b.asnumpy().tolist()
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        value = np.zeros(arr.shape, dtype=np.float32)
        num_hidden = int(arr.shape[0] / 4)
        value[num_hidden:2 * num_hidden] = self.forget_bias
        _fill(arr, value)


@register
class Load(Initializer):
    """Initialise from a dict name -> NDArray or a ``.params`` file (``arg:``/``aux:`` prefixes
    dropped), falling back to ``default_init``. From a dumps string only when opted in
    (``allow_file_initializers``): the string could name any file.

    >>> import hybridlab as mx
    >>> init = mx.init.Load({"arg:fc_weight": mx.nd.ones((1, 2))}, default_init=mx.init.Zero())
    >>> w = mx.nd.zeros((1, 2)); init("fc_weight", w); w.asnumpy().tolist()
    [[1.0, 1.0]]
    """

    _reads_files = True

    def __init__(self, param, default_init=None, verbose=False):
        from .ndarray import load as _load
        from .ndarray.ndarray import NDArray
        source = "the given dict"
        if isinstance(param, str):
            source = repr(param)
            param = _load(param)
        if not isinstance(param, dict):
            raise MXNetError(f"Load: expected a dict name -> NDArray or a .params file of named arrays, got "
                             f"{'a file of unnamed arrays' if isinstance(param, list) else type(param).__name__} "
                             f"({source})")
        for k, v in param.items():
            if not isinstance(k, str) or not (v is None or isinstance(v, NDArray)):
                raise MXNetError(f"Load: expected names mapped to NDArrays in {source}, got {type(k).__name__} "
                                 f"{str(k)[:80]!r} -> {type(v).__name__}")
        self.param = {(k[4:] if k.startswith(("arg:", "aux:")) else k): v for k, v in param.items()}
        self.source = source
        self.default_init = create(default_init) if default_init is not None else None
        self.verbose = verbose
        super().__init__()

    def __call__(self, name, arr):
        if name in self.param:
            value = self.param[name]
            if value is None:
                raise MXNetError(f"Parameter {name} cannot be initialized from loading: {self.source} holds an "
                                 f"empty (none) array for it, expected one of shape {arr.shape}")
            if tuple(arr.shape) != tuple(value.shape):
                raise MXNetError(f"Parameter {name} cannot be initialized from loading: shape mismatch, "
                                 f"expected {arr.shape}, got {value.shape}")
            _fill(arr, value)
        elif self.default_init is None:
            raise MXNetValueError(f"Cannot Initialize {name}: not found in loaded param and no default "
                                  f"Initializer is provided.")
        else:
            self.default_init(name, arr)

    def _init_weight(self, name, arr):   # as a variable's own __init__ (opted in): look the name up
        self(str(name), arr)


class Mixed(Initializer):
    """Initialise each parameter with the first initializer whose regex pattern matches its name.

    >>> import hybridlab as mx
    >>> init = mx.init.Mixed(['bias', '.*'], [mx.init.Zero(), mx.init.One()])
    >>> w = mx.nd.zeros((2,)); init('fc_weight', w); w.asnumpy().tolist()
    [1.0, 1.0]
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise ValueError(f"Mixed: expected as many patterns as initializers, got {len(patterns)} "
                             f"patterns and {len(initializers)} initializers")
        super().__init__()
        self.map = list(zip([re.compile(p) for p in patterns], [create(i) for i in initializers]))

    def __call__(self, name, arr):
        own = getattr(name, "attrs", {}).get("__init__")
        if own and own is not self:   # the parameter's own initializer wins (e.g. a bias's 'zeros')
            create(own)._init_weight(name, arr)
            return
        self._init_weight(name, arr)

    def _init_weight(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(InitDesc(str(name)), arr)
                return
        raise ValueError(f"Parameter name {name} did not match any pattern. Consider add a \".*\" "
                         f"pattern at the and with default Initializer.")

    def dumps(self):
        raise MXNetError("Mixed initializers cannot be stored in a symbol file: give each Parameter its "
                         "own init instead")
