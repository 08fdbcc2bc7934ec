"""Initializers built from others: ``Load`` (values from a dict or a ``.params`` file, a default
for the rest) and ``Mixed`` (the first initializer whose pattern matches the name)."""
import re

from ..base import MXNetError, MXNetValueError
from .base import InitDesc, Initializer, _fill, create, register

__all__ = ["Load", "Mixed"]


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
        from ..ndarray import load as _load
        from ..ndarray.ndarray import NDArray
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
