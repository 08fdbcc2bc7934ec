"""``ParameterDict``: a dict of Parameters (MXNet 1.x's ``gluon.ParameterDict``).

It is what ``Block.params`` is (keys: full names such as ``dense0_weight``; ``get`` creates the
block's parameters under its prefix, looking in a shared dict first) and what
``Block.collect_params()`` returns (keys: full names such as ``dense0_weight``, as MXNet 1.x; MXNet
2.0's structural names such as ``0.weight`` are accepted when looking up). ``initialize``, ``zero_grad``, ``reset_device``, ``setattr``,
``save`` and ``load`` act on every parameter in it.

Example::

    >>> import hybridlab as mx
    >>> params = mx.gluon.ParameterDict('net_')
    >>> w = params.get('weight', shape=(2, 3))
    >>> w.name, list(params.keys())
    ('net_weight', ['net_weight'])
    >>> params.get('weight') is w
    True
    >>> params.initialize(mx.init.Zero())
    >>> params['net_weight'].data().asnumpy().tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
"""
import warnings

from .. import initializer
from ..base import MXNetError, MXNetTypeError
from .parameter import Constant, Parameter
from .utils import brief_print_list, indent

__all__ = ["ParameterDict", "ParamLoadError", "load_checked"]


class ParamLoadError(MXNetError, AssertionError):
    """A parameter file does not match the block (MXNet raises AssertionError; both catch this)."""


def load_checked(pairs, source, device=None, cast_dtype=False, dtype_source="current"):
    """Load ``(parameter, key, value)`` triples read from ``source`` (a file name or "param_dict"):
    every value is checked against its parameter first (an array, a compatible shape, the same
    dtype unless ``cast_dtype``), so a file that does not fit changes no parameter; then each
    parameter is (re)initialised from its value. A mismatch is a ``ParamLoadError`` naming the
    source, the key and the expected vs saved shape or dtype.

    >>> import hybridlab as mx
    >>> from hybridlab.gluon.parameter_dict import load_checked
    >>> w = mx.gluon.Parameter('w', shape=(2, 3))
    >>> try:
    ...     load_checked([(w, 'w', mx.nd.ones((3, 2)))], 'm.params')
    ... except AssertionError as err:
    ...     print(err)
    Failed loading Parameter 'w' from saved params: shape incompatible expected (2, 3) vs saved (3, 2)
    (m.params, key 'w')
    """
    import numpy as np
    from ..ndarray.ndarray import NDArray, array
    if cast_dtype and dtype_source not in ("current", "saved"):
        raise AssertionError(f"dtype_source must be 'current' or 'saved', got {dtype_source!r}")
    checked = []
    for param, key, value in pairs:
        at = f"({source}, key {key!r})"
        if isinstance(value, np.ndarray):
            value = array(value, dtype=value.dtype)
        if not isinstance(value, NDArray):
            raise MXNetTypeError(f"Failed loading Parameter '{param.name}': expected an array, got "
                                 f"{type(value).__name__} {at}")
        shape = param.shape
        if shape and (len(shape) != len(value.shape)
                      or any(s not in (0, -1, d) for s, d in zip(shape, value.shape))):
            raise ParamLoadError(f"Failed loading Parameter '{param.name}' from saved params: shape incompatible "
                                 f"expected {shape} vs saved {value.shape} {at}")
        if param.dtype != value.dtype and not cast_dtype:
            raise ParamLoadError(f"Failed loading Parameter '{param.name}' from saved params: dtype incompatible "
                                 f"expected {param.dtype} vs saved {value.dtype}. Set cast_dtype=True to cast "
                                 f"the dtype of saved params. {at}")
        checked.append((param, value, at))
    for param, value, at in checked:
        try:
            param._load_init(value, device, cast_dtype=cast_dtype, dtype_source=dtype_source)
        except MXNetError:
            raise
        except AssertionError as err:       # Parameter's own checks: MXNet's type, with the source
            raise ParamLoadError(f"{err} {at}") from None


class ParameterDict(dict):
    """Parameters by name, with a ``prefix`` for the ones ``get`` creates and an optional
    ``shared`` dict consulted first (weight sharing)."""

    def __init__(self, prefix="", shared=None):
        super().__init__()
        self._prefix = prefix
        self._shared = shared
        self._structural = {}   # structural name -> Parameter, filled by Block.collect_params

    def __repr__(self):
        name = f"{self._prefix} " if self._prefix else ""
        content = "\n".join(indent(f"  {v!r}", 2) for v in self.values())
        return f"{name}(\n{content}\n)"

    @property
    def prefix(self):
        """Prefix of the names ``get`` creates."""
        return self._prefix

    def __missing__(self, key):
        # collect_params() is keyed by full names (MXNet 1.x: 'dense0_weight'); MXNet 2.0 code
        # indexes it by structural names ('0.weight'), kept aside in _structural.
        if key in self._structural:
            return self._structural[key]
        for p in self.values():
            if p.name == key or p._var_name == key:
                return p
        raise KeyError(f"{key!r} is not a parameter here: keys are {brief_print_list(self.keys())}")

    def _get_impl(self, name):
        if name in self:
            return dict.__getitem__(self, name)
        if self._shared is not None:
            found = self._shared._lookup(name) if isinstance(self._shared, ParameterDict) else self._shared.get(name)
            if found is not None:
                self[name] = found
                return found
        return None

    def _lookup(self, name):
        if name in self:
            return dict.__getitem__(self, name)
        for p in self.values():
            if p.name == name:
                return p
        if isinstance(self._shared, ParameterDict):
            return self._shared._lookup(name)
        return None

    def get(self, name, **kwargs):
        """The parameter ``prefix + name``, created with ``kwargs`` when it does not exist (found
        parameters get unknown attributes filled in; conflicting ones are an error)."""
        if not kwargs and (name in self or name in self._structural):   # a plain lookup (MXNet 2.0's dict.get)
            return self[name]
        full = self._prefix + name
        param = self._get_impl(full)
        if param is None:
            param = Parameter(full, **kwargs)
            param._from_dict = True
            self[full] = param
        else:
            param._check_and_setattr(**kwargs)
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name`` (created from ``value`` when it does not exist)."""
        full = self._prefix + name
        param = self._get_impl(full)
        if param is None:
            if value is None:
                raise KeyError(f"No constant named '{full}'. Please specify value if you want to create a new "
                               f"constant.")
            param = Constant(value, name=full)
            self[full] = param
        elif value is not None and not isinstance(param, Constant):
            raise AssertionError(f"Parameter '{full}' already exists but it is not a constant.")
        return param

    def update(self, other=(), **kwargs):
        """Add the parameters of ``other``; a different Parameter under an existing name is an error."""
        items = other.items() if hasattr(other, "items") else other
        for k, v in list(items) + list(kwargs.items()):
            if k in self and dict.__getitem__(self, k) is not v:
                raise AssertionError(f"Cannot update self with other because they have different Parameters "
                                     f"with the same name '{k}'")
            self[k] = v

    def initialize(self, init=initializer.Uniform(), device=None, verbose=False, force_reinit=False, ctx=None):
        """Initialise every parameter (``init`` is the default for those without their own)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, device if device is not None else ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set every gradient buffer to 0."""
        for p in self.values():
            p.zero_grad()

    def reset_device(self, device):
        """Move every parameter to ``device``."""
        for p in self.values():
            p.reset_device(device)

    reset_ctx = reset_device

    def list_device(self):
        """The devices the parameters live on."""
        out = []
        for p in self.values():
            out.extend(d for d in p.list_device() if d not in out)
        return out

    list_ctx = list_device

    def setattr(self, name, value):
        """Set attribute ``name`` (e.g. 'grad_req', 'lr_mult') of every parameter."""
        for p in self.values():
            setattr(p, name, value)

    def save(self, filename, strip_prefix=""):
        """Save with full names (``strip_prefix`` removed from each) as an MXNet ``.params`` file."""
        from ..ndarray import save as _save
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError(f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's name "
                                 f"'{param.name}' does not start with '{strip_prefix}'. this may be due to your "
                                 f"Block shares parameters from other Blocks or you forgot to use "
                                 f"'with name_scope()' when creating child blocks. For more info on naming, "
                                 f"please see https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html")
            arg_dict[param.name[len(strip_prefix):]] = weight
        _save(filename, arg_dict)

    def load(self, filename, device=None, allow_missing=False, ignore_extra=False, restore_prefix="",
             cast_dtype=False, dtype_source="current", ctx=None):
        """Load from a ``.params`` file (``arg:``/``aux:`` prefixes are stripped, ``restore_prefix`` added)."""
        from ..ndarray import load as _load
        from ..base import MXNetValueError
        loaded = _load(filename) or {}
        if not isinstance(loaded, dict):
            raise MXNetError(f"{filename!r} holds a list of arrays without names: expected a dict of parameters")
        loaded = {restore_prefix + (k[4:] if k.startswith(("arg:", "aux:")) else k): v for k, v in loaded.items()}
        by_name = {p.name: p for p in self.values()}
        if not allow_missing:
            for name in by_name:
                if name not in loaded:
                    raise ParamLoadError(f"Parameter '{name[len(restore_prefix):]}' is missing in file '{filename}', "
                                         f"which contains parameters: {brief_print_list(loaded.keys()) or '(none)'}. "
                                         f"Please make sure source and target networks have the same prefix.")
        pairs = []
        for name, value in loaded.items():
            if name not in by_name:
                if not ignore_extra:
                    raise MXNetValueError(f"Parameter '{name[len(restore_prefix):]}' loaded from file '{filename}' "
                                          f"is not present in ParameterDict, choices are: "
                                          f"{brief_print_list(by_name.keys())}. Set ignore_extra to True to ignore. "
                                          f"Please make sure source and target networks have the same prefix.")
                continue
            pairs.append((by_name[name], name, value))
        load_checked(pairs, f"file {filename}", device if device is not None else ctx, cast_dtype, dtype_source)

    def __setitem__(self, key, value):
        if not isinstance(value, Parameter):
            warnings.warn(f"ParameterDict: storing a {type(value).__name__} under '{key}', expected a Parameter",
                          stacklevel=2)
        dict.__setitem__(self, key, value)
